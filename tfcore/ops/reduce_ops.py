"""Reductions over axes, arg-reductions, segment sums, top-k, counting, norms and norm clipping.

Every reduction takes ``axis`` as an int, a list (negative entries allowed) or
None (all axes) and ``keepdims``. Gradients are written with public ops, so
nested tapes differentiate them again.
"""

import collections
import math

import numpy as np

from ..backend import xp_compat
from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import _cpu_fast
from . import math_ops as _m
from ._array_common import _axis_arg, _index_tensor, scatter_add
from ._common import accumulation_dtype, as_tensor, bool_rule, describe, normalize_axis, numeric_rule
from .array_ops import broadcast_to, gather, reshape, stop_gradient, transpose, zeros_like
from .registry import Op, execute

__all__ = [
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all",
    "reduce_logsumexp", "argmax", "argmin", "norm", "clip_by_norm", "clip_by_global_norm",
]

# Names that TF exposes under ``tf.math`` only (tfcore/math.py imports them).
MATH_ONLY = [
    "count_nonzero", "reduce_std", "reduce_variance", "reduce_euclidean_norm", "segment_sum", "segment_mean",
    "unsorted_segment_sum", "unsorted_segment_mean", "top_k", "in_top_k", "confusion_matrix", "bincount",
    "cumprod", "global_norm",
]


def _keepdims_shape(in_shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(in_shape))


def _reduced_shape(in_shape, axes, keepdims):
    if keepdims:
        return _keepdims_shape(in_shape, axes)
    return tuple(d for i, d in enumerate(in_shape) if i not in axes)


def _grad_to_input_shape(call, g):
    """``g`` reshaped to keepdims form and broadcast back to the input's shape."""
    x = call.inputs[0]
    axes = call.attrs["axis"]
    if not axes:
        return g
    # Leading axes (incl. a full reduction): ``g`` already broadcasts, no Reshape op needed.
    if not call.attrs["keepdims"] and max(axes) != len(axes) - 1:
        g = reshape(g, _keepdims_shape(x._array.shape, axes))
    return broadcast_to(g, x._array.shape)


def _reduction(name, rule, grad):
    # TF's reductions take the axes as the input ``reduction_indices`` and name the flag ``keep_dims``
    # (Any and All are boolean only: no T)
    return Op(name, rule=rule, grad=grad, tf_attr_inputs=[("axis", "Tidx")], tf_attr_names={"keepdims": "keep_dims"},
              tf_input_types=() if rule is bool_rule else None)


def _run(op, input_tensor, axis, keepdims):
    t = as_tensor(input_tensor)
    axes = normalize_axis(axis, t._array.ndim, op.name)
    return execute(op, (t,), {"axis": axes, "keepdims": bool(keepdims)})


# -- sum / mean / prod ---------------------------------------------------------------

def _sum_grad(call, g):
    return [_grad_to_input_shape(call, g)]


_SUM = _reduction("Sum", numeric_rule, _sum_grad)


@_SUM.kernel()
def _sum(b, x, *, axis, keepdims):
    acc = accumulation_dtype(x.dtype)
    if acc != x.dtype:  # float16/bfloat16: float32 accumulation, one rounding
        return b.xp.sum(x, axis=axis, keepdims=keepdims, dtype=acc).astype(x.dtype)
    return b.xp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


@_SUM.kernel("cpu")
def _sum_cpu(b, x, *, axis, keepdims):
    if accumulation_dtype(x.dtype) != x.dtype:
        return _sum(b, x, axis=axis, keepdims=keepdims)
    nd = x.ndim
    if nd >= 2 and len(axis) == nd - 1 and nd - 1 not in axis and x.flags.c_contiguous:
        # every axis but the last (a broadcast bias's gradient): column sums through BLAS
        out = _cpu_fast.column_sums(x.reshape(-1, x.shape[-1]))
        return out.reshape((1,) * (nd - 1) + out.shape) if keepdims else out
    return np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


