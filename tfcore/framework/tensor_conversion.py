"""Turning Python values, NumPy arrays and variables into tensors.

TF's rules: Python floats become float32, ints int32 (int64 when they do not
fit), bools bool; NumPy arrays keep their dtype; a requested ``dtype`` that
cannot hold the value raises, as ``tf.constant(1.5, tf.int32)`` does.
"""

import numbers

import numpy as np

from . import context as _ctx
from . import dtypes
from . import tensor_conversion_registry as _registry
from .errors import InvalidArgumentError
from .pandas_interop import is_pandas
from .pandas_interop import to_numpy as pandas_to_numpy
from .tensor import Tensor

_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1


def infer_dtype(value):
    """The DType TF would give a Python/NumPy value."""
    if isinstance(value, np.ndarray | np.generic):
        return dtypes.from_numpy(value.dtype)
    if isinstance(value, bool):
        return dtypes.bool
    if isinstance(value, numbers.Integral):
        return dtypes.int32 if _I32_MIN <= value <= _I32_MAX else dtypes.int64
    if isinstance(value, numbers.Real):
        return dtypes.float32
    if isinstance(value, complex):
        return dtypes.complex128
    if isinstance(value, str | bytes):
        return dtypes.string
    if isinstance(value, list | tuple):
        if len(value) == 0:
            return dtypes.float32
        try:
            arr = _rectangular(_unwrap_nested(value))
        except UnicodeDecodeError:  # str mixed with non-ASCII bytes: a string tensor
            return dtypes.string
        kind = arr.dtype.kind
        if kind == "b":
            return dtypes.bool
        if kind in "iu":
            if arr.size and (arr.min() < _I32_MIN or arr.max() > _I32_MAX):
                return dtypes.int64
            return dtypes.int32
        if kind == "f":
            return dtypes.float32
        if kind == "c":
            return dtypes.complex128
        if kind in "USO":
            return dtypes.string
    if hasattr(value, "__array__") or hasattr(value, "__cuda_array_interface__"):
        if is_pandas(value):  # a DataFrame (NumPy's common dtype of its columns) or Series (maybe of
            return dtypes.from_numpy(pandas_to_numpy(value).dtype)  # pandas' own StringDtype): its values
        return dtypes.from_numpy(np.dtype(value.dtype))
    raise TypeError(f"Cannot convert {value!r} to a tensor: unsupported type {type(value).__name__}")


def _rectangular(value):
    """``np.asarray`` of a nested Python sequence, with TF's ValueError for a ragged one (NumPy's
    "inhomogeneous shape" message names NumPy, not the conversion the user asked for)."""
    try:
        return np.asarray(value)
    except ValueError as e:
        if "inhomogeneous" in str(e):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
        raise


def _unwrap_nested(value):
    """Replace tensors inside nested lists with NumPy values."""
    if isinstance(value, list | tuple):
        return [_unwrap_nested(v) for v in value]
    if isinstance(value, Tensor):
        return value.numpy()
    if _registry.get(type(value)):
        converted = _registry.convert(value)
        if converted is not NotImplemented:
            return converted.numpy()
    return value


def _check_representable(value, arr, dtype):
    """Reject lossy Python-value conversions (``tf.constant(1.5, tf.int32)``)."""
    if dtype.is_integer or dtype.is_bool:
        src = np.asarray(value) if not isinstance(value, np.ndarray) else value
        if src.dtype.kind == "f" and src.size and not np.all(np.asarray(src) == np.asarray(arr)):
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")
        if src.dtype.kind in "iu" and src.size and dtype.is_integer:
            info = np.iinfo(dtype.as_numpy_dtype)
            if src.min() < info.min or src.max() > info.max:
                raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}: out of range")


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None, device=None):
    """``tf.convert_to_tensor``: a Tensor holding ``value`` (tensors pass through).

    ``dtype`` must match a tensor's dtype exactly (TF raises otherwise); for Python
    values it is the dtype to convert to. ``dtype_hint`` is used only when the
    value has no dtype of its own. The tensor is placed on ``device``, else the
    current ``tf.device`` scope, else the default device.
    """
    if type(value) is Tensor:
        if dtype is not None and value._dtype is not (dtype := dtypes.as_dtype(dtype)):
            raise InvalidArgumentError(
                f"convert_to_tensor: tensor of dtype {value._dtype.name} shape {value.shape} "
                f"requested as {dtype.name}")
        return value
    if isinstance(value, Tensor):  # subclasses
        return value
    if _registry.get(type(value)):  # variables, user types (tf.register_tensor_conversion_function)
        t = _registry.convert(value, dtype=dtype, name=name)
        if t is not NotImplemented:
            if not isinstance(t, Tensor):
                raise TypeError(f"convert_to_tensor: the conversion function for {type(value).__name__} "
                                f"returned {type(t).__name__}, not a Tensor")
            if dtype is not None and t._dtype is not dtypes.as_dtype(dtype):
                raise InvalidArgumentError(
                    f"convert_to_tensor: {type(value).__name__} of dtype {t._dtype.name} requested as "
                    f"{dtypes.as_dtype(dtype).name}")
            return t
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    else:
        if hasattr(value, "as_list") and hasattr(value, "rank"):  # TensorShape
            value = value.as_list()
        inferred = infer_dtype(value)
        if dtype_hint is not None and not isinstance(value, np.ndarray | np.generic):
            hint = dtypes.as_dtype(dtype_hint)
            dtype = hint if _hint_compatible(inferred, hint) else inferred
        else:
            dtype = inferred
    if isinstance(value, list | tuple):
        value = _unwrap_nested(value)
    if dtype is dtypes.string:
        arr = _as_bytes_array(value)  # np.asarray would fail on a list mixing str and non-ASCII bytes
    else:
        np_value = _rectangular(value) if isinstance(value, list | tuple) else np.asarray(value)
        try:
            arr = np_value.astype(dtype.as_numpy_dtype, copy=False)
        except (ValueError, TypeError) as e:
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}") from e
        if not isinstance(value, np.ndarray | np.generic):
            _check_representable(np_value, arr, dtype)
    dev = device if device is not None else (_ctx.current_device() or _ctx.default_device())
    dev = _ctx.placement_for(dtype, dev)
    if dev.backend.kind != "cpu" or dev.backend.xp is not np:
        arr = dev.backend.asarray(arr)
    elif arr is value or (isinstance(value, np.ndarray) and np.shares_memory(arr, value)):
        arr = arr.copy()  # the tensor must not alias the caller's mutable array
    return Tensor(arr, dtype, dev)


def _as_bytes_array(value):
    """A new object array of ``bytes``: TF string tensors hold bytes, so ``str`` items are UTF-8 encoded."""
    arr = np.array(value, dtype=object)
    flat = arr.reshape(-1)  # a view: arr is a fresh contiguous array
    for i, item in enumerate(flat):
        if isinstance(item, str):
            flat[i] = item.encode("utf-8")
    return arr


def _hint_compatible(inferred, hint):
    if inferred is hint:
        return True
    if inferred.is_integer:
        return hint.is_integer or hint.is_floating
    if inferred.is_floating:
        return hint.is_floating
    return False


def wrap(array, device, dtype=None):
    """A Tensor around a backend array already on ``device`` (internal fast path)."""
    return Tensor(array, dtype if dtype is not None else dtypes.from_numpy(array.dtype), device)
