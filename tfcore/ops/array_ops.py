"""Array ops: creation, shape manipulation, indexing, gathering, sorting."""

import builtins
import collections
import math

import numpy as np

from ..backend import xp_compat
from ..framework import context as _ctx
from ..framework import dtypes
from ..framework import tracing as _tracing
from ..framework.errors import InvalidArgumentError, ResourceExhaustedError
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_conversion import convert_to_tensor as _convert
from ._common import as_tensor, normalize_axis, shape_tuple
from .registry import Op, execute, get_op

__all__ = [
    "constant", "convert_to_tensor", "zeros", "ones", "zeros_like", "ones_like", "fill", "reshape",
    "broadcast_to", "identity", "stack", "shape", "size", "rank", "transpose",
    "expand_dims", "squeeze", "concat", "unstack", "split", "tile", "pad", "gather", "gather_nd",
    "boolean_mask", "one_hot", "reverse", "sort", "argsort", "unique", "unique_with_counts",
    "stop_gradient", "eye", "range", "linspace", "slice", "strided_slice", "scatter_nd",
    "tensor_scatter_nd_update", "tensor_scatter_nd_add", "meshgrid", "repeat", "roll",
    "sequence_mask", "newaxis",
]

newaxis = None


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``tf.convert_to_tensor``."""
    return _convert(value, dtype=dtype, dtype_hint=dtype_hint)


def constant(value, dtype=None, shape=None, name="Const"):
    """``tf.constant``: a tensor from a Python/NumPy value, optionally broadcast to ``shape``."""
    if is_tensor(value):
        t = as_tensor(value)
        if dtype is not None and t.dtype != dtypes.as_dtype(dtype):
            t = execute(_CAST_OP(), (t,), {"dtype": dtypes.as_dtype(dtype)})
    else:
        t = _convert(value, dtype=dtype)
    if shape is not None:
        shp = shape_tuple(shape, "Const")
        if t._array.size == int(np.prod(shp, dtype=np.int64)):
            t = reshape(t, shp)
        elif t._array.size == 1:
            t = broadcast_to(reshape(t, ()), shp)
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {t} "
                            f"(converted from {value!r}) has {t._array.size} elements, but got `shape` "
                            f"{shp} with {int(np.prod(shp))} elements).")
    if _TRACING[0]:  # a Const op of the graph being traced (how TF prints it there: Tensor("Const:0", ...))
        _tracing.constant_created(t)
    return t


def _CAST_OP():  # noqa: N802 - resolves the Cast op lazily (math_ops registers it)
    return get_op("Cast")


# -- creation ------------------------------------------------------------------

_FILL = Op("Fill", tf_attr_inputs=[("shape", "index_type", 0)], tf_input_types=(None, "T"))  # TF: dims, value


@_FILL.kernel()
def _fill(b, value, *, shape):
    out = b.xp.empty(shape, dtype=value.dtype)
    out[...] = value  # CuPy's full() wants a host scalar; assignment takes the 0-d device array as is
    return out


def fill(dims, value, name=None):
    """``tf.fill``: a tensor of shape ``dims`` filled with the scalar ``value``."""
    value = as_tensor(value)
    if value.shape.rank != 0:
        raise InvalidArgumentError(None, None, f"Fill: value must be a scalar, got shape {value.shape}")
    return execute(_FILL, (value,), {"shape": shape_tuple(dims, "Fill")})


def _creation_device():
    return _ctx.current_device() or _ctx.default_device()


def new_array(dev, fn_name, shape, dtype):
    """A fresh ``xp.zeros``/``xp.ones``/``xp.empty`` array in ``dev``'s memory."""
    b = dev.backend
    try:
        if not b.scoped:
            return getattr(b.xp, fn_name)(shape, dtype=dtype.as_numpy_dtype)
        with b.activate():
            return b.adopt(getattr(b.xp, fn_name)(shape, dtype=dtype.as_numpy_dtype))
    except MemoryError:
        shp = ",".join(str(int(d)) for d in (shape if isinstance(shape, tuple | list) else (shape,)))
        raise ResourceExhaustedError(
            None, None, f"OOM when allocating tensor with shape[{shp}] and type {dtype.name} on {dev.name} by "
                        f"allocator {b.kind} ({fn_name})") from None


