"""Array ops that rearrange a tensor's elements or report its shape: reshape, broadcast_to, identity and
stop_gradient, stack/unstack, transpose, shape/size/rank, expand_dims/squeeze, concat/split, tile, pad and
reverse; the other array subjects (creation, gather/scatter, sorting, slicing) build on these.
"""

import builtins
import math

import numpy as np

from ..framework import dtypes
from ..framework import tracing as _tracing
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_conversion import convert_to_tensor as _convert
from ._array_common import _axis_arg, _host_ints, _raw
from ._common import as_tensor, normalize_axis, shape_tuple
from .registry import Op, execute, get_op

__all__ = [
    "reshape", "broadcast_to", "identity", "stop_gradient", "stack", "unstack", "transpose", "shape", "size", "rank",
    "expand_dims", "squeeze", "concat", "split", "tile", "pad", "reverse",
]


def _reshape_grad(call, g):
    return [reshape(g, call.inputs[0]._array.shape)]


_RESHAPE = Op("Reshape", grad=_reshape_grad, tf_attr_inputs=[("shape", "Tshape")])


@_RESHAPE.kernel()
def _reshape(b, x, *, shape):
    return x.reshape(shape)


@add_dispatch_support
def reshape(tensor, shape, name=None):
    """``tf.reshape``; one dimension may be -1. A size mismatch raises InvalidArgumentError with TF's
    message (``Input to reshape is a tensor with 6 values, but the requested shape has 8 [Op:Reshape]``)
    followed by ``(tfcore: input shape [2, 3], dtype int32, requested shape [4, 2])``."""
    t = tensor if type(tensor) is Tensor else as_tensor(tensor)
    shp = shape_tuple(shape, "Reshape")
    n = t._array.size
    if n and min(shp, default=0) >= -1:  # the common cases, checked here; errors and empty tensors below
        if -1 not in shp:
            if math.prod(shp) == n:
                return execute(_RESHAPE, (t,), {"shape": shp})
        elif shp.count(-1) == 1:
            known = -math.prod(shp)
            if known > 0 and not n % known:
                return execute(_RESHAPE, (t,), {"shape": shp})
    try:
        target = _reshape_target(n, shp)
    except InvalidArgumentError as e:  # TF's text, then what DESIGN §7 asks for: the shapes and the dtype
        raise InvalidArgumentError(None, None, f"{e.message} (tfcore: input shape {list(t.shape)}, dtype "
                                   f"{t.dtype.name}, requested shape {list(shp)})") from None
    # The -1 stays in the attribute (a traced graph, and a SavedModel, reshape each batch size), except for
    # an empty tensor, where NumPy cannot resolve it and TF gives 1.
    return execute(_RESHAPE, (t,), {"shape": target if n == 0 else shp})


def _reshape_target(n, shp):
    """The shape ``shp`` with its -1 resolved for ``n`` values, after TF's Reshape checks
    (tensorflow/core/kernels/reshape_op.h), with its messages."""
    unknown = [i for i, d in enumerate(shp) if d == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(
            None, None, f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]} [Op:Reshape]")
    for i, d in enumerate(shp):
        if d < -1:
            raise InvalidArgumentError(None, None, f"Size {i} must be non-negative, not {d} [Op:Reshape]")
    known = math.prod(d for d in shp if d != -1)
    if not unknown:
        if known != n:
            raise InvalidArgumentError(
                None, None, f"Input to reshape is a tensor with {n} values, but the requested shape has {known} "
                "[Op:Reshape]")
        return shp
    if known == 0:
        if n != 0:
            raise InvalidArgumentError(
                None, None, f"Input to reshape is a tensor with {n} values, but the requested shape has 0 [Op:Reshape]")
        missing = 1  # TF: an empty tensor reshaped to [0, -1] is [0, 1]
    elif n % known:
        raise InvalidArgumentError(
            None, None, f"Input to reshape is a tensor with {n} values, but the requested shape requires a multiple "
            f"of {known} [Op:Reshape]")
    else:
        missing = n // known
    return tuple(missing if d == -1 else d for d in shp)


