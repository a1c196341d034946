"""More of ``tf.sparse``: concat, reshape, slice, transpose, retain, fill_empty_rows, split, maximum/minimum,
softmax, reduce_max, segment ops, bincount, cross, eye, mask (IndexedSlices) ...

Index bookkeeping runs on the host (NumPy, as TF's CPU kernels); every output value is taken from the
inputs with registered ops (``GatherV2``, segment sums, element-wise math), so gradients reach a
SparseTensor's ``values`` (and ``fill_empty_rows``' ``default_value``) as in TF. Results keep TF's
index order: canonical row-major order where TF sorts (concat, transpose, maximum, bincount), the
input order where TF's kernel keeps it (reshape, slice, retain, split, expand_dims).
"""

import itertools

import numpy as np

from ..framework import dtypes
from ..framework import tensor_conversion_registry as _conv_registry
from ..framework.errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.sparse_tensor import SparseTensor, check_sparse
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from . import array_ops, math_ops, math_reduction_ops, reduce_ops


def _host(t):
    return np.asarray(t.numpy())


def _parts(sp):
    """(indices int64 [N, rank], dense shape int64 [rank]) of a SparseTensor, on the host."""
    return _host(sp.indices).astype(np.int64).reshape(-1, sp.dense_shape.shape[0]), \
        _host(sp.dense_shape).astype(np.int64)


def _take(values, order):
    """values[order] with a registered op (gradients flow back to ``values``, dense as TF's for these ops)."""
    return array_ops._gather_dense_gradient(values, convert_to_tensor(np.asarray(order, np.int64)), 0)


def _linear(indices, shape):
    """Row-major positions of index rows (int64; object-free, no overflow for shapes below 2**63)."""
    if indices.shape[1] == 0:
        return np.zeros(len(indices), np.int64)
    strides = np.ones(len(shape), np.int64)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(int(shape[d + 1]), 1)
    return indices @ strides


def _sorted_order(indices, shape):
    return np.argsort(_linear(indices, shape), kind="stable")


def _check_ordered(indices, shape, what):
    lin = _linear(indices, shape)
    if len(lin) > 1 and (np.diff(lin) <= 0).any():
        i = int(np.argmax(np.diff(lin) <= 0)) + 1
        raise InvalidArgumentError(None, None, f"{what}: indices[{i}] = {indices[i].tolist()} is out of order or "
                                               "repeated; use tf.sparse.reorder first")


def _axis(axis, rank, what):
    a = int(axis)
    if not -rank <= a < rank:
        raise InvalidArgumentError(None, None, f"{what}: axis {a} is out of range for rank {rank}")
    return a % rank


# -- reshaping ---------------------------------------------------------------------------------------------
def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """``tf.sparse.concat``: concatenation along ``axis``; the result is in row-major order.

    With ``expand_nonconcat_dims`` the other dimensions grow to the largest input's; otherwise they
    must match.
    """
    if not isinstance(sp_inputs, list | tuple) or not sp_inputs:
        raise ValueError("sparse.concat: sp_inputs must be a non-empty list of SparseTensors")
    sps = [check_sparse(s, f"sp_inputs[{i}]") for i, s in enumerate(sp_inputs)]
    parts = [_parts(s) for s in sps]
    rank = len(parts[0][1])
    if any(len(p[1]) != rank for p in parts):
        raise InvalidArgumentError(None, None, f"SparseConcat: inputs must have the same rank, got "
                                               f"{[len(p[1]) for p in parts]}")
    ax = _axis(axis, rank, "SparseConcat")
    dtype = sps[0].dtype
    if any(s.dtype is not dtype for s in sps):
        raise TypeError(f"sparse.concat: inputs must have one dtype, got {[s.dtype.name for s in sps]}")
    shapes = np.stack([p[1] for p in parts])
    others = [d for d in range(rank) if d != ax]
    if expand_nonconcat_dims:
        out_shape = shapes.max(axis=0)
    else:
        for d in others:
            if (shapes[:, d] != shapes[0, d]).any():
                raise InvalidArgumentError(None, None, f"SparseConcat: input shapes must match except in the "
                                                       f"concat dimension {ax}, got {shapes.tolist()}")
        out_shape = shapes[0].copy()
    out_shape[ax] = shapes[:, ax].sum()
    offsets = np.concatenate([[0], np.cumsum(shapes[:, ax])])
    all_idx = []
    for (ind, _), off in zip(parts, offsets):
        ind = ind.copy()
        ind[:, ax] += off
        all_idx.append(ind)
    indices = np.concatenate(all_idx) if all_idx else np.zeros((0, rank), np.int64)
    values = array_ops.concat([s.values for s in sps], axis=0)
    order = _sorted_order(indices, out_shape)
    return SparseTensor(indices[order], _take(values, order), out_shape)


