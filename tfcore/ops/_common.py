"""Helpers shared by op families: argument conversion, common rules, axis handling."""

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes
from ..framework import tracing as _tracing
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.variables import Variable
from .registry import Residuals

_state = _ctx.thread_state()
_FLOATING = frozenset(d for d in dtypes._ALL if d is not None and d.is_floating)


def as_tensor(x, dtype=None):
    """A Tensor for ``x`` (variables are read, Python values converted)."""
    if type(x) is Tensor and dtype is None:
        return x
    return convert_to_tensor(x, dtype=dtype)


def _float_scalar(value, dtype):
    """``convert_to_tensor(value, dtype)`` for a Python float/int and a floating ``dtype``, minus the probing.

    Placed like any converted value: the ``tf.device`` scope's device, else the default one.
    """
    dev = (_state._device if _ctx.ACTIVE[0] else None) or _ctx.default_device()
    return Tensor(dev.backend.asarray(value, dtype.as_numpy_dtype), dtype, dev)


def binary_args(x, y):
    """Convert a binary op's operands: a Python value takes the other operand's dtype (TF)."""
    tx, ty = type(x), type(y)
    if tx is Tensor:
        if ty is Tensor:
            return (x, y)
        if (ty is float or ty is int) and x._dtype in _FLOATING:  # ``x * 0.5``: the common mixed case
            return (x, _float_scalar(y, x._dtype))
    elif ty is Tensor and (tx is float or tx is int) and y._dtype in _FLOATING:  # ``lr * grad``
        return (_float_scalar(x, y._dtype), y)
    x_is = tx is Tensor or isinstance(x, Variable)
    y_is = ty is Tensor or isinstance(y, Variable)
    if x_is and not y_is:  # a variable and a Python/NumPy value (``v * 0.9``)
        x = convert_to_tensor(x)  # read first: an autocast variable reads as the layer's compute dtype
        d = x._dtype
        return (x, _float_scalar(y, d) if (ty is float or ty is int) and d in _FLOATING
                else convert_to_tensor(y, dtype=d))
    if y_is and not x_is:
        y = convert_to_tensor(y)
        d = y._dtype
        return (_float_scalar(x, d) if (tx is float or tx is int) and d in _FLOATING
                else convert_to_tensor(x, dtype=d), y)
    if not x_is:
        x = convert_to_tensor(x)
        return (x, convert_to_tensor(y, dtype_hint=x.dtype) if not y_is else y)
    return (x, y)


_F32 = np.dtype(np.float32)


def accumulation_dtype(dtype):
    """float32 for 16-bit floats (float16, ml_dtypes bfloat16), else ``dtype`` itself: NumPy sums and
    products of 16-bit arrays round every partial result (a 1000-term float16 column sum is off by
    5%, a bfloat16 one stops growing at 256), so host kernels compute them in float32 and round once,
    as a GPU's float32 accumulators do."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 2 and (dtype.kind == "f" or dtype.kind == "V"):
        return _F32
    return dtype


def in_accumulation_dtype(*arrays):
    """``(out_dtype, *arrays)`` with the arrays cast to :func:`accumulation_dtype` of the first one's dtype."""
    out = arrays[0].dtype
    ct = accumulation_dtype(out)
    if ct == out:
        return (out, *arrays)
    return (out, *[a.astype(ct) for a in arrays])


def host_float32(kernel):
    """Decorator for a kernel registered with ``@op.kernel(...)``: its ``cpu`` candidate runs float16/bfloat16
    arrays on float32 copies and rounds the results back. NumPy emulates 16-bit arithmetic element by element
    (3-10x slower than float32 plus two SIMD casts); for exact operations (masks, maxima, selections) the
    values are identical, and sums and products are rounded once, as a GPU's float32 registers do. Other
    kinds register the kernel as is: :meth:`Op.kernel` picks the variant per device kind
    (``kernel.kind_variants``), so no backend test runs per call. Returns ``kernel`` itself."""
    def run(b, *arrays, **attrs):
        dt = arrays[0].dtype if arrays else None
        if dt is None or accumulation_dtype(dt) == dt:
            return kernel(b, *arrays, **attrs)
        out = kernel(b, *[a.astype(_F32) if a.dtype == dt else a for a in arrays], **attrs)
        if type(out) is tuple:
            return tuple(o.astype(dt) if o.dtype == _F32 else o for o in out)
        if type(out) is Residuals:  # float32 arrays saved for the gradient are not the op's dtype: dropped
            return out.output.astype(dt)  # (the gradient recomputes them, e.g. _FusedConv2D's im2col columns)
        return out.astype(dt)

    run.__name__ = run.__qualname__ = kernel.__name__
    run.__doc__ = kernel.__doc__
    kernel.kind_variants = {**getattr(kernel, "kind_variants", {}), "cpu": run}
    return kernel


