"""``tf.math.special.dawsn``, ``spence``, ``fresnel_cos`` and ``fresnel_sin`` (TF's ``Dawsn``, ``Spence``,
``FresnelCos``, ``FresnelSin``): Dawson's integral ``exp(-x^2) integral_0^x exp(t^2) dt``, Spence's function
``integral_1^x log(t) / (1 - t) dt`` and the Fresnel integrals ``integral_0^x cos|sin(pi t^2 / 2) dt``.

As TF (its ``special_math_op_misc_impl.h``, after the Cephes library's ``dawsn.c``, ``spence.c``, ``fresnl.c``):
rational approximations on ``|x| < 3.25``, ``< 6.25``, ``< 1e9`` and ``0.5 / x`` beyond for Dawson's integral
(whose sign TF then flips for negative x a second time: ``dawsn(-2e9)`` is ``+2.5e-10`` in TF, and here); Spence's
function from one rational approximation with the reflection and inversion formulas, NaN for ``x < 0``; the Fresnel
integrals from rational approximations for ``x^2 < 2.5625`` and Cephes' auxiliary functions beyond (+-1/2 past
``|x| = 36974``). Computed in float64 for every dtype and rounded once, on any device (``b.xp``), with TF's
gradients; ``polevl``, the dtype rule and the floating-point silence come from :mod:`tfcore.ops.bessel_ops`.
"""

import math

from ..framework.dispatch import add_dispatch_support
from . import math_ops as _m
from ._common import as_tensor
from .bessel_ops import polevl, quiet_float_errors, special_float_rule
from .registry import Op, execute

__all__ = ["dawsn", "spence", "fresnel_cos", "fresnel_sin"]

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
# Fresnel integrals: x P(x^4) / Q(x^4) (C) and x^3 P(x^4) / Q(x^4) (S) for x^2 < 2.5625 ...
_FRESNEL_CN = (-4.98843114573573548651E-8, 9.50428062829859605134E-6, -6.45191435683965050962E-4,
    1.88843319396703850064E-2, -2.05525900955013891793E-1, 9.99999999999999998822E-1)
_FRESNEL_CD = (3.99982968972495980367E-12, 9.15439215774657478799E-10, 1.25001862479598821474E-7,
    1.22262789024179030997E-5, 8.68029542941784300606E-4, 4.12142090722199792936E-2, 1.00000000000000000118E0)
_FRESNEL_SN = (-2.99181919401019853726E3, 7.08840045257738576863E5, -6.29741486205862506537E7,
    2.54890880573376359104E9, -4.42979518059697779103E10, 3.18016297876567817986E11)
_FRESNEL_SD = (1.0, 2.81376268889994315696E2, 4.55847810806532581675E4, 5.17343888770096400730E6,
    4.19320245898111231129E8, 2.24411795645340920940E10, 6.07366389490084639049E11)
# ... and the auxiliary functions f = 1 - u P(u) / Q(u), g = t P(u) / Q(u) (t = 1/(pi x^2), u = t^2) beyond
_FRESNEL_FN = (4.21543555043677546506E-1, 1.43407919780758885261E-1, 1.15220955073585758835E-2,
    3.45017939782574027900E-4, 4.63613749287867322088E-6, 3.05568983790257605827E-8, 1.02304514164907233465E-10,
    1.72010743268161828879E-13, 1.34283276233062758925E-16, 3.76329711269987889006E-20)
_FRESNEL_FD = (1.0, 7.51586398353378947175E-1, 1.16888925859191382142E-1, 6.44051526508858611005E-3,
    1.55934409164153020873E-4, 1.84627567348930545870E-6, 1.12699224763999035261E-8, 3.60140029589371370404E-11,
    5.88754533621578410010E-14, 4.52001434074129701496E-17, 1.25443237090011264384E-20)
