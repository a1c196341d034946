"""Element-wise math, comparisons, matmul, tensordot, einsum, cumsum and Tensor operators."""

import math
import string

import numpy as np

from ..backend import blas_threads, xp_compat
from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.variables import Variable
from ._common import (
    arith_rule,
    as_tensor,
    binary_args,
    bool_rule,
    describe,
    dtype_mismatch,
    floating_rule,
    in_accumulation_dtype,
    numeric_rule,
    same_dtype_rule,
)
from .array_ops import broadcast_to, ones_like, reshape, transpose, zeros_like
from .array_shape_ops import _unbroadcast
from .registry import Op, execute

__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "negative", "conj",
    "abs", "sign", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "sin", "cos", "tan",
    "tanh", "sigmoid", "softplus", "softsign", "erf", "reciprocal", "maximum", "minimum", "pow",
    "squared_difference", "floor", "ceil", "round", "cast", "clip_by_value", "where", "add_n",
    "matmul", "tensordot", "einsum", "cumsum", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor",
    "is_nan", "is_inf", "is_finite", "saturate_cast", "scalar_mul", "realdiv", "divide_no_nan",
    "log_sigmoid", "asin", "acos", "atan", "sinh", "cosh", "atan2", "nextafter",
]



# -- element-wise binary ops -------------------------------------------------------

def _binary(name, fn_name, grad=None, rule=same_dtype_rule, cuda_expr=None, output_arg="z"):
    op = Op(name, rule=rule, grad=grad, output_arg=output_arg, cuda_expr=cuda_expr)  # most TF binary ops: "z"
    np_fn = getattr(np, fn_name)

    @op.kernel("cpu")
    def _impl_cpu(b, x, y):  # hot path: no attribute lookup per call
        return np_fn(x, y)

    @op.kernel("cuda")
    def _impl(b, x, y):
        return getattr(b.xp, fn_name)(x, y)

    return op


# Gradients of the hot binary ops ask ``call.needs_grad(i)`` first: an input the tape does not
# differentiate (a constant, the labels) costs no op at all.

def _to_input(call, i, g):
    """``g`` reduced to input ``i``'s shape; None when the tape drops that gradient anyway."""
    shape = call.inputs[i]._array.shape
    if g._array.shape == shape:
        return g
    return _unbroadcast(g, shape) if call.needs_grad(i) else None


def _add_grad(call, g):
    return [_to_input(call, 0, g), _to_input(call, 1, g)]


def _sub_grad(call, g):
    return [_to_input(call, 0, g), _to_input(call, 1, negative(g)) if call.needs_grad(1) else None]


_COMPLEX64, _COMPLEX128 = dtypes.complex64, dtypes.complex128


def conj_if_complex(t):
    """``conj(t)`` for complex tensors, ``t`` itself otherwise: TF's gradients of complex products use the
    conjugates of the other factors (the gradient of a real loss L(z) is dL/dRe z + i dL/dIm z).
    Identity checks: gradients of every product pay this, and ``DType.is_complex`` is a string test."""
    d = t._dtype
    return conj(t) if d is _COMPLEX64 or d is _COMPLEX128 else t


def _mul_grad(call, g):
    x, y = call.inputs
    x, y = conj_if_complex(x), conj_if_complex(y)
    return [_unbroadcast(multiply(g, y), x._array.shape) if call.needs_grad(0) else None,
            _unbroadcast(multiply(x, g), y._array.shape) if call.needs_grad(1) else None]


def _div_grad(call, g):
    x, y = call.inputs
    x, y = conj_if_complex(x), conj_if_complex(y)
    gx = _unbroadcast(divide(g, y), x._array.shape) if call.needs_grad(0) else None
    gy = (_unbroadcast(negative(multiply(g, divide(divide(x, y), y))), y._array.shape)
          if call.needs_grad(1) else None)
    return [gx, gy]


def _pow_grad(call, g):
    x, y = call.inputs
    z = call.outputs[0]
    gx = multiply(g, multiply(y, pow(x, subtract(y, ones_scalar(y)))))
    safe_log = where(greater(x, zeros_like(x)), log(where(greater(x, zeros_like(x)), x, ones_like_(x))),
                     zeros_like(x))
    gy = multiply(g, multiply(z, safe_log))
    return [_unbroadcast(gx, x._array.shape), _unbroadcast(gy, y._array.shape)]


def _minmax_grad(call, g, pick_x):
    x, y = call.inputs
    xb, yb = broadcast_to(x, g._array.shape), broadcast_to(y, g._array.shape)
    mask = pick_x(xb, yb)
    zeros = zeros_like(g)
    return [_unbroadcast(where(mask, g, zeros), x._array.shape),
            _unbroadcast(where(mask, zeros, g), y._array.shape)]


def _sqdiff_grad(call, g):
    x, y = call.inputs
    d = multiply(scalar_like(2.0, g), multiply(g, subtract(x, y)))
    return [_unbroadcast(d, x._array.shape), _unbroadcast(negative(d), y._array.shape)]


def _atan2_grad(call, g):
    y, x = call.inputs
    denom = add(square(x), square(y))
    return [_unbroadcast(multiply(g, divide(x, denom)), y._array.shape),
            _unbroadcast(multiply(g, divide(negative(y), denom)), x._array.shape)]