def describe(tensors):
    return ", ".join(f"{t.dtype.name}{list(t.shape)}" for t in tensors)


def dtype_mismatch(op_name, ts, arg_names=("x", "y")):
    """The error for inputs of different dtypes, as TF raises it: eagerly the kernel's InvalidArgumentError;
    while a graph is traced (tf.function, tf.data functions) the op builder's TypeError naming the inputs."""
    if not _tracing.is_tracing():
        return InvalidArgumentError(None, None, f"{op_name}: inputs must have the same dtype, got {describe(ts)}")
    first = ts[0]._dtype
    i = next(k for k, t in enumerate(ts) if t._dtype is not first)
    names = arg_names if len(ts) == len(arg_names) else [f"inputs[{k}]" for k in range(len(ts))]
    return TypeError(f"Input '{names[i]}' of '{op_name}' Op has type {ts[i]._dtype.name} that does not match type "
                     f"{first.name} of argument '{names[0]}'. (inputs: {describe(ts)})")


def same_dtype_rule(op, ts, attrs):
    """All inputs share one dtype (TF never promotes implicitly)."""
    d = ts[0]._dtype
    for t in ts:  # no slice: this runs on every binary op
        if t._dtype is not d:
            raise dtype_mismatch(op.name, ts)
    return None


def arith_rule(op, ts, attrs):
    """Binary arithmetic (AddV2, Sub, Mul): both inputs share one dtype, which is the output's.

    Returning the dtype spares ``execute`` the NumPy-dtype lookup on the hot path.
    """
    x, y = ts
    d = x._dtype
    if y._dtype is not d:
        raise dtype_mismatch(op.name, ts)
    return d


def floating_rule(op, ts, attrs):
    same_dtype_rule(op, ts, attrs)
    d = ts[0]._dtype
    if not (d.is_floating or d.is_complex):
        raise InvalidArgumentError(
            None, None, f"{op.name}: expected a floating-point tensor, got {describe(ts)}")
    return None


def numeric_rule(op, ts, attrs):
    same_dtype_rule(op, ts, attrs)
    if ts[0]._dtype is dtypes.bool or ts[0]._dtype is dtypes.string:
        raise InvalidArgumentError(None, None, f"{op.name}: expected a numeric tensor, got {describe(ts)}")
    return None


def bool_rule(op, ts, attrs):
    for t in ts:
        if t._dtype is not dtypes.bool:
            raise InvalidArgumentError(None, None, f"{op.name}: expected bool tensors, got {describe(ts)}")
    return None


def normalize_axis(axis, ndim, op_name):
    """Axis argument -> tuple of non-negative ints (None: all axes)."""
    if axis is None:
        return tuple(range(ndim))
    if is_tensor(axis):
        axis = axis.numpy().tolist()
    if hasattr(axis, "tolist"):
        axis = axis.tolist()
    axes = axis if isinstance(axis, list | tuple) else [axis]
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise InvalidArgumentError(
                None, None, f"{op_name}: axis {a} is out of range for a tensor of rank {ndim}")
        a = a % ndim if ndim else 0
        if a in out:
            raise InvalidArgumentError(None, None, f"{op_name}: axis {a} given twice")
        out.append(a)
    return tuple(out)


def shape_tuple(shape, op_name="shape"):
    """A shape argument (list, tuple, TensorShape, Tensor) -> tuple of ints."""
    if type(shape) is tuple or type(shape) is list:  # the common case: skip the protocol probes
        try:
            return tuple(map(int, shape))
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(None, None, f"{op_name}: invalid shape {shape!r}") from e
    if is_tensor(shape):
        shape = shape.numpy().tolist()
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if hasattr(shape, "tolist"):
        shape = shape.tolist()
    if isinstance(shape, int):
        shape = [shape]
    try:
        return tuple(int(d) for d in shape)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(None, None, f"{op_name}: invalid shape {shape!r}") from e
