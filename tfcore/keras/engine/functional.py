"""The functional API's graph: which layer calls (nodes) lead from a model's inputs to its outputs.

:class:`GraphNetwork` walks back from the output KerasTensors through the recorded
:class:`~tfcore.keras.engine.node.Node`s, orders nodes and layers as Keras does
(by decreasing depth, inputs first), checks that every path starts at one of the
model's inputs, and replays the nodes on real tensors (or on TensorSpecs to compute
output shapes without running anything).
"""

from ...framework import nest
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import is_tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.tensor_shape import TensorShape
from ...framework.tensor_spec import TensorSpec
from ...ops import array_ops
from ...ops.math_ops import cast as _cast
from .keras_tensor import KerasTensor


def cast(x, dtype):
    return _cast(x, dtype)


def conform_input(x, kt):
    """``x`` (a tensor or array given for the Input ``kt``) as Keras 3 standardizes a model's inputs: numbers
    cast to the Input's dtype (int64 data into a float32 model) and the rank adjusted by a trailing 1
    (labels-like ``(B,)`` data for an ``Input((1,))``, or ``(B, n, 1)`` for ``Input((n,))``). Other values
    (specs, sparse and ragged tensors, strings) are returned as they are."""
    if not is_tensor(x):
        if not hasattr(x, "__array__") or isinstance(x, TensorSpec):
            return x
        try:
            x = convert_to_tensor(x)
        except (TypeError, ValueError):
            return x
    if not hasattr(x, "_array"):
        return x
    if x.dtype is not kt._dtype and (x.dtype.is_floating or x.dtype.is_integer) \
            and (kt._dtype.is_floating or kt._dtype.is_integer):
        x = cast(x, kt._dtype)
    ref = kt.shape.as_list() if kt.shape.rank is not None else None
    if ref is not None:
        rank = x._array.ndim
        if rank == len(ref) + 1 and x._array.shape[-1] == 1:
            x = array_ops.squeeze(x, [-1])
        elif rank == len(ref) - 1 and ref and ref[-1] == 1:
            x = array_ops.expand_dims(x, -1)
    return x