_ADD = _binary("AddV2", "add", _add_grad, arith_rule, "({0} + {1})")
_SUB = _binary("Sub", "subtract", _sub_grad, arith_rule, "({0} - {1})")
_MUL = _binary("Mul", "multiply", _mul_grad, arith_rule, "({0} * {1})")
_DIV = _binary("RealDiv", "true_divide", _div_grad, cuda_expr="({0} / {1})")
_FLOORDIV = _binary("FloorDiv", "floor_divide", None, numeric_rule)
_FLOORMOD = _binary("FloorMod", "mod", None, numeric_rule)
_POW = _binary("Pow", "power", _pow_grad)
_MAX = _binary("Maximum", "maximum", lambda c, g: _minmax_grad(c, g, greater_equal), numeric_rule)
_MIN = _binary("Minimum", "minimum", lambda c, g: _minmax_grad(c, g, less_equal), numeric_rule)
_ATAN2 = _binary("Atan2", "arctan2", _atan2_grad, floating_rule)


def _float_or_double_rule(op, ts, attrs):
    """Both inputs float32 or both float64 (TF's ``T: {float, double}``)."""
    same_dtype_rule(op, ts, attrs)
    if ts[0]._dtype not in (dtypes.float32, dtypes.float64):
        raise InvalidArgumentError(None, None, f"{op.name}: x1 and x2 must be float32 or float64, got {describe(ts)}")
    return None


def _nextafter_grad(call, g):
    """TF's ``_NextAfterGrad``: d/dx1 = 1 (reduced to x1's shape), d/dx2 = 0."""
    x1, x2 = call.inputs
    return [_to_input(call, 0, g), zeros_like(x2) if call.needs_grad(1) else None]


# x1's next representable value towards x2: C's nextafter in the kernel's own precision (float or double)
_NEXTAFTER = _binary("NextAfter", "nextafter", _nextafter_grad, _float_or_double_rule, output_arg="output",
                     cuda_expr="(sizeof(T) == 4 ? (T)nextafterf((float){0}, (float){1})"
                               " : (T)nextafter((double){0}, (double){1}))")
_SQDIFF = Op("SquaredDifference", rule=numeric_rule, grad=_sqdiff_grad, output_arg="z")


@_SQDIFF.kernel()
def _sqdiff(b, x, y):
    d = b.xp.subtract(x, y)
    return b.xp.multiply(d, d)


_EQUAL = _binary("Equal", "equal")
_NOT_EQUAL = _binary("NotEqual", "not_equal")
_LESS = _binary("Less", "less", None, numeric_rule)
_LESS_EQUAL = _binary("LessEqual", "less_equal", None, numeric_rule)
_GREATER = _binary("Greater", "greater", None, numeric_rule)
_GREATER_EQUAL = _binary("GreaterEqual", "greater_equal", None, numeric_rule)
_AND = _binary("LogicalAnd", "logical_and", None, bool_rule)
_OR = _binary("LogicalOr", "logical_or", None, bool_rule)
_XOR = _binary("LogicalXor", "logical_xor", None, bool_rule)


@add_dispatch_support
def add(x, y, name=None):
    """``tf.add`` (x + y with broadcasting)."""
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = binary_args(x, y)
    return execute(_ADD, (x, y))


@add_dispatch_support
def subtract(x, y, name=None):
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = binary_args(x, y)
    return execute(_SUB, (x, y))


@add_dispatch_support
def multiply(x, y, name=None):
    if type(x) is not Tensor or type(y) is not Tensor:
        x, y = binary_args(x, y)
    return execute(_MUL, (x, y))


def _int_div_dtype(d):
    return dtypes.float32 if d.size <= 2 else dtypes.float64


@add_dispatch_support
def truediv(x, y, name=None):
    """``x / y``; integer inputs are cast to float32 (8/16-bit) or float64 first, as TF."""
    x, y = binary_args(x, y)
    if x.dtype.is_integer:
        if x.dtype != y.dtype:
            raise InvalidArgumentError(None, None, f"RealDiv: inputs must have the same dtype, got "
                                       f"{describe([as_tensor(x), as_tensor(y)])}")
        target = _int_div_dtype(x.dtype)
        x, y = cast(x, target), cast(y, target)
    return execute(_DIV, (x, y))


@add_dispatch_support
def divide(x, y, name=None):
    """``tf.math.divide``."""
    return truediv(x, y)


@add_dispatch_support
def realdiv(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_DIV, (x, y))


def _div_no_nan_rule(op, ts, attrs):
    x, y = ts
    d = x._dtype
    if y._dtype is not d or not (d.is_floating or d.is_complex):
        raise InvalidArgumentError(
            None, None, f"{op.name}: inputs must be floating point or complex with one dtype, got {describe(ts)}")
    return d


def _div_no_nan_grad(call, g):
    """TF's: ``dx = div_no_nan(g, y)``, ``dy = g * div_no_nan(div_no_nan(-x, y), y)`` (0 where y == 0)."""
    x, y = call.inputs
    gx = _unbroadcast(divide_no_nan(g, y), x._array.shape) if call.needs_grad(0) else None
    gy = (_unbroadcast(multiply(g, divide_no_nan(divide_no_nan(negative(x), y), y)), y._array.shape)
          if call.needs_grad(1) else None)
    return [gx, gy]


_DIV_NO_NAN = Op("DivNoNan", rule=_div_no_nan_rule, grad=_div_no_nan_grad, output_arg="z")


@_DIV_NO_NAN.kernel()
def _div_no_nan(b, x, y):
    xp = b.xp
    zero = y == 0
    out = xp.true_divide(x, xp.where(zero, xp.ones((), dtype=y.dtype), y))
    return xp.where(zero, xp.zeros((), dtype=out.dtype), out)



