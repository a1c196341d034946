"""``tf.math.bessel_i0``, ``bessel_i0e``, ``bessel_i1`` and ``bessel_i1e`` (also in ``tf.math.special``): the
modified Bessel functions of the first kind of orders 0 and 1, and their exponentially scaled forms
``i0e(x) = exp(-|x|) i0(x)``, ``i1e(x) = exp(-|x|) i1(x)``; and ``tf.math.special.bessel_k0``, ``k0e``, ``k1``,
``k1e``, those of the second kind (``k0e(x) = exp(x) k0(x)``; inf for ``x <= 0``, as TF); and the Bessel functions
``tf.math.special.bessel_j0``, ``j1``, ``y0``, ``y1`` (Y: -inf for ``x <= 0``, as TF).

As TF (Eigen, after the Cephes library's ``i0.c``, ``i1.c``, ``k0.c``, ``k1.c``, ``j0.c``, ``j1.c``; J and Y by
the rational approximations and asymptotic forms below): Chebyshev expansions of the
scaled I functions on ``[0, 8]`` and ``(8, inf)`` (K: ``[0, 2]`` with the log term, and ``(2, inf)``);
``i0(x) = exp(|x|) i0e(x)`` and ``i1(x) = exp(|x|) i1e(x)`` (so ``i0(inf)`` is NaN, as TF gives it); ``i0`` is even
and ``i1`` odd. Computed in float64 with Cephes' double-precision coefficients for every dtype (half, bfloat16,
float32, float64) and rounded once, on any device (``b.xp``: NumPy or CuPy). ``bessel_i0`` and ``bessel_i1`` carry
CUDA expressions (CUDA's ``cyl_bessel_i0`` / ``cyl_bessel_i1``), and so do ``bessel_j0`` / ``bessel_j1`` (``j0`` /
``j1``), for fused ``jit_compile`` chains; the scaled forms, K and Y are not fused.
Gradients as TF's ``math_grad.py`` (including its value 1 for ``bessel_i1``'s gradient at 0).
"""

from ..backend import xp_compat
from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from . import math_ops as _m
from ._common import as_tensor
from .registry import Op, execute

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]