def zeros(shape, dtype=dtypes.float32, name=None):
    """``tf.zeros``."""
    dtype = dtypes.as_dtype(dtype)
    dev = _creation_device()
    shp = shape_tuple(shape, "Zeros")
    if any(d < 0 for d in shp):
        raise InvalidArgumentError(None, None, f"Zeros: dimensions must be >= 0, got {shp}")
    return Tensor(new_array(dev, "zeros", shp, dtype), dtype, dev)


def ones(shape, dtype=dtypes.float32, name=None):
    """``tf.ones``."""
    dtype = dtypes.as_dtype(dtype)
    dev = _creation_device()
    shp = shape_tuple(shape, "Ones")
    if any(d < 0 for d in shp):
        raise InvalidArgumentError(None, None, f"Ones: dimensions must be >= 0, got {shp}")
    return Tensor(new_array(dev, "ones", shp, dtype), dtype, dev)


_ZEROS_LIKE = Op("ZerosLike", output_arg="y")
_ONES_LIKE = Op("OnesLike", output_arg="y")


@_ZEROS_LIKE.kernel()
def _zeros_like(b, x, *, dtype=None):
    return b.xp.zeros(x.shape, dtype=dtype.as_numpy_dtype if dtype is not None else x.dtype)


@_ONES_LIKE.kernel()
def _ones_like(b, x, *, dtype=None):
    return b.xp.ones(x.shape, dtype=dtype.as_numpy_dtype if dtype is not None else x.dtype)


def zeros_like(input, dtype=None, name=None):  # noqa: A002 - TF's argument name
    """``tf.zeros_like``."""
    attrs = {"dtype": dtypes.as_dtype(dtype)} if dtype is not None else None
    return execute(_ZEROS_LIKE, (input,), attrs)


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """``tf.ones_like``."""
    attrs = {"dtype": dtypes.as_dtype(dtype)} if dtype is not None else None
    return execute(_ONES_LIKE, (input,), attrs)


# -- shape manipulation ----------------------------------------------------------

def _reshape_grad(call, g):
    return [reshape(g, call.inputs[0]._array.shape)]


_RESHAPE = Op("Reshape", grad=_reshape_grad, tf_attr_inputs=[("shape", "Tshape")])


@_RESHAPE.kernel()
def _reshape(b, x, *, shape):
    return x.reshape(shape)


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


def broadcast_to(input, shape, name=None):  # noqa: A002
    """``tf.broadcast_to``."""
    return execute(_BROADCAST_TO, (input,), {"shape": shape_tuple(shape, "BroadcastTo")})


_IDENTITY = Op("Identity", grad=lambda call, g: [g])


@_IDENTITY.kernel()
def _identity(b, x):
    return x


def identity(input, name=None):  # noqa: A002
    """``tf.identity``."""
    return execute(_IDENTITY, (input,))


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


def stack(values, axis=0, name="stack"):
    """``tf.stack``."""
    ts = [as_tensor(v) for v in values] if not all(type(v) is Tensor for v in values) else list(values)
    if not ts:
        raise InvalidArgumentError(None, None, "Pack: needs at least one input")
    nd = ts[0]._array.ndim + 1
    if not -nd <= axis < nd:
        raise InvalidArgumentError(None, None, f"Pack: axis {axis} out of range for rank {nd}")
    return execute(_STACK, ts, {"axis": axis % nd})


def _transpose_grad(call, g):
    perm = call.attrs["perm"]
    inverse = tuple(int(i) for i in np.argsort(perm))
    return [execute(_TRANSPOSE, (g,), {"perm": inverse})]


_TRANSPOSE = Op("Transpose", grad=_transpose_grad, output_arg="y", tf_attr_inputs=[("perm", "Tperm")])


@_TRANSPOSE.kernel()
def _transpose(b, x, *, perm):
    return b.xp.transpose(x, perm)


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


# -- shape queries -----------------------------------------------------------------

