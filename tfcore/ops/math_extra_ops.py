"""``tf.math`` extras composed of registered ops: safe products and divisions, segment max/min/sqrt_n,
monotonicity checks, permutations, polynomials, cumulative log-sum-exp and approximate top-k."""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor, binary_args
from .misc_ops import acosh, asinh, atanh, tensor_scatter_nd_max, tensor_scatter_nd_min, truncatediv, truncatemod

__all__ = [
    "acosh", "asinh", "atanh", "truncatediv", "truncatemod", "multiply_no_nan", "reciprocal_no_nan", "xdivy", "xlogy",
    "xlog1py", "rint", "erfc", "accumulate_n", "is_non_decreasing", "is_strictly_increasing", "invert_permutation",
    "polyval", "cumulative_logsumexp", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_sqrt_n",
    "segment_max", "segment_min", "zero_fraction", "approx_max_k", "approx_min_k", "lgamma", "digamma", "lbeta",
    "erfinv", "ndtri",
]


def multiply_no_nan(x, y, name=None):
    """``tf.math.multiply_no_nan``: ``x * y``, but 0 where ``y`` is 0 even if ``x`` is inf or NaN."""
    x, y = binary_args(x, y)
    return _m.multiply(_m.where(_m.equal(y, _a.zeros_like(y)), _a.zeros_like(x), x), y)


def reciprocal_no_nan(x, name=None):
    """``tf.math.reciprocal_no_nan``: ``1 / x``, 0 where ``x`` is 0."""
    t = as_tensor(x)
    return _m.divide_no_nan(_a.ones_like(t), t)


def xdivy(x, y, name=None):
    """``tf.math.xdivy``: ``x / y``, 0 where ``x`` is 0."""
    x, y = binary_args(x, y)
    zero = _m.equal(x, _a.zeros_like(x))
    return _m.where(zero, _a.zeros_like(x), _m.divide(x, _m.where(zero, _a.ones_like(y), y)))


def xlogy(x, y, name=None):
    """``tf.math.xlogy``: ``x * log(y)``, 0 where ``x`` is 0."""
    x, y = binary_args(x, y)
    zero = _m.equal(x, _a.zeros_like(x))
    return _m.where(zero, _a.zeros_like(x), _m.multiply(x, _m.log(_m.where(zero, _a.ones_like(y), y))))


def xlog1py(x, y, name=None):
    """``tf.math.xlog1py``: ``x * log1p(y)``, 0 where ``x`` is 0."""
    x, y = binary_args(x, y)
    zero = _m.equal(x, _a.zeros_like(x))
    return _m.where(zero, _a.zeros_like(x), _m.multiply(x, _m.log1p(_m.where(zero, _a.zeros_like(y), y))))


def rint(x, name=None):
    """``tf.math.rint``: round half to even (same as ``tf.round``)."""
    return _m.round(x)


def erfc(x, name=None):
    """``tf.math.erfc``: ``1 - erf(x)``."""
    return _m.subtract(1.0, _m.erf(as_tensor(x)))


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """``tf.math.accumulate_n``: the element-wise sum of ``inputs`` (same as ``add_n``)."""
    return _m.add_n(list(inputs))


def is_non_decreasing(x, name=None):
    """``tf.math.is_non_decreasing``: True when each element is >= the previous one (flattened)."""
    flat = _a.reshape(as_tensor(x), [-1])
    if flat.shape[0] < 2:
        return _convert(True)
    return _r.reduce_all(_m.greater_equal(flat[1:], flat[:-1]))


def is_strictly_increasing(x, name=None):
    """``tf.math.is_strictly_increasing``."""
    flat = _a.reshape(as_tensor(x), [-1])
    if flat.shape[0] < 2:
        return _convert(True)
    return _r.reduce_all(_m.greater(flat[1:], flat[:-1]))


def invert_permutation(x, name=None):
    """``tf.math.invert_permutation``: ``y[x[i]] = i``."""
    t = as_tensor(x)
    p = t.numpy()
    if p.ndim != 1 or sorted(p.tolist()) != list(range(p.size)):
        raise InvalidArgumentError(None, None, f"InvertPermutation: {p.tolist()} is not a permutation")
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=p.dtype)
    return _convert(inv, device=t._device)


