"""Top-level ``tf`` ops: searchsorted, histograms, reverse_sequence, dynamic partition/stitch, the
``tensor_scatter_nd_*`` family, ``tf.bitwise``, space/batch rearrangements, shape helpers, inverse
hyperbolic functions and truncating division.

Ops with a kernel (``LowerBound``/``UpperBound``, ``HistogramFixedWidth``, ``ReverseSequence``,
``TensorScatterMax/Min``, ``Bitwise*``) run on every device through ``xp``; the rest compose
registered ops and differentiate through them.
"""

import builtins

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor as _convert
from ..framework.tensor_shape import TensorShape
from ..framework.variables import Variable
from . import array_ops as _a
from . import math_ops as _m
from ._common import as_tensor, binary_args, describe
from .registry import Op, execute

__all__ = [
    "searchsorted", "histogram_fixed_width", "histogram_fixed_width_bins", "reverse_sequence", "dynamic_partition",
    "dynamic_stitch", "tensor_scatter_nd_sub", "tensor_scatter_nd_max", "tensor_scatter_nd_min", "get_static_value",
    "ensure_shape", "acosh", "asinh", "atanh", "truncatediv", "truncatemod", "unravel_index", "identity_n",
    "shape_n", "broadcast_dynamic_shape", "broadcast_static_shape", "parallel_stack", "space_to_batch_nd",
    "space_to_batch", "batch_to_space", "required_space_to_batch_paddings", "guarantee_const", "no_op", "group",
    "tuple", "is_symbolic_tensor", "timestamp", "get_logger", "AggregationMethod", "bitcast",
    "get_current_name_scope", "extract_volume_patches",
]


# -- searchsorted, histograms ----------------------------------------------------------------------------------

def _bound_rule(op, ts, attrs):
    seq, vals = ts
    if seq._dtype is not vals._dtype:
        raise InvalidArgumentError(None, None, f"{op.name}: sorted_inputs and values must have the same dtype, "
                                               f"got {describe(ts)}")
    if seq._array.shape[:-1] != vals._array.shape[:-1]:
        raise InvalidArgumentError(None, None, f"{op.name}: sorted_inputs and values must have the same leading "
                                               f"(batch) dimensions, got {describe(ts)}")
    return attrs["out_type"]


SEARCH_LEFT = Op("LowerBound", rule=_bound_rule)
SEARCH_RIGHT = Op("UpperBound", rule=_bound_rule)


@SEARCH_LEFT.kernel()
def _lower_bound(b, seq, vals, *, out_type):
    cmp = seq[..., None, :] < vals[..., :, None]
    return cmp.sum(axis=-1).astype(out_type.as_numpy_dtype)


