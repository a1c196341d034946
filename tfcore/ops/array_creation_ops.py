"""Array ops that make tensors: constant and convert_to_tensor, fill, zeros/ones and their ``_like`` forms
(``new_array`` allocates in a device's memory and raises TF's OOM error), eye, range, linspace, meshgrid and
sequence_mask. A creation with no input goes to the innermost ``tf.device`` scope, else the default device.
"""


import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes
from ..framework import tracing as _tracing
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError, ResourceExhaustedError
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_conversion import convert_to_tensor as _convert
from ._array_common import _cast, _raw, is_tensor_like
from ._common import as_tensor, shape_tuple
from .array_shape_ops import broadcast_to, expand_dims, reshape
from .registry import Op, execute, get_op

_TRACING = _tracing.ACTIVE

__all__ = [
    "constant", "convert_to_tensor", "zeros", "ones", "zeros_like", "ones_like", "fill", "eye", "range", "linspace",
    "meshgrid", "sequence_mask",
]


@add_dispatch_support
def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``tf.convert_to_tensor``."""
    return _convert(value, dtype=dtype, dtype_hint=dtype_hint)


@add_dispatch_support
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


_FILL = Op("Fill", tf_attr_inputs=[("shape", "index_type", 0)], tf_input_types=(None, "T"))  # TF: dims, value


@_FILL.kernel()
def _fill(b, value, *, shape):
    out = b.xp.empty(shape, dtype=value.dtype)
    out[...] = value  # CuPy's full() wants a host scalar; assignment takes the 0-d device array as is
    return out


@add_dispatch_support
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


@add_dispatch_support
def zeros(shape, dtype=dtypes.float32, name=None):
    """``tf.zeros``."""
    dtype = dtypes.as_dtype(dtype)
    dev = _creation_device()
    shp = shape_tuple(shape, "Zeros")
    if any(d < 0 for d in shp):
        raise InvalidArgumentError(None, None, f"Zeros: dimensions must be >= 0, got {shp}")
    return Tensor(new_array(dev, "zeros", shp, dtype), dtype, dev)


@add_dispatch_support
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


@add_dispatch_support
def zeros_like(input, dtype=None, name=None):  # noqa: A002 - TF's argument name
    """``tf.zeros_like``."""
    attrs = {"dtype": dtypes.as_dtype(dtype)} if dtype is not None else None
    return execute(_ZEROS_LIKE, (input,), attrs)


@add_dispatch_support
def ones_like(input, dtype=None, name=None):  # noqa: A002
    """``tf.ones_like``."""
    attrs = {"dtype": dtypes.as_dtype(dtype)} if dtype is not None else None
    return execute(_ONES_LIKE, (input,), attrs)


_EYE = Op("Eye")


@_EYE.kernel()
def _eye(b, *, rows, cols, batch_shape, dtype):
    m = b.xp.eye(rows, cols, dtype=dtype.as_numpy_dtype)
    return b.xp.ascontiguousarray(b.xp.broadcast_to(m, batch_shape + (rows, cols))) if batch_shape else m


@add_dispatch_support
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


@add_dispatch_support
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


@add_dispatch_support
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


@add_dispatch_support
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


@add_dispatch_support
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
