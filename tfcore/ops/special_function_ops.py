"""``tf.math.special.dawsn`` and ``tf.math.special.spence`` (TF's ``Dawsn``, ``Spence``): Dawson's integral
``exp(-x^2) integral_0^x exp(t^2) dt`` and Spence's function ``integral_1^x log(t) / (1 - t) dt``.

As TF (its ``special_math_op_misc_impl.h``, after the Cephes library's ``dawsn.c`` and ``spence.c``): rational
approximations on ``|x| < 3.25``, ``< 6.25``, ``< 1e9`` and ``0.5 / x`` beyond for Dawson's integral (whose sign
TF then flips for negative x a second time: ``dawsn(-2e9)`` is ``+2.5e-10`` in TF, and here); Spence's function
from one rational approximation with the reflection and inversion formulas, NaN for ``x < 0``. Computed in float64
for every dtype and rounded once, on any device (``b.xp``), with TF's gradients. The shared Cephes helpers
(``polevl``, ``chbevl``, the dtype rule) serve :mod:`tfcore.ops.bessel_ops` too.
"""

import math

from ..framework.dispatch import add_dispatch_support
from . import math_ops as _m
from ._common import as_tensor
from .bessel_ops import polevl, quiet_float_errors, special_float_rule
from .registry import Op, execute

__all__ = ["dawsn", "spence"]

# Dawson's integral: x P(x^2) / Q(x^2) on [0, 3.25) ...
_DAWSN_AN = (1.13681498971755972054E-11, 8.49262267667473811108E-10, 1.94434204175553054283E-8,
    9.53151741254484363489E-7, 3.07828309874913200438E-6, 3.52513368520288738649E-4, -8.50149846724410912031E-4,
    4.22618223005546594270E-2, -9.17480371773452345351E-2, 9.99999999999999994612E-1)
_DAWSN_AD = (2.40372073066762605484E-11, 1.48864681368493396752E-9, 5.21265281010541664570E-8,
    1.27258478273186970203E-6, 2.32490249820789513991E-5, 3.25524741826057911661E-4, 3.48805814657162590916E-3,
    2.79448531198828973716E-2, 1.58874241960120565368E-1, 5.74918629489320327824E-1, 1.00000000000000000539E0)
# ... and (1/x + P(1/x^2) / (x^3 Q(1/x^2))) / 2 on [3.25, 6.25) and [6.25, 1e9)
_DAWSN_BN = (5.08955156417900903354E-1, -2.44754418142697847934E-1, 9.41512335303534411857E-2,
    -2.18711255142039025206E-2, 3.66207612329569181322E-3, -4.23209114460388756528E-4, 3.59641304793896631888E-5,
    -2.14640351719968974225E-6, 9.10010780076391431042E-8, -2.40274520828250956942E-9, 3.59233385440928410398E-11)
_DAWSN_BD = (1.0, -6.31839869873368190192E-1, 2.36706788228248691528E-1, -5.31806367003223277662E-2,
    8.48041718586295374409E-3, -9.47996768486665330168E-4, 7.81025592944552338085E-5, -4.55875153252442634831E-6,
    1.89100358111421846170E-7, -4.91324691331920606875E-9, 7.18466403235734541950E-11)
_DAWSN_CN = (-5.90592860534773254987E-1, 6.29235242724368800674E-1, -1.72858975380388136411E-1,
    1.64837047825189632310E-2, -4.86827613020462700845E-4)
_DAWSN_CD = (1.0, -2.69820057197544900361E0, 1.73270799045947845857E0, -3.93708582281939493482E-1,
    3.44278924041233391079E-2, -9.73655226040941223894E-4)
# Spence's function: -w P(w) / Q(w) for w in [-0.5, 0.5]
_SPENCE_A = (4.65128586073990045278E-5, 7.31589045238094711071E-3, 1.33847639578309018650E-1,
    8.79691311754530315341E-1, 2.71149851196553469920E0, 4.25697156008121755724E0, 3.29771340985225106936E0,
    1.00000000000000000126E0)