@SEARCH_RIGHT.kernel()
def _upper_bound(b, seq, vals, *, out_type):
    cmp = seq[..., None, :] <= vals[..., :, None]
    return cmp.sum(axis=-1).astype(out_type.as_numpy_dtype)


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """``tf.searchsorted``: per row of the innermost axis, where ``values`` would be inserted to keep
    ``sorted_sequence`` sorted (``side`` 'left' or 'right')."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = {side}.")
    seq, vals = as_tensor(sorted_sequence), as_tensor(values)
    op = SEARCH_LEFT if side == "left" else SEARCH_RIGHT
    return execute(op, (seq, _m.cast(vals, seq.dtype) if vals.dtype is not seq.dtype else vals),
                   {"out_type": dtypes.as_dtype(out_type)})


def _hist_rule(op, ts, attrs):
    values, value_range = ts
    if value_range._array.shape != (2,):
        raise InvalidArgumentError(None, None, f"{op.name}: value_range must have shape [2], got {describe(ts)}")
    return attrs["dtype"]


HISTOGRAM = Op("HistogramFixedWidth", rule=_hist_rule, output_arg="out")


def _bins(xp, values, value_range, nbins):
    lo, hi = value_range[0], value_range[1]
    scaled = (values.astype(xp.float64) - lo) / (hi - lo) * nbins
    return xp.clip(xp.floor(scaled), 0, nbins - 1).astype(xp.int64)


@HISTOGRAM.kernel()
def _histogram(b, values, value_range, *, nbins, dtype, counts):
    xp = b.xp
    idx = _bins(xp, values.reshape(-1), value_range.astype(xp.float64), nbins)
    if not counts:
        return idx.reshape(values.shape).astype(dtype.as_numpy_dtype)
    return xp.bincount(idx, minlength=nbins).astype(dtype.as_numpy_dtype)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """``tf.histogram_fixed_width``: counts of ``values`` in ``nbins`` equal bins over ``value_range``
    (values outside fall in the first/last bin)."""
    if int(nbins) <= 0:
        raise InvalidArgumentError(None, None, f"HistogramFixedWidth: nbins should be > 0, got {nbins}")
    v = as_tensor(values)
    return execute(HISTOGRAM, (v, as_tensor(value_range, v.dtype)),
                   {"nbins": int(nbins), "dtype": dtypes.as_dtype(dtype), "counts": True})


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """``tf.histogram_fixed_width_bins``: the bin index of each value."""
    if int(nbins) <= 0:
        raise InvalidArgumentError(None, None, f"HistogramFixedWidth: nbins should be > 0, got {nbins}")
    v = as_tensor(values)
    return execute(HISTOGRAM, (v, as_tensor(value_range, v.dtype)),
                   {"nbins": int(nbins), "dtype": dtypes.as_dtype(dtype), "counts": False})


# -- reverse_sequence -----------------------------------------------------------------------------------------

def _reverse_sequence_rule(op, ts, attrs):
    x, lengths = ts
    sa, ba = attrs["seq_axis"], attrs["batch_axis"]
    shape = x._array.shape
    if not (0 <= sa < len(shape) and 0 <= ba < len(shape)) or sa == ba:
        raise InvalidArgumentError(None, None, f"ReverseSequence: invalid seq_axis {sa} / batch_axis {ba} for "
                                               f"input {describe(ts)}")
    if lengths._array.shape != (shape[ba],):
        raise InvalidArgumentError(None, None, f"ReverseSequence: seq_lengths must have shape [{shape[ba]}], "
                                               f"got {describe(ts)}")
    return None


REVERSE_SEQUENCE = Op("ReverseSequence", rule=_reverse_sequence_rule, grad=lambda call, dy: (
    execute(REVERSE_SEQUENCE, (dy, call.inputs[1]), call.attrs), None))


@REVERSE_SEQUENCE.kernel()
def _reverse_sequence(b, x, lengths, *, seq_axis, batch_axis):
    xp = b.xp
    n = x.shape[seq_axis]
    steps = xp.arange(n).reshape([n if i == seq_axis else 1 for i in range(x.ndim)])
    lens = lengths.astype(xp.int64).reshape([x.shape[batch_axis] if i == batch_axis else 1 for i in range(x.ndim)])
    if bool((lens > n).any()) or bool((lens < 0).any()):
        raise ValueError(f"seq_lengths must be in [0, {n}]")
    idx = xp.where(steps < lens, lens - 1 - steps, steps)
    idx = xp.broadcast_to(idx, x.shape)
    return xp.take_along_axis(x, idx, axis=seq_axis)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """``tf.reverse_sequence``: reverse the first ``seq_lengths[i]`` steps along ``seq_axis`` of each
    batch entry ``i`` (along ``batch_axis``); the rest is unchanged."""
    x = as_tensor(input)
    sa = 1 if seq_axis is None else int(seq_axis) % x.ndim
    ba = 0 if batch_axis is None else int(batch_axis) % x.ndim
    return execute(REVERSE_SEQUENCE, (x, _m.cast(as_tensor(seq_lengths), dtypes.int64)),
                   {"seq_axis": sa, "batch_axis": ba})


# -- dynamic partition / stitch -------------------------------------------------------------------------------

def dynamic_partition(data, partitions, num_partitions, name=None):
    """``tf.dynamic_partition``: ``num_partitions`` tensors; output ``i`` holds the slices of ``data`` whose
    ``partitions`` entry is ``i``, in order."""
    x, p = as_tensor(data), as_tensor(partitions)
    pn = p.numpy()
    if pn.size and (pn.min() < 0 or pn.max() >= num_partitions):
        raise InvalidArgumentError(None, None, f"DynamicPartition: partitions must be in [0, {num_partitions}), "
                                               f"got values in [{pn.min()}, {pn.max()}]")
    if x.shape.as_list()[:p.ndim] != p.shape.as_list():
        raise InvalidArgumentError(None, None, f"DynamicPartition: data.shape must start with partitions.shape, "
                                               f"got {describe((x, p))}")
    return [_a.boolean_mask(x, _m.equal(p, i)) for i in range(int(num_partitions))]


def dynamic_stitch(indices, data, name=None):
    """``tf.dynamic_stitch``: ``merged[indices[m][i]] = data[m][i]``; for repeated indices the last wins."""
    idx = [np.asarray(as_tensor(i).numpy(), np.int64) for i in indices]
    parts = [as_tensor(d) for d in data]
    if len(idx) != len(parts):
        raise InvalidArgumentError(None, None, "DynamicStitch: indices and data must have the same length")
    rows = []
    for i, d in zip(idx, parts):
        inner = d.shape.as_list()[i.ndim:]
        rows.append(_a.reshape(d, [-1] + inner))
    flat_idx = np.concatenate([i.reshape(-1) for i in idx]) if idx else np.zeros(0, np.int64)
    size = int(flat_idx.max()) + 1 if flat_idx.size else 0
    source = np.full(size, -1, np.int64)
    source[flat_idx] = np.arange(flat_idx.size)  # NumPy assigns in order: the last occurrence wins
    stacked = _a.concat(rows, axis=0)
    picked = _a.gather(stacked, np.maximum(source, 0))
    if (source < 0).any():
        keep = _convert((source >= 0).reshape([-1] + [1] * (picked.ndim - 1)), device=picked._device)
        picked = _m.where(_a.broadcast_to(keep, picked.shape.as_list()), picked, _a.zeros_like(picked))
    return picked


# -- tensor_scatter_nd_* ----------------------------------------------------------------------------------------

def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_sub``: a copy of ``tensor`` with ``updates`` subtracted at ``indices``."""
    return _a.tensor_scatter_nd_add(tensor, indices, _m.negative(as_tensor(updates)))