@_DIV_NO_NAN.kernel("cpu")
def _div_no_nan_cpu(b, x, y):
    """A scalar divisor (every metric result): one division or zeros (a host value: no sync to avoid)."""
    if y.ndim == 0:
        return np.true_divide(x, y) if y != 0 else np.zeros(x.shape, dtype=np.result_type(x, y))
    return _div_no_nan(b, x, y)

@add_dispatch_support
def divide_no_nan(x, y, name=None):
    """x / y, 0 where y == 0 (TF's ``DivNoNan``; Keras metrics divide their totals with it).

    Floating and complex inputs run the one ``DivNoNan`` op; others keep the composite of
    four broadcasting ops (``truediv`` casts integers), the gradient being 0 where y == 0.
    """
    x, y = binary_args(x, y)
    if x._dtype is y._dtype and (x._dtype.is_floating or x._dtype.is_complex):
        return execute(_DIV_NO_NAN, (x, y))
    zero = scalar_like(0, y)
    is_zero = equal(y, zero)
    return where(is_zero, zero, truediv(x, where(is_zero, scalar_like(1, y), y)))


@add_dispatch_support
def floordiv(x, y, name=None):
    """``x // y`` (floor division)."""
    x, y = binary_args(x, y)
    if x.dtype.is_floating:
        return floor(truediv(x, y))
    return execute(_FLOORDIV, (x, y))


@add_dispatch_support
def floormod(x, y, name=None):
    """``x % y`` with Python's sign convention (TF's floormod)."""
    x, y = binary_args(x, y)
    return execute(_FLOORMOD, (x, y))


mod = floormod


@add_dispatch_support
def pow(x, y, name=None):  # noqa: A001 - TF's public name
    """``tf.pow``."""
    x, y = binary_args(x, y)
    if x.dtype.is_integer and bool(np.any(as_tensor(y).numpy() < 0)):
        raise InvalidArgumentError(None, None, f"Pow: integers to negative integer powers are not allowed "
                                   f"({describe([as_tensor(x), as_tensor(y)])})")
    return execute(_POW, (x, y))


@add_dispatch_support
def maximum(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_MAX, (x, y))


@add_dispatch_support
def minimum(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_MIN, (x, y))


@add_dispatch_support
def atan2(y, x, name=None):
    y, x = binary_args(y, x)
    return execute(_ATAN2, (y, x))


@add_dispatch_support
def nextafter(x1, x2, name=None):
    """``tf.math.nextafter``: the next representable value of ``x1`` in the direction of ``x2``, element-wise
    with broadcasting (float32 or float64; ``x1`` itself where ``x1 == x2``). Its gradient is TF's: one for
    ``x1``, zero for ``x2``."""
    x1, x2 = binary_args(x1, x2)
    return execute(_NEXTAFTER, (x1, x2))


@add_dispatch_support
def squared_difference(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_SQDIFF, (x, y))


@add_dispatch_support
def equal(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_EQUAL, (x, y))


@add_dispatch_support
def not_equal(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_NOT_EQUAL, (x, y))


@add_dispatch_support
def less(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_LESS, (x, y))


@add_dispatch_support
def less_equal(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_LESS_EQUAL, (x, y))


@add_dispatch_support
def greater(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_GREATER, (x, y))


@add_dispatch_support
def greater_equal(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_GREATER_EQUAL, (x, y))


@add_dispatch_support
def logical_and(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_AND, (x, y))


@add_dispatch_support
def logical_or(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_OR, (x, y))


@add_dispatch_support
def logical_xor(x, y, name=None):
    x, y = binary_args(x, y)
    return execute(_XOR, (x, y))


@add_dispatch_support
def scalar_mul(scalar, x, name=None):
    return multiply(x, scalar)


# -- element-wise unary ops ----------------------------------------------------------

def _unary(name, impl, grad=None, rule=numeric_rule, cuda_expr=None, output_arg="y"):
    op = Op(name, rule=rule, grad=grad, output_arg=output_arg, cuda_expr=cuda_expr)  # TF's unary ops: "y"
    op.kernel()(impl)
    return op


def _quiet(impl):
    """Run ``impl`` without NumPy's divide/invalid warnings: TF's log(0) = -inf, sqrt(-1) = nan are silent."""

    def quiet_impl(b, x):
        with xp_compat.errstate(b.xp, divide="ignore", invalid="ignore"):
            return impl(b, x)

    return quiet_impl


def scalar_like(value, t):
    """A scalar constant of ``t``'s dtype on ``t``'s device (gradients use it; it is not an op)."""
    dtype = t._dtype if type(t) is Tensor else t.dtype
    dev = t._device
    return Tensor(dev.backend.asarray(value, dtype.as_numpy_dtype), dtype, dev)


def ones_scalar(t):
    return scalar_like(1, t)


def ones_like_(t):
    return ones_like(t)


_NEG = _unary("Neg", lambda b, x: b.xp.negative(x), lambda c, g: [negative(g)], cuda_expr="(-{0})")
_ABS = _unary("Abs", lambda b, x: b.xp.abs(x), lambda c, g: [multiply(g, sign(c.inputs[0]))],
              cuda_expr="fabs({0})")
_SIGN = _unary("Sign", lambda b, x: b.xp.sign(x), lambda c, g: [zeros_like(g)])
_SQUARE = _unary("Square", lambda b, x: b.xp.multiply(x, x),
                 lambda c, g: [multiply(g, multiply(scalar_like(2, g), c.inputs[0]))], cuda_expr="({0} * {0})")
_SQRT = _unary("Sqrt", _quiet(lambda b, x: b.xp.sqrt(x)),
               lambda c, g: [divide(g, multiply(scalar_like(2, g), c.outputs[0]))], floating_rule,
               cuda_expr="sqrt({0})")