# Cephes' Chebyshev coefficients (double precision), highest order first:
# exp(-x) I0(x) on [0, 8] in terms of x/2 - 2 ...
_I0E_A = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7, 1.11738753912010371815E-6,
    -4.41673835845875056359E-6, 1.64484480707288970893E-5, -5.75419501008210370398E-5, 1.88502885095841655729E-4,
    -5.76375574538582365885E-4, 1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2, 1.71620901522208775349E-1,
    -3.04682672343198398683E-1, 6.76795274409476084995E-1,
)
# ... and sqrt(x) exp(-x) I0(x) on (8, inf) in terms of 32/x - 2
_I0E_B = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17, 3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15, 3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10, 3.39623202570838634515E-9,
    2.26666899049817806459E-8, 2.04891858946906374183E-7, 2.89137052083475648297E-6, 6.88975834691682398426E-5,
    3.36911647825569408990E-3, 8.04490411014108831608E-1,
)
# exp(-x) I1(x) / x on [0, 8] in terms of x/2 - 2 ...
_I1E_A = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7, -8.56872026469545474066E-7,
    3.47025130813767847674E-6, -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
    5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1, -1.76416518357834055153E-1,
    2.52587186443633654823E-1,
)
# ... and sqrt(x) exp(-x) I1(x) on (8, inf) in terms of 32/x - 2
_I1E_B = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16, 3.30820231092092828324E-16, -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14, 4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11, 3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10, -3.83538038596423702205E-9, -2.63146884688951950684E-8,
    -2.51223623787020892529E-7, -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
)
# K0(x) - (-log(x/2) I0(x)) on [0, 2] in terms of x^2 - 2 ...
_K0_A = (
    1.37446543561352307156E-16, 4.25981614279661018399E-14, 1.03496952576338420167E-11, 1.90451637722020886025E-9,
    2.53479107902614945675E-7, 2.28621210311945178607E-5, 1.26461541144692592338E-3, 3.59799365153615016266E-2,
    3.44289899924628486886E-1, -5.35327393233902768720E-1,
)
# ... and sqrt(x) exp(x) K0(x) on (2, inf) in terms of 8/x - 2
_K0E_B = (
    5.30043377268626276149E-18, -1.64758043015242134646E-17, 5.21039150503902756861E-17, -1.67823109680541210385E-16,
    5.51205597852431940784E-16, -1.84859337734377901440E-15, 6.34007647740507060557E-15, -2.22751332699166985548E-14,
    8.03289077536357521100E-14, -2.98009692317273043925E-13, 1.14034058820847496303E-12, -4.51459788337394416547E-12,
    1.85594911495471785253E-11, -7.95748924447710747776E-11, 3.57739728140030116597E-10, -1.69753450938905987466E-9,
    8.57403401741422608519E-9, -4.66048989768794782956E-8, 2.76681363944501510342E-7, -1.83175552271911948767E-6,
    1.39498137188764993662E-5, -1.28495495816278026384E-4, 1.56988388573005337491E-3, -3.14481013119645005427E-2,
    2.44030308206595545468E0,
)
# x (K1(x) - log(x/2) I1(x)) on [0, 2] in terms of x^2 - 2 ...
_K1_A = (
    -7.02386347938628759343E-18, -2.42744985051936593393E-15, -6.66690169419932900609E-13,
    -1.41148839263352776110E-10, -2.21338763073472585583E-8, -2.43340614156596823496E-6, -1.73028895751305206302E-4,
    -6.97572385963986435018E-3, -1.22611180822657148235E-1, -3.53155960776544875667E-1, 1.52530022733894777053E0,
)
# ... and sqrt(x) exp(x) K1(x) on (2, inf) in terms of 8/x - 2
_K1E_B = (
    -5.75674448366501715755E-18, 1.79405087314755922667E-17, -5.68946255844285935196E-17, 1.83809354436663880070E-16,
    -6.05704724837331885336E-16, 2.03870316562433424052E-15, -7.01983709041831346144E-15, 2.47715442448130437068E-14,
    -8.97670518232499435011E-14, 3.34841966607842919884E-13, -1.28917396095102890680E-12, 5.13963967348173025100E-12,
    -2.12996783842756842877E-11, 9.21831518760500529508E-11, -4.19035475934189648750E-10, 2.01504975519703286596E-9,
    -1.03457624656780970260E-8, 5.74108412545004946722E-8, -3.50196060308781257119E-7, 2.40648494783721712015E-6,
    -1.93619797416608296024E-5, 1.95215518471351631108E-4, -2.85781685962277938680E-3, 1.03923736576817238437E-1,
    2.72062619048444266945E0,
)

# Cephes' j0.c / j1.c (double): rational approximations on [0, 5] (RP/RQ; Y: YP/YQ, plus the log term) and
# the asymptotic form sqrt(2/(pi x)) (P cos(x - phase) - (5/x) Q sin(x - phase)) on (5, inf), P = PP/PQ,
# Q = QP/QQ in terms of 25/x^2 (shared by J and Y of one order)
_JY0_PP = (7.96936729297347051624E-4, 8.28352392107440799803E-2, 1.23953371646414299388E0, 5.44725003058768775090E0,
    8.74716500199817011941E0, 5.30324038235394892183E0, 9.99999999999999997821E-1)
_JY0_PQ = (9.24408810558863637013E-4, 8.56288474354474431428E-2, 1.25352743901058953537E0, 5.47097740330417105182E0,
    8.76190883237069594232E0, 5.30605288235394617618E0, 1.00000000000000000218E0)
_JY0_QP = (-1.13663838898469149931E-2, -1.28252718670509318512E0, -1.95539544257735972385E1,
    -9.32060152123768231369E1, -1.77681167980488050595E2, -1.47077505154951170175E2, -5.14105326766599330220E1,
    -6.05014350600728481186E0)
_JY0_QQ = (1.00000000000000000000E0, 6.43178256118178023184E1, 8.56430025976980587198E2, 3.88240183605401609683E3,
    7.24046774195652478189E3, 5.93072701187316984827E3, 2.06209331660327847417E3, 2.42005740240291393179E2)
_J0_RP = (-4.79443220978201773821E9, 1.95617491946556577543E12, -2.49248344360967716204E14,
    9.70862251047306323952E15)
_J0_RQ = (1.00000000000000000000E0, 4.99563147152651017219E2, 1.73785401676374683123E5, 4.84409658339962045305E7,
    1.11855537045356834862E10, 2.11277520115489217587E12, 3.10518229857422583814E14, 3.18121955943204943306E16,
    1.71086294081043136091E18)
