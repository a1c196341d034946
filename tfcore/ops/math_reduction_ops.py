"""``tf.math``'s reductions, scans and orderings: segment max/min/sqrt_n composed of registered ops (beside
:mod:`tfcore.ops.reduce_ops`' segment sums and means), the segment products (ops of their own, with a CUDA
kernel in ``kernels/segment.cu``), ``accumulate_n``, ``cumulative_logsumexp``,
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
from .registry import Op, execute

__all__ = [
    "accumulate_n", "is_non_decreasing", "is_strictly_increasing", "invert_permutation", "cumulative_logsumexp",
    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_sqrt_n", "segment_max", "segment_min",
    "unsorted_segment_prod", "segment_prod",
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


# -- segment products (TF's UnsortedSegmentProd and SegmentProd) ----------------------------------------------------
#
# ``out[s] = prod(data[j] for ids[j] == s)``; an empty segment holds 1. The CPU kernel is NumPy's
# ``multiply.at``; the CUDA kernels are kernels/segment.cu (launcher: tfcore/ops/cuda_kernels/segment.py), for
# float16/float32/float64/int32/int64 data; other dtypes on a GPU run on the CPU (no GPU candidate: soft placement).

_SEGMENT_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _segment_prod_rule(op, ts, attrs):
    data, ids = ts
    if ids._dtype not in _SEGMENT_INDEX_DTYPES:
        raise InvalidArgumentError(None, None, f"{op.name}: segment_ids must be int32 or int64, got "
                                               f"{ids._dtype.name} (data {data._dtype.name}{list(data.shape)})")
    if data._dtype is dtypes.bool or data._dtype is dtypes.string:
        raise InvalidArgumentError(None, None, f"{op.name}: data must be numeric, got {data._dtype.name}")
    ish, dsh = tuple(ids._array.shape), tuple(data._array.shape)
    if dsh[:len(ish)] != ish:
        raise InvalidArgumentError(None, None, f"{op.name}: data.shape = {list(dsh)} does not start with "
                                               f"segment_ids.shape = {list(ish)}")
    return None


def check_segment_ids(xp, flat_ids, num_segments, op_name):
    """Raise TF's error for the first id ``>= num_segments`` (negative ids are dropped, not errors); ``xp``
    arrays, so the CPU kernel and the CUDA launcher check the same way before writing anything."""
    if flat_ids.size == 0:
        return
    too_big = flat_ids >= num_segments
    if bool(too_big.any()):
        j = int(xp.argmax(too_big))
        raise InvalidArgumentError(None, None, f"{op_name}: segment_ids[{j}] = {int(flat_ids[j])} is out of range "
                                               f"[0, {num_segments})")


def sorted_segment_count(xp, ids):
    """The number of output rows of a sorted segment op (last id + 1; 0 without ids), after TF's checks of
    ``ids`` (``xp`` arrays: the CPU kernel and the CUDA launcher check the same way)."""
    if ids.size == 0:
        return 0
    n = int(ids[-1]) + 1
    if int(ids[0]) < 0:
        raise InvalidArgumentError(None, None, f"SegmentProd: Segment id {int(ids[0])} out of range [0, {n}), "
                                               "possibly because 'segment_ids' input is not sorted.")
    if ids.size > 1 and bool((ids[1:] < ids[:-1]).any()):
        raise InvalidArgumentError(None, None, "SegmentProd: segment ids are not increasing")
    return n


def _segment_prod_numpy(data, ids, num_segments, op_name):
    rest = data.shape[ids.ndim:]
    flat_ids = ids.reshape(-1).astype(np.int64, copy=False)
    check_segment_ids(np, flat_ids, num_segments, op_name)
    flat = data.reshape((flat_ids.size,) + rest)
    keep = flat_ids >= 0
    out = np.ones((num_segments,) + rest, dtype=data.dtype)
    np.multiply.at(out, flat_ids[keep], flat[keep])
    return out


def _segment_prod_grad(call, g, sorted_ids):
    """TF's ``_UnsortedSegmentProdGrad`` / ``_SegmentProdGrad``: ``d out[s] / d data[j]`` is the product of the
    segment's OTHER elements. Without zeros that is ``out[s] / data[j]``; a segment with one zero passes the
    product of its non-zero elements to that zero only; a segment with two or more zeros passes nothing. Negative
    (dropped) ids get a zero gradient."""
    data, ids = call.inputs
    n = call.outputs[0].shape[0]
    is_zero = _m.equal(data, _a.zeros_like(data))
    num_zeros = _r.unsorted_segment_sum(_m.cast(is_zero, dtypes.int32), ids, n)
    g = _m.where(_m.greater(num_zeros, _a.ones_like(num_zeros)), _a.zeros_like(g), g)
    non_zero = _m.where(is_zero, _a.ones_like(data), data)
    non_zero_prod = execute(call.op, (non_zero, ids), call.attrs)
    clipped = ids if sorted_ids else _m.maximum(ids, _a.zeros_like(ids))
    # dividing by ``non_zero`` (TF's unsorted gradient divides by data, then discards those entries) keeps
    # the second gradient finite where data is 0
    partial = _m.where(is_zero, _a.gather(non_zero_prod, clipped),
                       _m.divide(_a.gather(call.outputs[0], clipped), non_zero))
    gathered = _a.gather(g, ids) if sorted_ids else _r._gather_drop_negatives(g, ids)
    return [_m.multiply(gathered, partial), None]


UNSORTED_SEGMENT_PROD = Op("UnsortedSegmentProd", rule=_segment_prod_rule,
                           grad=lambda call, g: _segment_prod_grad(call, g, sorted_ids=False),
                           tf_attr_inputs=[("num_segments", "Tnumsegments")], tf_input_types=("T", "Tindices"))
# As TF's, SegmentProd has no num_segments: its kernels read the (sorted) ids for the last one
SEGMENT_PROD = Op("SegmentProd", rule=_segment_prod_rule,
                  grad=lambda call, g: _segment_prod_grad(call, g, sorted_ids=True), tf_input_types=("T", "Tindices"))


@UNSORTED_SEGMENT_PROD.kernel("cpu")
def _unsorted_segment_prod_cpu(b, data, ids, *, num_segments):
    return _segment_prod_numpy(data, ids, num_segments, "UnsortedSegmentProd")


@SEGMENT_PROD.kernel("cpu")
def _segment_prod_cpu(b, data, ids):
    return _segment_prod_numpy(data, ids, sorted_segment_count(np, ids), "SegmentProd")


def _num_segments(num_segments, op_name):
    n = int(as_tensor(num_segments).numpy()) if hasattr(num_segments, "numpy") else int(num_segments)
    if n < 0:
        raise InvalidArgumentError(None, None, f"{op_name}: Input num_segments == {n} must not be negative.")
    return n


@add_dispatch_support
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_prod``: ``out[i] = prod(data[j...] for segment_ids[j] == i)``.

    ``segment_ids`` (int32/int64, any rank) is a prefix of ``data``'s shape and need not be sorted; the output
    is ``[num_segments] + data.shape[segment_ids.ndim:]``. Empty segments hold 1, negative ids are dropped, an id
    ``>= num_segments`` raises InvalidArgumentError (TF's CPU kernel; TF's GPU kernel skips it silently).
    """
    d = as_tensor(data)
    ids = as_tensor(segment_ids)
    n = _num_segments(num_segments, "UnsortedSegmentProd")
    return execute(UNSORTED_SEGMENT_PROD, (d, ids), {"num_segments": n})


@add_dispatch_support
def segment_prod(data, segment_ids, name=None):
    """``tf.math.segment_prod``: ``out[i] = prod(data[j] for segment_ids[j] == i)`` for a sorted, non-negative
    vector ``segment_ids`` as long as ``data``'s first dimension; ``last id + 1`` rows, a missing id's row
    holds 1. Unsorted or negative ids raise InvalidArgumentError with TF's messages (from the kernel, which
    reads the ids: no host read here, so a traced function saves as one SegmentProd node, as TF's)."""
    d = as_tensor(data)
    ids = as_tensor(segment_ids)
    if d._array.ndim == 0:
        raise InvalidArgumentError(None, None, f"SegmentProd: input must be at least rank 1, got {d.dtype.name}[]")
    if ids._array.ndim != 1:
        raise InvalidArgumentError(None, None, f"SegmentProd: segment_ids should be a vector, got shape "
                                               f"{list(ids.shape)}")
    if ids._array.shape[0] != d._array.shape[0]:
        raise InvalidArgumentError(None, None, f"SegmentProd: segment_ids should be the same size as dimension 0 "
                                               f"of input, got data {list(d.shape)} and segment_ids {list(ids.shape)}")
    return execute(SEGMENT_PROD, (d, ids))