def _scatter_extreme_grad(call, dy):
    x, idx, upd = call.inputs
    out = call.outputs[0]
    x_ind = _m.cast(_m.equal(x, out), dy.dtype)
    y_ind = _m.cast(_m.equal(upd, _a.gather_nd(out, idx)), dy.dtype)
    ys_ind = _a.scatter_nd(idx, y_ind, x.shape.as_list())
    total = _m.add(x_ind, ys_ind)
    gx = _m.divide_no_nan(_m.multiply(dy, x_ind), total)
    gy = _m.multiply(_a.gather_nd(_m.divide_no_nan(dy, total), idx), y_ind)
    return gx, None, gy


def _scatter_rule(op, ts, attrs):
    if ts[0]._dtype is not ts[2]._dtype:
        raise InvalidArgumentError(None, None, f"{op.name}: tensor and updates must have the same dtype, "
                                               f"got {describe(ts)}")
    return None


TENSOR_SCATTER_MAX = Op("TensorScatterMax", rule=_scatter_rule, grad=_scatter_extreme_grad)
TENSOR_SCATTER_MIN = Op("TensorScatterMin", rule=_scatter_rule, grad=_scatter_extreme_grad)


def _scatter_extreme(b, t, idx, updates, pick):
    xp = b.xp
    out = t.copy()
    k = idx.shape[-1]
    if k > t.ndim:
        raise ValueError(f"index innermost dimension length {k} must be <= tensor rank {t.ndim}")
    lead = t.shape[:k]
    cols = [idx[..., j].reshape(-1).astype(xp.int64) for j in range(k)]
    for j, c in enumerate(cols):
        if c.size and (bool((c < 0).any()) or bool((c >= lead[j]).any())):
            raise ValueError(f"indices[...,{j}] out of range [0, {lead[j]})")
    n = cols[0].size if cols else 0
    lin = xp.ravel_multi_index(builtins.tuple(cols), lead) if n else xp.zeros(0, xp.int64)
    flat = out.reshape((int(np.prod(lead)) if lead else 1, -1))
    vals = updates.reshape((n, -1))
    remaining = xp.arange(n)
    while remaining.size:  # one round per repetition of an index: its first remaining occurrence
        _, first = xp.unique(lin[remaining], return_index=True)
        rows = remaining[first]
        pos = lin[rows]
        flat[pos] = pick(flat[pos], vals[rows])
        keep = xp.ones(remaining.size, dtype=bool)
        keep[first] = False
        remaining = remaining[keep]
    return flat.reshape(t.shape)