_FRESNEL_GN = (5.04442073643383265887E-1, 1.97102833525523411709E-1, 1.87648584092575249293E-2,
    6.84079380915393090172E-4, 1.15138826111884280931E-5, 9.82852443688422223854E-8, 4.45344415861750144738E-10,
    1.08268041139020870318E-12, 1.37555460633261799868E-15, 8.36354435630677421531E-19, 1.86958710162783235106E-22)
_FRESNEL_GD = (1.0, 1.47495759925128324529E0, 3.37748989120019970451E-1, 2.53603741420338795122E-2,
    8.14679107184306179049E-4, 1.27545075667729118702E-5, 1.04314589657571990585E-7, 4.60680728146520428211E-10,
    1.10273215066240270757E-12, 1.38796531259578871258E-15, 8.39158816283118707363E-19, 1.86958710162783236342E-22)


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


def _fresnel(xp, x, sine):
    """C(x) = integral_0^x cos(pi t^2 / 2) dt or S(x) (``sine``) in float64, odd; +-1/2 beyond |x| = 36974."""
    ax = xp.abs(x)
    x2 = ax * ax
    near_x = xp.where(x2 < 2.5625, ax, 0.0)
    x4 = near_x ** 4
    if sine:
        near = near_x ** 3 * polevl(xp, x4, _FRESNEL_SN) / polevl(xp, x4, _FRESNEL_SD)
    else:
        near = near_x * polevl(xp, x4, _FRESNEL_CN) / polevl(xp, x4, _FRESNEL_CD)
    far_x = xp.where(x2 < 2.5625, 2.0, ax)  # NaN stays NaN
    far_x2 = far_x * far_x
    t = 1.0 / (math.pi * far_x2)
    u = t * t
    f = 1.0 - u * polevl(xp, u, _FRESNEL_FN) / polevl(xp, u, _FRESNEL_FD)
    g = t * polevl(xp, u, _FRESNEL_GN) / polevl(xp, u, _FRESNEL_GD)
    z = (math.pi / 2.0) * far_x2  # TF's rounding order: cos and sin of a large z amplify it
    c, s = xp.cos(z), xp.sin(z)
    y = 1.0 / (math.pi * far_x)
    far = 0.5 - (f * c + g * s) * y if sine else 0.5 + (f * s - g * c) * y
    r = xp.where(ax > 36974.0, 0.5, xp.where(x2 < 2.5625, near, far))
    return xp.where(x < 0, -r, r)


@quiet_float_errors
def _fresnel_cos(b, x):
    return _fresnel(b.xp, x.astype(b.xp.float64), False).astype(x.dtype)


@quiet_float_errors
def _fresnel_sin(b, x):
    return _fresnel(b.xp, x.astype(b.xp.float64), True).astype(x.dtype)


def _half_pi_x2(x):
    return _m.multiply(_m.scalar_like(math.pi / 2.0, x), _m.square(x))


FRESNEL_COS = Op("FresnelCos", rule=special_float_rule, output_arg="y",
                 grad=lambda call, g: [_m.multiply(g, _m.cos(_half_pi_x2(call.inputs[0])))])  # TF's _FresnelCosGrad
FRESNEL_COS.kernel()(_fresnel_cos)
FRESNEL_SIN = Op("FresnelSin", rule=special_float_rule, output_arg="y",
                 grad=lambda call, g: [_m.multiply(g, _m.sin(_half_pi_x2(call.inputs[0])))])  # TF's _FresnelSinGrad
FRESNEL_SIN.kernel()(_fresnel_sin)


@add_dispatch_support
def fresnel_cos(x, name=None):
    """``tf.math.special.fresnel_cos``: the Fresnel cosine integral ``integral_0^x cos(pi t^2 / 2) dt`` (odd)."""
    return execute(FRESNEL_COS, (as_tensor(x),))


@add_dispatch_support
def fresnel_sin(x, name=None):
    """``tf.math.special.fresnel_sin``: the Fresnel sine integral ``integral_0^x sin(pi t^2 / 2) dt`` (odd)."""
    return execute(FRESNEL_SIN, (as_tensor(x),))
