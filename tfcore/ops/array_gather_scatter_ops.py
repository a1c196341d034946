"""Array ops that read or write a tensor at indices: gather and gather_nd (and the dense-gradient gather
the slicing and composite ops use), scatter_nd and tensor_scatter_nd_update/add, boolean_mask, one_hot,
repeat and roll. Indices are checked on the device with TF's error (``[i] = v is not in [0, n)``).
"""

import builtins

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor as _convert
from ._array_common import _axis_arg, _cast, _check_range, _host_ints, _index_tensor, _raw, is_tensor_like, scatter_add
from ._common import as_tensor, shape_tuple
from .array_creation_ops import zeros_like
from .array_shape_ops import concat, reshape, transpose
from .registry import Op, execute

__all__ = [
    "gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add", "boolean_mask",
    "one_hot", "repeat", "roll",
]


def _gather_grad(call, g):
    """TF's ``_GatherV2Grad``: along axis 0 without batch dims an ``IndexedSlices`` (the rows of ``g`` at the
    gathered indices, repeats kept), else the dense ``unsorted_segment_sum``."""
    params, idx = call.inputs
    axis, bd = call.attrs["axis"], call.attrs["batch_dims"]
    pshape = params._array.shape
    if axis == 0 and bd == 0 and type(g) is Tensor:
        k = int(np.prod(idx._array.shape, dtype=np.int64))
        values = reshape(g, (k,) + tuple(pshape[1:]))
        dense_shape = _convert(np.asarray(pshape, dtype=np.int32 if idx._dtype is dtypes.int32 else np.int64),
                               device=_ctx.context.find("CPU", 0))
        return [IndexedSlices(values, reshape(idx, (k,)), dense_shape), None]
    bflat = int(np.prod(pshape[:bd], dtype=np.int64))
    mid = int(np.prod(pshape[bd:axis], dtype=np.int64))
    n = pshape[axis]
    rest = int(np.prod(pshape[axis + 1:], dtype=np.int64))
    k = int(np.prod(idx._array.shape[bd:], dtype=np.int64))
    g4 = transpose(reshape(g, (bflat, mid, k, rest)), (0, 2, 1, 3))          # [B, K, M, R]
    ids = reshape(_cast(idx, dtypes.int64), (bflat, k))
    if bflat > 1:
        offsets = _convert(np.arange(bflat, dtype=np.int64)[:, None] * n, device=ids._device)
        ids = _raw("AddV2", (ids, offsets))
    summed = _raw("UnsortedSegmentSum", (g4, ids), {"num_segments": int(bflat * n)})             # [B*N, M, R]
    out = transpose(reshape(summed, (bflat, n, mid, rest)), (0, 2, 1, 3))    # [B, M, N, R]
    return [reshape(out, pshape), None]


def _gather_rule(op, ts, attrs):
    if not ts[1]._dtype.is_integer:
        raise InvalidArgumentError(
            None, None, f"GatherV2: indices must be int32 or int64, got {ts[1]._dtype.name}")
    return None


_GATHER = Op("GatherV2", rule=_gather_rule, grad=_gather_grad, tf_attr_inputs=[("axis", "Taxis")],
             tf_input_types=("Tparams", "Tindices"))


@_GATHER.kernel()
def _gather(b, params, idx, *, axis, batch_dims):
    xp = b.xp
    n = params.shape[axis]
    _check_range(xp, idx, n, "GatherV2")
    if batch_dims == 0:
        return xp.take(params, idx.astype(xp.int64, copy=False), axis=axis)
    ps = params.shape
    bflat = int(np.prod(ps[:batch_dims], dtype=np.int64))
    mid = int(np.prod(ps[batch_dims:axis], dtype=np.int64))
    rest = int(np.prod(ps[axis + 1:], dtype=np.int64))
    p4 = params.reshape(bflat, mid, n, rest)
    ii = idx.reshape(bflat, -1).astype(xp.int64, copy=False)
    rows = xp.arange(bflat)[:, None]
    out = p4[rows, :, ii, :]                       # [B, K, M, R] (advanced dims first)
    out = xp.transpose(out, (0, 2, 1, 3))
    return xp.ascontiguousarray(out).reshape(ps[:axis] + idx.shape[batch_dims:] + ps[axis + 1:])


