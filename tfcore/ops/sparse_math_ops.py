"""``tf.sparse``'s math: map_values, maximum/minimum, reduce_max, softmax, the sparse segment reductions,
bincount, cross, and ``mask`` on IndexedSlices; this module also registers the IndexedSlices-to-Tensor
conversion (the dense sum of the slices).

Index bookkeeping runs on the host (NumPy, as TF's CPU kernels, with the index helpers of
:mod:`tfcore.ops.sparse_reshape_ops`); every output value is computed from the inputs with registered ops
(``GatherV2``, segment sums, element-wise math), so gradients reach a SparseTensor's ``values`` as in TF.
Results keep TF's canonical row-major index order where TF sorts (maximum, bincount).
"""

import itertools

import numpy as np

from ..framework import dtypes
from ..framework import tensor_conversion_registry as _conv_registry
from ..framework.errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.sparse_tensor import SparseTensor, check_sparse
from ..framework.tensor_conversion import convert_to_tensor
from . import array_ops, math_ops, math_reduction_ops, reduce_ops
from .sparse_reshape_ops import _axis, _check_ordered, _host, _linear, _parts, _take


def map_values(op, *args, **kwargs):
    """``tf.sparse.map_values``: ``op`` applied to the values of the SparseTensors among the arguments
    (which must share their indices); other arguments pass through."""
    found = []

    def swap(x):
        if isinstance(x, SparseTensor):
            found.append(x)
            return x.values
        return x

    new_args = [swap(a) for a in args]
    new_kwargs = {k: swap(v) for k, v in kwargs.items()}
    if not found:
        raise ValueError("sparse.map_values: no SparseTensor among the arguments")
    ind0, shape0 = _parts(found[0])
    for s in found[1:]:
        ind, shape = _parts(s)
        if ind.shape != ind0.shape or (ind != ind0).any() or (shape != shape0).any():
            raise InvalidArgumentError(None, None, "sparse.map_values: SparseTensors must have the same indices and "
                                                   "dense_shape")
    return SparseTensor(found[0].indices, op(*new_args, **new_kwargs), found[0].dense_shape)


# -- element-wise and reductions -----------------------------------------------------------------------------
def _union(a, b, fn, what):
    sa, sb = check_sparse(a, "sp_a"), check_sparse(b, "sp_b")
    ia, sha = _parts(sa)
    ib, shb = _parts(sb)
    if len(sha) != len(shb) or (sha != shb).any():
        raise InvalidArgumentError(None, None, f"{what}: operands' shapes do not match: {sha.tolist()} vs "
                                               f"{shb.tolist()}")
    if sa.dtype is not sb.dtype:
        raise TypeError(f"sparse.{what}: operands have different dtypes {sa.dtype.name} and {sb.dtype.name}")
    _check_ordered(ia, sha, what)
    _check_ordered(ib, shb, what)
    la, lb = _linear(ia, sha), _linear(ib, shb)
    lin = np.union1d(la, lb)
    pos_a, pos_b = np.searchsorted(la, lin), np.searchsorted(lb, lin)
    in_a = (pos_a < len(la)) & (la[np.minimum(pos_a, max(len(la) - 1, 0))] == lin) if len(la) else \
        np.zeros(len(lin), bool)
    in_b = (pos_b < len(lb)) & (lb[np.minimum(pos_b, max(len(lb) - 1, 0))] == lin) if len(lb) else \
        np.zeros(len(lin), bool)
    zero = array_ops.zeros([1], dtype=sa.dtype)
    va = _take(array_ops.concat([sa.values, zero], axis=0), np.where(in_a, pos_a, len(la)))
    vb = _take(array_ops.concat([sb.values, zero], axis=0), np.where(in_b, pos_b, len(lb)))
    ind = np.concatenate([ia, ib])[np.where(in_a, pos_a, len(la) + pos_b)] if len(lin) else \
        np.zeros((0, len(sha)), np.int64)
    return SparseTensor(ind, fn(va, vb), sha)


def maximum(sp_a, sp_b, name=None):
    """``tf.sparse.maximum``: element-wise maximum over the union of the entries (missing entries are 0);
    both operands must be in row-major order."""
    return _union(sp_a, sp_b, math_ops.maximum, "SparseSparseMaximum")


def minimum(sp_a, sp_b, name=None):
    """``tf.sparse.minimum``: element-wise minimum over the union of the entries (missing entries are 0)."""
    return _union(sp_a, sp_b, math_ops.minimum, "SparseSparseMinimum")