_Y0_YP = (1.55924367855235737965E4, -1.46639295903971606143E7, 5.43526477051876500413E9, -9.82136065717911466409E11,
    8.75906394395366999549E13, -3.46628303384729719441E15, 4.42733268572569800351E16, -1.84950800436986690637E16)
_Y0_YQ = (1.00000000000000000000E0, 1.04128353664259848412E3, 6.26107330137134956842E5, 2.68919633393814121987E8,
    8.64002487103935000337E10, 2.02979612750105546709E13, 3.17157752842975028269E15, 2.50596256172653059228E17)
_JY1_PP = (7.62125616208173112003E-4, 7.31397056940917570436E-2, 1.12719608129684925192E0, 5.11207951146807644818E0,
    8.42404590141772420927E0, 5.21451598682361504063E0, 1.00000000000000000254E0)
_JY1_PQ = (5.71323128072548699714E-4, 6.88455908754495404082E-2, 1.10514232634061696926E0, 5.07386386128601488557E0,
    8.39985554327604159757E0, 5.20982848682361821619E0, 9.99999999999999997461E-1)
_JY1_QP = (5.10862594750176621635E-2, 4.98213872951233449420E0, 7.58238284132545283818E1, 3.66779609360150777800E2,
    7.10856304998926107277E2, 5.97489612400613639965E2, 2.11688757100572135698E2, 2.52070205858023719784E1)
_JY1_QQ = (1.00000000000000000000E0, 7.42373277035675149943E1, 1.05644886038262816351E3, 4.98641058337653607651E3,
    9.56231892404756170795E3, 7.99704160447350683650E3, 2.82619278517639096600E3, 3.36093607810698293419E2)
_J1_RP = (-8.99971225705559398224E8, 4.52228297998194034323E11, -7.27494245221818276015E13,
    3.68295732863852883286E15)
_J1_RQ = (1.00000000000000000000E0, 6.20836478118054335476E2, 2.56987256757748830383E5, 8.35146791431949253037E7,
    2.21511595479792499675E10, 4.74914122079991414898E12, 7.84369607876235854894E14, 8.95222336184627338078E16,
    5.32278620332680085395E18)
_Y1_YP = (1.26320474790178026440E9, -6.47355876379160291031E11, 1.14509511541823727583E14,
    -8.12770255501325109621E15, 2.02439475713594898196E17, -7.78877196265950026825E17)
_Y1_YQ = (1.00000000000000000000E0, 5.94301592346128195359E2, 2.35564092943068577943E5, 7.34811944459721705660E7,
    1.87601316108706159478E10, 3.88231277496238566008E12, 6.20557727146953693363E14, 6.87141087355300489866E16,
    3.97270608116560655612E18)
_DR1, _DR2 = 5.78318596294678452118E0, 3.04712623436620863991E1  # squares of j0's first two zeros
_Z1, _Z2 = 1.46819706421238932572E1, 4.92184563216946036703E1  # squares of j1's first two zeros
_SQ2OPI, _TWOOPI = 7.9788456080286535587989E-1, 0.636619772367581343075535  # sqrt(2/pi), 2/pi
_PIO4, _THPIO4 = 0.7853981633974483096, 2.35619449019234492885  # pi/4, 3 pi/4

_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _chbevl(xp, y, coeffs):
    """Cephes' ``chbevl``: the Chebyshev series ``coeffs`` (highest order first) at ``y``, by Clenshaw's
    recurrence."""
    b0 = xp.zeros_like(y)
    b1 = b2 = b0
    for c in coeffs:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _scaled(xp, x, small, large, times_x):
    """``f(|x|)`` from its two expansions (``small`` on ``[0, 8]``, times ``|x|`` for order 1; ``large`` on
    ``(8, inf)``, over ``sqrt(|x|)``), in float64. NaN takes the first branch and stays NaN."""
    ax = xp.abs(x.astype(xp.float64))
    near = _chbevl(xp, ax / 2.0 - 2.0, small)
    if times_x:
        near = near * ax
    big = ax > 8.0
    far_ax = xp.where(big, ax, 8.0)  # the far branch only where it is used: no 32/0 on the near side
    far = _chbevl(xp, 32.0 / far_ax - 2.0, large) / xp.sqrt(far_ax)
    return ax, xp.where(big, far, near)