def _gather_dense_gradient(params, indices, axis):
    """``gather`` for ops whose TF kernel is not a gather (``x[i]`` traced, ``repeat``, ``roll``): their
    gradient is a dense tensor in TF, so along axis 0 the params pass through a Reshape, whose gradient
    makes the gather's IndexedSlices dense."""
    if axis == 0 and params._array.ndim:
        params = reshape(params, (-1,) + tuple(params._array.shape[1:]))
    return gather(params, indices, axis=axis)


@add_dispatch_support
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """``tf.gather``: slices of ``params`` along ``axis`` at ``indices`` (out-of-range indices raise).

    As in TF, the gradient along axis 0 (no ``batch_dims``) is a ``tf.IndexedSlices`` (one row per gathered
    index, so an embedding's gradient is as small as its lookup); along other axes it is dense.
    """
    p = as_tensor(params)
    idx = _index_tensor(indices, "GatherV2")
    nd = p._array.ndim
    ind_nd = idx._array.ndim
    bd = int(batch_dims)
    if bd < 0:
        bd += ind_nd
    axis = bd if axis is None else _axis_arg(axis, nd, "GatherV2")
    if not 0 <= bd <= min(ind_nd, axis):
        raise InvalidArgumentError(
            None, None, f"GatherV2: batch_dims ({batch_dims}) must be in [0, min(rank(indices)={ind_nd}, "
            f"axis={axis})]")
    if p._array.shape[:bd] != idx._array.shape[:bd]:
        raise InvalidArgumentError(
            None, None, f"GatherV2: params.shape[:{bd}] {list(p.shape)[:bd]} must equal indices.shape[:{bd}] "
            f"{list(idx.shape)[:bd]}")
    return execute(_GATHER, (p, idx), {"axis": axis, "batch_dims": bd})


def _gather_nd_grad(call, g):
    params, idx = call.inputs
    return [scatter_nd(idx, g, params._array.shape), None]


_GATHER_ND = Op("GatherNd", rule=_gather_rule, grad=_gather_nd_grad, tf_input_types=("Tparams", "Tindices"))


def _nd_index(xp, params_shape, idx, op_name):
    """Split [..., k] indices into a tuple of k index arrays after range checks."""
    k = idx.shape[-1]
    if k > len(params_shape):
        raise InvalidArgumentError(
            None, None, f"{op_name}: index innermost dimension length {k} must be <= params rank "
            f"{len(params_shape)}")
    cols = []
    for j in builtins.range(k):
        col = idx[..., j].astype(xp.int64, copy=False)
        _check_range(xp, col, params_shape[j], op_name, what=f"indices[...,{j}]")
        cols.append(col)
    return tuple(cols)


@_GATHER_ND.kernel()
def _gather_nd(b, params, idx):
    return params[_nd_index(b.xp, params.shape, idx, "GatherNd")]


@add_dispatch_support
def gather_nd(params, indices, batch_dims=0, name=None):
    """``tf.gather_nd``: ``indices[..., k]`` address slices of ``params``' first k dimensions."""
    p = as_tensor(params)
    idx = _index_tensor(indices, "GatherNd")
    bd = int(batch_dims)
    if bd == 0:
        return execute(_GATHER_ND, (p, idx))
    # Fold the batch dimensions into one and prepend the batch coordinate to every index.
    ps, ish = p._array.shape, idx._array.shape
    if ps[:bd] != ish[:bd]:
        raise InvalidArgumentError(None, None, f"GatherNd: batch dimensions differ: params {list(ps)}, "
                                   f"indices {list(ish)}, batch_dims {bd}")
    bflat = int(np.prod(ps[:bd], dtype=np.int64))
    pf = reshape(p, (bflat,) + ps[bd:])
    inner = ish[bd:-1]
    idxf = reshape(_cast(idx, dtypes.int64), (bflat,) + inner + (ish[-1],))
    bidx = np.broadcast_to(np.arange(bflat, dtype=np.int64).reshape((bflat,) + (1,) * (len(inner) + 1)),
                           (bflat,) + inner + (1,))
    full = concat([_convert(np.ascontiguousarray(bidx), device=idxf._device), idxf], axis=-1)
    out = execute(_GATHER_ND, (pf, full))
    return reshape(out, ps[:bd] + inner + ps[bd + ish[-1]:])