_RSQRT = _unary("Rsqrt", _quiet(lambda b, x: 1 / b.xp.sqrt(x)),
                lambda c, g: [multiply(g, multiply(scalar_like(-0.5, g), pow(c.outputs[0], scalar_like(3, g))))],
                floating_rule, cuda_expr="(T(1) / sqrt({0}))")
_EXP = _unary("Exp", lambda b, x: b.xp.exp(x), lambda c, g: [multiply(g, c.outputs[0])], floating_rule,
              cuda_expr="exp({0})")
_EXPM1 = _unary("Expm1", lambda b, x: b.xp.expm1(x),
                lambda c, g: [multiply(g, exp(c.inputs[0]))], floating_rule)
_LOG = _unary("Log", _quiet(lambda b, x: b.xp.log(x)), lambda c, g: [divide(g, c.inputs[0])], floating_rule,
              cuda_expr="log({0})")
_LOG1P = _unary("Log1p", _quiet(lambda b, x: b.xp.log1p(x)),
                lambda c, g: [divide(g, add(scalar_like(1, g), c.inputs[0]))], floating_rule)
_SIN = _unary("Sin", lambda b, x: b.xp.sin(x), lambda c, g: [multiply(g, cos(c.inputs[0]))], floating_rule)
_COS = _unary("Cos", lambda b, x: b.xp.cos(x),
              lambda c, g: [negative(multiply(g, sin(c.inputs[0])))], floating_rule)
_TAN = _unary("Tan", lambda b, x: b.xp.tan(x),
              lambda c, g: [multiply(g, add(scalar_like(1, g), square(c.outputs[0])))], floating_rule)
_ASIN = _unary("Asin", lambda b, x: b.xp.arcsin(x),
               lambda c, g: [multiply(g, rsqrt(subtract(scalar_like(1, g), square(c.inputs[0]))))],
               floating_rule)
_ACOS = _unary("Acos", lambda b, x: b.xp.arccos(x),
               lambda c, g: [negative(multiply(g, rsqrt(subtract(scalar_like(1, g), square(c.inputs[0])))))],
               floating_rule)
_ATAN = _unary("Atan", lambda b, x: b.xp.arctan(x),
               lambda c, g: [divide(g, add(scalar_like(1, g), square(c.inputs[0])))], floating_rule)
_SINH = _unary("Sinh", lambda b, x: b.xp.sinh(x), lambda c, g: [multiply(g, cosh(c.inputs[0]))],
               floating_rule)
_COSH = _unary("Cosh", lambda b, x: b.xp.cosh(x), lambda c, g: [multiply(g, sinh(c.inputs[0]))],
               floating_rule)
_TANH = _unary("Tanh", lambda b, x: b.xp.tanh(x),
               lambda c, g: [multiply(g, subtract(scalar_like(1, g), square(c.outputs[0])))], floating_rule,
               cuda_expr="tanh({0})")


def _sigmoid_impl(b, x):
    xp = b.xp
    # exp of a non-positive number only: no overflow for large |x|
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def _softplus_impl(b, x):
    xp = b.xp
    return (xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))).astype(x.dtype, copy=False)


_SIGMOID = _unary("Sigmoid", _sigmoid_impl,
                  lambda c, g: [multiply(g, multiply(c.outputs[0], subtract(scalar_like(1, g), c.outputs[0])))],
                  floating_rule, cuda_expr="(T(1) / (T(1) + exp(-{0})))")
_SOFTPLUS = _unary("Softplus", _softplus_impl, lambda c, g: [multiply(g, sigmoid(c.inputs[0]))], floating_rule,
                   output_arg="activations")
_SOFTSIGN = _unary("Softsign", lambda b, x: x / (1 + b.xp.abs(x)),
                   lambda c, g: [divide(g, square(add(scalar_like(1, g), abs(c.inputs[0]))))], floating_rule,
                   output_arg="activations")
_RECIPROCAL = _unary("Reciprocal", _quiet(lambda b, x: 1 / x),
                     lambda c, g: [negative(multiply(g, square(conj_if_complex(c.outputs[0]))))], floating_rule)


def _erf_impl(b, x):
    return xp_compat.erf(b.xp, x)


_ERF = _unary("Erf", _erf_impl,
              lambda c, g: [multiply(g, multiply(scalar_like(2 / math.sqrt(math.pi), g),
                                                 exp(negative(square(c.inputs[0])))))], floating_rule)
_FLOOR = _unary("Floor", lambda b, x: b.xp.floor(x), None, floating_rule)
_CEIL = _unary("Ceil", lambda b, x: b.xp.ceil(x), None, floating_rule)
_ROUND = _unary("Round", lambda b, x: b.xp.round(x), None)  # banker's rounding, as TF
_NOT = _unary("LogicalNot", lambda b, x: b.xp.logical_not(x), None, bool_rule)
_ISNAN = _unary("IsNan", lambda b, x: b.xp.isnan(x), None, floating_rule)
_ISINF = _unary("IsInf", lambda b, x: b.xp.isinf(x), None, floating_rule)
_ISFINITE = _unary("IsFinite", lambda b, x: b.xp.isfinite(x), None, floating_rule)


@add_dispatch_support
def negative(x, name=None):
    return execute(_NEG, (x,))


_CONJ = _unary("Conj", lambda b, x: b.xp.conj(x), lambda c, g: [conj(g)], output_arg="output")