def quiet_float_errors(impl):
    """Run ``impl`` without NumPy's floating-point warnings: ``exp(800)`` is inf, ``inf * 0`` NaN, ``0.5 / 0`` inf
    (as TF), the branches not selected may divide by zero, and rounding to the output dtype may overflow
    (``bessel_i0(100.0)`` in float32 is inf): silently, as in TF. Shared by :mod:`tfcore.ops.special_function_ops`."""

    def quiet_impl(b, x):
        with xp_compat.errstate(b.xp, divide="ignore", over="ignore", under="ignore", invalid="ignore"):
            return impl(b, x)

    quiet_impl.__name__ = quiet_impl.__qualname__ = impl.__name__
    return quiet_impl


@quiet_float_errors
def _i0e(b, x):
    return _scaled(b.xp, x, _I0E_A, _I0E_B, False)[1].astype(x.dtype)


@quiet_float_errors
def _i1e(b, x):
    xp = b.xp
    _, y = _scaled(xp, x, _I1E_A, _I1E_B, True)
    return xp.where(x < 0, -y, y).astype(x.dtype)


@quiet_float_errors
def _i0(b, x):
    xp = b.xp
    ax, y = _scaled(xp, x, _I0E_A, _I0E_B, False)
    return (xp.exp(ax) * y).astype(x.dtype)


@quiet_float_errors
def _i1(b, x):
    xp = b.xp
    ax, y = _scaled(xp, x, _I1E_A, _I1E_B, True)
    y = xp.exp(ax) * y
    return xp.where(x < 0, -y, y).astype(x.dtype)


def _k(xp, x, order, scaled):
    """K0 / K1 (``scaled``: times ``exp(x)``) in float64 as Eigen's: on ``(0, 2]`` the expansion in ``x^2 - 2``
    plus the I0 / I1 log term, on ``(2, inf)`` the expansion in ``8/x - 2`` over ``sqrt(x)``; inf for ``x <= 0``
    (negative x included, as TF), 0 at inf, NaN stays NaN (it takes the far branch)."""
    x64 = x.astype(xp.float64)
    small = x64 <= 2.0
    xs = xp.where(small & (x64 > 0.0), x64, 1.0)  # each branch on the values it is used for: no log(0), 8/0
    xf = xp.where(small, 3.0, x64)
    if order == 0:
        i0 = xp.exp(xs) * _scaled(xp, xs, _I0E_A, _I0E_B, False)[1]
        near = _chbevl(xp, xs * xs - 2.0, _K0_A) - xp.log(0.5 * xs) * i0
        far = _chbevl(xp, 8.0 / xf - 2.0, _K0E_B) / xp.sqrt(xf)
    else:
        i1 = xp.exp(xs) * _scaled(xp, xs, _I1E_A, _I1E_B, True)[1]
        near = _chbevl(xp, xs * xs - 2.0, _K1_A) / xs + i1 * xp.log(0.5 * xs)
        far = _chbevl(xp, 8.0 / xf - 2.0, _K1E_B) / xp.sqrt(xf)
    if scaled:
        near = near * xp.exp(xs)
    else:
        far = far * xp.exp(-xf)
    near = xp.where(x64 <= 0.0, xp.inf, near)
    return xp.where(small, near, far).astype(x.dtype)


@quiet_float_errors
def _k0(b, x):
    return _k(b.xp, x, 0, False)


@quiet_float_errors
def _k0e(b, x):
    return _k(b.xp, x, 0, True)


@quiet_float_errors
def _k1(b, x):
    return _k(b.xp, x, 1, False)


@quiet_float_errors
def _k1e(b, x):
    return _k(b.xp, x, 1, True)


def polevl(xp, x, coeffs):
    """Cephes' ``polevl``: the polynomial ``coeffs`` (highest degree first) at ``x``, by Horner's rule."""
    acc = xp.zeros_like(x)
    for c in coeffs:
        acc = acc * x + c
    return acc