def _scatter_nd_grad(call, g):
    return [None, gather_nd(g, call.inputs[0])]


_SCATTER_ND = Op("ScatterNd", grad=_scatter_nd_grad)


@_SCATTER_ND.kernel()
def _scatter_nd(b, idx, updates, *, shape):
    xp = b.xp
    out = xp.zeros(shape, dtype=updates.dtype)
    cols = _nd_index(xp, shape, idx, "ScatterNd")
    scatter_add(xp, out, cols, updates)
    return out


def _check_updates(op_name, idx, updates, shape):
    ish = tuple(idx._array.shape)
    want = ish[:-1] + tuple(shape[ish[-1]:])
    if tuple(updates._array.shape) != want:
        raise InvalidArgumentError(
            None, None, f"{op_name}: updates must have shape indices.shape[:-1] + shape[indices.shape[-1]:] "
            f"= {list(want)}, got {list(updates.shape)} (indices {list(ish)}, shape {list(shape)})")


@add_dispatch_support
def scatter_nd(indices, updates, shape, name=None):
    """``tf.scatter_nd``: a zero tensor of ``shape`` with ``updates`` summed in at ``indices``."""
    idx = _index_tensor(indices, "ScatterNd")
    upd = as_tensor(updates)
    shp = shape_tuple(shape, "ScatterNd")
    _check_updates("ScatterNd", idx, upd, shp)
    return execute(_SCATTER_ND, (idx, upd), {"shape": shp})


def _tensor_scatter_grad(call, g):
    t, idx, upd = call.inputs
    if call.attrs["mode"] == "update":
        gt = execute(_TENSOR_SCATTER, (g, idx, zeros_like(upd)), {"mode": "update"})
    else:
        gt = g
    return [gt, None, gather_nd(g, idx)]


def _tensor_scatter_rule(op, ts, attrs):
    if ts[0]._dtype is not ts[2]._dtype:
        raise InvalidArgumentError(
            None, None, f"{op.name}: tensor and updates must have the same dtype, got "
            f"{ts[0]._dtype.name} and {ts[2]._dtype.name}")
    return None


_TENSOR_SCATTER = Op("TensorScatterUpdate", rule=_tensor_scatter_rule, grad=_tensor_scatter_grad)


@_TENSOR_SCATTER.kernel()
def _tensor_scatter(b, t, idx, updates, *, mode):
    xp = b.xp
    out = t.copy()
    cols = _nd_index(xp, t.shape, idx, "TensorScatterUpdate")
    if mode == "update":
        out[cols] = updates
    else:
        scatter_add(xp, out, cols, updates)
    return out


@add_dispatch_support
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_update``: a copy of ``tensor`` with slices at ``indices`` replaced."""
    t, idx, upd = as_tensor(tensor), _index_tensor(indices, "TensorScatterUpdate"), as_tensor(updates)
    _check_updates("TensorScatterUpdate", idx, upd, t._array.shape)
    return execute(_TENSOR_SCATTER, (t, idx, upd), {"mode": "update"})


@add_dispatch_support
def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_add``: a copy of ``tensor`` with ``updates`` added at ``indices``."""
    t, idx, upd = as_tensor(tensor), _index_tensor(indices, "TensorScatterAdd"), as_tensor(updates)
    _check_updates("TensorScatterAdd", idx, upd, t._array.shape)
    return execute(_TENSOR_SCATTER, (t, idx, upd), {"mode": "add"})


