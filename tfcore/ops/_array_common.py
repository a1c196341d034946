"""Helpers of the array op modules: integer/axis argument checks, index validation with TF's errors,
``scatter_add`` on the backend array, and ``_raw``, which runs another family's op by its registered name
(math_ops and reduce_ops build on the array ops, so the array ops cannot import them).
"""


import numpy as np

from ..backend import xp_compat
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import is_tensor
from ._common import as_tensor
from .registry import execute, get_op


def _raw(name, inputs, attrs=None):
    """Run another family's op by its registered name, as TF's array_ops runs gen_math_ops: math_ops and
    reduce_ops build on this module, so it cannot import them."""
    return execute(get_op(name), inputs, attrs)


def _cast(x, dtype):
    t = as_tensor(x)
    return t if t._dtype is dtype else _raw("Cast", (t,), {"dtype": dtype})


def _host_ints(value, op_name, what):
    """A Python list of ints from an int/list/tuple/ndarray/tensor argument."""
    if is_tensor(value):
        value = as_tensor(value).numpy()
    arr = np.asarray(value)
    if arr.dtype.kind not in "iub" and arr.size:
        raise InvalidArgumentError(None, None, f"{op_name}: {what} must be integers, got {value!r}")
    return [int(v) for v in arr.reshape(-1)]


def _axis_arg(axis, ndim, op_name):
    """One axis (int or scalar tensor) in [-ndim, ndim) -> non-negative int."""
    if is_tensor(axis):
        axis = int(as_tensor(axis).numpy())
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(None, None, f"{op_name}: axis {axis} is out of range [{-ndim}, {ndim})")
    return axis % ndim


def scatter_add(xp, out, index, values):
    """``out[index] += values`` with repeated indices accumulated (numpy and cupy, every dtype)."""
    xp_compat.scatter_add(xp, out, index, values)


def _index_tensor(indices, op_name):
    t = as_tensor(indices)
    if not t._dtype.is_integer:
        raise InvalidArgumentError(None, None, f"{op_name}: indices must be int32 or int64, got {t._dtype.name}")
    return t


def _check_range(xp, idx, n, op_name, what="indices"):
    """Raise TF's error for the first index outside [0, n): GatherV2's in TF 2.21's words
    (``indices[0,1] = 5 is not in [0, 2) [Op:GatherV2]``, ``indices = 1 ...`` for a scalar index)."""
    if idx.size == 0:
        return
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):
        pos = np.unravel_index(int(xp.argmax(bad.reshape(-1))), idx.shape)
        where = f"[{','.join(map(str, pos))}]" if pos else ""
        text = f"{what}{where} = {int(idx[pos])} is not in [0, {n})"
        err = InvalidArgumentError(
            None, None, f"{text} [Op:{op_name}]" if op_name == "GatherV2" else f"{op_name}: {text}")
        err._value_dependent = True  # TF finds it when the op runs, not when a graph is built
        raise err


def is_tensor_like(x):
    return is_tensor(x)