def _asymptotic(xp, y, order, sin_first):
    """``sqrt(2/(pi y)) (P cos(y - phase) - (5/y) Q sin(y - phase))`` (J; Y: ``P sin + (5/y) Q cos``) for
    ``y > 5``, the phase pi/4 (order 0) or 3 pi/4 (order 1)."""
    pp, pq, qp, qq = (_JY0_PP, _JY0_PQ, _JY0_QP, _JY0_QQ) if order == 0 else (_JY1_PP, _JY1_PQ, _JY1_QP, _JY1_QQ)
    s = 25.0 / (y * y)
    p = polevl(xp, s, pp) / polevl(xp, s, pq)
    q = polevl(xp, s, qp) / polevl(xp, s, qq)
    yn = y - (_PIO4 if order == 0 else _THPIO4)
    if sin_first:  # Y
        p = p * xp.sin(yn) + (5.0 / y) * q * xp.cos(yn)
    else:  # J
        p = p * xp.cos(yn) - (5.0 / y) * q * xp.sin(yn)
    return p * _SQ2OPI / xp.sqrt(y)


def _j64(xp, x64, order):
    """J0 / J1 of a float64 array (J0 even, J1 odd); NaN and +-inf give NaN, as TF."""
    y = xp.abs(x64)
    z = y * y
    if order == 0:
        near = xp.where(y < 1e-5, 1.0 - z / 4.0,
                        (z - _DR1) * (z - _DR2) * polevl(xp, z, _J0_RP) / polevl(xp, z, _J0_RQ))
    else:
        near = polevl(xp, z, _J1_RP) / polevl(xp, z, _J1_RQ) * x64 * (z - _Z1) * (z - _Z2)
    yf = xp.where(y <= 5.0, 6.0, y)  # the asymptotic branch only where it is used (NaN stays NaN)
    far = _asymptotic(xp, yf, order, False)
    if order == 1:
        far = xp.where(x64 < 0, -far, far)
    return xp.where(y <= 5.0, near, far)


def _y64(xp, x64, order):
    """Y0 / Y1 of a float64 array: -inf for ``x <= 0`` (negative x included, as TF)."""
    small = x64 <= 5.0
    xs = xp.where(small & (x64 > 0.0), x64, 1.0)
    z = xs * xs
    if order == 0:
        near = polevl(xp, z, _Y0_YP) / polevl(xp, z, _Y0_YQ) + _TWOOPI * xp.log(xs) * _j64(xp, xs, 0)
    else:
        near = (polevl(xp, z, _Y1_YP) / polevl(xp, z, _Y1_YQ) * xs
                + _TWOOPI * (_j64(xp, xs, 1) * xp.log(xs) - 1.0 / xs))
    near = xp.where(x64 <= 0.0, -xp.inf, near)
    far = _asymptotic(xp, xp.where(small, 6.0, x64), order, True)
    return xp.where(small, near, far)


@quiet_float_errors
def _j0(b, x):
    return _j64(b.xp, x.astype(b.xp.float64), 0).astype(x.dtype)


@quiet_float_errors
def _j1(b, x):
    return _j64(b.xp, x.astype(b.xp.float64), 1).astype(x.dtype)


@quiet_float_errors
def _y0(b, x):
    return _y64(b.xp, x.astype(b.xp.float64), 0).astype(x.dtype)


@quiet_float_errors
def _y1(b, x):
    return _y64(b.xp, x.astype(b.xp.float64), 1).astype(x.dtype)


def special_float_rule(op, ts, attrs):
    d = ts[0]._dtype
    if d not in _DTYPES:
        raise InvalidArgumentError(None, None, f"{op.name}: x must be bfloat16, half, float or double, got "
                                               f"{d.name}{list(ts[0].shape)}")
    return None


def _i0_grad(call, g):
    """TF's ``_BesselI0Grad``: ``i1(x)``."""
    return [_m.multiply(g, bessel_i1(call.inputs[0]))]


def _i0e_grad(call, g):
    """TF's ``_BesselI0eGrad``: ``i1e(x) - sign(x) i0e(x)``."""
    x, y = call.inputs[0], call.outputs[0]
    return [_m.multiply(g, _m.subtract(bessel_i1e(x), _m.multiply(_m.sign(x), y)))]


def _at_zero(x, value, elsewhere):
    """``value`` where ``x == 0`` (TF imputes the gradients of i1 / i1e there), else ``elsewhere``."""
    return _m.where(_m.equal(x, _m.scalar_like(0, x)), _m.scalar_like(value, x), elsewhere)


def _safe_x(x):
    """``x`` with zeros replaced by ones, so the divisions below stay finite (those entries are imputed)."""
    return _m.where(_m.equal(x, _m.scalar_like(0, x)), _m.scalar_like(1, x), x)