def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.shape``: the dynamic shape as an int32 (or ``out_type``) tensor."""
    t = as_tensor(input)
    if _TRACING[0] and _tracing.current_graph() is not None:  # a graph node: the shape of each call's value
        return _tracing.call_python(lambda x: shape(x, out_type), [t], stateful=False, name="Shape")
    return _convert(np.asarray(t._array.shape, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.size``: number of elements."""
    t = as_tensor(input)
    if _TRACING[0] and _tracing.current_graph() is not None:
        return _tracing.call_python(lambda x: size(x, out_type), [t], stateful=False, name="Size")
    return _convert(np.asarray(t._array.size, dtype=dtypes.as_dtype(out_type).as_numpy_dtype))


def rank(input, name=None):  # noqa: A002
    """``tf.rank``."""
    return _convert(np.asarray(as_tensor(input)._array.ndim, dtype=np.int32))


# ==================================================================================
# Helpers shared by the ops below
# ==================================================================================

def _raw(name, inputs, attrs=None):
    """Run another family's op by its registered name, as TF's array_ops runs gen_math_ops: math_ops and
    reduce_ops build on this module, so it cannot import them."""
    return execute(get_op(name), inputs, attrs)


def _cast(x, dtype):
    t = as_tensor(x)
    return t if t._dtype is dtype else _raw("Cast", (t,), {"dtype": dtype})


def _host_ints(value, op_name, what):
    """A Python list of ints from an int/list/tuple/ndarray/tensor argument."""
    if is_tensor(value):
        value = as_tensor(value).numpy()
    arr = np.asarray(value)
    if arr.dtype.kind not in "iub" and arr.size:
        raise InvalidArgumentError(None, None, f"{op_name}: {what} must be integers, got {value!r}")
    return [int(v) for v in arr.reshape(-1)]


def _axis_arg(axis, ndim, op_name):
    """One axis (int or scalar tensor) in [-ndim, ndim) -> non-negative int."""
    if is_tensor(axis):
        axis = int(as_tensor(axis).numpy())
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(None, None, f"{op_name}: axis {axis} is out of range [{-ndim}, {ndim})")
    return axis % ndim


def scatter_add(xp, out, index, values):
    """``out[index] += values`` with repeated indices accumulated (numpy and cupy, every dtype)."""
    xp_compat.scatter_add(xp, out, index, values)


def _index_tensor(indices, op_name):
    t = as_tensor(indices)
    if not t._dtype.is_integer:
        raise InvalidArgumentError(None, None, f"{op_name}: indices must be int32 or int64, got {t._dtype.name}")
    return t


def _check_range(xp, idx, n, op_name, what="indices"):
    """Raise TF's error for the first index outside [0, n): GatherV2's in TF 2.21's words
    (``indices[0,1] = 5 is not in [0, 2) [Op:GatherV2]``, ``indices = 1 ...`` for a scalar index)."""
    if idx.size == 0:
        return
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):
        pos = np.unravel_index(int(xp.argmax(bad.reshape(-1))), idx.shape)
        where = f"[{','.join(map(str, pos))}]" if pos else ""
        text = f"{what}{where} = {int(idx[pos])} is not in [0, {n})"
        err = InvalidArgumentError(
            None, None, f"{text} [Op:{op_name}]" if op_name == "GatherV2" else f"{op_name}: {text}")
        err._value_dependent = True  # TF finds it when the op runs, not when a graph is built
        raise err


# ==================================================================================
# Shape manipulation
# ==================================================================================

def expand_dims(input, axis, name=None):  # noqa: A002
    """``tf.expand_dims``: insert a size-1 dimension at ``axis`` (in [-rank-1, rank])."""
    t = as_tensor(input)
    shp = t._array.shape
    axis = _axis_arg(axis, len(shp) + 1, "ExpandDims")
    return reshape(t, shp[:axis] + (1,) + shp[axis:])


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


# -- concat / split -----------------------------------------------------------------

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


def unstack(value, num=None, axis=0, name="unstack"):
    """``tf.unstack``: a list of the slices along ``axis``."""
    t = as_tensor(value)
    axis = _axis_arg(axis, t._array.ndim, "Unpack")
    n = t._array.shape[axis]
    if num is not None and num != n:
        raise InvalidArgumentError(None, None, f"Unpack: num {num} does not match dimension {axis} of size {n}")
    return list(execute(_UNSTACK, (t,), {"axis": axis, "num": n}))