@add_dispatch_support
def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_sum``: axis is an int, a list (negative allowed) or None (all)."""
    return _run(_SUM, input_tensor, axis, keepdims)


def _mean_grad(call, g):
    x = call.inputs[0]
    count = math.prod(x._array.shape[a] for a in call.attrs["axis"])
    g = _m.divide(g, _m.scalar_like(max(count, 1), g))  # divide the small tensor, then broadcast
    return [_grad_to_input_shape(call, g)]


_MEAN = _reduction("Mean", numeric_rule, _mean_grad)


@_MEAN.kernel()
def _mean(b, x, *, axis, keepdims):
    xp = b.xp
    if x.dtype.kind in "iu":
        # TF divides integer sums with C++ truncation toward zero.
        n = int(np.prod([x.shape[a] for a in axis], dtype=np.int64))
        s = xp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
        if n == 0:
            return xp.zeros_like(s)
        q = xp.abs(s) // n
        return (xp.where(s < 0, -q, q)).astype(x.dtype, copy=False)
    acc = accumulation_dtype(x.dtype)
    if acc != x.dtype:  # float16/bfloat16: float32 accumulation, one rounding
        return xp.mean(x, axis=axis, keepdims=keepdims, dtype=acc).astype(x.dtype)
    return xp.mean(x, axis=axis, keepdims=keepdims).astype(x.dtype, copy=False)


_UFUNC_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


@_MEAN.kernel("cpu", name="mean_ufunc")
def _mean_cpu(b, x, *, axis, keepdims):
    """float32/64: np.mean's own steps (sum, then divide by the count) minus its ~5 us of Python; the
    generic code for everything else. The CPU's own kernel, so no dispatcher stands before it."""
    if x.dtype in _UFUNC_FLOATS and x.size:
        return np.add.reduce(x, axis=axis, keepdims=keepdims) / math.prod(x.shape[a] for a in axis)
    return _mean(b, x, axis=axis, keepdims=keepdims)


@add_dispatch_support
def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_mean`` (integer inputs give the truncated integer mean, as TF)."""
    return _run(_MEAN, input_tensor, axis, keepdims)


def _prod_grad(call, g):
    """Product of all other elements via exclusive cumprods from both ends (zero-safe)."""
    x = call.inputs[0]
    axes = call.attrs["axis"]
    shp = x._array.shape
    g = _grad_to_input_shape(call, g)
    other = [i for i in range(len(shp)) if i not in axes]
    perm = list(axes) + other
    inv = [int(i) for i in np.argsort(perm)]
    n_red = int(np.prod([shp[a] for a in axes], dtype=np.int64))
    n_other = int(np.prod([shp[a] for a in other], dtype=np.int64))
    xt = reshape(transpose(x, perm), (n_red, n_other))
    left = cumprod(xt, axis=0, exclusive=True)
    right = cumprod(xt, axis=0, exclusive=True, reverse=True)
    y = reshape(_m.multiply(left, right), [shp[a] for a in perm])
    return [_m.multiply(g, transpose(y, inv))]


_PROD = _reduction("Prod", numeric_rule, _prod_grad)


@_PROD.kernel()
def _prod(b, x, *, axis, keepdims):
    return b.xp.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


@add_dispatch_support
def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_prod``."""
    return _run(_PROD, input_tensor, axis, keepdims)


# -- max / min -----------------------------------------------------------------------

def _minmax_grad(call, g):
    """The gradient goes to the extremal entries, split evenly among ties (as TF)."""
    x, y = call.inputs[0], call.outputs[0]
    if not call.attrs["keepdims"]:
        ks = _keepdims_shape(x._array.shape, call.attrs["axis"])
        y, g = reshape(y, ks), reshape(g, ks)
    ind = _m.cast(_m.equal(x, y), g.dtype)
    num = reduce_sum(ind, call.attrs["axis"], keepdims=True)
    return [_m.divide(_m.multiply(ind, g), num)]


def _extreme_kernel(fn_name, empty_value):
    def impl(b, x, *, axis, keepdims):
        xp = b.xp
        if x.size == 0 and any(x.shape[a] == 0 for a in axis):
            # TF returns the identity element (lowest/highest value) for empty reductions.
            shp = _reduced_shape(x.shape, axis, keepdims)
            return xp.full(shp, empty_value(x.dtype), dtype=x.dtype)
        return getattr(xp, fn_name)(x, axis=axis, keepdims=keepdims)

    return impl


def _lowest(dt):
    return -np.inf if dt.kind in "fV" else np.iinfo(dt).min  # "V": ml_dtypes bfloat16


def _highest(dt):
    return np.inf if dt.kind in "fV" else np.iinfo(dt).max


_MAX = _reduction("Max", numeric_rule, _minmax_grad)
_MIN = _reduction("Min", numeric_rule, _minmax_grad)
_MAX.kernel()(_extreme_kernel("amax", _lowest))
_MIN.kernel()(_extreme_kernel("amin", _highest))


