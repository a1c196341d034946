"""``Metric``, the base of every Keras metric: a ``Layer`` holding non-trainable state.

``update_state`` accumulates into variables with ops on the data's device, ``result()`` reads them,
``reset_state()`` (alias ``reset_states``) zeroes them, and calling a metric updates it and returns the
result, as in Keras (``keras/src/metrics/metric.py``).
"""

import numpy as np

from ...framework import context as _ctx
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.variables import Variable, VariableAggregation, VariableSynchronization
from ...ops import math_ops, reduce_ops
from .. import backend
from ..engine.base_layer import Layer

_EPS = 1e-7


def _t(x, dtype=None):
    """A tensor for ``x`` (variables read; ``dtype`` casts)."""
    if isinstance(x, Variable):
        x = x.value()
    if isinstance(x, Tensor):
        return x if dtype is None or x._dtype is dtype else math_ops.cast(x, dtype)
    return convert_to_tensor(x, dtype=dtype) if dtype is None or not isinstance(x, np.ndarray | np.generic) \
        else convert_to_tensor(np.asarray(x).astype(dtype.as_numpy_dtype))


_ZEROS = {}  # (shape, numpy dtype) -> read-only zeros shared by resets (each assign gets its own Tensor)
_ctx.on_reset(_ZEROS.clear)


def _zeros_for(v):
    """Zeros to assign to ``v``: a fresh Tensor over a cached read-only array for plain variables
    (``reset_state`` runs after every ``train_on_batch``), a NumPy array otherwise."""
    value = getattr(v, "_value", None)
    if type(value) is not Tensor:
        return np.zeros(v.shape.as_list(), v.dtype.as_numpy_dtype)
    a = value._array
    if not isinstance(a, np.ndarray):
        return np.zeros(a.shape, a.dtype)
    key = (a.shape, a.dtype)
    z = _ZEROS.get(key)
    if z is None:
        if len(_ZEROS) > 64:
            _ZEROS.clear()
        z = _ZEROS[key] = np.zeros(a.shape, a.dtype)
        z.flags.writeable = False
    return Tensor(z, value._dtype, value._device)


def _argmax(x):
    return reduce_ops.argmax(x, axis=-1)


class Metric(Layer):
    """Base class: ``update_state``, ``result``, ``reset_state``; state created with ``add_weight``."""

    def __init__(self, name=None, dtype=None, **kwargs):
        # floatx, not the global mixed-precision policy: metrics accumulate in float32 (as Keras)
        super().__init__(name=name, dtype=dtype if dtype is not None else backend.floatx(), **kwargs)
        self.stateful = True
        self.built = True

    def __call__(self, *args, **kwargs):
        """Update the state with these values and return the new result."""
        self.update_state(*args, **kwargs)
        return self.result()

    def add_weight(self, name, shape=(), aggregation=VariableAggregation.SUM,
                   synchronization=VariableSynchronization.ON_READ, initializer=None, dtype=None, **kwargs):
        """A non-trainable state variable (zeros unless ``initializer``)."""
        return super().add_weight(name=name, shape=shape, dtype=dtype or self._dtype,
                                  initializer=initializer if initializer is not None else "zeros",
                                  trainable=False, synchronization=synchronization, aggregation=aggregation)

    def update_state(self, *args, **kwargs):
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self):
        raise NotImplementedError("Must be implemented in subclasses.")

    def reset_state(self):
        """Set every state variable to zero."""
        for v in self.variables:
            v.assign(_zeros_for(v))

    def reset_states(self):
        """Deprecated alias of ``reset_state``."""
        return self.reset_state()

    def merge_state(self, metrics):
        """Add the states of other metrics of the same kind into this one."""
        for m in metrics:
            for mine, theirs in zip(self.variables, m.variables):
                mine.assign_add(theirs.value())

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @property
    def dtype(self):
        return self._dtype.name