_SUM_OP = None  # the "Sum" op (reduce_ops imports this module, so it is looked up on first use)


def _unbroadcast(g, shape):
    """Sum ``g`` over the axes along which an input of ``shape`` was broadcast.

    Hot in every broadcasting gradient: equal shapes return ``g`` itself, and the
    sum runs the registered ``Sum`` op directly with already-normalised axes.
    """
    global _SUM_OP
    gshape = g._array.shape
    if gshape == shape:
        return g
    shape = tuple(shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(builtins.range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and gshape[i + lead] != 1)
    if axes:
        if _SUM_OP is None:
            _SUM_OP = get_op("Sum")
        g = execute(_SUM_OP, (g,), {"axis": axes, "keepdims": False})
    return reshape(g, shape) if g._array.shape != shape else g


def _broadcast_to_grad(call, g):
    return [_unbroadcast(g, call.inputs[0]._array.shape)]


_BROADCAST_TO = Op("BroadcastTo", grad=_broadcast_to_grad, tf_attr_inputs=[("shape", "Tidx")])


_SMALL_BROADCAST = 1 << 16  # elements; below this a copy is cheaper than NumPy's broadcast_to view


@_BROADCAST_TO.kernel()
def _broadcast_to(b, x, *, shape):
    return b.xp.broadcast_to(x, shape)


@_BROADCAST_TO.kernel("cpu", name="broadcast_to_copy")
def _broadcast_to_cpu(b, x, *, shape):
    """Small results: a copy (np.broadcast_to costs ~2.5 us in Python-level checks; a small copy is ~4x
    cheaper, and writable, like TF's materialised BroadcastTo; shape errors raise ValueError alike); large
    ones: the generic view. The CPU's own kernel, so no dispatcher stands before it."""
    if math.prod(shape) > _SMALL_BROADCAST:
        return _broadcast_to(b, x, shape=shape)
    out = np.empty(shape, dtype=x.dtype)
    np.copyto(out, x)
    return out


@add_dispatch_support
def broadcast_to(input, shape, name=None):  # noqa: A002
    """``tf.broadcast_to``."""
    return execute(_BROADCAST_TO, (input,), {"shape": shape_tuple(shape, "BroadcastTo")})


_IDENTITY = Op("Identity", grad=lambda call, g: [g])


@_IDENTITY.kernel()
def _identity(b, x):
    return x


@add_dispatch_support
def identity(input, name=None):  # noqa: A002
    """``tf.identity``."""
    return execute(_IDENTITY, (input,))


_STOP_GRADIENT = Op("StopGradient")  # no gradient: tapes do not record it


@_STOP_GRADIENT.kernel()
def _stop_gradient(b, x):
    return x


@add_dispatch_support
def stop_gradient(input, name=None):  # noqa: A002
    """``tf.stop_gradient``: the same value, seen as a constant by every tape."""
    return execute(_STOP_GRADIENT, (input,))


def _stack_grad(call, g):
    axis = call.attrs["axis"]
    n = len(call.inputs)
    return list(execute(get_op("Unpack"), (g,), {"axis": axis, "num": n}))


def _stack_rule(op, ts, attrs):
    s0, d0 = ts[0]._array.shape, ts[0]._dtype
    for t in ts[1:]:
        if t._array.shape != s0 or t._dtype is not d0:
            raise InvalidArgumentError(
                None, None, "Pack: all inputs must have the same shape and dtype, got "
                + ", ".join(f"{x.dtype.name}{list(x.shape)}" for x in ts))
    return None


_STACK = Op("Pack", rule=_stack_rule, grad=_stack_grad, tf_count_attr="N")


@_STACK.kernel()
def _stack(b, *xs, axis):
    return b.xp.stack(xs, axis=axis)


_UNSTACK = Op("Unpack", grad=lambda call, *gs: [stack(list(gs), axis=call.attrs["axis"])],
              multi_output=True)


@_UNSTACK.kernel()
def _unstack(b, x, *, axis, num):
    xs = b.xp.moveaxis(x, axis, 0)
    return tuple(xs[i, ...] for i in builtins.range(num))  # `...` keeps 0-d arrays (not str/bytes) for tf.string


@add_dispatch_support
def stack(values, axis=0, name="stack"):
    """``tf.stack``."""
    ts = [as_tensor(v) for v in values] if not all(type(v) is Tensor for v in values) else list(values)
    if not ts:
        raise InvalidArgumentError(None, None, "Pack: needs at least one input")
    nd = ts[0]._array.ndim + 1
    if not -nd <= axis < nd:
        raise InvalidArgumentError(None, None, f"Pack: axis {axis} out of range for rank {nd}")
    return execute(_STACK, ts, {"axis": axis % nd})


@add_dispatch_support
def unstack(value, num=None, axis=0, name="unstack"):
    """``tf.unstack``: a list of the slices along ``axis``."""
    t = as_tensor(value)
    axis = _axis_arg(axis, t._array.ndim, "Unpack")
    n = t._array.shape[axis]
    if num is not None and num != n:
        raise InvalidArgumentError(None, None, f"Unpack: num {num} does not match dimension {axis} of size {n}")
    return list(execute(_UNSTACK, (t,), {"axis": axis, "num": n}))


def _transpose_grad(call, g):
    perm = call.attrs["perm"]
    inverse = tuple(int(i) for i in np.argsort(perm))
    return [execute(_TRANSPOSE, (g,), {"perm": inverse})]


_TRANSPOSE = Op("Transpose", grad=_transpose_grad, output_arg="y", tf_attr_inputs=[("perm", "Tperm")])


@_TRANSPOSE.kernel()
def _transpose(b, x, *, perm):
    return b.xp.transpose(x, perm)


@add_dispatch_support
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """``tf.transpose``: default perm reverses the dimensions."""
    t = as_tensor(a)
    nd = t._array.ndim
    if perm is None:
        perm = tuple(builtins.range(nd - 1, -1, -1))
    else:
        perm = shape_tuple(perm, "Transpose")
        if sorted(p % nd if nd else p for p in perm) != list(builtins.range(nd)) or len(perm) != nd:
            raise InvalidArgumentError(
                None, None, f"Transpose: perm {list(perm)} is not a permutation of the {nd} dimensions of "
                f"{t.dtype.name}{list(t.shape)}")
        perm = tuple(p % nd for p in perm)
    return execute(_TRANSPOSE, (t,), {"perm": perm})


_TRACING = _tracing.ACTIVE


@add_dispatch_support
def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.shape``: the dynamic shape as an int32 (or ``out_type``) tensor."""
    t = as_tensor(input)
    if _TRACING[0] and _tracing.current_graph() is not None:  # a graph node: the shape of each call's value
        return _tracing.call_python(lambda x: shape(x, out_type), [t], stateful=False, name="Shape")
    return _convert(np.asarray(t._array.shape, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


@add_dispatch_support
def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.size``: number of elements."""
    t = as_tensor(input)
    if _TRACING[0] and _tracing.current_graph() is not None:
        return _tracing.call_python(lambda x: size(x, out_type), [t], stateful=False, name="Size")
    return _convert(np.asarray(t._array.size, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


@add_dispatch_support
def rank(input, name=None):  # noqa: A002
    """``tf.rank``."""
    return _convert(np.asarray(as_tensor(input)._array.ndim, dtype=np.int32))


@add_dispatch_support
def expand_dims(input, axis, name=None):  # noqa: A002
    """``tf.expand_dims``: insert a size-1 dimension at ``axis`` (in [-rank-1, rank])."""
    t = as_tensor(input)
    shp = t._array.shape
    axis = _axis_arg(axis, len(shp) + 1, "ExpandDims")
    return reshape(t, shp[:axis] + (1,) + shp[axis:])


@add_dispatch_support
def squeeze(input, axis=None, name=None):  # noqa: A002
    """``tf.squeeze``: drop size-1 dimensions (all of them, or those in ``axis``)."""
    t = as_tensor(input)
    shp = t._array.shape
    if axis is None or (isinstance(axis, list | tuple) and not axis):
        keep = [d for d in shp if d != 1]
    else:
        axes = axis if isinstance(axis, list | tuple) else [axis]
        axes = {_axis_arg(a, len(shp), "Squeeze") for a in axes}
        for a in axes:
            if shp[a] != 1:
                raise InvalidArgumentError(
                    None, None, f"Squeeze: Can not squeeze dim[{a}], expected a dimension of 1, got {shp[a]} "
                    f"(input {t.dtype.name}{list(shp)})")
        keep = [d for i, d in enumerate(shp) if i not in axes]
    return reshape(t, keep)


def _concat_rule(op, ts, attrs):
    axis = attrs["axis"]
    s0, d0 = ts[0]._array.shape, ts[0]._dtype
    for t in ts[1:]:
        s = t._array.shape
        if t._dtype is not d0 or len(s) != len(s0) or any(a != b for i, (a, b) in enumerate(zip(s, s0))
                                                           if i != axis):
            raise InvalidArgumentError(
                None, None, f"ConcatV2: inputs must have the same dtype and the same shape except in "
                f"dimension {axis}, got " + ", ".join(f"{x.dtype.name}{list(x.shape)}" for x in ts))
    return None


def _concat_grad(call, g):
    axis = call.attrs["axis"]
    sizes = tuple(t._array.shape[axis] for t in call.inputs)
    return list(execute(_SPLIT, (g,), {"axis": axis, "sizes": sizes}))


_CONCAT = Op("ConcatV2", rule=_concat_rule, grad=_concat_grad, tf_attr_inputs=[("axis", "Tidx")], tf_count_attr="N")


@_CONCAT.kernel()
def _concat(b, *xs, axis):
    return b.xp.concatenate(xs, axis=axis)


@add_dispatch_support
def concat(values, axis, name="concat"):
    """``tf.concat``: join tensors along an existing dimension."""
    ts = [as_tensor(v) for v in values]
    if not ts:
        raise InvalidArgumentError(None, None, "ConcatV2: needs at least one input")
    axis = _axis_arg(axis, max(ts[0]._array.ndim, 1), "ConcatV2")
    if ts[0]._array.ndim == 0:
        raise InvalidArgumentError(None, None, "ConcatV2: can not concatenate scalars (use tf.stack instead)")
    if len(ts) == 1:
        return identity(ts[0])
    return execute(_CONCAT, ts, {"axis": axis})


def _split_grad(call, *gs):
    return [execute(_CONCAT, gs, {"axis": call.attrs["axis"]}) if len(gs) > 1 else gs[0]]


def _split_tf(attrs, input_dtypes):
    """TF's SplitV takes the sizes and the axis as inputs and counts its outputs in ``num_split``."""
    return ([(None, np.asarray(attrs["sizes"], np.int32), "Tlen"), (None, np.int32(attrs["axis"]), None)],
            {"num_split": len(attrs["sizes"])}, ["sizes", "axis"])


_SPLIT = Op("SplitV", grad=_split_grad, multi_output=True, tf_lowering=_split_tf)


@_SPLIT.kernel()
def _split(b, x, *, axis, sizes):
    cuts = np.cumsum(sizes)[:-1].tolist()
    return tuple(b.xp.split(x, cuts, axis=axis))


@add_dispatch_support
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``tf.split``: ``num_or_size_splits`` is a count of equal parts or a list of sizes (one may be -1)."""
    t = as_tensor(value)
    axis = _axis_arg(axis, t._array.ndim, "SplitV")
    n = t._array.shape[axis]
    if isinstance(num_or_size_splits, int | np.integer) or (
            isinstance(num_or_size_splits, Tensor) and num_or_size_splits.shape.rank == 0):
        k = int(num_or_size_splits)
        if k <= 0 or n % k:
            raise InvalidArgumentError(
                None, None, f"Split: Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {n}) and num_split {k} (input {t.dtype.name}{list(t.shape)})")
        sizes = [n // k] * k
    else:
        sizes = _host_ints(num_or_size_splits, "SplitV", "size_splits")
        if sizes.count(-1) > 1:
            raise InvalidArgumentError(None, None, f"SplitV: at most one size may be -1, got {sizes}")
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise InvalidArgumentError(
                None, None, f"SplitV: Determined shape must either match input shape along split_dim exactly if "
                f"fully specified, or be less than the size of the input along split_dim if not fully "
                f"specified. Got sizes {sizes} for dimension {axis} of size {n}")
    return list(execute(_SPLIT, (t,), {"axis": axis, "sizes": tuple(sizes)}))


def _tile_grad(call, g):
    x = call.inputs[0]
    mult = call.attrs["multiples"]
    shp = x._array.shape
    inter = []
    for m, d in zip(mult, shp):
        inter += [m, d]
    gs = reshape(g, inter)
    axes = normalize_axis(list(builtins.range(0, 2 * len(shp), 2)), gs._array.ndim, "Sum")
    summed = _raw("Sum", (gs,), {"axis": axes, "keepdims": False})
    return [reshape(summed, shp)]


_TILE = Op("Tile", grad=_tile_grad, tf_attr_inputs=[("multiples", "Tmultiples")])


@_TILE.kernel()
def _tile(b, x, *, multiples):
    return b.xp.tile(x, multiples)


@add_dispatch_support
def tile(input, multiples, name=None):  # noqa: A002
    """``tf.tile``: repeat the tensor ``multiples[i]`` times along dimension i."""
    t = as_tensor(input)
    mult = tuple(_host_ints(multiples, "Tile", "multiples"))
    if len(mult) != t._array.ndim or any(m < 0 for m in mult):
        raise InvalidArgumentError(
            None, None, f"Tile: Expected multiples argument to be a vector of length {t._array.ndim} with "
            f"non-negative entries, got {list(mult)} for {t.dtype.name}{list(t.shape)}")
    return execute(_TILE, (t,), {"multiples": mult})


def _pad_grad(call, g):
    x = call.inputs[0]
    pads = call.attrs["paddings"]
    idx = tuple(builtins.slice(a, a + d) for (a, _), d in zip(pads, x._array.shape))
    if call.attrs["mode"] == "constant":
        return [execute(get_op("StridedSlice"), (g,), {"index": idx})]  # the op of array_slicing_ops
    return [execute(_MIRROR_PAD_GRAD, (g,), {"paddings": pads, "mode": call.attrs["mode"]})]


def _pad_tf(attrs, input_dtypes):
    """TF's PadV2 takes the paddings and the constant (of the input's dtype) as inputs; MirrorPad the
    paddings, with the mode in capitals."""
    inputs = [(None, np.asarray(attrs["paddings"], np.int32), "Tpaddings")]
    if "constant_values" in attrs:
        dtype = input_dtypes[0].as_numpy_dtype
        return inputs + [(None, np.asarray(attrs["constant_values"], dtype), None)], {}, ["paddings", "mode",
                                                                                         "constant_values"]
    return inputs, {"mode": attrs["mode"].upper()}, ["paddings"]


_PAD = Op("PadV2", grad=_pad_grad, tf_lowering=_pad_tf)
_MIRROR_PAD = Op("MirrorPad", grad=_pad_grad, tf_lowering=_pad_tf)


@_PAD.kernel()
def _pad(b, x, *, paddings, mode, constant_values):
    return b.xp.pad(x, paddings, mode="constant", constant_values=constant_values)


@_MIRROR_PAD.kernel()
def _mirror_pad(b, x, *, paddings, mode):
    return b.xp.pad(x, paddings, mode=mode)


def _mirror_pad_grad_grad(call, gg):
    return [execute(_MIRROR_PAD, (gg,), call.attrs)]


_MIRROR_PAD_GRAD = Op("MirrorPadGrad", grad=_mirror_pad_grad_grad)


@_MIRROR_PAD_GRAD.kernel()
def _mirror_pad_grad(b, g, *, paddings, mode):
    """Fold the reflected borders of ``g`` back onto the positions they copied."""
    xp = b.xp
    off = 1 if mode == "reflect" else 0
    for axis, (lo, hi) in enumerate(paddings):
        n = g.shape[axis] - lo - hi
        g = xp.moveaxis(g, axis, 0)
        out = g[lo:lo + n].copy()
        if lo:
            out[off:off + lo] += g[:lo][::-1]
        if hi:
            out[n - off - hi:n - off] += g[lo + n:][::-1]
        g = xp.moveaxis(out, 0, axis)
    return xp.ascontiguousarray(g)


@add_dispatch_support
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tf.pad``: ``paddings`` is [rank, 2]; modes CONSTANT, REFLECT, SYMMETRIC (case-insensitive)."""
    t = as_tensor(tensor)
    flat = _host_ints(paddings, "Pad", "paddings")
    nd = t._array.ndim
    if len(flat) != 2 * nd or any(p < 0 for p in flat):
        raise InvalidArgumentError(
            None, None, f"Pad: paddings must be a non-negative matrix of shape [{nd}, 2], got {paddings!r} "
            f"for {t.dtype.name}{list(t.shape)}")
    pads = tuple((flat[2 * i], flat[2 * i + 1]) for i in builtins.range(nd))
    mode_l = str(mode).lower()
    if mode_l == "constant":
        cv = constant_values
        if is_tensor(cv):
            cv = as_tensor(cv).numpy()
        cv = np.asarray(cv, dtype=t.dtype.as_numpy_dtype).item() if t.dtype is not dtypes.string else cv
        return execute(_PAD, (t,), {"paddings": pads, "mode": "constant", "constant_values": cv})
    if mode_l not in ("reflect", "symmetric"):
        raise ValueError(f"Unknown padding mode: {mode}")
    limit_off = 1 if mode_l == "reflect" else 0
    for i, (lo, hi) in enumerate(pads):
        if max(lo, hi) > t._array.shape[i] - limit_off:
            raise InvalidArgumentError(
                None, None, f"MirrorPad: paddings must be no greater than the dimension size minus "
                f"{limit_off}: {lo}, {hi} greater than {t._array.shape[i] - limit_off} in dimension {i} "
                f"({mode} mode, {t.dtype.name}{list(t.shape)})")
    return execute(_MIRROR_PAD, (t,), {"paddings": pads, "mode": mode_l})


_REVERSE = Op("ReverseV2", grad=lambda call, g: [execute(_REVERSE, (g,), call.attrs)],
              tf_attr_inputs=[("axis", "Tidx")])


@_REVERSE.kernel()
def _reverse(b, x, *, axis):
    return b.xp.flip(x, axis) if axis else x


@add_dispatch_support
def reverse(tensor, axis, name=None):
    """``tf.reverse``: reverse the dimensions listed in ``axis``."""
    t = as_tensor(tensor)
    axes = [_axis_arg(a, t._array.ndim, "ReverseV2") for a in _host_ints(axis, "ReverseV2", "axis")]
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(None, None, f"ReverseV2: axis {axes} given twice")
    return execute(_REVERSE, (t,), {"axis": tuple(axes)})