# -- tile / pad ------------------------------------------------------------------------

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
        return [execute(_STRIDED_SLICE, (g,), {"index": idx})]
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


# ==================================================================================
# Gather / scatter
# ==================================================================================

def _gather_grad(call, g):
    """TF's ``_GatherV2Grad``: along axis 0 without batch dims an ``IndexedSlices`` (the rows of ``g`` at the
    gathered indices, repeats kept), else the dense ``unsorted_segment_sum``."""
    params, idx = call.inputs
    axis, bd = call.attrs["axis"], call.attrs["batch_dims"]
    pshape = params._array.shape
    if axis == 0 and bd == 0 and type(g) is Tensor:
        from ..framework.indexed_slices import IndexedSlices

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


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_update``: a copy of ``tensor`` with slices at ``indices`` replaced."""
    t, idx, upd = as_tensor(tensor), _index_tensor(indices, "TensorScatterUpdate"), as_tensor(updates)
    _check_updates("TensorScatterUpdate", idx, upd, t._array.shape)
    return execute(_TENSOR_SCATTER, (t, idx, upd), {"mode": "update"})


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_add``: a copy of ``tensor`` with ``updates`` added at ``indices``."""
    t, idx, upd = as_tensor(tensor), _index_tensor(indices, "TensorScatterAdd"), as_tensor(updates)
    _check_updates("TensorScatterAdd", idx, upd, t._array.shape)
    return execute(_TENSOR_SCATTER, (t, idx, upd), {"mode": "add"})


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


# -- one_hot ----------------------------------------------------------------------------

_ONE_HOT = Op("OneHot", tf_attr_inputs=[("depth", None, 1)], tf_input_types=("TI", None, "T", "T"))


@_ONE_HOT.kernel()
def _one_hot(b, idx, on, off, *, depth, axis):
    xp = b.xp
    hit = idx[..., None] == xp.arange(depth, dtype=idx.dtype)
    out = xp.where(hit, on, off)
    if axis != -1 and axis != out.ndim - 1:
        out = xp.moveaxis(out, -1, axis)
    return xp.ascontiguousarray(out)


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


def is_tensor_like(x):
    return is_tensor(x)


# ==================================================================================
# Reverse, sort, unique
# ==================================================================================

_REVERSE = Op("ReverseV2", grad=lambda call, g: [execute(_REVERSE, (g,), call.attrs)],
              tf_attr_inputs=[("axis", "Tidx")])


@_REVERSE.kernel()
def _reverse(b, x, *, axis):
    return b.xp.flip(x, axis) if axis else x


def reverse(tensor, axis, name=None):
    """``tf.reverse``: reverse the dimensions listed in ``axis``."""
    t = as_tensor(tensor)
    axes = [_axis_arg(a, t._array.ndim, "ReverseV2") for a in _host_ints(axis, "ReverseV2", "axis")]
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(None, None, f"ReverseV2: axis {axes} given twice")
    return execute(_REVERSE, (t,), {"axis": tuple(axes)})


_ARGSORT = Op("ArgSort")


_stable_argsort = xp_compat.argsort_stable


@_ARGSORT.kernel()
def _argsort(b, x, *, axis, descending):
    xp = b.xp
    if not descending:
        return _stable_argsort(xp, x, axis).astype(xp.int32)
    # Stable descending order: sort the reversed array, map back, reverse again.
    n = x.shape[axis]
    idx = _stable_argsort(xp, xp.flip(x, axis), axis)
    return xp.ascontiguousarray(xp.flip(n - 1 - idx, axis)).astype(xp.int32)


def _direction(direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'direction should be one of "ASCENDING", "DESCENDING", got {direction!r}')
    return direction == "DESCENDING"


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """``tf.argsort``: int32 indices that sort ``values`` along ``axis`` (ties keep their order)."""
    t = as_tensor(values)
    axis = _axis_arg(axis, t._array.ndim, "ArgSort")
    return execute(_ARGSORT, (t,), {"axis": axis, "descending": _direction(direction)})