@add_dispatch_support
def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_max`` (gradient split evenly among tied maxima)."""
    return _run(_MAX, input_tensor, axis, keepdims)


@add_dispatch_support
def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_min``."""
    return _run(_MIN, input_tensor, axis, keepdims)


# -- any / all -------------------------------------------------------------------------

_ANY = _reduction("Any", bool_rule, None)
_ALL = _reduction("All", bool_rule, None)


@_ANY.kernel()
def _any(b, x, *, axis, keepdims):
    return b.xp.any(x, axis=axis, keepdims=keepdims)


@_ALL.kernel()
def _all(b, x, *, axis, keepdims):
    return b.xp.all(x, axis=axis, keepdims=keepdims)


@add_dispatch_support
def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_any`` (bool inputs)."""
    return _run(_ANY, input_tensor, axis, keepdims)


@add_dispatch_support
def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_all`` (bool inputs)."""
    return _run(_ALL, input_tensor, axis, keepdims)


# -- composites ----------------------------------------------------------------------

@add_dispatch_support
def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_logsumexp``: log(sum(exp(x))) computed stably around the (gradient-stopped) max."""
    x = as_tensor(input_tensor)
    axes = normalize_axis(axis, x._array.ndim, "Logsumexp")
    raw_max = reduce_max(x, axes, keepdims=True)
    my_max = stop_gradient(_m.where(_m.is_finite(raw_max), raw_max, zeros_like(raw_max)))
    result = _m.log(reduce_sum(_m.exp(_m.subtract(x, my_max)), axes, keepdims=keepdims))
    if not keepdims:
        my_max = reshape(my_max, result._array.shape)
    return _m.add(result, my_max)


@add_dispatch_support
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.math.reduce_variance`` (population variance)."""
    x = as_tensor(input_tensor)
    if not x.dtype.is_floating:
        raise InvalidArgumentError(None, None, f"reduce_variance: input must be floating, got {describe([x])}")
    mean = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(_m.square(_m.subtract(x, mean)), axis, keepdims=keepdims)


@add_dispatch_support
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.math.reduce_std``."""
    return _m.sqrt(reduce_variance(input_tensor, axis, keepdims))


@add_dispatch_support
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.math.reduce_euclidean_norm``: sqrt(sum(x**2))."""
    x = as_tensor(input_tensor)
    return _m.sqrt(reduce_sum(_m.square(x), axis, keepdims))


@add_dispatch_support
def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002
    """``tf.math.count_nonzero``."""
    x = as_tensor(input)
    nz = _m.not_equal(x, zeros_like(x)) if x.dtype is not dtypes.bool else x
    return reduce_sum(_m.cast(nz, dtype), axis, keepdims=bool(keepdims))


# -- argmax / argmin ----------------------------------------------------------------

def _arg_rule(op, ts, attrs):
    numeric_rule(op, ts, attrs)
    if ts[0]._array.shape[attrs["axis"]] == 0:
        raise InvalidArgumentError(
            None, None, f"{op.name}: Reduction axis {attrs['axis']} is empty in shape {list(ts[0].shape)}")
    return attrs["output_type"]


_ARGMAX = Op("ArgMax", rule=_arg_rule, tf_attr_inputs=[("axis", "Tidx")])  # TF's "dimension" input
_ARGMIN = Op("ArgMin", rule=_arg_rule, tf_attr_inputs=[("axis", "Tidx")])


@_ARGMAX.kernel()
def _argmax(b, x, *, axis, output_type):
    return b.xp.argmax(x, axis=axis).astype(output_type.as_numpy_dtype)


@_ARGMIN.kernel()
def _argmin(b, x, *, axis, output_type):
    return b.xp.argmin(x, axis=axis).astype(output_type.as_numpy_dtype)


def _arg(op, input, axis, output_type):  # noqa: A002
    t = as_tensor(input)
    axis = _axis_arg(0 if axis is None else axis, max(t._array.ndim, 1), op.name)
    if t._array.ndim == 0:
        raise InvalidArgumentError(None, None, f"{op.name}: input must have rank >= 1, got a scalar")
    return execute(op, (t,), {"axis": axis, "output_type": dtypes.as_dtype(output_type)})


@add_dispatch_support
def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """``tf.math.argmax``: index of the first maximum along ``axis`` (default 0)."""
    return _arg(_ARGMAX, input, axis, output_type)


