"""``tf.custom_gradient``: a function that supplies its own gradient.

Eagerly, the call is one tape record whose gradient is the user's function. Inside a ``tf.function`` it
is, as in TF's graph mode, an ``IdentityN`` node over ``results + inputs (+ variable values)`` with the
attribute ``_gradient_op_type`` (``"CustomGradient-<n>"``) naming a gradient registered in this process
(:func:`register_gradient`): every replay of the graph records that node, so tapes use the custom
gradient instead of differentiating the forward ops. Because a replay's values differ from the trace's,
the registered gradient runs the decorated function again on the node's inputs and calls the
``grad_fn`` it returns (its closures then hold this call's values). A SavedModel stores that gradient as
a function of the library (``FunctionDefLibrary.registered_gradients``), as TF does.
"""

import functools
import itertools
import threading

from ..framework import recording, tracing
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..ops import array_ops
from ..ops.registry import Op, execute

# One op object stands for every eager custom-gradient call; the user's gradient
# function travels in the record's attrs.
_CUSTOM = Op("CustomGradient", grad=lambda call, *dys: call.attrs["grad_fn"](call, *dys))

GRADIENT_OP_TYPE = "_gradient_op_type"
_REGISTERED = {}   # gradient op type -> grad(call, *dys) returning one gradient per IdentityN input
_counter = itertools.count(1)
_lock = threading.Lock()


def new_gradient_op_type():
    """A fresh ``CustomGradient-<n>`` name (TF's ``custom_gradient.generate_name``)."""
    with _lock:
        return f"CustomGradient-{next(_counter)}"


def register_gradient(op_type, fn):
    """Make ``fn(call, *dys)`` the gradient of ``IdentityN`` nodes whose ``_gradient_op_type`` is ``op_type``."""
    _REGISTERED[op_type] = fn


def registered_gradient(op_type):
    return _REGISTERED.get(op_type)


def _identity_n_rule(op, ts, attrs):
    return tuple(t._dtype for t in ts)


def _identity_n_grad(call, *dys):
    op_type = call.attrs.get(GRADIENT_OP_TYPE)
    if op_type:
        fn = _REGISTERED.get(op_type)
        if fn is None:
            raise LookupError(f"gradient registry has no entry for: {op_type} (an IdentityN node of a custom "
                              "gradient whose function was not saved with the model)")
        return list(fn(call, *dys))
    return list(dys)


_IDENTITY_N = Op("IdentityN", rule=_identity_n_rule, grad=_identity_n_grad, multi_output=True,
                 grad_takes_none=True)


@_IDENTITY_N.kernel()
def _identity_n(b, *xs, **_):
    return tuple(xs)


def identity_n(tensors, gradient_op_type=None):
    """``tf.identity_n`` with an optional gradient override (the graph form of a custom gradient)."""
    attrs = {GRADIENT_OP_TYPE: gradient_op_type} if gradient_op_type else {}
    return list(execute(_IDENTITY_N, list(tensors), attrs))


def custom_gradient(f=None):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*dy)`` returns dx.

    If the function reads variables, ``grad_fn(*dy, variables=...)`` must return
    ``(dx, dvariables)``, as in TF.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if tracing.is_tracing():
            return _traced_call(f, args, kwargs)
        inputs = [convert_to_tensor(a) for a in args]
        tapes = recording.active_tapes()
        # As TF eager, the forward pass IS recorded by the active tapes: tensors that grad_fn
        # captures (``e = tf.exp(x)``) stay connected to the inputs, so an outer tape
        # differentiates the gradient (second derivatives through nested tapes).
        result, grad_fn, outs, variables = _forward(f, inputs, kwargs)
        if tapes:
            # Fresh output tensors (TF: identity) whose only producer is the custom-gradient
            # record: gradients never flow back through the recorded forward ops.
            outs = [Tensor(o._array, o._dtype, o._device) for o in outs]
            var_values = [v.value() for v in variables]
            n_in, n_out = len(inputs), len(outs)

            def grad(call, *dys):
                return _input_gradients(grad_fn, dys[:n_out], variables, n_in)

            recording.record_operation(_CUSTOM, inputs + var_values, tuple(outs), {"grad_fn": grad})
        return _like_result(result, outs)

    # AutoGraph must trace this wrapper as it is: converting it would convert ``f`` (its ``__wrapped__``
    # source) in its place and lose the gradient (the attribute is tf.autograph.experimental.do_not_convert's)
    wrapper.__tfc_do_not_convert__ = True
    return wrapper