def take_along_axis(x, idx, axis):
    """``x`` gathered by ``idx`` along ``axis`` (same rank), built from ``gather`` so it is differentiable."""
    x, idx = as_tensor(x), as_tensor(idx)
    nd = x._array.ndim
    perm = [i for i in builtins.range(nd) if i != axis] + [axis]
    inv = [int(i) for i in np.argsort(perm)]
    xt = transpose(x, perm) if axis != nd - 1 else x
    it = transpose(idx, perm) if axis != nd - 1 else idx
    n, k = xt._array.shape[-1], it._array.shape[-1]
    rows = int(np.prod(xt._array.shape[:-1], dtype=np.int64))
    ids = reshape(_cast(it, dtypes.int64), (rows, k))
    offs = _convert(np.arange(rows, dtype=np.int64)[:, None] * n, device=ids._device)
    flat = gather(reshape(xt, (-1,)), reshape(_raw("AddV2", (ids, offs)), (-1,)))
    out = reshape(flat, it._array.shape)
    return transpose(out, inv) if axis != nd - 1 else out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``tf.sort`` (differentiable: the gradient flows back to the original positions)."""
    t = as_tensor(values)
    axis = _axis_arg(axis, t._array.ndim, "Sort")
    idx = execute(_ARGSORT, (t,), {"axis": axis, "descending": _direction(direction)})
    return take_along_axis(t, idx, axis)


UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCountsOutput = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])

_UNIQUE = Op("UniqueWithCounts", multi_output=True, output_arg=("y", "idx", "count"))


@_UNIQUE.kernel()
def _unique(b, x, *, out_idx):
    xp = b.xp
    u, first, inv, counts = xp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = _stable_argsort(xp, first, 0)      # unique values in order of first occurrence
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.size)
    dt = out_idx.as_numpy_dtype
    return u[order], rank[inv.reshape(-1)].astype(dt), counts[order].astype(dt)


def _unique_call(x, out_idx):
    t = as_tensor(x)
    if t._array.ndim != 1:
        raise InvalidArgumentError(None, None, f"Unique: unique expects a 1D vector, got {t.dtype.name}{list(t.shape)}")
    return execute(_UNIQUE, (t,), {"out_idx": dtypes.as_dtype(out_idx)})


def unique(x, out_idx=dtypes.int32, name=None):
    """``tf.unique``: ``(y, idx)`` with ``y`` in order of first occurrence and ``x == gather(y, idx)``."""
    y, idx, _ = _unique_call(x, out_idx)
    return UniqueOutput(y, idx)


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``tf.unique_with_counts``: ``(y, idx, count)``."""
    return UniqueWithCountsOutput(*_unique_call(x, out_idx))


# ==================================================================================
# stop_gradient and creation ops
# ==================================================================================

_STOP_GRADIENT = Op("StopGradient")  # no gradient: tapes do not record it


@_STOP_GRADIENT.kernel()
def _stop_gradient(b, x):
    return x


def stop_gradient(input, name=None):  # noqa: A002
    """``tf.stop_gradient``: the same value, seen as a constant by every tape."""
    return execute(_STOP_GRADIENT, (input,))


_EYE = Op("Eye")


@_EYE.kernel()
def _eye(b, *, rows, cols, batch_shape, dtype):
    m = b.xp.eye(rows, cols, dtype=dtype.as_numpy_dtype)
    return b.xp.ascontiguousarray(b.xp.broadcast_to(m, batch_shape + (rows, cols))) if batch_shape else m


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """``tf.eye``: identity matrices, optionally batched."""
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    if rows < 0 or cols < 0:
        raise InvalidArgumentError(None, None, f"Eye: num_rows and num_columns must be >= 0, got {rows}, {cols}")
    bs = () if batch_shape is None else shape_tuple(batch_shape, "Eye")
    return execute(_EYE, (), {"rows": rows, "cols": cols, "batch_shape": bs, "dtype": dtypes.as_dtype(dtype)})


def _range_tf(attrs, input_dtypes):
    """TF's Range takes start, limit and delta as inputs typed ``Tidx``."""
    dtype = attrs["dtype"].as_numpy_dtype
    inputs = [(None, np.asarray(attrs[k], dtype), "Tidx" if k == "start" else None)
              for k in ("start", "limit", "delta")]
    return inputs, {}, ["start", "limit", "delta", "dtype"]