@add_dispatch_support
def conj(x, name=None):
    """``tf.math.conj``: the complex conjugate; real tensors are returned unchanged (as TF)."""
    t = as_tensor(x)
    if not t._dtype.is_complex:
        return t
    return execute(_CONJ, (t,))


@add_dispatch_support
def abs(x, name=None):  # noqa: A001
    return execute(_ABS, (x,))


@add_dispatch_support
def sign(x, name=None):
    return execute(_SIGN, (x,))


@add_dispatch_support
def square(x, name=None):
    return execute(_SQUARE, (x,))


@add_dispatch_support
def sqrt(x, name=None):
    return execute(_SQRT, (x,))


@add_dispatch_support
def rsqrt(x, name=None):
    return execute(_RSQRT, (x,))


@add_dispatch_support
def exp(x, name=None):
    return execute(_EXP, (x,))


@add_dispatch_support
def expm1(x, name=None):
    return execute(_EXPM1, (x,))


@add_dispatch_support
def log(x, name=None):
    return execute(_LOG, (x,))


@add_dispatch_support
def log1p(x, name=None):
    return execute(_LOG1P, (x,))


@add_dispatch_support
def sin(x, name=None):
    return execute(_SIN, (x,))


@add_dispatch_support
def cos(x, name=None):
    return execute(_COS, (x,))


@add_dispatch_support
def tan(x, name=None):
    return execute(_TAN, (x,))


@add_dispatch_support
def asin(x, name=None):
    return execute(_ASIN, (x,))


@add_dispatch_support
def acos(x, name=None):
    return execute(_ACOS, (x,))


@add_dispatch_support
def atan(x, name=None):
    return execute(_ATAN, (x,))


@add_dispatch_support
def sinh(x, name=None):
    return execute(_SINH, (x,))


@add_dispatch_support
def cosh(x, name=None):
    return execute(_COSH, (x,))


@add_dispatch_support
def tanh(x, name=None):
    return execute(_TANH, (x,))


@add_dispatch_support
def sigmoid(x, name=None):
    return execute(_SIGMOID, (x,))


@add_dispatch_support
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), computed stably."""
    return negative(softplus(negative(x)))


@add_dispatch_support
def softplus(features, name=None):
    return execute(_SOFTPLUS, (features,))


@add_dispatch_support
def softsign(features, name=None):
    return execute(_SOFTSIGN, (features,))


@add_dispatch_support
def reciprocal(x, name=None):
    return execute(_RECIPROCAL, (x,))


@add_dispatch_support
def erf(x, name=None):
    return execute(_ERF, (x,))


@add_dispatch_support
def floor(x, name=None):
    return execute(_FLOOR, (x,))


@add_dispatch_support
def ceil(x, name=None):
    return execute(_CEIL, (x,))


@add_dispatch_support
def round(x, name=None):  # noqa: A001
    """Round half to even, as ``tf.round``."""
    return execute(_ROUND, (x,))


@add_dispatch_support
def logical_not(x, name=None):
    return execute(_NOT, (x,))


@add_dispatch_support
def is_nan(x, name=None):
    return execute(_ISNAN, (x,))


@add_dispatch_support
def is_inf(x, name=None):
    return execute(_ISINF, (x,))


@add_dispatch_support
def is_finite(x, name=None):
    return execute(_ISFINITE, (x,))


# -- cast, clip, where, add_n ------------------------------------------------------

def _cast_grad(call, g):
    src = call.inputs[0]._dtype
    if (src.is_floating or src.is_complex) and (g._dtype.is_floating or g._dtype.is_complex):
        return [cast(g, src)]
    return [None]


_CAST = Op("Cast", grad=_cast_grad, output_arg="y", tf_attr_names={"T": "SrcT", "dtype": "DstT"})


@_CAST.kernel()
def _cast(b, x, *, dtype):
    if dtype is dtypes.bool:
        return x != 0
    return x.astype(dtype.as_numpy_dtype)


@add_dispatch_support
def cast(x, dtype, name=None):
    """``tf.cast``: float->int truncates toward zero, as TF."""
    dtype = dtypes.as_dtype(dtype)
    t = as_tensor(x)
    if t._dtype is dtype:
        return t
    return execute(_CAST, (t,), {"dtype": dtype})


@add_dispatch_support
def saturate_cast(value, dtype, name=None):
    dtype = dtypes.as_dtype(dtype)
    t = as_tensor(value)
    if t.dtype.is_floating and (dtype.is_integer or dtype.is_floating):
        lo = max(dtype.min, t.dtype.min)
        hi = min(dtype.max, t.dtype.max)
        t = clip_by_value(t, lo, hi)
    return cast(t, dtype)


def _clip_grad(call, g):
    x, lo, hi = call.inputs
    xb = broadcast_to(x, g._array.shape)
    lob, hib = broadcast_to(lo, g._array.shape), broadcast_to(hi, g._array.shape)
    zeros = zeros_like(g)
    below, above = less(xb, lob), greater(xb, hib)
    inside = logical_not(logical_or(below, above))
    return [_unbroadcast(where(inside, g, zeros), x._array.shape),
            _unbroadcast(where(below, g, zeros), lo._array.shape),
            _unbroadcast(where(above, g, zeros), hi._array.shape)]


_CLIP = Op("ClipByValue", rule=numeric_rule, grad=_clip_grad)


@_CLIP.kernel()
def _clip(b, x, lo, hi):
    return b.xp.minimum(b.xp.maximum(x, lo), hi)


@add_dispatch_support
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``tf.clip_by_value``."""
    t = as_tensor(t)
    lo = as_tensor(clip_value_min, dtype=t.dtype) if not isinstance(clip_value_min, Tensor) else clip_value_min
    hi = as_tensor(clip_value_max, dtype=t.dtype) if not isinstance(clip_value_max, Tensor) else clip_value_max
    return execute(_CLIP, (t, lo, hi))