def reshape(sp_input, shape, name=None):
    """``tf.sparse.reshape``: the same entries in a new dense shape (one dimension may be -1)."""
    sp = check_sparse(sp_input, "sp_input")
    ind, old = _parts(sp)
    new = np.asarray(shape.numpy() if isinstance(shape, Tensor) else shape, np.int64).reshape(-1)
    size = int(np.prod(old))
    if (new == -1).sum() > 1:
        raise InvalidArgumentError(None, None, f"SparseReshape: only one output dimension may be -1, got "
                                               f"{new.tolist()}")
    if (new < -1).any():
        raise InvalidArgumentError(None, None, f"SparseReshape: size {new.tolist()} has a negative dimension")
    known = int(np.prod(new[new != -1]))
    if (new == -1).any():
        if known == 0 or size % known:
            raise InvalidArgumentError(None, None, f"SparseReshape: Input to reshape is a SparseTensor with {size} "
                                                   f"dense values, but the requested shape {new.tolist()} cannot "
                                                   "hold them")
        new = np.where(new == -1, size // known, new)
    if int(np.prod(new)) != size:
        raise InvalidArgumentError(None, None, f"SparseReshape: Input to reshape is a tensor with {size} dense "
                                               f"values, but the requested shape has {int(np.prod(new))}")
    lin = _linear(ind, old)
    new_ind = np.stack(np.unravel_index(lin, new), axis=1).astype(np.int64) if len(new) else \
        np.zeros((len(lin), 0), np.int64)
    return SparseTensor(new_ind.reshape(len(lin), len(new)), sp.values, new)


def expand_dims(sp_input, axis=None, name=None):
    """``tf.sparse.expand_dims``: a size-1 dimension inserted at ``axis`` (-1: last)."""
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    rank = len(shape)
    a = -1 if axis is None else int(axis)
    if not -rank - 1 <= a <= rank:
        raise InvalidArgumentError(None, None, f"sparse.expand_dims: axis {a} is out of range for rank {rank}")
    a = a % (rank + 1)
    new_ind = np.insert(ind, a, 0, axis=1)
    return SparseTensor(new_ind, sp.values, np.insert(shape, a, 1))


def transpose(sp_input, perm=None, name=None):
    """``tf.sparse.transpose``: dimensions permuted by ``perm`` (default: reversed); row-major order."""
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    rank = len(shape)
    perm = list(range(rank))[::-1] if perm is None else [int(p) for p in np.asarray(
        perm.numpy() if isinstance(perm, Tensor) else perm).reshape(-1)]
    if sorted(perm) != list(range(rank)):
        raise InvalidArgumentError(None, None, f"sparse.transpose: perm {perm} is not a permutation of "
                                               f"[0, {rank})")
    new_ind, new_shape = ind[:, perm], shape[perm]
    order = _sorted_order(new_ind, new_shape)
    return SparseTensor(new_ind[order], _take(sp.values, order), new_shape)


def slice(sp_input, start, size, name=None):  # noqa: A001 - TF's name
    """``tf.sparse.slice``: the entries inside ``[start, start + size)``, shifted to start at 0.

    The result's dense shape is clipped to the input's (``min(start + size, shape) - start``).
    """
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    start = np.asarray(start.numpy() if isinstance(start, Tensor) else start, np.int64).reshape(-1)
    size = np.asarray(size.numpy() if isinstance(size, Tensor) else size, np.int64).reshape(-1)
    if len(start) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(None, None, f"SparseSlice: start {start.tolist()} and size {size.tolist()} must "
                                               f"have the input's rank {len(shape)}")
    if (start < 0).any() or (size < 0).any():
        raise InvalidArgumentError(None, None, f"SparseSlice: start {start.tolist()} and size {size.tolist()} must "
                                               "be non-negative")
    end = np.minimum(start + size, shape)
    out_shape = np.maximum(end - start, 0)
    keep = np.all((ind >= start) & (ind < end), axis=1) if len(shape) else np.ones(len(ind), bool)
    sel = np.nonzero(keep)[0]
    return SparseTensor(ind[sel] - start, _take(sp.values, sel), out_shape)


def split(sp_input=None, num_split=None, axis=None, name=None, keyword_required=None):
    """``tf.sparse.split``: ``num_split`` SparseTensors along ``axis``; the first ``size % num_split`` pieces
    are one larger."""
    if sp_input is None or num_split is None or axis is None:
        raise ValueError("sparse.split: sp_input, num_split and axis are required")
    sp = check_sparse(sp_input, "sp_input")
    _, shape = _parts(sp)
    n = int(num_split)
    if n < 1:
        raise InvalidArgumentError(None, None, f"SparseSplit: num_split must be at least 1, got {n}")
    ax = _axis(axis, len(shape), "SparseSplit")
    total = int(shape[ax])
    if n > total:
        raise InvalidArgumentError(None, None, f"SparseSplit: num_split {n} is larger than the size {total} of "
                                               f"dimension {ax}")
    sizes = [total // n + (1 if i < total % n else 0) for i in range(n)]
    out, off = [], 0
    for s in sizes:
        start = np.zeros(len(shape), np.int64)
        start[ax] = off
        size = shape.copy()
        size[ax] = s
        out.append(slice(sp, start, size))
        off += s
    return out


def retain(sp_input, to_retain):
    """``tf.sparse.retain``: the entries where the boolean vector ``to_retain`` is True (order kept)."""
    sp = check_sparse(sp_input, "sp_input")
    keep = np.asarray(to_retain.numpy() if isinstance(to_retain, Tensor) else to_retain).reshape(-1)
    if keep.dtype != np.bool_:
        raise TypeError(f"sparse.retain: to_retain must be a bool vector, got {keep.dtype}")
    ind, shape = _parts(sp)
    if keep.shape[0] != ind.shape[0]:
        raise InvalidArgumentError(None, None, f"sparse.retain: to_retain has {keep.shape[0]} entries but sp_input "
                                               f"has {ind.shape[0]} values")
    sel = np.nonzero(keep)[0]
    return SparseTensor(ind[sel], _take(sp.values, sel), shape)


def reset_shape(sp_input, new_shape=None):
    """``tf.sparse.reset_shape``: the tight shape (largest index + 1 per dimension) or ``new_shape``, which
    must be at least the current one in every dimension."""
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    if new_shape is None:
        tight = ind.max(axis=0) + 1 if len(ind) else np.zeros(len(shape), np.int64)
        return SparseTensor(ind, sp.values, tight.astype(np.int64))
    new = np.asarray(new_shape.numpy() if isinstance(new_shape, Tensor) else new_shape, np.int64).reshape(-1)
    if len(new) != len(shape):
        raise ValueError(f"sparse.reset_shape: new_shape has rank {len(new)} but sp_input has rank {len(shape)}")
    if (new < shape).any():
        raise InvalidArgumentError(None, None, f"sparse.reset_shape: new_shape {new.tolist()} must be at least the "
                                               f"current shape {shape.tolist()} in every dimension")
    return SparseTensor(ind, sp.values, new)


def fill_empty_rows(sp_input, default_value, name=None):
    """``tf.sparse.fill_empty_rows``: ``(sp_output, empty_row_indicator)``.

    Every row (first index) without entries gets one at ``[row, 0, ..., 0]`` holding ``default_value``;
    the output is grouped by row (each row's entries in input order), as TF's kernel writes it.
    """
    sp = check_sparse(sp_input, "sp_input")
    ind, shape = _parts(sp)
    if len(shape) < 1:
        raise InvalidArgumentError(None, None, "SparseFillEmptyRows: sp_input must have rank at least 1")
    dflt = convert_to_tensor(default_value, dtype=sp.dtype)
    if dflt._array.ndim != 0:
        raise InvalidArgumentError(None, None, "SparseFillEmptyRows: default_value must be a scalar")
    nrows = int(shape[0])
    rows = ind[:, 0] if len(ind) else np.zeros(0, np.int64)
    if len(rows) and ((rows < 0) | (rows >= nrows)).any():
        raise InvalidArgumentError(None, None, f"SparseFillEmptyRows: a row index is out of range [0, {nrows})")
    counts = np.bincount(rows, minlength=nrows) if nrows else np.zeros(0, np.int64)
    empty = counts == 0
    n = len(ind)
    src = []     # per output entry: input position, or n (the default value)
    out_ind = []
    by_row = np.argsort(rows, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    for r in range(nrows):
        if empty[r]:
            src.append(n)
            out_ind.append(np.concatenate([[r], np.zeros(len(shape) - 1, np.int64)]))
        else:
            for j in by_row[starts[r]:starts[r + 1]]:
                src.append(j)
                out_ind.append(ind[j])
    out_ind = np.asarray(out_ind, np.int64).reshape(-1, len(shape))
    pool = array_ops.concat([sp.values, array_ops.reshape(dflt, [1])], axis=0)
    return SparseTensor(out_ind, _take(pool, src), shape), convert_to_tensor(empty)


def to_indicator(sp_input, vocab_size, name=None):
    """``tf.sparse.to_indicator``: dense bool ``[..., vocab_size]``; ``out[..., id]`` is True when the last
    dimension's row holds the id."""
    sp = check_sparse(sp_input, "sp_input")
    if not sp.dtype.is_integer:
        raise TypeError(f"sparse.to_indicator: sp_input must hold integer ids, got {sp.dtype.name}")
    ind, shape = _parts(sp)
    v = int(vocab_size)
    ids = _host(sp.values).astype(np.int64)
    if len(ids) and ((ids < 0) | (ids >= v)).any():
        raise InvalidArgumentError(None, None, f"sparse.to_indicator: id {int(ids[(ids < 0) | (ids >= v)][0])} is "
                                               f"out of range [0, {v})")
    out = np.zeros(tuple(shape[:-1]) + (v,), np.bool_)
    if len(ids):
        out[tuple(ind[:, :-1].T) + (ids,)] = True
    return convert_to_tensor(out)


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """``tf.sparse.eye``: a SparseTensor with ones on the diagonal."""
    r = int(num_rows)
    c = r if num_columns is None else int(num_columns)
    k = min(r, c)
    ind = np.repeat(np.arange(k, dtype=np.int64)[:, None], 2, axis=1)
    return SparseTensor(ind, array_ops.ones([k], dtype=dtypes.as_dtype(dtype)), [r, c])


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