_RANGE = Op("Range", tf_lowering=_range_tf)


@_RANGE.kernel()
def _range(b, *, start, limit, delta, dtype):
    return b.xp.arange(start, limit, delta, dtype=dtype.as_numpy_dtype)


def _scalar_value(v):
    if is_tensor(v):
        return as_tensor(v).numpy().item(), as_tensor(v).dtype
    return v, None


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``tf.range``: like Python's range; int32 for ints, float32 when any argument is a float."""
    if limit is None:
        start, limit = 0, start
    vals, dts = zip(*[_scalar_value(v) for v in (start, limit, delta)])
    if dtype is not None:
        dt = dtypes.as_dtype(dtype)
    else:
        given = [d for d in dts if d is not None]
        if given:
            dt = max(given, key=lambda d: (d.is_floating, d.size))
        elif any(isinstance(v, float | np.floating) for v in vals):
            dt = dtypes.float32
        else:
            dt = dtypes.int32
    start, limit, delta = vals
    if delta == 0:
        raise InvalidArgumentError(None, None, "Range: Requires delta != 0: 0")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise InvalidArgumentError(
            None, None, f"Range: Requires start <= limit when delta > 0: {start}/{limit}" if delta > 0 else
            f"Range: Requires start >= limit when delta < 0: {start}/{limit}")
    return execute(_RANGE, (), {"start": start, "limit": limit, "delta": delta, "dtype": dt})


_LINSPACE = Op("LinSpace")


@_LINSPACE.kernel()
def _linspace(b, start, stop, *, num, axis):
    return b.xp.linspace(start, stop, num, axis=axis).astype(start.dtype, copy=False)