@add_dispatch_support
def argmin(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
    """``tf.math.argmin``."""
    return _arg(_ARGMIN, input, axis, output_type)


# -- cumprod --------------------------------------------------------------------------

def _cumprod_grad(call, g):
    a = call.attrs
    x = call.inputs[0]
    prod = cumprod(x, axis=a["axis"], exclusive=a["exclusive"], reverse=a["reverse"])
    out = _m.cumsum(_m.multiply(prod, g), axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
    return [_m.divide_no_nan(out, x)]


_CUMPROD = Op("Cumprod", rule=numeric_rule, grad=_cumprod_grad, output_arg="out",
              tf_attr_inputs=[("axis", "Tidx")])


@_CUMPROD.kernel()
def _cumprod(b, x, *, axis, exclusive, reverse):
    xp = b.xp
    if reverse:
        x = xp.flip(x, axis)
    if exclusive:
        ones_shape = list(x.shape)
        ones_shape[axis] = 1
        head = xp.ones(ones_shape, dtype=x.dtype)
        body = xp.take(x, xp.arange(x.shape[axis] - 1), axis=axis)
        x = xp.concatenate([head, body], axis=axis) if x.shape[axis] else x
    out = xp.cumprod(x, axis=axis, dtype=x.dtype)
    if reverse:
        out = xp.flip(out, axis)
    return xp.ascontiguousarray(out)


@add_dispatch_support
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumprod``."""
    t = as_tensor(x)
    axis = _axis_arg(axis, t._array.ndim, "Cumprod")
    return execute(_CUMPROD, (t,), {"axis": axis, "exclusive": bool(exclusive), "reverse": bool(reverse)})


# -- segment sums ------------------------------------------------------------------------

def _gather_drop_negatives(g, ids):
    """gather(g, ids) with zero rows where ids < 0 (the gradient of an unsorted segment sum)."""
    zero = zeros_like(ids)
    neg = _m.less(ids, zero)
    gathered = gather(g, _m.maximum(ids, zero))
    if not bool(neg.numpy().any()):
        return gathered
    mask = reshape(neg, tuple(ids._array.shape) + (1,) * (g._array.ndim - 1))
    return _m.where(broadcast_to(mask, gathered._array.shape), zeros_like(gathered), gathered)


def _segment_grad(call, g):
    return [_gather_drop_negatives(g, call.inputs[1]), None]


def _segment_rule(op, ts, attrs):
    data, ids = ts
    if not ids._dtype.is_integer:
        raise InvalidArgumentError(None, None, f"{op.name}: segment_ids must be integers, got {describe(ts)}")
    if data._dtype is dtypes.bool or data._dtype is dtypes.string:
        raise InvalidArgumentError(None, None, f"{op.name}: data must be numeric, got {describe(ts)}")
    ish, dsh = ids._array.shape, data._array.shape
    if dsh[:len(ish)] != ish:
        raise InvalidArgumentError(
            None, None, f"{op.name}: segment_ids.shape = {list(ish)} must be a prefix of data.shape = {list(dsh)}")
    return None


_UNSORTED_SEGMENT_SUM = Op("UnsortedSegmentSum", rule=_segment_rule, grad=_segment_grad,
                           tf_attr_inputs=[("num_segments", "Tnumsegments")], tf_input_types=("T", "Tindices"))
_SEGMENT_SUM = Op("SegmentSum", rule=_segment_rule, grad=_segment_grad)


@_UNSORTED_SEGMENT_SUM.kernel()
def _unsorted_segment_sum(b, data, ids, *, num_segments):
    xp = b.xp
    k = ids.ndim
    rest = data.shape[k:]
    flat_ids = ids.reshape(-1).astype(xp.int64, copy=False)
    flat = data.reshape((flat_ids.size,) + rest)
    out = xp.zeros((num_segments,) + rest, dtype=data.dtype)
    if flat_ids.size and bool((flat_ids >= num_segments).any()):
        bad = int(flat_ids[int(xp.argmax(flat_ids >= num_segments))])
        raise InvalidArgumentError(None, None, f"UnsortedSegmentSum: segment_ids value {bad} is out of range "
                                   f"[0, {num_segments})")
    keep = flat_ids >= 0
    if not bool(keep.all()):
        flat_ids, flat = flat_ids[keep], flat[keep]
    scatter_add(xp, out, flat_ids, flat)
    return out


_SEGMENT_SUM.kernel()(_unsorted_segment_sum)


@add_dispatch_support
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_sum``: ``out[i] = sum(data[j] for ids[j] == i)``; negative ids are dropped."""
    d = as_tensor(data)
    ids = _index_tensor(segment_ids, "UnsortedSegmentSum")
    n = int(as_tensor(num_segments).numpy()) if is_tensor(num_segments) else int(num_segments)
    return execute(_UNSORTED_SEGMENT_SUM, (d, ids), {"num_segments": n})


@add_dispatch_support
def segment_sum(data, segment_ids, name=None):
    """``tf.math.segment_sum``: ``segment_ids`` is a sorted 1-D vector as long as data's first dimension."""
    d = as_tensor(data)
    ids = _index_tensor(segment_ids, "SegmentSum")
    host = ids.numpy()
    if host.ndim != 1 or (d._array.ndim and host.shape[0] != d._array.shape[0]):
        raise InvalidArgumentError(None, None, f"SegmentSum: segment_ids should be a vector the size of data's "
                                   f"first dimension, got {describe([d, ids])}")
    if host.size and (host[0] < 0 or np.any(np.diff(host) < 0)):
        raise InvalidArgumentError(None, None, "SegmentSum: segment ids must be non-negative and sorted")
    n = int(host[-1]) + 1 if host.size else 0
    return execute(_SEGMENT_SUM, (d, ids), {"num_segments": n})


def _segment_counts(ids, num_segments, like):
    ones = _m.cast(_m.greater_equal(ids, zeros_like(ids)), like.dtype)
    counts = unsorted_segment_sum(ones, ids, num_segments)
    counts = _m.maximum(counts, _m.scalar_like(1, counts))
    return reshape(counts, (num_segments,) + (1,) * (like._array.ndim - ids._array.ndim))


@add_dispatch_support
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_mean`` (empty segments give 0)."""
    d = as_tensor(data)
    ids = _index_tensor(segment_ids, "UnsortedSegmentMean")
    n = int(num_segments)
    return _m.divide(unsorted_segment_sum(d, ids, n), _segment_counts(ids, n, d))


@add_dispatch_support
def segment_mean(data, segment_ids, name=None):
    """``tf.math.segment_mean``."""
    d = as_tensor(data)
    ids = _index_tensor(segment_ids, "SegmentMean")
    s = segment_sum(d, ids)
    return _m.divide(s, _segment_counts(ids, s._array.shape[0], d))


# -- top_k / in_top_k ------------------------------------------------------------------

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _top_k_grad(call, g_values, g_indices=None):
    """Scatter the values' gradient back to the input positions the indices name."""
    x, idx = call.inputs[0], call.outputs[1]
    shp = x._array.shape
    n, k = shp[-1], idx._array.shape[-1]
    rows = int(np.prod(shp[:-1], dtype=np.int64))
    ids = reshape(_m.cast(idx, dtypes.int64), (rows, k))
    offs = _convert(np.arange(rows, dtype=np.int64)[:, None] * n, device=ids._device)
    flat = unsorted_segment_sum(reshape(g_values, (-1,)), reshape(_m.add(ids, offs), (-1,)), rows * n)
    return [reshape(flat, shp)]


def _top_k_rule(op, ts, attrs):
    numeric_rule(op, ts, attrs)
    x = ts[0]
    if x._array.ndim < 1 or x._array.shape[-1] < attrs["k"]:
        raise InvalidArgumentError(
            None, None, f"TopKV2: input must have at least k={attrs['k']} columns, got {describe(ts)}")
    return (x._dtype, dtypes.int32)


_TOP_K = Op("TopKV2", rule=_top_k_rule, grad=_top_k_grad, multi_output=True, tf_attr_inputs=[("k", "Tk")],
             output_arg=("values", "indices"))


@_TOP_K.kernel()
def _top_k(b, x, *, k):
    xp = b.xp
    n = x.shape[-1]
    rev = xp.flip(x, -1)
    order = xp_compat.argsort_stable(xp, rev, -1)
    idx = xp.flip(n - 1 - order, -1)[..., :k]          # descending, lower index first among ties
    idx = xp.ascontiguousarray(idx)
    return xp.take_along_axis(x, idx, axis=-1), idx.astype(xp.int32)


@add_dispatch_support
def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.math.top_k``: ``(values, indices)`` of the k largest entries of the last dimension."""
    t = as_tensor(input)
    k = int(k.numpy()) if isinstance(k, Tensor) else int(k)
    if k < 0:
        raise InvalidArgumentError(None, None, f"TopKV2: Need k >= 0, got {k}")
    values, indices = execute(_TOP_K, (t,), {"k": k})
    if dtypes.as_dtype(index_type) is not dtypes.int32:
        indices = _m.cast(indices, index_type)
    return TopKV2(values, indices)


_IN_TOP_K = Op("InTopKV2", output_arg="precision")


@_IN_TOP_K.kernel()
def _in_top_k(b, predictions, targets, *, k):
    xp = b.xp
    n = predictions.shape[1]
    valid = (targets >= 0) & (targets < n)
    t = xp.clip(targets, 0, max(n - 1, 0)).astype(xp.int64)
    target_val = xp.take_along_axis(predictions, t[:, None], axis=1)
    better = xp.sum(predictions > target_val, axis=1)
    finite = xp.all(xp.isfinite(predictions), axis=1) if predictions.dtype.kind in "fV" else True
    return valid & (better < k) & finite


@add_dispatch_support
def in_top_k(targets, predictions, k, name=None):
    """``tf.math.in_top_k``: whether each target's prediction is among the top k (ties count as in)."""
    p, t = as_tensor(predictions), _index_tensor(targets, "InTopKV2")
    if p._array.ndim != 2 or t._array.ndim != 1 or p._array.shape[0] != t._array.shape[0]:
        raise InvalidArgumentError(None, None, f"InTopKV2: predictions must be [batch, classes] and targets "
                                   f"[batch], got {describe([p, t])}")
    return execute(_IN_TOP_K, (p, t), {"k": int(k)})


# -- counting ------------------------------------------------------------------------------

@add_dispatch_support
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None):
    """``tf.math.confusion_matrix``: ``m[i, j]`` counts (or sums weights of) label i predicted as j."""
    lab = _m.cast(_index_tensor(labels, "confusion_matrix"), dtypes.int64)
    pred = _m.cast(_index_tensor(predictions, "confusion_matrix"), dtypes.int64)
    lab, pred = reshape(lab, (-1,)), reshape(pred, (-1,))
    if lab._array.shape != pred._array.shape:
        raise InvalidArgumentError(None, None, f"confusion_matrix: labels and predictions must have the same "
                                   f"size, got {describe([lab, pred])}")
    hl, hp = lab.numpy(), pred.numpy()
    if (hl.size and hl.min() < 0) or (hp.size and hp.min() < 0):
        raise InvalidArgumentError(None, None, "confusion_matrix: labels and predictions must be non-negative")
    top = int(max(hl.max(initial=-1), hp.max(initial=-1))) + 1
    n = top if num_classes is None else int(num_classes)
    if top > n:
        raise InvalidArgumentError(None, None, f"confusion_matrix: labels and predictions must be < num_classes "
                                   f"= {n}, got a value {top - 1}")
    dt = dtypes.as_dtype(dtype)
    vals = _m.cast(reshape(as_tensor(weights), (-1,)), dt) if weights is not None else _m.cast(
        _m.greater_equal(lab, zeros_like(lab)), dt)
    ids = _m.add(_m.multiply(lab, _m.scalar_like(n, lab)), pred)
    return reshape(unsorted_segment_sum(vals, ids, n * n), (n, n))


@add_dispatch_support
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None, axis=None,
             binary_output=False):
    """``tf.math.bincount``: counts (or weight sums) of each non-negative int value in ``arr``."""
    a = reshape(_index_tensor(arr, "Bincount"), (-1,))
    if axis not in (None, 0, -1):
        raise InvalidArgumentError(None, None, f"Bincount: only axis=None (or 0/-1) is supported, got {axis}")
    host = a.numpy()
    if host.size and host.min() < 0:
        raise InvalidArgumentError(None, None, f"Bincount: input arr must be non-negative, got {int(host.min())}")
    size = int(host.max()) + 1 if host.size else 0
    if minlength is not None:
        size = max(size, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength))
    ids = _m.cast(a, dtypes.int64)
    ids = _m.where(_m.less(ids, _m.scalar_like(size, ids)), ids, _m.scalar_like(-1, ids))
    if weights is not None:
        vals = reshape(as_tensor(weights), (-1,))
    else:
        vals = _m.cast(_m.greater_equal(ids, zeros_like(ids)), dtypes.as_dtype(dtype))
    out = unsorted_segment_sum(vals, ids, size)
    if binary_output:
        out = _m.cast(_m.greater(out, zeros_like(out)), out.dtype)
    return out