class GraphNetwork:
    """The static graph of a functional model (built once from inputs and outputs)."""

    def __init__(self, inputs, outputs):
        self.inputs_structure = inputs
        self.outputs_structure = outputs
        self.inputs = nest.flatten(inputs)
        self.outputs = nest.flatten(outputs)
        for t in self.inputs + self.outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"Model inputs and outputs must be symbolic KerasTensors (from keras.Input and "
                                 f"layer calls); got {t!r}")
        for t in self.inputs:
            node = t.node
            if not node.is_input:
                raise ValueError(f"Model inputs must come from `keras.Input` (thus holding past layer metadata); "
                                 f"{t!r} was produced by layer '{node.layer.name}'.")
        self.input_layers = [t._keras_history.layer for t in self.inputs]
        self.output_layers = [t._keras_history.layer for t in self.outputs]
        self.nodes, self.layers, self.depth_of_node = self._build()

    def _build(self):
        postorder, done, active = [], set(), set()

        def visit(node):
            if id(node) in done:
                return
            if id(node) in active:
                raise ValueError("The functional graph has a cycle")
            active.add(id(node))
            for parent in node.parent_nodes:
                visit(parent)
            active.discard(id(node))
            done.add(id(node))
            postorder.append(node)

        for t in self.outputs:
            visit(t.node)
        input_ids = {id(t) for t in self.inputs}
        for node in postorder:
            if node.is_input and not any(id(t) in input_ids for t in node.flat_outputs):
                raise ValueError(f"Graph disconnected: cannot obtain value for tensor {node.flat_outputs[0]!r} at "
                                 f"layer '{node.layer.name}'. The following previous layers were accessed without "
                                 "issue: " + str([n.layer.name for n in postorder if not n.is_input][:5]))
        # Keras depth: outputs have depth 0, a parent is deeper than each of its children.
        depth = {id(n): 0 for n in postorder}
        for node in reversed(postorder):
            for parent in node.parent_nodes:
                depth[id(parent)] = max(depth[id(parent)], depth[id(node)] + 1)
        order = {id(n): i for i, n in enumerate(postorder)}
        nodes = sorted(postorder, key=lambda n: (-depth[id(n)], order[id(n)]))
        layer_depth, layer_first = {}, {}
        for n in postorder:
            lid = id(n.layer)
            layer_depth[lid] = max(layer_depth.get(lid, 0), depth[id(n)])
            layer_first.setdefault(lid, (order[id(n)], n.layer))
        layers = [lay for _, lay in sorted(layer_first.values(), key=lambda p: p[0])]
        layers.sort(key=lambda lay: (-layer_depth[id(lay)], layer_first[id(lay)][0]))
        # Input layers first, in the order the model's inputs were given (Keras).
        inputs = []
        for lay in self.input_layers:
            if lay not in inputs:
                inputs.append(lay)
        layers = inputs + [lay for lay in layers if lay not in inputs]
        return nodes, layers, depth

    def node_ids(self):
        return {id(n) for n in self.nodes}

    def run(self, inputs):
        """Replay the graph on real tensors; ``inputs`` matches the model's input structure."""
        flat = self._flatten_inputs(inputs)
        values = {}
        for kt, v in zip(self.inputs, flat):
            if getattr(kt, "sparse", False) and isinstance(v, SparseTensor):  # Input(sparse=True), as Keras 3
                if v.dtype is not kt._dtype:
                    v = SparseTensor(v.indices, cast(v.values, kt._dtype), v.dense_shape)
                values[id(kt)] = v
                continue
            if not is_tensor(v):
                v = convert_to_tensor(v)
            if v.dtype is not kt._dtype and (v.dtype.is_floating or v.dtype.is_integer) \
                    and (kt._dtype.is_floating or kt._dtype.is_integer):
                v = cast(v, kt._dtype)
            values[id(kt)] = v
        for node in self.nodes:
            if node.is_input:
                continue
            args, kwargs = node.map_arguments(values)
            outs = node.layer(*args, **kwargs)
            for kt, v in zip(node.flat_outputs, nest.flatten(outs)):
                values[id(kt)] = v
        return nest.pack_sequence_as(self.outputs_structure, [values[id(t)] for t in self.outputs])

    def output_signature(self, input_signature):
        """Output TensorSpecs for input specs, propagated with each layer's static shape rules."""
        flat = self._flatten_inputs(input_signature)
        values = {id(kt): TensorSpec(s.shape, s.dtype) for kt, s in zip(self.inputs, flat)}
        for node in self.nodes:
            if node.is_input:
                continue
            layer = node.layer
            args, kwargs = node.map_arguments(values)
            outs = layer._signature_call(args, kwargs)
            for kt, v in zip(node.flat_outputs, nest.flatten(outs)):
                values[id(kt)] = v
        return nest.pack_sequence_as(self.outputs_structure, [values[id(t)] for t in self.outputs])

    def _flatten_inputs(self, inputs):
        if isinstance(inputs, dict) and not isinstance(self.inputs_structure, dict):
            names = [lay.name for lay in self.input_layers]
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"Missing data for input(s) {missing}; expected keys {names}")
            return [conform_input(inputs[n], kt) for n, kt in zip(names, self.inputs)]
        flat = nest.flatten(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError(f"Layer expects {len(self.inputs)} input(s), but it received {len(flat)} input "
                             f"tensors. Inputs received: {[getattr(x, 'shape', x) for x in flat]}")
        return [conform_input(x, kt) for x, kt in zip(flat, self.inputs)]

    def check_input_shapes(self, inputs, model_name):
        """Raise ValueError when a real input's shape contradicts an Input's declared shape."""
        for i, (kt, x) in enumerate(zip(self.inputs, self._flatten_inputs(inputs))):
            shape = getattr(x, "shape", None)
            if shape is None:
                continue
            got = shape if isinstance(shape, TensorShape) else TensorShape(tuple(shape))
            if not kt.shape.is_compatible_with(got):
                history = getattr(kt, "_keras_history", None)
                name = getattr(getattr(history, "layer", None), "name", None)
                raise ValueError(f"Input {i} with name '{name}' of layer '{model_name}' is incompatible with the "
                                 f"layer: expected shape={tuple(kt.shape.as_list())}, found "
                                 f"shape={tuple(got.as_list())}")