_SPENCE_B = (6.90990488912553276999E-4, 2.54043763932544379113E-2, 2.82974860602568089943E-1,
    1.41172597751831069617E0, 3.63800533345137075418E0, 5.03278880143316990390E0, 3.54771340985225096217E0,
    9.99999999999999998740E-1)
_PI2O6 = math.pi * math.pi / 6.0


def _dawsn_far(xp, x, num, den):
    inv = 1.0 / x
    inv2 = inv * inv
    return 0.5 * (inv2 * (polevl(xp, inv2, num) / (x * polevl(xp, inv2, den))) + inv)


@quiet_float_errors
def _dawsn(b, x):
    xp = b.xp
    x64 = x.astype(xp.float64)
    ax = xp.abs(x64)
    # each approximation on the values it is used for (no 1/0 on the others); NaN falls through to 0.5 / x
    a = xp.where(ax < 3.25, ax, 1.0)
    near = a * polevl(xp, a * a, _DAWSN_AN) / polevl(xp, a * a, _DAWSN_AD)
    mid = _dawsn_far(xp, xp.where((ax >= 3.25) & (ax < 6.25), ax, 4.0), _DAWSN_BN, _DAWSN_BD)
    far = _dawsn_far(xp, xp.where((ax >= 6.25) & (ax < 1e9), ax, 7.0), _DAWSN_CN, _DAWSN_CD)
    y = xp.where(ax < 3.25, near, xp.where(ax < 6.25, mid, xp.where(ax < 1e9, far, 0.5 / x64)))
    return xp.where(x64 < 0, -y, y).astype(x.dtype)


@quiet_float_errors
def _spence(b, x):
    xp = b.xp
    x64 = x.astype(xp.float64)
    y = xp.where(x64 < 2.0, x64, 1.0 / x64)
    w = xp.where(y > 1.5, 1.0 / y - 1.0, xp.where(y < 0.5, -y, y - 1.0))
    s = -w * polevl(xp, w, _SPENCE_A) / polevl(xp, w, _SPENCE_B)
    z = xp.log(y)
    s = xp.where(y < 0.5, -z * xp.log1p(-y) + _PI2O6 - s, s)
    s = xp.where(x64 > 1.5, -0.5 * z * z - s, s)
    s = xp.where(x64 == 1.0, 0.0, xp.where(x64 == 0.0, _PI2O6, s))
    return xp.where(x64 < 0.0, xp.nan, s).astype(x.dtype)


def _dawsn_grad(call, g):
    """TF's ``_DawsnGrad``: ``1 - 2 x dawsn(x)``."""
    x, y = call.inputs[0], call.outputs[0]
    return [_m.multiply(g, _m.subtract(_m.scalar_like(1, x), _m.multiply(_m.multiply(_m.scalar_like(2, x), x), y)))]


def _spence_grad(call, g):
    """TF's ``_SpenceGrad``: ``log(x) / (1 - x)``, and -1 at ``x == 1``."""
    x = call.inputs[0]
    one = _m.equal(x, _m.scalar_like(1, x))
    safe = _m.where(one, _m.scalar_like(2, x), x)
    slope = _m.divide(_m.log(safe), _m.subtract(_m.scalar_like(1, x), safe))
    return [_m.multiply(g, _m.where(one, _m.scalar_like(-1, x), slope))]


DAWSN = Op("Dawsn", rule=special_float_rule, grad=_dawsn_grad, output_arg="y")
DAWSN.kernel()(_dawsn)
SPENCE = Op("Spence", rule=special_float_rule, grad=_spence_grad, output_arg="y")
SPENCE.kernel()(_spence)


@add_dispatch_support
def dawsn(x, name=None):
    """``tf.math.special.dawsn``: Dawson's integral ``exp(-x^2) integral_0^x exp(t^2) dt`` (odd)."""
    return execute(DAWSN, (as_tensor(x),))


@add_dispatch_support
def spence(x, name=None):
    """``tf.math.special.spence``: Spence's function ``integral_1^x log(t) / (1 - t) dt`` (NaN for ``x < 0``,
    ``pi^2 / 6`` at 0)."""
    return execute(SPENCE, (as_tensor(x),))