def _reduce_groups(sp, axis, keepdims, what):
    ind, shape = _parts(sp)
    rank = len(shape)
    if axis is None:
        axes = list(range(rank))
    else:
        axes = sorted({_axis(a, rank, what) for a in (np.asarray(axis).reshape(-1).tolist())})
    keep = [d for d in range(rank) if d not in axes]
    out_shape = [1 if d in axes else int(shape[d]) for d in range(rank)] if keepdims else \
        [int(shape[d]) for d in keep]
    key = ind[:, keep]
    key_shape = shape[keep]
    return key, key_shape, np.asarray(out_shape, np.int64), keep


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """``tf.sparse.reduce_max``: the maximum of the given values (implicit zeros are ignored) over ``axis``.

    Dense outputs hold the dtype's lowest value where no value was reduced; with ``output_is_sparse``
    the result is a SparseTensor of the reduced positions only. Not differentiable (as in TF).
    """
    sp = check_sparse(sp_input, "sp_input")
    key, key_shape, out_shape, keep = _reduce_groups(sp, axis, bool(keepdims), "SparseReduceMax")
    vals = _host(sp.values)
    np_dt = vals.dtype
    lowest = np.finfo(np_dt).min if np.issubdtype(np_dt, np.floating) else np.iinfo(np_dt).min
    lin = _linear(key, key_shape)
    uniq, inv = np.unique(lin, return_inverse=True)
    red = np.full(len(uniq), lowest, np_dt)
    np.maximum.at(red, inv.reshape(-1), vals)
    if output_is_sparse:
        idx = np.stack(np.unravel_index(uniq, key_shape), axis=1).astype(np.int64) if len(key_shape) else \
            np.zeros((len(uniq), 0), np.int64)
        if keepdims:
            full = np.zeros((len(uniq), len(out_shape)), np.int64)
            full[:, keep] = idx
            idx = full
        return SparseTensor(idx, convert_to_tensor(red), out_shape)
    dense = np.full(int(np.prod(key_shape)), lowest, np_dt)
    dense[uniq] = red
    return convert_to_tensor(dense.reshape(out_shape))


def softmax(sp_input, name=None):
    """``tf.sparse.softmax``: softmax over the given values of each innermost row (implicit zeros take no
    part); indices must be in row-major order, the result keeps them."""
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    if len(shape) < 2:
        raise InvalidArgumentError(None, None, f"SparseSoftmax: sp_input must have rank at least 2, got "
                                               f"{len(shape)}")
    if not sp.dtype.is_floating:
        raise TypeError(f"sparse.softmax: values must be floating point, got {sp.dtype.name}")
    _check_ordered(ind, shape, "SparseSoftmax")
    lin = _linear(ind[:, :-1], shape[:-1])
    _, seg = np.unique(lin, return_inverse=True)
    nseg = int(seg.max()) + 1 if len(seg) else 0
    ids = convert_to_tensor(seg.reshape(-1).astype(np.int64))
    v = sp.values
    m = array_ops.stop_gradient(math_reduction_ops.unsorted_segment_max(v, ids, nseg))
    e = math_ops.exp(v - array_ops.gather(m, ids))
    s = reduce_ops.unsorted_segment_sum(e, ids, nseg)
    return SparseTensor(sp.indices, e / array_ops.gather(s, ids), sp.dense_shape)


# -- segment reductions of gathered rows --------------------------------------------------------------------
def _sparse_segment(data, indices, segment_ids, num_segments, what):
    d = convert_to_tensor(data)
    idx = _host(convert_to_tensor(indices)).astype(np.int64).reshape(-1)
    ids = _host(convert_to_tensor(segment_ids)).astype(np.int64).reshape(-1)
    if len(idx) != len(ids):
        raise InvalidArgumentError(None, None, f"{what}: segment_ids and indices should have the same size, got "
                                               f"{len(ids)} and {len(idx)}")
    n_rows = d.shape[0]
    if len(idx) and ((idx < 0) | (idx >= n_rows)).any():
        bad = int(idx[(idx < 0) | (idx >= n_rows)][0])
        raise InvalidArgumentError(None, None, f"{what}: index {bad} out of range [0, {n_rows})")
    if len(ids) and (ids[0] < 0 or (np.diff(ids) < 0).any()):
        raise InvalidArgumentError(None, None, f"{what}: segment ids are not increasing (or are negative)")
    n = (int(ids[-1]) + 1 if len(ids) else 0) if num_segments is None else int(num_segments)
    if len(ids) and ids[-1] >= n:
        raise InvalidArgumentError(None, None, f"{what}: segment id {int(ids[-1])} out of range [0, {n})")
    rows = _take(d, idx)
    ids_t = convert_to_tensor(ids)
    sums = reduce_ops.unsorted_segment_sum(rows, ids_t, n)
    counts = np.bincount(ids, minlength=n).astype(d.dtype.as_numpy_dtype).reshape((n,) + (1,) * (d.ndim - 1))
    return sums, counts


