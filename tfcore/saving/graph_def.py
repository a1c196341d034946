"""``FuncGraph.as_graph_def()``: a traced graph as TF's ``GraphDef`` protobuf.

Built from the same ``FunctionDef`` that a SavedModel stores (:func:`function_serialization.function_def`),
flattened the way TF lays out a ``FuncGraph``: one ``Placeholder`` per input (named after the Python
parameter), the function's nodes with their inputs written ``node`` / ``node:i``, and one ``Identity``
per output. Nodes that run Python code (control flow, ``tf.py_function``) appear under their own type
(TF would show ``If``/``While`` with function attributes). Registered into ``tfcore.function`` by
``tfcore.saving`` (functions must not import saving: imports point downwards).
"""

import types

from ..ops.registry import REGISTRY
from .function_serialization import function_def
from .saved_model_protos import pb


def _tensor_name(fdef_ref, input_names, named_outputs=None):
    """``'node:out_arg:i'`` (FunctionDef) as ``'node'`` / ``'node:i'`` (GraphDef); inputs keep their name.
    ``named_outputs``: node -> its op's output names, where it has several (``TopKV2:indices:0`` is ``:1``)."""
    if fdef_ref.startswith("^") or fdef_ref in input_names:
        return fdef_ref
    parts = fdef_ref.split(":")
    if len(parts) == 3:
        i = int(parts[2])
        if named_outputs and parts[0] in named_outputs:
            i += named_outputs[parts[0]].index(parts[1])
        return parts[0] if i == 0 else f"{parts[0]}:{i}"
    return fdef_ref


def _named_outputs(fdef):
    found = {}
    for nd in fdef.node_def:
        op = REGISTRY.get(nd.op)
        if op is not None and isinstance(op.output_arg, tuple):
            found[nd.name] = op.output_arg
    return found


def graph_def(graph):
    """The ``GraphDef`` of a ``FuncGraph`` (``ConcreteFunction.graph.as_graph_def()``)."""
    gpb = pb("graph_pb2")
    params = list(getattr(graph, "_param_names", ()) or ())
    n_in = len(graph.placeholders)
    arg_names = params if len(params) == n_in else [f"args_{i}" for i in range(n_in)]
    cf = types.SimpleNamespace(graph=graph, name=graph.name)
    fdef, _ = function_def(cf, graph.name, arg_names, display=True)
    gd = gpb.GraphDef()
    slot_of_input = dict(zip(arg_names, graph.placeholders))
    input_names = set()
    for arg in fdef.signature.input_arg:
        input_names.add(arg.name)
        nd = gd.node.add(name=arg.name, op="Placeholder")
        nd.attr["dtype"].type = arg.type
        spec = graph.slot_values[slot_of_input[arg.name]] if arg.name in slot_of_input else None
        shape = getattr(spec, "shape", None)
        if shape is not None and shape.rank is not None:
            for d in shape.as_list():
                nd.attr["shape"].shape.dim.add(size=-1 if d is None else d)
        elif shape is not None:
            nd.attr["shape"].shape.unknown_rank = True
    named = _named_outputs(fdef)
    for src in fdef.node_def:
        nd = gd.node.add()
        nd.CopyFrom(src)
        del nd.input[:]
        nd.input.extend(_tensor_name(i, input_names, named) for i in src.input)
    used = {nd.name for nd in gd.node}
    k = 0
    for out in fdef.signature.output_arg:
        while (name := "Identity" if k == 0 else f"Identity_{k}") in used:
            k += 1
        used.add(name)
        nd = gd.node.add(name=name, op="Identity")
        nd.input.append(_tensor_name(fdef.ret[out.name], input_names, named))
        nd.attr["T"].type = out.type
    return gd
