"""``tf.sets`` (size, intersection, union, difference) and ``tf.edit_distance``.

Sets live in the last dimension of a dense Tensor or SparseTensor (every element of a dense row is a member;
a SparseTensor's row holds its given values). Results are SparseTensors whose rows list the set's elements in
ascending order, with the last dense dimension the largest result set's size, as TF's set ops return them.
Host (NumPy) computation: these ops take integers and strings and are not differentiable.
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor_conversion import convert_to_tensor

_SET_TYPES = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.string)


def _rows(x, what):
    """(dict: outer index tuple -> list of elements in order, outer shape, dtype)."""
    if isinstance(x, SparseTensor):
        ind = np.asarray(x.indices.numpy()).astype(np.int64)
        shape = np.asarray(x.dense_shape.numpy()).astype(np.int64)
        vals = np.asarray(x.values.numpy())
        dt = x.dtype
        if len(shape) < 2:
            raise InvalidArgumentError(None, None, f"{what}: a set SparseTensor must have rank at least 2")
        order = np.lexsort(ind.T[::-1]) if len(ind) else np.arange(0)
        rows = {}
        for k in order:
            rows.setdefault(tuple(ind[k, :-1].tolist()), []).append(vals[k])
        return rows, tuple(int(s) for s in shape[:-1]), dt
    t = convert_to_tensor(x)
    arr = np.asarray(t.numpy())
    if arr.ndim < 2:
        raise InvalidArgumentError(None, None, f"{what}: a set tensor must have rank at least 2, got {arr.ndim}")
    rows = {idx: list(arr[idx]) for idx in np.ndindex(*arr.shape[:-1])}
    return rows, arr.shape[:-1], t.dtype


def _check(dt, what):
    if dt not in _SET_TYPES:
        raise TypeError(f"{what}: set elements must be integers or strings, got {dt.name}")


def size(a, validate_indices=True):
    """``tf.sets.size``: the number of distinct elements in each set (int32, shape ``a.shape[:-1]``)."""
    rows, outer, dt = _rows(a, "sets.size")
    _check(dt, "sets.size")
    out = np.zeros(outer, np.int32)
    for idx, elems in rows.items():
        out[idx] = len(set(elems))
    return convert_to_tensor(out)


def _set_op(a, b, fn, what):
    if isinstance(a, SparseTensor) is False and isinstance(b, SparseTensor):
        raise TypeError(f"{what}: a dense a with a sparse b is not supported (TF's order: sparse a or dense b)")
    ra, oa, da = _rows(a, what)
    rb, ob, db = _rows(b, what)
    _check(da, what)
    if da is not db:
        raise TypeError(f"{what}: a and b must have the same dtype, got {da.name} and {db.name}")
    if len(oa) != len(ob):
        raise InvalidArgumentError(None, None, f"{what}: a and b must have the same rank, got {len(oa) + 1} and "
                                               f"{len(ob) + 1}")
    outer = tuple(max(x, y) for x, y in zip(oa, ob))
    if not isinstance(a, SparseTensor) and tuple(oa) != tuple(ob):
        raise InvalidArgumentError(None, None, f"{what}: shapes {list(oa)} and {list(ob)} must match except in "
                                               "the last dimension")
    ind, vals, width = [], [], 0
    for idx in sorted(set(ra) | set(rb)):
        res = sorted(fn(set(ra.get(idx, ())), set(rb.get(idx, ()))))
        for j, v in enumerate(res):
            ind.append(list(idx) + [j])
            vals.append(v)
        width = max(width, len(res))
    rank = len(outer) + 1
    values = np.empty(len(vals), object) if dt_is_string(da) else np.asarray(vals, da.as_numpy_dtype)
    if dt_is_string(da):
        values[:] = vals
    return SparseTensor(np.asarray(ind, np.int64).reshape(-1, rank), convert_to_tensor(values, dtype=da),
                        list(outer) + [width])


def dt_is_string(dt):
    return dt is dtypes.string


def intersection(a, b, validate_indices=True):
    """``tf.sets.intersection``: the elements in both sets, per row (a SparseTensor)."""
    return _set_op(a, b, lambda x, y: x & y, "sets.intersection")


def union(a, b, validate_indices=True):
    """``tf.sets.union``: the elements in either set, per row."""
    return _set_op(a, b, lambda x, y: x | y, "sets.union")


def difference(a, b, aminusb=True, validate_indices=True):
    """``tf.sets.difference``: ``a - b`` (``aminusb=False``: ``b - a``), per row."""
    return _set_op(a, b, (lambda x, y: x - y) if aminusb else (lambda x, y: y - x), "sets.difference")


# -- edit distance ----------------------------------------------------------------------------------------------
def _levenshtein(h, t):
    prev = list(range(len(t) + 1))
    for i, hv in enumerate(h, 1):
        cur = [i] + [0] * len(t)
        for j, tv in enumerate(t, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (0 if hv == tv else 1))
        prev = cur
    return prev[-1]


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """``tf.edit_distance``: the Levenshtein distance between the sequences in the last dimension of two
    SparseTensors (float32, shape the larger of their outer shapes); ``normalize`` divides by the truth's
    length (an empty truth gives inf)."""
    if not isinstance(hypothesis, SparseTensor) or not isinstance(truth, SparseTensor):
        raise TypeError("edit_distance: hypothesis and truth must be SparseTensors")
    if hypothesis.dtype is not truth.dtype:
        raise TypeError(f"edit_distance: hypothesis and truth must have the same dtype, got "
                        f"{hypothesis.dtype.name} and {truth.dtype.name}")
    rh, oh, _ = _rows(hypothesis, "EditDistance")
    rt, ot, _ = _rows(truth, "EditDistance")
    if len(oh) != len(ot):
        raise InvalidArgumentError(None, None, f"EditDistance: hypothesis and truth must have the same rank, got "
                                               f"{len(oh) + 1} and {len(ot) + 1}")
    outer = tuple(max(x, y) for x, y in zip(oh, ot))
    out = np.zeros(outer, np.float32)
    for idx in set(rh) | set(rt):
        h, t = rh.get(idx, []), rt.get(idx, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else float("inf")
        out[idx] = d
    return convert_to_tensor(out)