def _where_rule(op, ts, attrs):
    c, x, y = ts
    if c._dtype is not dtypes.bool:
        raise InvalidArgumentError(None, None, f"SelectV2: condition must be bool, got {describe(ts)}")
    if x._dtype is not y._dtype:
        raise InvalidArgumentError(None, None, f"SelectV2: x and y must have the same dtype, got {describe(ts)}")
    return None


def _where_grad(call, g):
    c, x, y = call.inputs
    zeros = scalar_like(0, g)  # SelectV2 broadcasts: a scalar zero does
    return [None, _unbroadcast(where(c, g, zeros), x._array.shape) if call.needs_grad(1) else None,
            _unbroadcast(where(c, zeros, g), y._array.shape) if call.needs_grad(2) else None]


_SELECT = Op("SelectV2", rule=_where_rule, grad=_where_grad, tf_input_types=(None, "T", "T"))


@_SELECT.kernel()
def _select(b, c, x, y):
    return b.xp.where(c, x, y)


_WHERE_INDICES = Op("Where", output_arg="index")


@_WHERE_INDICES.kernel()
def _where_indices(b, c):
    return b.xp.argwhere(c).astype(b.xp.int64)


@add_dispatch_support
def where(condition, x=None, y=None, name=None):
    """``tf.where``: select from x/y by condition, or the int64 indices of True entries."""
    if x is None and y is None:
        c = as_tensor(condition)
        if c.dtype is not dtypes.bool:
            c = not_equal(c, zeros_like(c))
        return execute(_WHERE_INDICES, (c,))
    if x is None or y is None:
        raise ValueError("tf.where: x and y must both be given or both be None")
    x, y = binary_args(x, y)
    return execute(_SELECT, (condition, x, y))


_ADD_N = Op("AddN", rule=same_dtype_rule, grad=lambda call, g: [g] * len(call.inputs), output_arg="sum",
            tf_count_attr="N")


@_ADD_N.kernel()
def _add_n(b, *xs):
    out = xs[0].copy()
    for x in xs[1:]:
        out += x
    return out


@add_dispatch_support
def add_n(inputs, name=None):
    """``tf.add_n``: element-wise sum of same-shape tensors."""
    ts = [as_tensor(t) for t in inputs]
    if not ts:
        raise ValueError("add_n: inputs must be a non-empty list")
    for t in ts[1:]:
        if t.shape != ts[0].shape:
            raise InvalidArgumentError(None, None, f"AddN: all inputs must have the same shape, got {describe(ts)}")
    if len(ts) == 1:
        return ts[0]
    return execute(_ADD_N, ts)


# -- matmul ---------------------------------------------------------------------

def _matmul_rule(op, ts, attrs):
    a, b = ts
    if a._dtype is not b._dtype:
        raise dtype_mismatch("MatMul", ts, ("a", "b"))
    if a._dtype is dtypes.bool or a._dtype is dtypes.string:
        raise InvalidArgumentError(None, None, f"MatMul: unsupported dtype, got {describe(ts)}")
    sa, sb = a._array.shape, b._array.shape
    if len(sa) == 2 and len(sb) == 2 and (  # plain matrices: no batch dimensions to broadcast
            (sa[0] if attrs["transpose_a"] else sa[1]) == (sb[1] if attrs["transpose_b"] else sb[0])):
        return None
    if len(sa) < 2 or len(sb) < 2:
        raise InvalidArgumentError(
            None, None, f"MatMul: In[0] and In[1] must have rank >= 2, got {describe(ts)}")
    ka = sa[-2] if attrs["transpose_a"] else sa[-1]
    kb = sb[-1] if attrs["transpose_b"] else sb[-2]
    if ka != kb:
        raise InvalidArgumentError(
            None, None, f"MatMul: Matrix size-incompatible: In[0]: {list(sa)}, In[1]: {list(sb)} "
            f"(transpose_a={attrs['transpose_a']}, transpose_b={attrs['transpose_b']}, dtype {a._dtype.name})")
    try:
        np.broadcast_shapes(sa[:-2], sb[:-2])
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"MatMul: batch dimensions are not broadcastable: {describe(ts)}") from None
    return None


def _matmul_grad(call, g):
    a, b = call.inputs
    a, b = conj_if_complex(a), conj_if_complex(b)  # complex: dA = G B^H, dB = A^H G
    ta, tb = call.attrs["transpose_a"], call.attrs["transpose_b"]
    if not ta and not tb:
        ga, gb = matmul(g, b, transpose_b=True), matmul(a, g, transpose_a=True)
    elif not ta and tb:
        ga, gb = matmul(g, b), matmul(g, a, transpose_a=True)
    elif ta and not tb:
        ga, gb = matmul(b, g, transpose_b=True), matmul(a, g)
    else:
        ga, gb = matmul(b, g, transpose_a=True, transpose_b=True), matmul(g, a, transpose_a=True, transpose_b=True)
    return [_unbroadcast(ga, a._array.shape), _unbroadcast(gb, b._array.shape)]