def linspace(start, stop, num, name=None, axis=0):
    """``tf.linspace``: ``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""
    s = as_tensor(start) if is_tensor_like(start) else _convert(start, dtype_hint=dtypes.float32)
    if not s.dtype.is_floating:
        s = _cast(s, dtypes.float32 if s.dtype.size <= 4 else dtypes.float64)
    e = _cast(stop, s.dtype) if is_tensor_like(stop) else _convert(stop, dtype=s.dtype)
    n = int(num) if not is_tensor_like(num) else int(as_tensor(num).numpy())
    if n < 0:
        raise InvalidArgumentError(None, None, f"LinSpace: Requires num >= 0: {n}")
    return execute(_LINSPACE, (s, e), {"num": n, "axis": int(axis)})


# ==================================================================================
# Slicing and Tensor.__getitem__
# ==================================================================================

def _strided_slice_grad(call, g):
    return [execute(_STRIDED_SLICE_GRAD, (g,), {"shape": call.inputs[0]._array.shape,
                                                   "index": call.attrs["index"]})]


def _strided_slice_grad_grad(call, gg):
    return [execute(_STRIDED_SLICE, (gg,), {"index": call.attrs["index"]})]


def _strided_slice_tf(attrs, input_dtypes):
    """tfcore's index (ints, slices, None, Ellipsis) as TF's StridedSlice: begin, end and strides inputs and
    the five masks, bit ``j`` for index entry ``j`` (as TF's ``_slice_helper`` builds them)."""
    begin, end, strides = [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for j, k in enumerate(attrs["index"]):
        bit = 1 << j
        if k is Ellipsis or k is None:
            masks["ellipsis_mask" if k is Ellipsis else "new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, builtins.slice):
            if k.start is None:
                masks["begin_mask"] |= bit
            if k.stop is None:
                masks["end_mask"] |= bit
            begin.append(k.start or 0), end.append(k.stop or 0), strides.append(k.step or 1)
        else:
            masks["shrink_axis_mask"] |= bit
            begin.append(k), end.append(k + 1), strides.append(1)
    arrays = [np.asarray(v, np.int32).reshape(-1) for v in (begin, end, strides)]
    return [(None, arrays[0], "Index"), (None, arrays[1], None), (None, arrays[2], None)], masks, ["index"]


def _slice_tf(attrs, input_dtypes):
    """tf.slice's index (one slice per dimension) as TF's Slice: begin and size inputs (-1: to the end)."""
    index = attrs["index"]
    begin = [k.start or 0 for k in index]
    size = [-1 if k.stop is None else k.stop - (k.start or 0) for k in index]
    return [(None, np.asarray(begin, np.int32), "Index"), (None, np.asarray(size, np.int32), None)], {}, ["index"]


_STRIDED_SLICE = Op("StridedSlice", grad=_strided_slice_grad, tf_lowering=_strided_slice_tf)
_SLICE = Op("Slice", grad=_strided_slice_grad, tf_lowering=_slice_tf)
_STRIDED_SLICE_GRAD = Op("StridedSliceGrad", grad=_strided_slice_grad_grad)


@_STRIDED_SLICE.kernel()
def _strided_slice(b, x, *, index):
    out = x[index]
    # a full index into a tf.string (object) array yields the Python str/bytes itself: keep it a 0-d array
    return out if hasattr(out, "dtype") else b.xp.asarray(out, dtype=x.dtype)


_SLICE.kernel()(_strided_slice)


@_STRIDED_SLICE_GRAD.kernel()
def _strided_slice_grad_impl(b, g, *, shape, index):
    out = b.xp.zeros(shape, dtype=g.dtype)
    out[index] = g
    return out


_INDEX_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                "tensors are valid indices, got {!r}")


def _index_value(v, key):
    """A slice bound / index as a Python int (scalar integer tensors allowed)."""
    if v is None or type(v) is int:
        return v
    if isinstance(v, np.integer):
        return int(v)
    if is_tensor(v):
        t = as_tensor(v)
        if t._dtype.is_integer and t._array.ndim == 0:
            return int(t.numpy())
    raise TypeError(_INDEX_ERROR.format(key))


def _normalize_index(key):
    """A ``__getitem__`` key -> tuple of ints, slices, None and Ellipsis (TF's allowed index forms)."""
    if type(key) is not tuple:
        key = (key,)
    out = []
    for k in key:
        if k is None or k is Ellipsis or type(k) is int:
            out.append(k)
        elif isinstance(k, builtins.slice):
            step = _index_value(k.step, key)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            out.append(builtins.slice(_index_value(k.start, key), _index_value(k.stop, key), step))
        elif isinstance(k, bool):
            raise TypeError(_INDEX_ERROR.format(key))
        else:
            out.append(_index_value(k, key))
    return tuple(out)


def _check_int_indices(t, index):
    """Out-of-range integer indices raise TF's InvalidArgumentError before the kernel runs."""
    shp = t._array.shape
    n_real = builtins.sum(1 for k in index if k is not None and k is not Ellipsis)
    if n_real > len(shp):
        raise InvalidArgumentError(
            None, None, f"StridedSlice: Index out of range using input dim {len(shp)}; input has only "
            f"{len(shp)} dims ({t.dtype.name}{list(shp)})")
    dim = 0
    for pos, k in enumerate(index):
        if k is Ellipsis:
            dim = len(shp) - builtins.sum(1 for j in index[pos + 1:] if j is not None and j is not Ellipsis)
            continue
        if k is None:
            continue
        if type(k) is int and not -shp[dim] <= k < shp[dim]:
            raise InvalidArgumentError(
                None, None, f"StridedSlice: slice index {k} of dimension {dim} out of bounds "
                f"({t.dtype.name}{list(shp)})")
        dim += 1


def _getitem(self, key):
    t = self if type(self) is Tensor else self.value()
    if (isinstance(key, Tensor) and key._dtype is dtypes.bool) or (isinstance(key, np.ndarray) and key.dtype == bool):
        return boolean_mask(t, key)  # x[x > 0]: TF's _slice_helper gives boolean_mask for a boolean tensor key
    if _TRACING[0] and isinstance(key, Tensor) and key._array.ndim == 0 and key._dtype.is_integer \
            and _tracing.current_graph() is not None and _tracing.current_graph().knows(key):
        # x[i] with i computed in the traced graph: a graph op on i (not i's trace-time value).
        _check_int_indices(t, (int(key._array),))
        return _gather_dense_gradient(t, key, 0)
    index = _normalize_index(key)
    _check_int_indices(t, index)
    return execute(_STRIDED_SLICE, (t,), {"index": index})


_TRACING = _tracing.ACTIVE
Tensor._override_operator("__getitem__", _getitem)


def _install_variable_getitem():
    from ..framework.variables import Variable

    Variable._override_operator("__getitem__", _getitem)


_install_variable_getitem()


def slice(input_, begin, size, name=None):  # noqa: A001
    """``tf.slice``: the block starting at ``begin`` of extent ``size`` (-1: to the end)."""
    t = as_tensor(input_)
    shp = t._array.shape
    bg, sz = _host_ints(begin, "Slice", "begin"), _host_ints(size, "Slice", "size")
    if len(bg) != len(shp) or len(sz) != len(shp):
        raise InvalidArgumentError(
            None, None, f"Slice: Expected begin and size arguments to be 1-D tensors of size {len(shp)}, but got "
            f"shapes [{len(bg)}] and [{len(sz)}] instead (input {t.dtype.name}{list(shp)})")
    index = []
    for i, (b0, s0, d) in enumerate(zip(bg, sz, shp)):
        s0 = d - b0 if s0 == -1 else s0
        if not (0 <= b0 <= d and 0 <= s0 <= d - b0):
            raise InvalidArgumentError(
                None, None, f"Slice: Expected size[{i}] in [0, {d - b0}], but got {sz[i]} "
                f"(begin {bg}, input {t.dtype.name}{list(shp)})" if 0 <= b0 <= d else
                f"Slice: Expected begin[{i}] in [0, {d}], but got {b0} (input {t.dtype.name}{list(shp)})")
        index.append(builtins.slice(b0, b0 + s0))
    return execute(_SLICE, (t,), {"index": tuple(index)})


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """``tf.strided_slice`` with TF's bit masks, lowered to the same index form as ``t[...]``."""
    t = as_tensor(input_)
    bg, en = _host_ints(begin, "StridedSlice", "begin"), _host_ints(end, "StridedSlice", "end")
    st = [1] * len(bg) if strides is None else _host_ints(strides, "StridedSlice", "strides")
    if not len(bg) == len(en) == len(st):
        raise InvalidArgumentError(None, None, "StridedSlice: begin, end and strides must have the same length")
    index = []
    for i in builtins.range(len(bg)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(bg[i])
        else:
            if st[i] == 0:
                raise InvalidArgumentError(None, None, "StridedSlice: strides[i] must be non-zero")
            index.append(builtins.slice(None if begin_mask & bit else bg[i], None if end_mask & bit else en[i],
                                        st[i]))
    index = tuple(index)
    _check_int_indices(t, index)
    return execute(_STRIDED_SLICE, (t,), {"index": index})


# ==================================================================================
# Composites: meshgrid, repeat, roll, sequence_mask
# ==================================================================================

def meshgrid(*args, **kwargs):
    """``tf.meshgrid``: N-D coordinate grids; ``indexing='xy'`` (default) or ``'ij'``."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Unknown keyword arguments: {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing parameter must be either 'xy' or 'ij', got {indexing!r}")
    ts = [reshape(as_tensor(a), (-1,)) for a in args]
    n = len(ts)
    sizes = [t._array.shape[0] for t in ts]
    out_shape = list(sizes)
    swap = indexing == "xy" and n > 1
    if swap:
        out_shape[0], out_shape[1] = out_shape[1], out_shape[0]
    outs = []
    for i, t in enumerate(ts):
        pos = (1 - i) if swap and i < 2 else i
        s = [1] * n
        s[pos] = sizes[i]
        outs.append(broadcast_to(reshape(t, s), out_shape))
    return outs


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


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``tf.sequence_mask``: ``mask[..., j] = j < lengths[...]``."""
    lens = as_tensor(lengths)
    if maxlen is None:
        maxlen = int(lens.numpy().max()) if lens._array.size else 0
    maxlen = int(maxlen.numpy()) if is_tensor_like(maxlen) else int(maxlen)
    row = range(maxlen, dtype=lens.dtype)
    mask = _raw("Less", (row, expand_dims(lens, -1)))
    dt = dtypes.as_dtype(dtype)
    return mask if dt is dtypes.bool else _cast(mask, dt)