# -- norms and clipping -------------------------------------------------------------------

@add_dispatch_support
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """``tf.norm``: vector norms (euclidean/2, 1, inf, p > 0) and the Frobenius matrix norm."""
    x = as_tensor(tensor)
    keep = bool(keepdims)
    if isinstance(axis, list | tuple) and len(axis) == 2:
        if ord not in ("euclidean", "fro"):
            raise ValueError(f"'ord' must be 'euclidean' or 'fro' for matrix norms here, got {ord!r} "
                             "(spectral and 1/inf matrix norms are not implemented)")
        return reduce_euclidean_norm(_m.abs(x), list(axis), keep)
    if isinstance(axis, list | tuple) and len(axis) != 1:
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 integers, got {axis!r}")
    if ord in ("euclidean", "fro", 2, 2.0):
        return _m.sqrt(reduce_sum(_m.square(_m.abs(x)), axis, keep))
    if ord == 1:
        return reduce_sum(_m.abs(x), axis, keep)
    if ord == np.inf:
        return reduce_max(_m.abs(x), axis, keep)
    if isinstance(ord, int | float) and ord > 0:
        p = _m.scalar_like(ord, x)
        return _m.pow(reduce_sum(_m.pow(_m.abs(x), p), axis, keep), _m.scalar_like(1.0 / ord, x))
    raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}")