@TENSOR_SCATTER_MAX.kernel()
def _tensor_scatter_max(b, t, idx, updates):
    return _scatter_extreme(b, t, idx, updates, b.xp.maximum)


@TENSOR_SCATTER_MIN.kernel()
def _tensor_scatter_min(b, t, idx, updates):
    return _scatter_extreme(b, t, idx, updates, b.xp.minimum)


def _scatter_args(tensor, indices, updates, op_name):
    t = as_tensor(tensor)
    idx = as_tensor(indices)
    if not idx.dtype.is_integer:
        raise InvalidArgumentError(None, None, f"{op_name}: indices must be int32 or int64, got {idx.dtype.name}")
    upd = as_tensor(updates, t.dtype)
    want = idx.shape.as_list()[:-1] + t.shape.as_list()[idx.shape[-1]:]
    if upd.shape.as_list() != want:
        raise InvalidArgumentError(None, None, f"{op_name}: updates must have shape {want}, got {describe((upd,))}")
    return t, idx, upd


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_max``: a copy of ``tensor`` with ``maximum(tensor[i], updates)`` at ``indices``."""
    return execute(TENSOR_SCATTER_MAX, _scatter_args(tensor, indices, updates, "TensorScatterMax"))


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_min``: a copy of ``tensor`` with ``minimum(tensor[i], updates)`` at ``indices``."""
    return execute(TENSOR_SCATTER_MIN, _scatter_args(tensor, indices, updates, "TensorScatterMin"))


# -- static values and shape checks ------------------------------------------------------------------------------

def get_static_value(tensor, partial=False):
    """``tf.get_static_value``: the NumPy value of an eager tensor (or of a Python/NumPy value); None when
    the value is not known (symbolic tensors)."""
    if tensor is None:
        return None
    if isinstance(tensor, Tensor):
        return tensor.numpy()
    if isinstance(tensor, Variable):
        return None  # a variable's value can change: not static (TF returns None too)
    if hasattr(tensor, "numpy") and callable(tensor.numpy):
        try:
            return tensor.numpy()
        except Exception:  # noqa: BLE001 - symbolic values have no numpy()
            return None
    try:
        return np.asarray(tensor)
    except Exception:  # noqa: BLE001
        return None


def ensure_shape(x, shape, name=None):
    """``tf.ensure_shape``: ``x`` unchanged if its shape is compatible with ``shape`` (None dims match
    anything), ``InvalidArgumentError`` otherwise."""
    t = as_tensor(x)
    want = TensorShape(shape)
    if not want.is_compatible_with(t.shape):
        raise InvalidArgumentError(None, None, f"Shape of tensor x {t.shape.as_list()} is not compatible with "
                                               f"expected shape {want.as_list() if want.rank is not None else None}.")
    return _a.identity(t)


# -- element-wise extras -------------------------------------------------------------------------------------------

def asinh(x, name=None):
    """``tf.math.asinh``: ``sign(x) * log(|x| + sqrt(x^2 + 1))`` (accurate for negative x)."""
    t = as_tensor(x)
    a = _m.abs(t)
    return _m.multiply(_m.sign(t), _m.log(_m.add(a, _m.sqrt(_m.add(_m.square(a), 1.0)))))


def acosh(x, name=None):
    """``tf.math.acosh``: ``log(x + sqrt(x^2 - 1))`` for ``x >= 1`` (NaN below)."""
    t = as_tensor(x)
    return _m.log(_m.add(t, _m.sqrt(_m.subtract(_m.square(t), 1.0))))


def atanh(x, name=None):
    """``tf.math.atanh``: ``0.5 * log((1 + x) / (1 - x))``."""
    t = as_tensor(x)
    return _m.multiply(_m.subtract(_m.log1p(t), _m.log1p(_m.negative(t))), 0.5)