def polyval(coeffs, x, name=None):
    """``tf.math.polyval``: ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` (Horner's rule)."""
    x = as_tensor(x)
    if not coeffs:
        return _a.zeros_like(x)
    acc = _m.add(_a.zeros_like(x), as_tensor(coeffs[0], x.dtype))
    for c in coeffs[1:]:
        acc = _m.add(_m.multiply(acc, x), as_tensor(c, x.dtype))
    return acc


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


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_max``: empty segments hold the dtype's lowest value (as TF)."""
    return _segment_extreme(data, segment_ids, num_segments, True)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_min``: empty segments hold the dtype's largest value."""
    return _segment_extreme(data, segment_ids, num_segments, False)


def _sorted_count(segment_ids, op_name):
    host = as_tensor(segment_ids).numpy()
    if host.ndim != 1 or (host.size and (host[0] < 0 or np.any(np.diff(host) < 0))):
        raise InvalidArgumentError(None, None, f"{op_name}: segment ids must be a sorted, non-negative vector")
    return int(host[-1]) + 1 if host.size else 0


def segment_max(data, segment_ids, name=None):
    """``tf.math.segment_max`` (sorted ``segment_ids``)."""
    return unsorted_segment_max(data, segment_ids, _sorted_count(segment_ids, "SegmentMax"))


def segment_min(data, segment_ids, name=None):
    """``tf.math.segment_min`` (sorted ``segment_ids``)."""
    return unsorted_segment_min(data, segment_ids, _sorted_count(segment_ids, "SegmentMin"))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_sqrt_n``: segment sums divided by ``sqrt`` of the segment sizes."""
    d = as_tensor(data)
    ids = as_tensor(segment_ids)
    n = int(num_segments)
    ones = _m.cast(_m.greater_equal(ids, _a.zeros_like(ids)), d.dtype)
    counts = _m.maximum(_r.unsorted_segment_sum(ones, ids, n), 1.0)
    counts = _a.reshape(counts, [n] + [1] * (d.ndim - ids.ndim))
    return _m.divide(_r.unsorted_segment_sum(d, ids, n), _m.sqrt(counts))


def zero_fraction(value, name=None):
    """``tf.math.zero_fraction`` (also ``tf.nn.zero_fraction``): the fraction of zeros, as float32."""
    t = as_tensor(value)
    return _r.reduce_mean(_m.cast(_m.equal(t, _a.zeros_like(t)), dtypes.float32))


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``tf.math.approx_max_k``: the exact top ``k`` along ``reduction_dimension`` (recall 1.0)."""
    x = as_tensor(operand)
    axis = reduction_dimension % x.ndim
    perm = [i for i in range(x.ndim) if i != axis] + [axis]
    back = list(np.argsort(perm))
    vals, idx = _r.top_k(_a.transpose(x, perm), k=int(k))
    return _a.transpose(vals, back), _a.transpose(idx, back)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """``tf.math.approx_min_k``: the exact bottom ``k`` along ``reduction_dimension``."""
    vals, idx = approx_max_k(_m.negative(as_tensor(operand)), k, reduction_dimension)
    return _m.negative(vals), idx




# -- special functions (compositions: differentiable, every device) -----------------------------------------

_STIRLING_SHIFT = 8


def _shifted(t):
    """``t + 8`` and the correction terms for lgamma/digamma recurrences (``x > 0``)."""
    return _m.add(t, float(_STIRLING_SHIFT))


def _lgamma_positive(t):
    y = _shifted(t)
    inv = _m.reciprocal(y)
    inv2 = _m.square(inv)
    series = _m.multiply(inv, _m.add(1.0 / 12, _m.multiply(inv2, _m.add(-1.0 / 360, _m.multiply(
        inv2, _m.add(1.0 / 1260, _m.multiply(inv2, -1.0 / 1680)))))))
    stirling = _m.add(_m.subtract(_m.multiply(_m.subtract(y, 0.5), _m.log(y)), y),
                      _m.add(0.5 * float(np.log(2 * np.pi)), series))
    prod = t
    for k in range(1, _STIRLING_SHIFT):
        prod = _m.multiply(prod, _m.add(t, float(k)))
    return _m.subtract(stirling, _m.log(_m.abs(prod)))


