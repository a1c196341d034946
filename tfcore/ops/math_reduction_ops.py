"""``tf.math``'s reductions, scans and orderings composed of registered ops: segment max/min/sqrt_n (beside
:mod:`tfcore.ops.reduce_ops`' segment sums and means), ``accumulate_n``, ``cumulative_logsumexp``,
``zero_fraction``, the monotonicity checks, ``invert_permutation`` and approximate top-k."""

import numpy as np

from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor
from .misc_ops import tensor_scatter_nd_max, tensor_scatter_nd_min

__all__ = [
    "accumulate_n", "is_non_decreasing", "is_strictly_increasing", "invert_permutation", "cumulative_logsumexp",
    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_sqrt_n", "segment_max", "segment_min",
    "zero_fraction", "approx_max_k", "approx_min_k",
]


@add_dispatch_support
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """``tf.math.accumulate_n``: the element-wise sum of ``inputs`` (same as ``add_n``)."""
    return _m.add_n(list(inputs))


@add_dispatch_support
def is_non_decreasing(x, name=None):
    """``tf.math.is_non_decreasing``: True when each element is >= the previous one (flattened)."""
    flat = _a.reshape(as_tensor(x), [-1])
    if flat.shape[0] < 2:
        return _convert(True)
    return _r.reduce_all(_m.greater_equal(flat[1:], flat[:-1]))


@add_dispatch_support
def is_strictly_increasing(x, name=None):
    """``tf.math.is_strictly_increasing``."""
    flat = _a.reshape(as_tensor(x), [-1])
    if flat.shape[0] < 2:
        return _convert(True)
    return _r.reduce_all(_m.greater(flat[1:], flat[:-1]))


@add_dispatch_support
def invert_permutation(x, name=None):
    """``tf.math.invert_permutation``: ``y[x[i]] = i``."""
    t = as_tensor(x)
    p = t.numpy()
    if p.ndim != 1 or sorted(p.tolist()) != list(range(p.size)):
        raise InvalidArgumentError(None, None, f"InvertPermutation: {p.tolist()} is not a permutation")
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=p.dtype)
    return _convert(inv, device=t._device)


@add_dispatch_support
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumulative_logsumexp``: ``log(cumsum(exp(x)))`` computed stably (shifted by the max)."""
    t = as_tensor(x)
    m = _a.stop_gradient(_r.reduce_max(t, axis=axis, keepdims=True))
    out = _m.add(_m.log(_m.cumsum(_m.exp(_m.subtract(t, m)), axis=axis, exclusive=exclusive, reverse=reverse)), m)
    return out


def _segment_extreme(data, segment_ids, num_segments, largest):
    d = as_tensor(data)
    ids = _m.cast(as_tensor(segment_ids), dtypes.int64)
    n = int(num_segments)
    inner = d.shape.as_list()[ids.ndim:]
    np_dt = d.dtype.as_numpy_dtype
    fill = (np.finfo(np_dt).min if d.dtype.is_floating else np.iinfo(np_dt).min) if largest else \
        (np.finfo(np_dt).max if d.dtype.is_floating else np.iinfo(np_dt).max)
    # Negative ids (dropped, as TF) go to an extra segment ``n`` that is cut off afterwards: tensor ops only, so
    # a traced function records them instead of reading the ids on the host.
    base = _m.cast(_a.fill([n + 1] + inner, fill), d.dtype)
    flat_ids = _a.reshape(ids, [-1, 1])
    flat_ids = _m.where(_m.greater_equal(flat_ids, _a.zeros_like(flat_ids)), flat_ids,
                        _m.add(_a.zeros_like(flat_ids), as_tensor(n, dtypes.int64)))
    flat = _a.reshape(d, [-1] + inner)
    out = (tensor_scatter_nd_max if largest else tensor_scatter_nd_min)(base, flat_ids, flat)
    return out[:n]


@add_dispatch_support
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_max``: empty segments hold the dtype's lowest value (as TF)."""
    return _segment_extreme(data, segment_ids, num_segments, True)


@add_dispatch_support
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_min``: empty segments hold the dtype's largest value."""
    return _segment_extreme(data, segment_ids, num_segments, False)


def _sorted_count(segment_ids, op_name):
    host = as_tensor(segment_ids).numpy()
    if host.ndim != 1 or (host.size and (host[0] < 0 or np.any(np.diff(host) < 0))):
        raise InvalidArgumentError(None, None, f"{op_name}: segment ids must be a sorted, non-negative vector")
    return int(host[-1]) + 1 if host.size else 0


@add_dispatch_support
def segment_max(data, segment_ids, name=None):
    """``tf.math.segment_max`` (sorted ``segment_ids``)."""
    return unsorted_segment_max(data, segment_ids, _sorted_count(segment_ids, "SegmentMax"))


@add_dispatch_support
def segment_min(data, segment_ids, name=None):
    """``tf.math.segment_min`` (sorted ``segment_ids``)."""
    return unsorted_segment_min(data, segment_ids, _sorted_count(segment_ids, "SegmentMin"))


@add_dispatch_support
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_sqrt_n``: segment sums divided by ``sqrt`` of the segment sizes."""
    d = as_tensor(data)
    ids = as_tensor(segment_ids)
    n = int(num_segments)
    ones = _m.cast(_m.greater_equal(ids, _a.zeros_like(ids)), d.dtype)
    counts = _m.maximum(_r.unsorted_segment_sum(ones, ids, n), 1.0)
    counts = _a.reshape(counts, [n] + [1] * (d.ndim - ids.ndim))
    return _m.divide(_r.unsorted_segment_sum(d, ids, n), _m.sqrt(counts))


@add_dispatch_support
def zero_fraction(value, name=None):
    """``tf.math.zero_fraction`` (also ``tf.nn.zero_fraction``): the fraction of zeros, as float32."""
    t = as_tensor(value)
    return _r.reduce_mean(_m.cast(_m.equal(t, _a.zeros_like(t)), dtypes.float32))


@add_dispatch_support
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``tf.math.approx_max_k``: the exact top ``k`` along ``reduction_dimension`` (recall 1.0)."""
    x = as_tensor(operand)
    axis = reduction_dimension % x.ndim
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    back = list(np.argsort(perm))
    vals, idx = _r.top_k(_a.transpose(x, perm), k=int(k))
    return _a.transpose(vals, back), _a.transpose(idx, back)


@add_dispatch_support
def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``tf.math.approx_min_k``: the exact bottom ``k`` along ``reduction_dimension``."""
    vals, idx = approx_max_k(_m.negative(as_tensor(operand)), k, reduction_dimension)
    return _m.negative(vals), idx
