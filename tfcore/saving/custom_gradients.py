"""``tf.custom_gradient`` in a SavedModel, in TF's layout (``SaveOptions(experimental_custom_gradients=True)``).

A traced custom gradient is an ``IdentityN`` node over ``results + inputs (+ variable values)`` whose
``_gradient_op_type`` attribute names a gradient (see :mod:`tfcore.autodiff.custom_gradient`). Saving
traces that gradient into a function of the library and lists it in
``FunctionDefLibrary.registered_gradients`` (``gradient_func`` / ``registered_op_type``), as TF's
``save.py`` does: its arguments are one upstream gradient per ``IdentityN`` output (its input signature
``(None, result_grads_0, ...)``, the ``None`` standing for TF's ``op`` argument), the decorated function's
inputs are *captured* tensors of the forward function (``captured_tensor`` nodes in its ``bound_inputs``),
and its output signature lists ``None`` for the inputs that get no gradient.

Loading registers each gradient function under a fresh op type (TF: ``_gen_gradient_func``) and renames the
``IdentityN`` nodes of the loaded functions to it; the gradient feeds the captured tensors from the
``IdentityN`` node's inputs of the call being differentiated. Nothing in the file is code: the gradient
runs as an interpreted graph like every loaded function.
"""

from ..autodiff.custom_gradient import GRADIENT_OP_TYPE, new_gradient_op_type, register_gradient, registered_gradient
from ..framework import dtypes, nest
from ..framework.tensor_spec import TensorSpec
from ..function import Function
from ..ops import array_ops

IDENTITY_N = "IdentityN"


def _gradient_nodes(fdef):
    """``(node, op type)`` of every IdentityN node of ``fdef`` with a gradient override."""
    for nd in fdef.node_def:
        if nd.op == IDENTITY_N and GRADIENT_OP_TYPE in nd.attr and nd.attr[GRADIENT_OP_TYPE].s:
            yield nd, nd.attr[GRADIENT_OP_TYPE].s.decode()


def graph_tensor_name(ref):
    """The name TF's importer gives the tensor of a FunctionDef input ``ref``: ``x`` -> ``x:0``,
    ``mul:z:0`` -> ``mul:0``."""
    parts = ref.split(":")
    if len(parts) == 1:
        return f"{ref}:0"
    return f"{parts[0]}:{parts[-1]}"


def add_gradient_functions(library, obj_graph, var_ids, add_function_def, encode):
    """Trace and write the gradient of every IdentityN override in ``library``'s functions.

    ``add_function_def(cf, name, arg_names)`` writes a ConcreteFunction and returns its captured
    variables; ``encode`` is the nested-structure coder. Gradients that are not tfcore's traced custom
    gradients (unknown op types) are left out: the model still loads, and differentiating it raises.
    """
    seen = set()
    forward = []
    for fdef in list(library.function):
        for nd, op_type in _gradient_nodes(fdef):
            if op_type not in seen:
                seen.add(op_type)
                forward.append((fdef.signature.name, nd, op_type))
    for fname, nd, op_type in forward:
        grad = registered_gradient(op_type)
        if grad is None or not hasattr(grad, "function"):
            continue
        name = f"__inference_internal_grad_fn_{len(library.function)}"
        inputs = [i for i in nd.input if not i.startswith("^")]
        types = [dtypes.as_dtype(t) for t in nd.attr["T"].list.type]
        cf, out_structure = _trace_gradient(grad, types)
        n_grads = len(types)
        arg_names = [f"result_grads_{i}" for i in range(n_grads)] + [f"capture_x{k}" for k in range(grad.n_inputs)]
        captures = add_function_def(cf, name, arg_names)
        saved = obj_graph.concrete_functions[name]
        for k in range(grad.n_inputs):  # the decorated function's inputs: tensors of the forward function
            node = obj_graph.nodes.add()
            node.captured_tensor.name = graph_tensor_name(inputs[grad.n_results + k])
            node.captured_tensor.concrete_function = fname
            saved.bound_inputs.append(len(obj_graph.nodes) - 1)
        for var in captures:
            nid = var_ids.get(id(var))
            if nid is None:
                raise ValueError(f"tf.saved_model.save: the custom gradient {op_type} uses the variable {var.name}, "
                                 "which is not reachable from the saved object")
            saved.bound_inputs.append(nid)
        specs = tuple(TensorSpec(None, t, name=f"result_grads_{i}") for i, t in enumerate(types))
        saved.canonicalized_input_signature.CopyFrom(encode(((None,) + specs, {})))
        saved.output_signature.CopyFrom(encode(out_structure))
        registered = library.registered_gradients.add()
        registered.gradient_func = name
        registered.registered_op_type = op_type