def _traced_call(f, args, kwargs):
    """``f(*args)`` inside a tf.function trace: the forward ops, then an ``IdentityN`` node over
    ``results + inputs + variable values`` whose registered gradient is ``f``'s (see the module docstring)."""
    inputs = [convert_to_tensor(a) for a in args]
    result, _, outs, variables = _forward(f, inputs, kwargs)
    n_out, n_in = len(outs), len(inputs)
    op_type = new_gradient_op_type()
    grad = _recomputing_gradient(f, kwargs, n_out, n_in, variables)
    node_inputs = outs + inputs + [v.value() for v in variables]
    grad.ranks = [t._array.ndim for t in node_inputs]  # a SavedModel traces the gradient at these ranks
    register_gradient(op_type, grad)
    through = identity_n(node_inputs, op_type)
    return _like_result(result, through[:n_out])


def _recomputing_gradient(f, kwargs, n_out, n_in, variables):
    """The IdentityN gradient of a traced custom gradient: ``f`` runs again on this call's inputs and its
    ``grad_fn`` gets the results' upstream gradients; None for the results' own slots."""

    def grad(call, *dys):
        xs = list(call.inputs[n_out:n_out + n_in])
        # an output nobody differentiated gets zeros, as TF's loaded gradients do
        result_dys = [d if d is not None else _zeros_like(o) for d, o in zip(dys[:n_out], call.outputs)]
        _, grad_fn = f(*xs, **kwargs)
        return [None] * n_out + _input_gradients(grad_fn, result_dys, variables, n_in)

    grad.n_results, grad.n_inputs, grad.function, grad.kwargs, grad.variables = n_out, n_in, f, kwargs, variables
    return grad


def _forward(f, inputs, kwargs):
    """``f(*inputs)`` with the variables it reads noted: ``(result, grad_fn, output tensors, variables)``."""
    accessed = []
    spy = _VariableSpy(accessed)
    recording.push_tape(spy)
    try:
        result, grad_fn = f(*inputs, **kwargs)
    finally:
        recording.pop_tape(spy)
    outs = [convert_to_tensor(r) for r in (result if isinstance(result, list | tuple) else [result])]
    return result, grad_fn, outs, list({id(v): v for v in accessed}.values())


def _input_gradients(grad_fn, dys, variables, n_in):
    """``grad_fn``'s gradients for the ``n_in`` inputs (None for those it leaves out), then the variables'."""
    if variables:
        dx, dvars = grad_fn(*dys, variables=variables)
    else:
        dx, dvars = grad_fn(*dys), []
    dx = list(dx) if isinstance(dx, list | tuple) else [dx]
    return dx[:n_in] + [None] * (n_in - len(dx)) + list(dvars)


def _like_result(result, outs):
    """``outs`` in the structure ``f`` returned its result in (a list, a tuple or one tensor)."""
    if isinstance(result, list):
        return list(outs)
    return tuple(outs) if isinstance(result, tuple) else outs[0]


def _zeros_like(t):
    return array_ops.zeros_like(t)


class _VariableSpy:
    """A pseudo-tape that only notes which variables the function reads."""

    def __init__(self, sink):
        self._sink = sink

    def _record(self, op, inputs, outputs, attrs):
        pass

    def _variable_accessed(self, var):
        self._sink.append(var)