def _matmul_grad_needed(call, g):
    """``_matmul_grad`` computing only the products the tape keeps (the data's gradient is skipped)."""
    need_a, need_b = call.needs_grad(0), call.needs_grad(1)
    if need_a and need_b:
        return _matmul_grad(call, g)
    a, b = call.inputs
    a, b = conj_if_complex(a), conj_if_complex(b)
    ta, tb = call.attrs["transpose_a"], call.attrs["transpose_b"]
    ga = gb = None
    if need_a:
        ga = (matmul(g, b, transpose_b=not tb) if not ta else matmul(b, g, transpose_a=tb, transpose_b=True))
        ga = _unbroadcast(ga, a._array.shape)
    if need_b:
        gb = (matmul(a, g, transpose_a=not ta) if not tb else matmul(g, a, transpose_a=True, transpose_b=ta))
        gb = _unbroadcast(gb, b._array.shape)
    return [ga, gb]


def _matmul_tf_attr_names(input_dtypes):
    """TF's ``adj_x``/``adj_y`` conjugate as they transpose; tfcore's ``transpose_a``/``b`` only transpose (its
    ``adjoint_a`` adds a Conj op). The same for real dtypes; complex ones keep tfcore's names, so TF refuses
    the graph rather than conjugating twice."""
    return {} if input_dtypes and input_dtypes[0].is_complex else {"transpose_a": "adj_x", "transpose_b": "adj_y"}


MATMUL = Op("BatchMatMulV2", rule=_matmul_rule, grad=_matmul_grad_needed, tf_attr_names=_matmul_tf_attr_names)


@MATMUL.kernel("cpu")
def _matmul(b, x, y, *, transpose_a, transpose_b):
    if transpose_a:
        x = x.swapaxes(-1, -2)  # the method: no Python-level wrapper (np.swapaxes costs ~0.5 us)
    if transpose_b:
        y = y.swapaxes(-1, -2)
    if x.dtype.itemsize == 2 and x.dtype.kind in "fV":
        # float16/bfloat16: NumPy has no half BLAS (10x slower, bfloat16 accumulates in bfloat16); multiply
        # in float32 and round once, as a GPU's float32 accumulators do (our CUDA kernels take half
        # precision on GPUs; this generic code serves the shapes they do not)
        out_dtype, x, y = in_accumulation_dtype(x, y)
        with np.errstate(over="ignore"):  # overflow gives inf, silently, as on a GPU (loss scaling relies on it)
            return blas_threads.matmul(x, y).astype(out_dtype)
    return blas_threads.matmul(x, y)


MATMUL.kernel("cuda")(_matmul)  # replaced by the tiled CUDA kernel where one is registered


@add_dispatch_support
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):
    """``tf.linalg.matmul``: (batched, broadcasting) matrix product of rank >= 2 tensors.

    ``adjoint_a``/``adjoint_b`` conjugate and transpose (for real dtypes the same as transposing);
    combining one with the matching ``transpose_*`` is an error, as in TF.
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    if type(a) is not Tensor or type(b) is not Tensor:
        a, b = binary_args(a, b)
    if adjoint_a and a._dtype.is_complex:
        a = execute(_CONJ, (a,))
    if adjoint_b and b._dtype.is_complex:
        b = execute(_CONJ, (b,))
    return execute(MATMUL, (a, b), {"transpose_a": bool(transpose_a or adjoint_a),
                                    "transpose_b": bool(transpose_b or adjoint_b)})


@add_dispatch_support
def tensordot(a, b, axes, name=None):
    """``tf.tensordot``: contraction built from transpose, reshape and matmul."""
    a, b = (as_tensor(t) for t in binary_args(a, b))
    ra, rb = a.shape.rank, b.shape.rank
    if isinstance(axes, int | np.integer) or (isinstance(axes, Tensor) and axes.shape.rank == 0):
        n = int(axes)
        if n < 0 or n > min(ra, rb):
            raise InvalidArgumentError(None, None, f"Tensordot: axes={n} invalid for {describe([a, b])}")
        axes_a, axes_b = list(range(ra - n, ra)), list(range(n))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
        axes_a = [x % ra for x in axes_a]
        axes_b = [x % rb for x in axes_b]
    sa, sb = a._array.shape, b._array.shape
    if len(axes_a) != len(axes_b) or any(sa[i] != sb[j] for i, j in zip(axes_a, axes_b)):
        raise InvalidArgumentError(None, None, f"Tensordot: contracted dimensions differ: axes {axes_a} of "
                                   f"{describe([a])} vs axes {axes_b} of {describe([b])}")
    free_a = [i for i in range(ra) if i not in axes_a]
    free_b = [i for i in range(rb) if i not in axes_b]
    k = int(np.prod([sa[i] for i in axes_a], dtype=np.int64))
    at = reshape(transpose(a, free_a + axes_a), (-1 if free_a else 1, k))
    bt = reshape(transpose(b, axes_b + free_b), (k, -1 if free_b else 1))
    out = matmul(at, bt)
    return reshape(out, [sa[i] for i in free_a] + [sb[i] for i in free_b])


# -- einsum ---------------------------------------------------------------------------

def _expand_ellipsis(equation, shapes):
    """Rewrite '...' into explicit letters so gradients can permute specs freely."""
    lhs, _, rhs = equation.replace(" ", "").partition("->")
    specs = lhs.split(",")
    used = set(equation)
    free = [c for c in string.ascii_letters if c not in used]
    n_ell = 0
    for s, shp in zip(specs, shapes):
        if "..." in s:
            n_ell = max(n_ell, len(shp) - (len(s) - 3))
    ell = "".join(free[:n_ell])
    new_specs = []
    for s, shp in zip(specs, shapes):
        if "..." in s:
            k = len(shp) - (len(s) - 3)
            s = s.replace("...", ell[n_ell - k:])
        new_specs.append(s)
    if not _:
        counts = {}
        for s in new_specs:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        rhs = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        rhs = rhs.replace("...", ell)
    return new_specs, rhs


def _einsum_grad(call, g):
    specs, out_spec = call.attrs["specs"], call.attrs["out_spec"]
    grads = []
    for i, (x, s) in enumerate(zip(call.inputs, specs)):
        others = [(t, sp) for j, (t, sp) in enumerate(zip(call.inputs, specs)) if j != i]
        available = set(out_spec).union(*[set(sp) for _, sp in others]) if others else set(out_spec)
        if len(set(s)) != len(s):
            raise InvalidArgumentError(None, None, f"Einsum gradient: repeated index in operand spec {s!r} "
                                       "(traces) is not supported")
        target = "".join(c for c in s if c in available)
        eq = ",".join([out_spec] + [sp for _, sp in others]) + "->" + target
        gi = einsum(eq, g, *[t for t, _ in others])
        if target != s:
            shape = [x._array.shape[k] if c in target else 1 for k, c in enumerate(s)]
            gi = broadcast_to(reshape(gi, shape), x._array.shape)
        grads.append(gi)
    return grads


_EINSUM = Op("Einsum", rule=same_dtype_rule, grad=_einsum_grad)


@_EINSUM.kernel()
def _einsum(b, *xs, specs, out_spec):
    return b.xp.einsum(",".join(specs) + "->" + out_spec, *xs)


@add_dispatch_support
def einsum(equation, *inputs, **kwargs):
    """``tf.einsum``: Einstein summation (ellipsis supported; gradients need no traces)."""
    ts = [as_tensor(x) for x in inputs]
    specs, out_spec = _expand_ellipsis(equation, [t._array.shape for t in ts])
    if len(specs) != len(ts):
        raise InvalidArgumentError(None, None, f"Einsum: equation {equation!r} expects {len(specs)} "
                                   f"inputs, got {len(ts)}: {describe(ts)}")
    for t, s in zip(ts, specs):
        if len(s) != t._array.ndim:
            raise InvalidArgumentError(None, None, f"Einsum: spec {s!r} does not match {describe([t])}")
    return execute(_EINSUM, ts, {"specs": tuple(specs), "out_spec": out_spec})


# -- cumsum ----------------------------------------------------------------------------

def _cumsum_grad(call, g):
    a = call.attrs
    return [cumsum(g, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])]


_CUMSUM = Op("Cumsum", rule=numeric_rule, grad=_cumsum_grad, output_arg="out", tf_attr_inputs=[("axis", "Tidx")])


@_CUMSUM.kernel()
def _cumsum(b, x, *, axis, exclusive, reverse):
    xp = b.xp
    if reverse:
        x = xp.flip(x, axis)
    out = xp.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        out = out - x
    if reverse:
        out = xp.flip(out, axis)
    return xp.ascontiguousarray(out)


@add_dispatch_support
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumsum``."""
    t = as_tensor(x)
    nd = t._array.ndim
    axis = int(axis)
    if not -nd <= axis < nd:
        raise InvalidArgumentError(None, None, f"Cumsum: axis {axis} out of range for {describe([t])}")
    return execute(_CUMSUM, (t,), {"axis": axis % nd, "exclusive": bool(exclusive), "reverse": bool(reverse)})