def _i1_grad(call, g):
    """TF's ``_BesselI1Grad``: ``i0(x) - i1(x) / x``, and 1 at ``x == 0`` (TF's imputed value; the derivative
    there is 1/2)."""
    x, y = call.inputs[0], call.outputs[0]
    return [_m.multiply(g, _at_zero(x, 1.0, _m.subtract(bessel_i0(x), _m.divide(y, _safe_x(x)))))]


def _i1e_grad(call, g):
    """TF's ``_BesselI1eGrad``: ``i0e(x) - i1e(x) (sign(x) + 1/x)``, and 1/2 at ``x == 0``."""
    x, y = call.inputs[0], call.outputs[0]
    slope = _m.subtract(bessel_i0e(x), _m.multiply(y, _m.add(_m.sign(x), _m.reciprocal(_safe_x(x)))))
    return [_m.multiply(g, _at_zero(x, 0.5, slope))]


def _k0_grad(call, g):
    """TF's ``_BesselK0Grad``: ``-k1(x)``."""
    return [_m.multiply(g, _m.negative(bessel_k1(call.inputs[0])))]


def _k0e_grad(call, g):
    """TF's ``_BesselK0eGrad``: ``k0e(x) - k1e(x)``."""
    return [_m.multiply(g, _m.subtract(call.outputs[0], bessel_k1e(call.inputs[0])))]


def _k1_grad(call, g):
    """TF's ``_BesselK1Grad``: ``-k0(x) - k1(x) / x`` (NaN at 0, where K1 has no derivative)."""
    x, y = call.inputs[0], call.outputs[0]
    return [_m.multiply(g, _m.subtract(_m.negative(bessel_k0(x)), _m.divide(y, x)))]


def _k1e_grad(call, g):
    """TF's ``_BesselK1eGrad``: ``k1e(x) (1 - 1/x) - k0e(x)``."""
    x, y = call.inputs[0], call.outputs[0]
    return [_m.multiply(g, _m.subtract(_m.multiply(y, _m.subtract(_m.scalar_like(1, x), _m.reciprocal(x))),
                                       bessel_k0e(x)))]


def _j0_grad(call, g):
    """TF's ``_BesselJ0Grad``: ``-j1(x)``."""
    return [_m.multiply(g, _m.negative(bessel_j1(call.inputs[0])))]


def _j1_grad(call, g):
    """TF's ``_BesselJ1Grad``: ``j0(x) - j1(x) / x``, and 1/2 at ``x == 0``."""
    x, y = call.inputs[0], call.outputs[0]
    return [_m.multiply(g, _at_zero(x, 0.5, _m.subtract(bessel_j0(x), _m.divide(y, _safe_x(x)))))]


def _y0_grad(call, g):
    """TF's ``_BesselY0Grad``: ``-y1(x)``."""
    return [_m.multiply(g, _m.negative(bessel_y1(call.inputs[0])))]


def _y1_grad(call, g):
    """TF's ``_BesselY1Grad``: ``y0(x) - y1(x) / x`` (NaN at 0)."""
    x, y = call.inputs[0], call.outputs[0]
    return [_m.multiply(g, _m.subtract(bessel_y0(x), _m.divide(y, x)))]


def special_op(name, impl, grad, cuda_expr=None):
    """A float-in, float-out special-function op ``y = f(x)``: TF's output name ``y``, the dtype rule
    :func:`special_float_rule`, ``impl(b, x)`` as its kernel on every device."""
    op = Op(name, rule=special_float_rule, grad=grad, output_arg="y", cuda_expr=cuda_expr)
    op.kernel()(impl)
    return op


# CUDA's cyl_bessel_i0(f) / cyl_bessel_i1(f) in the kernel's own precision (float or double)
BESSEL_I0 = special_op("BesselI0", _i0, _i0_grad,
                cuda_expr="(sizeof(T) == 4 ? (T)cyl_bessel_i0f((float){0}) : (T)cyl_bessel_i0((double){0}))")
BESSEL_I0E = special_op("BesselI0e", _i0e, _i0e_grad)
BESSEL_I1 = special_op("BesselI1", _i1, _i1_grad,
                cuda_expr="(sizeof(T) == 4 ? (T)cyl_bessel_i1f((float){0}) : (T)cyl_bessel_i1((double){0}))")