@add_dispatch_support
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """``tf.boolean_mask``: the entries (or slices) of ``tensor`` where ``mask`` is True."""
    t, m = as_tensor(tensor), as_tensor(mask)
    if m._dtype is not dtypes.bool:
        raise InvalidArgumentError(None, None, f"boolean_mask: mask must be bool, got {m._dtype.name}")
    ts, ms = t._array.shape, m._array.shape
    axis = 0 if axis is None else _axis_arg(axis, len(ts), "boolean_mask")
    k = len(ms)
    if k == 0 or ts[axis:axis + k] != ms:
        raise ValueError(f"Shapes {list(ts[axis:axis + k])} and {list(ms)} are incompatible "
                         f"(boolean_mask of {t.dtype.name}{list(ts)} with mask {list(ms)}, axis {axis})")
    flat = reshape(t, ts[:axis] + (int(np.prod(ms, dtype=np.int64)),) + ts[axis + k:])
    idx = reshape(_raw("Where", (reshape(m, (-1,)),)), (-1,))
    return gather(flat, idx, axis=axis)


_ONE_HOT = Op("OneHot", tf_attr_inputs=[("depth", None, 1)], tf_input_types=("TI", None, "T", "T"))


@_ONE_HOT.kernel()
def _one_hot(b, idx, on, off, *, depth, axis):
    xp = b.xp
    hit = idx[..., None] == xp.arange(depth, dtype=idx.dtype)
    out = xp.where(hit, on, off)
    if axis != -1 and axis != out.ndim - 1:
        out = xp.moveaxis(out, -1, axis)
    return xp.ascontiguousarray(out)


@add_dispatch_support
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """``tf.one_hot``: indices outside [0, depth) give an all-``off_value`` row."""
    idx = _index_tensor(indices, "OneHot")
    if dtype is not None:
        dt = dtypes.as_dtype(dtype)
    elif on_value is not None:
        dt = as_tensor(on_value).dtype if is_tensor_like(on_value) else _convert(on_value).dtype
    elif off_value is not None:
        dt = as_tensor(off_value).dtype if is_tensor_like(off_value) else _convert(off_value).dtype
    else:
        dt = dtypes.float32
    on = as_tensor(1 if on_value is None else on_value, dtype=dt)
    off = as_tensor(0 if off_value is None else off_value, dtype=dt)
    nd = idx._array.ndim + 1
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis < nd:
        raise InvalidArgumentError(None, None, f"OneHot: Expected axis to be -1 or between [0, {nd}), got {axis}")
    return execute(_ONE_HOT, (idx, on, off), {"depth": int(depth), "axis": axis})


@add_dispatch_support
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """``tf.repeat``: repeat elements (flattened when ``axis`` is None); built on gather."""
    t = as_tensor(input)
    if axis is None:
        t, axis = reshape(t, (-1,)), 0
    axis = _axis_arg(axis, t._array.ndim, "Repeat")
    n = t._array.shape[axis]
    reps = _host_ints(repeats, "Repeat", "repeats")
    if len(reps) == 1:
        reps = reps * n
    if len(reps) != n or any(r < 0 for r in reps):
        raise InvalidArgumentError(
            None, None, f"Repeat: repeats must be a scalar or have length {n} (dimension {axis}) with "
            f"non-negative entries, got {reps}")
    idx = _convert(np.repeat(np.arange(n, dtype=np.int64), reps), device=t._device)
    return _gather_dense_gradient(t, idx, axis)


@add_dispatch_support
def roll(input, shift, axis, name=None):  # noqa: A002
    """``tf.roll``: elements shifted cyclically along each axis (gather-based, differentiable)."""
    t = as_tensor(input)
    shifts, axes = _host_ints(shift, "Roll", "shift"), _host_ints(axis, "Roll", "axis")
    if len(shifts) != len(axes):
        raise InvalidArgumentError(None, None, f"Roll: shift and axis must have the same size, got {shifts}, {axes}")
    total = {}
    for s, a in zip(shifts, axes):
        a = _axis_arg(a, t._array.ndim, "Roll")
        total[a] = total.get(a, 0) + s
    for a, s in total.items():
        n = t._array.shape[a]
        if n and s % n:
            idx = _convert((np.arange(n, dtype=np.int64) - s) % n, device=t._device)
            t = _gather_dense_gradient(t, idx, a)
    return t
