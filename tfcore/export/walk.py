"""The one walk over a model's layer graph that every export format starts from.

:func:`model_graph` turns a built Sequential or functional model (nested models included) into the
list of layer calls in execution order; :func:`lower` runs each call's converter to produce the
format-neutral :class:`~.graph.Graph` that the ONNX and TFLite writers take.
"""

import numpy as np

from ..framework import nest
from ..framework.tensor_shape import TensorShape
from ..keras.engine.functional import GraphNetwork
from ..keras.engine.input_layer import Input, InputLayer
from .converters import CONVERTERS, UnsupportedLayerError
from .graph import Graph


def network_of(model):
    """The :class:`GraphNetwork` of a functional or Sequential ``model`` (built with known inputs), or of a
    subclassed model whose ``call`` is traced once on symbolic inputs of its build shape."""
    net = getattr(model, "_graph", None)
    if net is not None:
        return net
    inputs, outputs = getattr(model, "inputs", None), getattr(model, "outputs", None)
    if inputs and outputs:
        return GraphNetwork(inputs, outputs)
    shape = getattr(model, "_build_input_shape", None)
    if shape is None or type(model).__name__ == "Sequential":
        raise UnsupportedLayerError(
            f"Cannot export model '{model.name}' ({type(model).__name__}): its input shape is unknown. Give it an "
            "`Input` (or `input_shape=` on the first layer), call `model.build(shape)`, or call it on data first.")
    return _trace_subclassed(model, shape)


def _trace_subclassed(model, shape):
    """Run a subclassed model's ``call`` on ``keras.Input``s: its layer calls become a functional graph."""

    shapes = shape if isinstance(shape, list | tuple) and shape and not isinstance(shape[0], int | type(None)) \
        else [shape]
    shapes = [(None,) + tuple(TensorShape(s).as_list())[1:] for s in shapes]  # the batch stays dynamic
    inputs = [Input(batch_shape=s) for s in shapes]
    try:
        outputs = model.call(inputs[0] if len(inputs) == 1 else inputs)
        return GraphNetwork(inputs, outputs)
    except UnsupportedLayerError:
        raise
    except Exception as e:
        raise UnsupportedLayerError(
            f"Cannot export subclassed model '{model.name}' ({type(model).__name__}): tracing its call() on "
            f"symbolic inputs of shape {shapes} failed "
            f"({type(e).__name__}: {e}). Export needs a call() made of layer calls.") from e


def layer_calls(model):
    """``[(layer, input_keras_tensors, output_keras_tensors, node)]`` in execution order, nested models inlined.

    KerasTensors of a nested model's inputs are aliased to the outer tensors that feed them; the returned
    ``aliases`` maps ``id(inner_input)`` to the outer KerasTensor.
    """
    calls, aliases, inlined = [], {}, set()

    def visit(model):
        net = network_of(model)
        for node in net.nodes:
            if node.is_input:
                continue
            layer = node.layer
            if isinstance(layer, InputLayer):
                continue
            if _is_network(layer):
                if id(layer) in inlined:  # its inner tensors would stand for two different calls
                    raise UnsupportedLayerError(f"Cannot export nested model '{layer.name}' "
                                                f"({type(layer).__name__}): it is called more than once")
                inlined.add(id(layer))
                inner = network_of(layer)
                if len(inner.inputs) != len(node.keras_inputs):
                    raise UnsupportedLayerError(f"Cannot export nested model '{layer.name}': called with "
                                                f"{len(node.keras_inputs)} inputs, it has {len(inner.inputs)}")
                for kt_in, kt_outer in zip(inner.inputs, node.keras_inputs):
                    aliases[id(kt_in)] = kt_outer
                visit(layer)
                for kt_out, kt_inner in zip(node.flat_outputs, inner.outputs):
                    aliases[id(kt_out)] = kt_inner
                continue
            calls.append((layer, list(node.keras_inputs), list(node.flat_outputs), node))
        return net

    net = visit(model)
    return net, calls, aliases


def _is_network(layer):
    return getattr(layer, "_graph", None) is not None or type(layer).__name__ == "Sequential"


def check_supported(calls):
    """Raise before anything is written when a layer has no converter."""
    for layer, *_ in calls:
        if type(layer) not in CONVERTERS:
            raise UnsupportedLayerError(f"Cannot export layer '{layer.name}' ({type(layer).__name__}): no "
                                        f"exporter for {type(layer).__name__} layers. Supported: "
                                        f"{', '.join(sorted({c.__name__ for c in CONVERTERS}))}")


def _shape(kt):
    return tuple(kt.shape.as_list())


def lower(model):
    """The format-neutral graph of ``model`` (inference mode, float32)."""
    net, calls, aliases = layer_calls(model)
    check_supported(calls)
    g = Graph(model.name)
    names = {}

    def resolve(kt):
        while id(kt) in aliases and id(kt) not in names:
            kt = aliases[id(kt)]
        return names[id(kt)]

    for kt, layer in zip(net.inputs, net.input_layers):
        dtype = kt._dtype.as_numpy_dtype if kt._dtype.is_floating is False else np.float32
        names[id(kt)] = g.add_input(layer.name, _shape(kt), dtype)
    for layer, kins, kouts, node in calls:
        xs = [resolve(k) for k in kins]
        lower_layer = CONVERTERS[type(layer)][0]
        extra = {"node": node} if getattr(lower_layer, "wants_node", False) else {}
        outs = lower_layer(layer, g, xs, [_shape(k) for k in kouts], **extra)
        for kt, name in zip(kouts, outs):
            names[id(kt)] = name
    g.outputs = [resolve(kt) for kt in nest.flatten(net.outputs)]
    return g
