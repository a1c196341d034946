"""Array ops that order or deduplicate: sort and argsort (stable where TF is), ``take_along_axis``, and
unique / unique_with_counts (first-occurrence order, as TF).
"""

import builtins
import collections

import numpy as np

from ..backend import xp_compat
from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from ._array_common import _axis_arg, _cast, _raw
from ._common import as_tensor
from .array_gather_scatter_ops import gather
from .array_shape_ops import reshape, transpose
from .registry import Op, execute

__all__ = ["sort", "argsort", "unique", "unique_with_counts"]


_ARGSORT = Op("ArgSort")


_stable_argsort = xp_compat.argsort_stable


@_ARGSORT.kernel()
def _argsort(b, x, *, axis, descending):
    xp = b.xp
    if not descending:
        return _stable_argsort(xp, x, axis).astype(xp.int32)
    # Stable descending order: sort the reversed array, map back, reverse again.
    n = x.shape[axis]
    idx = _stable_argsort(xp, xp.flip(x, axis), axis)
    return xp.ascontiguousarray(xp.flip(n - 1 - idx, axis)).astype(xp.int32)


def _direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'direction should be one of "ASCENDING", "DESCENDING", got {direction!r}')
    return direction == "DESCENDING"


@add_dispatch_support
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """``tf.argsort``: int32 indices that sort ``values`` along ``axis`` (ties keep their order)."""
    t = as_tensor(values)
    axis = _axis_arg(axis, t._array.ndim, "ArgSort")
    return execute(_ARGSORT, (t,), {"axis": axis, "descending": _direction(direction)})


def take_along_axis(x, idx, axis):
    """``x`` gathered by ``idx`` along ``axis`` (same rank), built from ``gather`` so it is differentiable."""
    x, idx = as_tensor(x), as_tensor(idx)
    nd = x._array.ndim
    perm = [i for i in builtins.range(nd) if i != axis] + [axis]
    inv = [int(i) for i in np.argsort(perm)]
    xt = transpose(x, perm) if axis != nd - 1 else x
    it = transpose(idx, perm) if axis != nd - 1 else idx
    n, k = xt._array.shape[-1], it._array.shape[-1]
    rows = int(np.prod(xt._array.shape[:-1], dtype=np.int64))
    ids = reshape(_cast(it, dtypes.int64), (rows, k))
    offs = _convert(np.arange(rows, dtype=np.int64)[:, None] * n, device=ids._device)
    flat = gather(reshape(xt, (-1,)), reshape(_raw("AddV2", (ids, offs)), (-1,)))
    out = reshape(flat, it._array.shape)
    return transpose(out, inv) if axis != nd - 1 else out


@add_dispatch_support
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``tf.sort`` (differentiable: the gradient flows back to the original positions)."""
    t = as_tensor(values)
    axis = _axis_arg(axis, t._array.ndim, "Sort")
    idx = execute(_ARGSORT, (t,), {"axis": axis, "descending": _direction(direction)})
    return take_along_axis(t, idx, axis)


UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])


UniqueWithCountsOutput = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


_UNIQUE = Op("UniqueWithCounts", multi_output=True, output_arg=("y", "idx", "count"))


@_UNIQUE.kernel()
def _unique(b, x, *, out_idx):
    xp = b.xp
    u, first, inv, counts = xp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = _stable_argsort(xp, first, 0)      # unique values in order of first occurrence
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.size)
    dt = out_idx.as_numpy_dtype
    return u[order], rank[inv.reshape(-1)].astype(dt), counts[order].astype(dt)


def _unique_call(x, out_idx):
    t = as_tensor(x)
    if t._array.ndim != 1:
        raise InvalidArgumentError(None, None, f"Unique: unique expects a 1D vector, got {t.dtype.name}{list(t.shape)}")
    return execute(_UNIQUE, (t,), {"out_idx": dtypes.as_dtype(out_idx)})


@add_dispatch_support
def unique(x, out_idx=dtypes.int32, name=None):
    """``tf.unique``: ``(y, idx)`` with ``y`` in order of first occurrence and ``x == gather(y, idx)``."""
    y, idx, _ = _unique_call(x, out_idx)
    return UniqueOutput(y, idx)


@add_dispatch_support
def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``tf.unique_with_counts``: ``(y, idx, count)``."""
    return UniqueWithCountsOutput(*_unique_call(x, out_idx))
