"""``tf.math``'s element-wise functions composed of registered ops: zero- and NaN-safe products and divisions
(``multiply_no_nan``, ``xdivy``, ``xlogy``), ``rint``, ``erfc``, ``polyval`` and the special functions
``lgamma``, ``digamma``, ``lbeta``, ``erfinv`` and ``ndtri``. Being compositions, they run on every device and
differentiate through the ops they use."""

import numpy as np

from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor, binary_args
from .misc_ops import acosh, asinh, atanh, truncatediv, truncatemod

__all__ = [
    "acosh", "asinh", "atanh", "truncatediv", "truncatemod", "multiply_no_nan", "reciprocal_no_nan", "xdivy", "xlogy",
    "xlog1py", "rint", "erfc", "polyval", "lgamma", "digamma", "lbeta", "erfinv", "ndtri",
]


@add_dispatch_support
def multiply_no_nan(x, y, name=None):
    """``tf.math.multiply_no_nan``: ``x * y``, but 0 where ``y`` is 0 even if ``x`` is inf or NaN."""
    x, y = binary_args(x, y)
    return _m.multiply(_m.where(_m.equal(y, _a.zeros_like(y)), _a.zeros_like(x), x), y)


@add_dispatch_support
def reciprocal_no_nan(x, name=None):
    """``tf.math.reciprocal_no_nan``: ``1 / x``, 0 where ``x`` is 0."""
    t = as_tensor(x)
    return _m.divide_no_nan(_a.ones_like(t), t)


@add_dispatch_support
def xdivy(x, y, name=None):
    """``tf.math.xdivy``: ``x / y``, 0 where ``x`` is 0."""
    x, y = binary_args(x, y)
    zero = _m.equal(x, _a.zeros_like(x))
    return _m.where(zero, _a.zeros_like(x), _m.divide(x, _m.where(zero, _a.ones_like(y), y)))


@add_dispatch_support
def xlogy(x, y, name=None):
    """``tf.math.xlogy``: ``x * log(y)``, 0 where ``x`` is 0."""
    x, y = binary_args(x, y)
    zero = _m.equal(x, _a.zeros_like(x))
    return _m.where(zero, _a.zeros_like(x), _m.multiply(x, _m.log(_m.where(zero, _a.ones_like(y), y))))


@add_dispatch_support
def xlog1py(x, y, name=None):
    """``tf.math.xlog1py``: ``x * log1p(y)``, 0 where ``x`` is 0."""
    x, y = binary_args(x, y)
    zero = _m.equal(x, _a.zeros_like(x))
    return _m.where(zero, _a.zeros_like(x), _m.multiply(x, _m.log1p(_m.where(zero, _a.zeros_like(y), y))))


@add_dispatch_support
def rint(x, name=None):
    """``tf.math.rint``: round half to even (same as ``tf.round``)."""
    return _m.round(x)


@add_dispatch_support
def erfc(x, name=None):
    """``tf.math.erfc``: ``1 - erf(x)``."""
    return _m.subtract(1.0, _m.erf(as_tensor(x)))


@add_dispatch_support
def polyval(coeffs, x, name=None):
    """``tf.math.polyval``: ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` (Horner's rule)."""
    x = as_tensor(x)
    if not coeffs:
        return _a.zeros_like(x)
    acc = _m.add(_a.zeros_like(x), as_tensor(coeffs[0], x.dtype))
    for c in coeffs[1:]:
        acc = _m.add(_m.multiply(acc, x), as_tensor(c, x.dtype))
    return acc


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


@add_dispatch_support
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


@add_dispatch_support
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


@add_dispatch_support
def lbeta(x, name=None):
    """``tf.math.lbeta``: ``sum(lgamma(x)) - lgamma(sum(x))`` over the last axis."""
    t = as_tensor(x)
    return _m.subtract(_r.reduce_sum(lgamma(t), axis=-1), lgamma(_r.reduce_sum(t, axis=-1)))


@add_dispatch_support
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


@add_dispatch_support
def ndtri(x, name=None):
    """``tf.math.ndtri``: the standard normal quantile, ``sqrt(2) * erfinv(2x - 1)``."""
    t = as_tensor(x)
    return _m.multiply(erfinv(_m.subtract(_m.multiply(t, 2.0), 1.0)), float(np.sqrt(2.0)))