BESSEL_I1E = special_op("BesselI1e", _i1e, _i1e_grad)
# CUDA has no modified Bessel functions of the second kind: no expressions, not fused
BESSEL_K0 = special_op("BesselK0", _k0, _k0_grad)
BESSEL_K0E = special_op("BesselK0e", _k0e, _k0e_grad)
BESSEL_K1 = special_op("BesselK1", _k1, _k1_grad)
BESSEL_K1E = special_op("BesselK1e", _k1e, _k1e_grad)
# CUDA's j0(f) / j1(f); its y0 / y1 give NaN for x < 0 where TF gives -inf, so Y is not fused
BESSEL_J0 = special_op("BesselJ0", _j0, _j0_grad,
                       cuda_expr="(sizeof(T) == 4 ? (T)j0f((float){0}) : (T)j0((double){0}))")
BESSEL_J1 = special_op("BesselJ1", _j1, _j1_grad,
                       cuda_expr="(sizeof(T) == 4 ? (T)j1f((float){0}) : (T)j1((double){0}))")
BESSEL_Y0 = special_op("BesselY0", _y0, _y0_grad)
BESSEL_Y1 = special_op("BesselY1", _y1, _y1_grad)


@add_dispatch_support
def bessel_i0(x, name=None):
    """``tf.math.bessel_i0``: the modified Bessel function of the first kind of order 0 (even; NaN at +-inf,
    as TF)."""
    return execute(BESSEL_I0, (as_tensor(x),))


@add_dispatch_support
def bessel_i0e(x, name=None):
    """``tf.math.bessel_i0e``: ``exp(-|x|) bessel_i0(x)``, finite for every finite ``x``."""
    return execute(BESSEL_I0E, (as_tensor(x),))


@add_dispatch_support
def bessel_i1(x, name=None):
    """``tf.math.bessel_i1``: the modified Bessel function of the first kind of order 1 (odd)."""
    return execute(BESSEL_I1, (as_tensor(x),))


@add_dispatch_support
def bessel_i1e(x, name=None):
    """``tf.math.bessel_i1e``: ``exp(-|x|) bessel_i1(x)``, finite for every finite ``x``."""
    return execute(BESSEL_I1E, (as_tensor(x),))


# The functions of the second kind are in tf.math.special only (tfcore/math_special.py), as in TF.

@add_dispatch_support
def bessel_k0(x, name=None):
    """``tf.math.special.bessel_k0``: the modified Bessel function of the second kind of order 0 (inf for
    ``x <= 0``, as TF)."""
    return execute(BESSEL_K0, (as_tensor(x),))


@add_dispatch_support
def bessel_k0e(x, name=None):
    """``tf.math.special.bessel_k0e``: ``exp(x) bessel_k0(x)``."""
    return execute(BESSEL_K0E, (as_tensor(x),))


@add_dispatch_support
def bessel_k1(x, name=None):
    """``tf.math.special.bessel_k1``: the modified Bessel function of the second kind of order 1 (inf for
    ``x <= 0``)."""
    return execute(BESSEL_K1, (as_tensor(x),))


@add_dispatch_support
def bessel_k1e(x, name=None):
    """``tf.math.special.bessel_k1e``: ``exp(x) bessel_k1(x)``."""
    return execute(BESSEL_K1E, (as_tensor(x),))


@add_dispatch_support
def bessel_j0(x, name=None):
    """``tf.math.special.bessel_j0``: the Bessel function of the first kind of order 0."""
    return execute(BESSEL_J0, (as_tensor(x),))


@add_dispatch_support
def bessel_j1(x, name=None):
    """``tf.math.special.bessel_j1``: the Bessel function of the first kind of order 1 (odd)."""
    return execute(BESSEL_J1, (as_tensor(x),))


@add_dispatch_support
def bessel_y0(x, name=None):
    """``tf.math.special.bessel_y0``: the Bessel function of the second kind of order 0 (-inf for ``x <= 0``, as
    TF)."""
    return execute(BESSEL_Y0, (as_tensor(x),))


@add_dispatch_support
def bessel_y1(x, name=None):
    """``tf.math.special.bessel_y1``: the Bessel function of the second kind of order 1 (-inf for ``x <= 0``)."""
    return execute(BESSEL_Y1, (as_tensor(x),))