def lgamma(x, name=None):
    """``tf.math.lgamma``: ``log|Gamma(x)|`` (Stirling series after an upward shift; reflection for ``x < 0.5``)."""
    t = as_tensor(x)
    if not t.dtype.is_floating:
        t = _m.cast(t, dtypes.float32)
    small = _m.less(t, 0.5)
    pos = _m.where(small, _m.subtract(1.0, t), t)  # the reflected argument is >= 0.5
    lg = _lgamma_positive(pos)
    reflect = _m.subtract(_m.log(_m.divide(float(np.pi), _m.abs(_m.sin(_m.multiply(t, float(np.pi)))))), lg)
    return _m.where(small, reflect, lg)


def digamma(x, name=None):
    """``tf.math.digamma``: the derivative of ``lgamma`` (asymptotic series after an upward shift; reflection
    ``psi(1 - x) - pi / tan(pi x)`` for ``x < 0.5``)."""
    t = as_tensor(x)
    if not t.dtype.is_floating:
        t = _m.cast(t, dtypes.float32)
    small = _m.less(t, 0.5)
    pos = _m.where(small, _m.subtract(1.0, t), t)
    y = _shifted(pos)
    inv = _m.reciprocal(y)
    inv2 = _m.square(inv)
    series = _m.multiply(inv2, _m.add(1.0 / 12, _m.multiply(inv2, _m.add(-1.0 / 120, _m.multiply(
        inv2, _m.add(1.0 / 252, _m.multiply(inv2, -1.0 / 240)))))))
    psi = _m.subtract(_m.subtract(_m.log(y), _m.multiply(inv, 0.5)), series)
    for k in range(_STIRLING_SHIFT):
        psi = _m.subtract(psi, _m.reciprocal(_m.add(pos, float(k))))
    reflect = _m.subtract(psi, _m.divide(float(np.pi), _m.tan(_m.multiply(t, float(np.pi)))))
    return _m.where(small, reflect, psi)


def lbeta(x, name=None):
    """``tf.math.lbeta``: ``sum(lgamma(x)) - lgamma(sum(x))`` over the last axis."""
    t = as_tensor(x)
    return _m.subtract(_r.reduce_sum(lgamma(t), axis=-1), lgamma(_r.reduce_sum(t, axis=-1)))


def erfinv(x, name=None):
    """``tf.math.erfinv``: the inverse of ``erf`` on (-1, 1) (Giles' approximation refined by two Newton steps)."""
    t = as_tensor(x)
    if not t.dtype.is_floating:
        t = _m.cast(t, dtypes.float32)
    w = _m.negative(_m.log(_m.multiply(_m.subtract(1.0, t), _m.add(1.0, t))))
    central = _m.subtract(w, 2.5)
    p1 = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
              0.246640727, 1.50140941):
        p1 = _m.add(_m.multiply(p1, central), c)
    tail = _m.subtract(_m.sqrt(_m.maximum(w, 5.0)), 3.0)
    p2 = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
              1.00167406, 2.83297682):
        p2 = _m.add(_m.multiply(p2, tail), c)
    y = _m.multiply(_m.where(_m.less(w, 5.0), p1, p2), t)
    for _ in range(2):  # Newton: y -= (erf(y) - x) / (2/sqrt(pi) exp(-y^2))
        err = _m.subtract(_m.erf(y), t)
        y = _m.subtract(y, _m.divide(err, _m.multiply(_m.exp(_m.negative(_m.square(y))), float(2 / np.sqrt(np.pi)))))
    return y


def ndtri(x, name=None):
    """``tf.math.ndtri``: the standard normal quantile, ``sqrt(2) * erfinv(2x - 1)``."""
    t = as_tensor(x)
    return _m.multiply(erfinv(_m.subtract(_m.multiply(t, 2.0), 1.0)), float(np.sqrt(2.0)))