# -- Tensor and Variable operators -------------------------------------------------

def _eq(self, other):
    if other is None:
        return False
    try:
        return equal(self, other)
    except (TypeError, InvalidArgumentError):
        return False


def _ne(self, other):
    if other is None:
        return True
    try:
        return not_equal(self, other)
    except (TypeError, InvalidArgumentError):
        return True


def _invert(x):
    t = as_tensor(x)
    if t.dtype is dtypes.bool:
        return logical_not(t)
    raise TypeError(f"~ is only supported on bool tensors here, got {t.dtype.name}")


def _logical(fn):
    def op(x, y):
        x, y = binary_args(x, y)
        if x.dtype is not dtypes.bool:
            raise TypeError(f"Bitwise operators are only supported on bool tensors here, got {x.dtype.name}")
        return fn(x, y)

    return op


_OPERATORS = {
    "__add__": add, "__radd__": lambda s, o: add(o, s),
    "__sub__": subtract, "__rsub__": lambda s, o: subtract(o, s),
    "__mul__": multiply, "__rmul__": lambda s, o: multiply(o, s),
    "__truediv__": truediv, "__rtruediv__": lambda s, o: truediv(o, s),
    "__floordiv__": floordiv, "__rfloordiv__": lambda s, o: floordiv(o, s),
    "__mod__": floormod, "__rmod__": lambda s, o: floormod(o, s),
    "__pow__": pow, "__rpow__": lambda s, o: pow(o, s),
    "__matmul__": matmul, "__rmatmul__": lambda s, o: matmul(o, s),
    "__neg__": negative, "__pos__": lambda s: s if isinstance(s, Tensor) else s.value(),
    "__abs__": abs, "__invert__": _invert,
    "__lt__": less, "__le__": less_equal, "__gt__": greater, "__ge__": greater_equal,
    "__eq__": _eq, "__ne__": _ne,
    "__and__": _logical(logical_and), "__rand__": _logical(lambda s, o: logical_and(o, s)),
    "__or__": _logical(logical_or), "__ror__": _logical(lambda s, o: logical_or(o, s)),
    "__xor__": _logical(logical_xor), "__rxor__": _logical(lambda s, o: logical_xor(o, s)),
}

for _name, _fn in _OPERATORS.items():
    Tensor._override_operator(_name, _fn)
    Variable._override_operator(_name, _fn)
