"""``AutoCastVariable``: a float32 variable that reads as the layer's compute dtype inside ``call``.

Under a mixed policy a layer's floating weights are created as float32 variables wrapped in an
AutoCastVariable. While a layer's ``call`` runs (``enable_auto_cast_variables(compute_dtype)``,
entered by ``Layer.__call__``), reading the variable — passing it to an op, ``value()``, operators —
returns the value cast to the compute dtype; the cast is an op, so gradients flow back to the float32
variable in float32. Elsewhere (optimizers, checkpoints, ``numpy()``) it is the float32 variable.
``dtype`` is always the variable's own dtype, as TF's.

This module owns the autocast dtype (a thread-local, as TF's): only
:func:`enable_auto_cast_variables` changes it.
"""

import contextlib
import threading

from ...framework import context as _ctx
from ...framework import dtypes, recording, tracing
from ...framework.variables import KerasDTypeName, Variable, keras_variable_repr
from ...ops.math_ops import cast

__all__ = ["AutoCastVariable", "create_autocast_variable", "enable_auto_cast_variables", "read_dtype", "swap_dtype"]

_ACTIVE = _ctx.ACTIVE


class _AutocastState(threading.local):
    dtype = None  # the DType floating variables are cast to when read (None: no casting)


_state = _AutocastState()


@contextlib.contextmanager
def enable_auto_cast_variables(dtype):
    """Within the block, AutoCastVariables read as ``dtype`` (a DType; None or a non-floating dtype: no cast)."""
    if dtype is not None and not dtype.is_floating:
        dtype = None
    prev = _state.dtype
    _state.dtype = dtype
    try:
        yield
    finally:
        _state.dtype = prev


def swap_dtype(dtype):
    """Set the autocast dtype and return the previous one (``Layer.__call__``'s cheap form of
    :func:`enable_auto_cast_variables`: it restores the previous value in its ``finally``)."""
    if dtype is not None and not dtype.is_floating:
        dtype = None
    prev = _state.dtype
    _state.dtype = dtype
    return prev


def current_dtype():
    """The dtype AutoCastVariables read as here (None outside any layer call)."""
    return _state.dtype


class AutoCastVariable(Variable):
    """Wraps a floating ``tf.Variable`` (plain or distributed); delegates everything but reads to it."""

    def __new__(cls, variable):
        return object.__new__(cls)  # not through tf.Variable's creator stack: the variable exists already

    def __init__(self, variable):
        if not isinstance(variable, Variable):
            raise ValueError(f"variable must be of type tf.Variable, but got: {variable!r}")
        if not variable.dtype.is_floating:
            raise ValueError(f"variable must be a floating point variable but has type: {variable.dtype.name}")
        object.__setattr__(self, "_variable", variable)

    def __getattr__(self, name):
        if name == "_variable":
            raise AttributeError(name)
        return getattr(self._variable, name)

    # -- reading -----------------------------------------------------------------------------------
    @property
    def _value(self):
        return self._variable._value

    @_value.setter
    def _value(self, value):
        self._variable._value = value

    def _tfc_read(self):
        if _ACTIVE[0] and recording._state.tapes:
            recording.variable_accessed(self)
        # through the tracing hook: a tf.function graph reads the variable on every call, not once
        value = tracing.read_variable(self._variable) if tracing.ACTIVE[0] else self._variable._value
        dtype = _state.dtype
        if dtype is not None and dtype is not value._dtype:
            value = cast(value, dtype)
        return value

    @property
    def dtype(self):
        """The dtype of the underlying variable, before any cast (float32 under a mixed policy)."""
        return self._variable.dtype

    @property
    def true_dtype(self):
        """Deprecated alias of ``dtype``."""
        return self._variable.dtype

    @property
    def _cast_dtype(self):
        """The dtype a read returns here."""
        return _state.dtype or self._variable.dtype

    @property
    def _autocast_wrapped(self):
        """The wrapped variable (optimizers update it directly)."""
        return self._variable

    def numpy(self):
        return self._variable.numpy()

    # -- writing: to the wrapped variable ------------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        self._variable.assign(value, use_locking, name, read_value=False)
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        self._variable.assign_add(delta, use_locking, name, read_value=False)
        return self if read_value else None

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        self._variable.assign_sub(delta, use_locking, name, read_value=False)
        return self if read_value else None

    def _coerce(self, value, op_name):
        return self._variable._coerce(value, op_name)

    def _lock(self):
        return self._variable._lock()  # one update lock: the wrapped variable's

    def _set(self, t, op_name):
        return self._variable._set(t, op_name)

    def __reduce__(self):
        return (create_autocast_variable, (self._variable,))

    def __repr__(self):
        if self._keras_path is not None:  # a Keras 3 weight prints as keras.Variable (which casts itself)
            return keras_variable_repr(self)
        return (f"<AutoCastVariable '{self.name}' shape={self.shape} dtype={self.dtype.name} "
                f"dtype_to_cast_to={self._cast_dtype.name}, numpy={self._variable.numpy()!r}>")


def create_autocast_variable(variable):
    """``variable`` wrapped in an :class:`AutoCastVariable` (returned as is when it already is one)."""
    if isinstance(variable, AutoCastVariable):
        return variable
    return AutoCastVariable(variable)


def read_dtype(variable):
    """The dtype reading ``variable`` gives here (the compute dtype for an AutoCastVariable inside ``call``)."""
    cast = getattr(variable, "_cast_dtype", None)
    if cast is not None:
        return cast
    dtype = variable.dtype
    return dtype if type(dtype) is not KerasDTypeName else dtypes.as_dtype(dtype)  # the DType of a Keras weight