@add_dispatch_support
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``tf.clip_by_norm``: rescale ``t`` so its L2 norm over ``axes`` is at most ``clip_norm``.

    An IndexedSlices stays one, clipped by the norm of its slices (as TF)."""
    if type(t) is IndexedSlices:
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices, t.dense_shape)
    t = as_tensor(t)
    l2sum = reduce_sum(_m.multiply(t, t), axes, keepdims=True)
    pred = _m.greater(l2sum, zeros_like(l2sum))
    l2sum_safe = _m.where(pred, l2sum, _m.ones_like_(l2sum))
    l2norm = _m.where(pred, _m.sqrt(l2sum_safe), l2sum)
    cn = _m.cast(as_tensor(clip_norm), t.dtype) if not isinstance(clip_norm, int | float) else \
        _m.scalar_like(clip_norm, t)
    return _m.divide(_m.multiply(t, cn), _m.maximum(l2norm, cn))


@add_dispatch_support
def global_norm(t_list, name=None):
    """``tf.linalg.global_norm``: sqrt of the sum of squared L2 norms (None entries skipped; an IndexedSlices
    counts its slices, as TF)."""
    ts = [t.values if type(t) is IndexedSlices else as_tensor(t) for t in t_list if t is not None]
    if not ts:
        return _convert(0.0)
    sq = [reduce_sum(_m.square(t)) for t in ts]
    total = _m.add_n([_m.cast(s, ts[0].dtype) for s in sq]) if len(sq) > 1 else sq[0]
    return _m.sqrt(total)


@add_dispatch_support
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``tf.clip_by_global_norm``: ``(clipped list, global_norm)``; None entries stay None."""
    if isinstance(t_list, Tensor) or not isinstance(t_list, list | tuple):
        raise TypeError("`t_list` should be a sequence of tensors")
    gn = global_norm(t_list) if use_norm is None else as_tensor(use_norm)
    cn = _m.cast(as_tensor(clip_norm), gn.dtype) if not isinstance(clip_norm, int | float) else \
        _m.scalar_like(clip_norm, gn)
    # scale = clip_norm * min(1/global_norm, 1/clip_norm): no change when already small enough.
    scale = _m.multiply(cn, _m.minimum(_m.reciprocal(gn), _m.reciprocal(cn)))
    out = [None if t is None else _scale(t, scale) for t in t_list]
    return out, gn


def _scale(t, scale):
    """``t * scale``; an IndexedSlices keeps its indices (TF's clip_by_global_norm scales its values)."""
    if type(t) is IndexedSlices:
        return IndexedSlices(_m.multiply(t.values, _m.cast(scale, t.values.dtype)), t.indices, t.dense_shape)
    t = as_tensor(t)
    return _m.multiply(t, _m.cast(scale, t.dtype))
