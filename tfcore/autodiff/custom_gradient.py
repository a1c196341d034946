"""``tf.custom_gradient``: a function that supplies its own gradient."""

import functools

from ..framework import recording
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..ops.registry import Op

# One op object stands for every custom-gradient call; the user's gradient
# function travels in the record's attrs.
_CUSTOM = Op("CustomGradient", grad=lambda call, *dys: call.attrs["grad_fn"](call, *dys))


def custom_gradient(f=None):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``grad_fn(*dy)`` returns dx.

    If the function reads variables, ``grad_fn(*dy, variables=...)`` must return
    ``(dx, dvariables)``, as in TF.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        inputs = [convert_to_tensor(a) for a in args]
        tapes = recording.active_tapes()
        accessed = []
        spy = _VariableSpy(accessed)
        # As TF eager, the forward pass IS recorded by the active tapes: tensors that grad_fn
        # captures (``e = tf.exp(x)``) stay connected to the inputs, so an outer tape
        # differentiates the gradient (second derivatives through nested tapes).
        recording.push_tape(spy)
        try:
            result, grad_fn = f(*inputs, **kwargs)
        finally:
            recording.pop_tape(spy)
        multi = isinstance(result, list | tuple)
        outs = [convert_to_tensor(r) for r in (result if multi else [result])]
        if tapes:
            # Fresh output tensors (TF: identity) whose only producer is the custom-gradient
            # record: gradients never flow back through the recorded forward ops.
            outs = [Tensor(o._array, o._dtype, o._device) for o in outs]
        variables = list({id(v): v for v in accessed}.values())
        if tapes:
            var_values = [v.value() for v in variables]
            n_in = len(inputs)

            def grad(call, *dys):
                dys = dys if multi else dys[:1]
                if variables:
                    dx, dvars = grad_fn(*dys, variables=variables)
                else:
                    dx, dvars = grad_fn(*dys), []
                dx = list(dx) if isinstance(dx, list | tuple) else [dx]
                return dx[:n_in] + [None] * (n_in - len(dx)) + list(dvars)

            recording.record_operation(_CUSTOM, inputs + var_values, tuple(outs), {"grad_fn": grad})
        return outs if multi and isinstance(result, list) else tuple(outs) if multi else outs[0]

    return wrapper


class _VariableSpy:
    """A pseudo-tape that only notes which variables the function reads."""

    def __init__(self, sink):
        self._sink = sink

    def _record(self, op, inputs, outputs, attrs):
        pass

    def _variable_accessed(self, var):
        self._sink.append(var)