def truncatediv(x, y, name=None):
    """``tf.truncatediv``: division rounded towards zero (C semantics)."""
    x, y = binary_args(x, y)
    if x.dtype.is_floating:
        q = _m.divide(x, y)
        return _m.multiply(_m.sign(q), _m.floor(_m.abs(q)))
    q = _m.floordiv(x, y)
    inexact = _m.not_equal(_m.floormod(x, y), _a.zeros_like(x))
    signs_differ = _m.not_equal(_m.less(x, _a.zeros_like(x)), _m.less(y, _a.zeros_like(y)))
    bump = _m.cast(_m.logical_and(inexact, signs_differ), x.dtype)
    return _m.add(q, bump)


def truncatemod(x, y, name=None):
    """``tf.truncatemod``: remainder with the sign of ``x`` (C's ``fmod``)."""
    x, y = binary_args(x, y)
    return _m.subtract(x, _m.multiply(truncatediv(x, y), y))


def unravel_index(indices, dims, name=None):
    """``tf.unravel_index``: flat indices -> coordinate arrays, stacked on axis 0."""
    idx = as_tensor(indices)
    d = np.asarray(as_tensor(dims).numpy(), np.int64).reshape(-1)
    flat = idx.numpy()
    if np.any(flat < 0) or np.any(flat >= np.prod(d)):
        raise InvalidArgumentError(None, None, f"UnravelIndex: index out of bounds for dims {d.tolist()}")
    coords = np.stack(np.unravel_index(flat, builtins.tuple(d)), axis=0).astype(idx.dtype.as_numpy_dtype)
    return _convert(coords, device=idx._device)


def identity_n(input, name=None):  # noqa: A002
    """``tf.identity_n``: identities of a list of tensors."""
    return [_a.identity(t) for t in input]


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.shape_n``: the shapes of a list of tensors."""
    return [_a.shape(t, out_type=out_type) for t in input]


def broadcast_static_shape(shape_x, shape_y):
    """``tf.broadcast_static_shape``: the broadcast of two ``TensorShape``s (ValueError if incompatible)."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    dx, dy = x.as_list(), y.as_list()
    n = max(len(dx), len(dy))
    dx, dy = [1] * (n - len(dx)) + dx, [1] * (n - len(dy)) + dy
    out = []
    for a, b in zip(dx, dy):
        if a == 1:
            out.append(b)
        elif b == 1 or b is None or a == b:
            out.append(a if b != 1 or a is not None else a)
        elif a is None:
            out.append(b)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x, shape_y):
    """``tf.broadcast_dynamic_shape``: the broadcast of two shape vectors, as a tensor."""
    sx, sy = as_tensor(shape_x), as_tensor(shape_y)
    try:
        out = np.broadcast_shapes(builtins.tuple(sx.numpy().tolist()), builtins.tuple(sy.numpy().tolist()))
    except ValueError as e:
        raise InvalidArgumentError(None, None, f"BroadcastArgs: Incompatible shapes: {sx.numpy().tolist()} vs. "
                                               f"{sy.numpy().tolist()}") from e
    return _convert(np.asarray(out, sx.dtype.as_numpy_dtype), device=sx._device)


def parallel_stack(values, name="parallel_stack"):
    """``tf.parallel_stack``: :func:`tf.stack` along a new first axis."""
    return _a.stack(list(values), axis=0)


# -- space <-> batch -------------------------------------------------------------------------------------------