def _trace_gradient(grad, types):
    """``(ConcreteFunction, output structure)`` of a traced custom gradient's gradient as a function of the
    upstream gradients followed by the decorated function's inputs."""

    n_grads = len(types)
    present = []

    def gradient(*flat):
        dys, xs = flat[:n_grads], flat[n_grads:]
        _, grad_fn = grad.function(*xs, **grad.kwargs)
        result_dys = list(dys[:grad.n_results])
        if grad.variables:
            dx, dvars = grad_fn(*result_dys, variables=grad.variables)
        else:
            dx, dvars = grad_fn(*result_dys), []
        dx = list(dx) if isinstance(dx, list | tuple) else [dx]
        full = [None] * grad.n_results + dx[:grad.n_inputs] + [None] * (grad.n_inputs - len(dx)) + list(dvars)
        present[:] = [g is not None for g in full]
        return [g for g in full if g is not None]

    # the ranks of the trace (unknown sizes): a graph traced at another rank could bake in wrong axes
    ranks = list(getattr(grad, "ranks", [None] * n_grads))
    ranks = ranks + ranks[grad.n_results:grad.n_results + grad.n_inputs]
    in_types = types + types[grad.n_results:grad.n_results + grad.n_inputs]
    specs = [TensorSpec(None if r is None else [None] * r, t) for r, t in zip(ranks, in_types)]
    cf = Function(gradient, autograph=False).get_concrete_function(*specs)
    structure = [TensorSpec(None, t, name=f"tensor_{i}") if p else None
                 for i, (p, t) in enumerate(zip(present, types))]
    return cf, structure


def rename_map(library):
    """A fresh op type for every gradient override of a loaded library (as TF's loader, so two loads, or a
    load and this process's own custom gradients, never share a name). An override saved without its
    gradient (``experimental_custom_gradients=False``) gets a name with no gradient: differentiating it
    raises TF's LookupError."""
    types = {g.registered_op_type for g in library.registered_gradients if g.registered_op_type}
    for fdef in library.function:
        types.update(op_type for _, op_type in _gradient_nodes(fdef))
    return {t: new_gradient_op_type() for t in sorted(types)}


def register_loaded_gradients(library, og, fdefs, renames, make_function, decode):
    """Register the loaded gradient functions under ``renames``' new op types.

    ``make_function(fdef, bound)`` builds a runnable graph function whose bound inputs are ``bound``
    (variables, or :class:`CapturedForwardTensor` markers filled per call).
    """

    capture_index = {}  # old op type -> {forward tensor name: IdentityN input index}
    for fdef in fdefs.values():
        for nd, op_type in _gradient_nodes(fdef):
            inputs = [i for i in nd.input if not i.startswith("^")]
            capture_index.setdefault(op_type, {graph_tensor_name(r): j for j, r in enumerate(inputs)})
    for g in library.registered_gradients:
        if not g.registered_op_type or g.gradient_func not in fdefs:
            continue
        saved = og.concrete_functions[g.gradient_func]
        names = capture_index.get(g.registered_op_type, {})
        bound = []
        for nid in saved.bound_inputs:
            node = og.nodes[nid]
            if node.WhichOneof("kind") == "captured_tensor":
                bound.append(CapturedForwardTensor(node.captured_tensor.name, names.get(node.captured_tensor.name)))
            else:
                bound.append(nid)
        try:
            fn = make_function(fdefs[g.gradient_func], bound)
        except ValueError as e:  # e.g. an op tfcore lacks: the model loads, differentiating it raises this
            register_gradient(renames[g.registered_op_type], _failing_gradient(e))
            continue
        structure = decode(saved.output_signature)
        register_gradient(renames[g.registered_op_type],
                          _loaded_gradient(fn, bound, structure, g.registered_op_type, nest, array_ops))


def _failing_gradient(error):
    def grad(call, *dys):
        raise ValueError(f"The custom gradient of this loaded function cannot run: {error}")

    return grad


class CapturedForwardTensor:
    """A gradient function's bound input that is a tensor of the forward function: the ``index``-th input
    of the ``IdentityN`` node being differentiated (None: a tensor tfcore cannot locate)."""

    def __init__(self, name, index):
        self.name = name
        self.index = index


def _loaded_gradient(fn, bound, structure, op_type, nest, array_ops):
    def grad(call, *dys):
        dys = [d if d is not None else array_ops.zeros_like(o) for d, o in zip(dys, call.outputs)]
        values = []
        for b in bound:
            if isinstance(b, CapturedForwardTensor):
                if b.index is None:
                    raise ValueError(f"The loaded custom gradient {op_type} captures the forward tensor {b.name}, "
                                     "which is not an input of its IdentityN node; tfcore cannot feed it")
                values.append(call.inputs[b.index])
            else:
                values.append(None)  # a variable: the graph function keeps its own
        outs = fn(dys, values)
        leaves = nest.flatten(structure) if isinstance(structure, list | tuple) else [structure]
        it = iter(outs)
        grads = [None if s is None else next(it) for s in leaves]
        n = len(call.inputs)
        return (grads + [None] * n)[:n]

    return grad