def sparse_segment_sum(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """``tf.sparse.segment_sum``: ``out[s] = sum(data[indices[j]] for segment_ids[j] == s)`` (sorted ids)."""
    return _sparse_segment(data, indices, segment_ids, num_segments, "SparseSegmentSum")[0]


def sparse_segment_mean(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """``tf.sparse.segment_mean``: the mean of each segment's rows (empty segments: 0)."""
    sums, counts = _sparse_segment(data, indices, segment_ids, num_segments, "SparseSegmentMean")
    return sums / convert_to_tensor(np.maximum(counts, 1))


def sparse_segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """``tf.sparse.segment_sqrt_n``: each segment's sum divided by the square root of its size."""
    sums, counts = _sparse_segment(data, indices, segment_ids, num_segments, "SparseSegmentSqrtN")
    return sums / convert_to_tensor(np.sqrt(np.maximum(counts, 1)))


# -- counting and crossing ----------------------------------------------------------------------------------
def bincount(values, weights=None, axis=0, minlength=None, maxlength=None, binary_output=False, name=None):
    """``tf.sparse.bincount``: counts (or summed ``weights``) of each value as a SparseTensor.

    ``axis=0`` counts over everything (result ``[size]``), ``axis=-1`` per row of a rank-2 input (result
    ``[rows, size]``). ``size`` is ``maxlength`` when given, else ``max(max value + 1, minlength)``; values
    ``>= maxlength`` are dropped. Counts have the values' dtype, sums the weights'.
    """
    if isinstance(values, SparseTensor):
        ind, shape = _parts(values)
        vals = _host(values.values)
        vdt = values.dtype
    else:
        t = convert_to_tensor(values)
        arr = _host(t)
        shape = np.asarray(arr.shape, np.int64)
        ind = np.stack(np.unravel_index(np.arange(arr.size), arr.shape), axis=1).astype(np.int64) if arr.ndim \
            else np.zeros((arr.size, 0), np.int64)
        vals = arr.reshape(-1)
        vdt = t.dtype
    if not vdt.is_integer:
        raise TypeError(f"sparse.bincount: values must be integers, got {vdt.name}")
    vals = vals.astype(np.int64)
    if len(vals) and (vals < 0).any():
        raise InvalidArgumentError(None, None, "sparse.bincount: Input values must all be non-negative integers")
    w = None
    out_dt = vdt
    if weights is not None:
        wt = weights.values if isinstance(weights, SparseTensor) else convert_to_tensor(weights)
        w = _host(wt).reshape(-1)
        if len(w) != len(vals):
            raise InvalidArgumentError(None, None, f"sparse.bincount: weights must have the values' shape, got "
                                                   f"{len(w)} weights for {len(vals)} values")
        out_dt = wt.dtype
    if axis is None or axis == 0:
        batch = np.zeros(len(vals), np.int64)
        batched = False
    elif axis == -1:
        if len(shape) > 2:
            raise InvalidArgumentError(None, None, "sparse.bincount: axis=-1 needs a rank-1 or rank-2 input")
        batched = len(shape) == 2
        batch = ind[:, 0] if batched else np.zeros(len(vals), np.int64)
    else:
        raise ValueError(f"sparse.bincount: unsupported axis {axis}; only 0 and -1 are supported")
    ml = int(maxlength) if maxlength is not None and int(maxlength) > 0 else 0
    keep = vals < ml if ml else np.ones(len(vals), bool)
    vals_k, batch_k = vals[keep], batch[keep]
    size = ml if ml else max(int(vals_k.max()) + 1 if len(vals_k) else 0, int(minlength or 0))
    key = batch_k * max(size, 1) + vals_k
    uniq, inv = np.unique(key, return_inverse=True)
    np_out = out_dt.as_numpy_dtype
    if binary_output:
        sums = np.ones(len(uniq), np_out)
    elif w is not None:
        sums = np.zeros(len(uniq), np_out)
        np.add.at(sums, inv.reshape(-1), w[keep].astype(np_out))
    else:
        sums = np.bincount(inv.reshape(-1), minlength=len(uniq)).astype(np_out)
    if batched:
        out_ind = np.stack([uniq // max(size, 1), uniq % max(size, 1)], axis=1).astype(np.int64)
        dense_shape = [int(shape[0]), size]
    else:
        out_ind = uniq.reshape(-1, 1).astype(np.int64)
        dense_shape = [size]
    return SparseTensor(out_ind, convert_to_tensor(sums, dtype=out_dt), dense_shape)


def _cross_columns(inputs, what):
    """Per input: (list of per-row lists of bytes, number of rows)."""
    cols = []
    nrows = None
    for i, x in enumerate(inputs):
        if isinstance(x, SparseTensor):
            ind, shape = _parts(x)
            if len(shape) != 2:
                raise InvalidArgumentError(None, None, f"{what}: inputs[{i}] must be rank 2, got {len(shape)}")
            vals = _host(x.values)
            dt = x.dtype
            n = int(shape[0])
            rows = [[] for _ in range(n)]
            for (r, _c), v in zip(ind.tolist(), vals.tolist()):
                rows[r].append(v)
        else:
            t = convert_to_tensor(x)
            arr = _host(t)
            if arr.ndim != 2:
                raise InvalidArgumentError(None, None, f"{what}: inputs[{i}] must be rank 2, got {arr.ndim}")
            dt = t.dtype
            n = arr.shape[0]
            rows = [list(r) for r in arr.tolist()]
        if dt is not dtypes.string and dt not in (dtypes.int64, dtypes.int32):
            raise TypeError(f"sparse.cross: inputs[{i}] must hold strings or int64, got {dt.name}")
        if dt is not dtypes.string:
            rows = [[str(int(v)).encode() for v in r] for r in rows]
        if nrows is not None and n != nrows:
            raise InvalidArgumentError(None, None, f"{what}: inputs must have the same batch size, got {nrows} and "
                                                   f"{n}")
        nrows = n
        cols.append(rows)
    return cols, nrows or 0


def cross(inputs, name=None, separator=None):
    """``tf.sparse.cross``: per row, every combination of one feature of each input joined by
    ``separator`` (default ``'_X_'``), the last input varying fastest; a string SparseTensor ``[rows, n]``."""
    if not isinstance(inputs, list | tuple) or not inputs:
        raise TypeError("sparse.cross: inputs must be a non-empty list of SparseTensors or Tensors")
    sep = b"_X_" if separator is None else (separator.encode() if isinstance(separator, str) else bytes(separator))
    cols, nrows = _cross_columns(inputs, "SparseCross")
    ind, vals, width = [], [], 0
    for r in range(nrows):
        combos = list(itertools.product(*(c[r] for c in cols)))
        for j, combo in enumerate(combos):
            ind.append((r, j))
            vals.append(sep.join(combo))
        width = max(width, len(combos))
    values = np.empty(len(vals), object)
    values[:] = vals
    return SparseTensor(np.asarray(ind, np.int64).reshape(-1, 2), convert_to_tensor(values, dtype=dtypes.string),
                        [nrows, width])


# -- IndexedSlices ------------------------------------------------------------------------------------------
def mask(a, mask_indices, name=None):
    """``tf.sparse.mask``: the IndexedSlices ``a`` without the slices whose index is in ``mask_indices``."""
    if not isinstance(a, IndexedSlices):
        raise TypeError(f"sparse.mask: a must be an IndexedSlices, got {type(a).__name__}")
    idx = _host(a.indices)
    drop = _host(convert_to_tensor(mask_indices)).reshape(-1)
    keep = np.nonzero(~np.isin(idx, drop))[0]
    return IndexedSlices(_take(a.values, keep), _take(a.indices, keep), a.dense_shape)


def _indexed_slices_to_tensor(value, dtype=None, name=None, as_ref=False):
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: {value!r}")
    if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
        raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for IndexedSlices of "
                         f"dtype {value.dtype.name}")
    n = int(_host(value.dense_shape)[0])
    return reduce_ops.unsorted_segment_sum(value.values, value.indices, n)


_conv_registry.register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor)