def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """``tf.space_to_batch_nd``: zero-pad the spatial block dims, then move blocks into the batch dimension."""
    x = as_tensor(input)
    block = [int(b) for b in np.asarray(as_tensor(block_shape).numpy()).reshape(-1)]
    pads = np.asarray(as_tensor(paddings).numpy(), np.int64).reshape(-1, 2).tolist()
    m = len(block)
    shape = x.shape.as_list()
    full = [[0, 0]] + pads + [[0, 0]] * (len(shape) - 1 - m)
    x = _a.pad(x, full)
    padded = x.shape.as_list()
    for i, b in enumerate(block):
        if padded[1 + i] % b:
            raise InvalidArgumentError(None, None, f"SpaceToBatchND: padded spatial dimension {i} "
                                                   f"({padded[1 + i]}) is not divisible by block size {b}")
    batch, rest = padded[0], padded[1 + m:]
    split = [batch]
    for i, b in enumerate(block):
        split += [padded[1 + i] // b, b]
    x = _a.reshape(x, split + rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, 1 + 2 * m +
                                                                                             len(rest)))
    x = _a.transpose(x, perm)
    return _a.reshape(x, [batch * int(np.prod(block))] + [padded[1 + i] // b for i, b in enumerate(block)] + rest)


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    """``tf.space_to_batch`` (TF2): same as :func:`space_to_batch_nd`."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """``tf.batch_to_space`` (TF2): the inverse of :func:`space_to_batch_nd`, then crop."""
    x = as_tensor(input)
    block = [int(b) for b in np.asarray(as_tensor(block_shape).numpy()).reshape(-1)]
    crops = np.asarray(as_tensor(crops).numpy(), np.int64).reshape(-1, 2).tolist()
    m = len(block)
    shape = x.shape.as_list()
    prod = int(np.prod(block))
    if shape[0] % prod:
        raise InvalidArgumentError(None, None, f"BatchToSpaceND: batch {shape[0]} is not divisible by the product "
                                               f"of block_shape {prod}")
    batch, spatial, rest = shape[0] // prod, shape[1:1 + m], shape[1 + m:]
    x = _a.reshape(x, block + [batch] + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = _a.transpose(x, perm)
    x = _a.reshape(x, [batch] + [s * b for s, b in zip(spatial, block)] + rest)
    begin = [0] + [c[0] for c in crops] + [0] * len(rest)
    size = [batch] + [s * b - c[0] - c[1] for s, b, c in zip(spatial, block, crops)] + rest
    return _a.slice(x, begin, size)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``tf.required_space_to_batch_paddings``: ``(paddings, crops)`` making ``input_shape`` divisible by
    ``block_shape`` after ``base_paddings``."""
    shape = np.asarray(as_tensor(input_shape).numpy(), np.int64).reshape(-1)
    block = np.asarray(as_tensor(block_shape).numpy(), np.int64).reshape(-1)
    base = np.zeros((len(block), 2), np.int64) if base_paddings is None else \
        np.asarray(as_tensor(base_paddings).numpy(), np.int64).reshape(-1, 2)
    padded = shape + base[:, 0] + base[:, 1]
    extra = (block - padded % block) % block
    paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1)
    crops = np.stack([np.zeros_like(extra), extra], axis=1)
    return _convert(paddings.astype(np.int32)), _convert(crops.astype(np.int32))


# -- graph-mode names that have an eager meaning ------------------------------------------------------------------

def guarantee_const(input, name=None):  # noqa: A002
    """``tf.guarantee_const``: ``input`` (a promise to the graph optimiser; eager: identity)."""
    return _a.identity(input)


def no_op(name=None):
    """``tf.no_op``: does nothing (eager: returns None)."""
    return None


def group(*inputs, **kwargs):
    """``tf.group``: in eager mode every op already ran; returns None."""
    return None


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001
    """``tf.tuple``: the tensors, as a list (eager: they are all computed already)."""
    return [None if t is None else as_tensor(t) for t in tensors]


def is_symbolic_tensor(tensor):
    """``tf.is_symbolic_tensor``: False for eager tensors and values (tfcore executes eagerly)."""
    return not isinstance(tensor, Tensor) and hasattr(tensor, "shape") and hasattr(tensor, "dtype") and \
        not hasattr(tensor, "numpy")


def timestamp(name=None):
    """``tf.timestamp``: seconds since the epoch, as a float64 scalar."""
    import time

    return _convert(np.float64(time.time()))


def get_logger():
    """``tf.get_logger``: the 'tensorflow' logger of Python's logging module."""
    import logging

    return logging.getLogger("tensorflow")


class AggregationMethod:
    """``tf.AggregationMethod``: how gradients of one tensor are summed (tfcore always adds them: ADD_N)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2



# -- bitcast, name scopes --------------------------------------------------------------------------------------

def _bitcast_rule(op, ts, attrs):
    src, dst = ts[0]._dtype, attrs["type"]
    si, di = src.as_numpy_dtype().itemsize if src is not dtypes.bool else 1, np.dtype(dst.as_numpy_dtype).itemsize
    shape = ts[0]._array.shape
    if si < di and (not shape or shape[-1] * si != di):
        raise InvalidArgumentError(None, None, f"Bitcast: cannot bitcast from {src.name} to {dst.name}: the last "
                                               f"dimension must be {di // si}, got shape {list(shape)}")
    return dst


BITCAST = Op("Bitcast", rule=_bitcast_rule)


@BITCAST.kernel()
def _bitcast(b, x, *, type):  # noqa: A002 - TF's attr name
    dst = np.dtype(type.as_numpy_dtype)
    src = x.dtype
    x = b.xp.ascontiguousarray(x)
    if dst.itemsize == src.itemsize:
        return x.view(dst)
    if dst.itemsize < src.itemsize:
        return x.reshape(x.shape + (1,)).view(dst)  # a new last dimension of src/dst elements
    return x.view(dst).reshape(x.shape[:-1])


def bitcast(input, type, name=None):  # noqa: A002
    """``tf.bitcast``: reinterpret the bytes of ``input`` as ``type`` (a smaller type adds a last dimension,
    a larger one consumes it)."""
    return execute(BITCAST, (as_tensor(input),), {"type": dtypes.as_dtype(type)})


def get_current_name_scope():
    """``tf.get_current_name_scope``: the ``tf.name_scope`` path in effect (``''`` at the top)."""

    return _ctx.current_name_scope()


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002 - TF's argument name
    """``tf.extract_volume_patches``: every ``[kp, kr, kc]`` patch of a ``[batch, planes, rows, cols, depth]``
    volume, flattened (plane, row, col, depth order) into the last dimension of
    ``[batch, out_planes, out_rows, out_cols, kp * kr * kc * depth]``. ``ksizes``/``strides`` are 5-element
    lists with 1 at both ends; SAME pads with zeros as TF. Built from Pad and GatherV2, so it is differentiable.
    """
    _arr = _a
    x = as_tensor(input)
    if x.ndim != 5:
        raise InvalidArgumentError(None, None, f"ExtractVolumePatches: input must be 5-D, got shape "
                                               f"{x.shape.as_list()}")
    ks, st = [int(k) for k in ksizes], [int(s) for s in strides]
    if len(ks) != 5 or len(st) != 5 or ks[0] != 1 or ks[4] != 1 or st[0] != 1 or st[4] != 1:
        raise InvalidArgumentError(None, None, "ExtractVolumePatches: ksizes and strides must be 5-element lists "
                                               "with 1 in the batch and depth positions")
    if min(ks + st) < 1:
        raise InvalidArgumentError(None, None, "ExtractVolumePatches: ksizes and strides must be positive")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"extract_volume_patches: padding must be 'SAME' or 'VALID', got {padding!r}")
    b, *spatial, d = x.shape.as_list()
    outs, pads = [], []
    for n, k, s in zip(spatial, ks[1:4], st[1:4]):
        if padding == "VALID":
            o = (n - k) // s + 1 if n >= k else 0
            pads.append([0, 0])
        else:
            o = -(-n // s)
            total = max((o - 1) * s + k - n, 0)
            pads.append([total // 2, total - total // 2])
        outs.append(o)
    xp = _arr.pad(x, [[0, 0]] + pads + [[0, 0]]) if any(p[0] or p[1] for p in pads) else x
    pp, pr, pc = (n + p[0] + p[1] for n, p in zip(spatial, pads))
    grids = np.meshgrid(*(np.arange(o) * s for o, s in zip(outs, st[1:4])), *(np.arange(k) for k in ks[1:4]),
                        indexing="ij")
    plane, row, col = grids[0] + grids[3], grids[1] + grids[4], grids[2] + grids[5]
    flat_idx = ((plane * pr + row) * pc + col).astype(np.int64)
    flat = _arr.reshape(xp, [b, pp * pr * pc, d])
    patches = _arr.gather(flat, _convert(flat_idx), axis=1)
    return _arr.reshape(patches, [b] + outs + [ks[1] * ks[2] * ks[3] * d])
