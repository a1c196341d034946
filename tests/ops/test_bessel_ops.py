"""tf.math.bessel_i0 / i0e / i1 / i1e (also tf.math.special) and tf.math.special.bessel_k0 / k0e / k1 / k1e,
bessel_j0 / j1 / y0 / y1: values, gradients and errors as TF 2.21 gives
them (the numbers below were printed by TF 2.21 for the same inputs: both sides of the expansions' switch at
|x| = 8, signs, overflow, +-inf and NaN). References on ragged shapes, devices, CUDA expressions and
finite-difference gradients: their op-info entries (tests/opinfo/table.py)."""

import numpy as np
import pytest

import tfcore as tf

NAN, INF = float("nan"), float("inf")
X = [0.0, -0.0, 1e-8, 0.5, -3.0, 7.9, 8.0, 8.5, -30.0, 100.0, 800.0, INF, -INF, NAN]
TF_VALUES = {
    ("bessel_i0", "float64"): [1.0, 1.0, 0.9999999999999999, 1.0634833707413238, 4.880792585865024, 389.406283282158,
        427.56411572180474, 683.1619269901154, 781672297823.9774, 1.073751707131074e+42, INF, NAN, NAN, NAN],
    ("bessel_i0", "float32"): [1.0, 1.0, 1.0, 1.063483476638794, 4.88079309463501, 389.40631103515625,
        427.5641784667969, 683.1618041992188, 781672185856.0, INF, INF, NAN, NAN, NAN],
    ("bessel_i0e", "float64"): [1.0, 1.0, 0.9999999900000001, 0.6450352704491502, 0.24300035416182536,
        0.14436986414104191, 0.1434317818568503, 0.13900184305484756, 0.07314594648223728, 0.03994437929909669,
        0.014106945005869183, 0.0, 0.0, NAN],
    ("bessel_i0e", "float32"): [1.0, 1.0, 1.0, 0.6450353860855103, 0.24300038814544678, 0.14436987042427063,
        0.14343179762363434, 0.13900183141231537, 0.07314594089984894, 0.03994438052177429, 0.01410694606602192, 0.0,
        0.0, NAN],
    ("bessel_i1", "float64"): [0.0, 0.0, 4.999999999999999e-09, 0.2578943053908962, -3.9533702174026093,
        363.8539440845081, 399.8731367825599, 641.6199025400666, -768532038938.9568, 1.0683693903381627e+42, INF, NAN,
        NAN, NAN],
    ("bessel_i1", "float32"): [0.0, 0.0, 5.000000413701855e-09, 0.2578943371772766, -3.953371047973633,
        363.8541564941406, 399.8733825683594, 641.619873046875, -768531955712.0, INF, INF, NAN, NAN, NAN],
    ("bessel_i1e", "float64"): [0.0, 0.0, 4.99999995e-09, 0.15642080318487162, -0.19682671329730084,
        0.13489649943989365, 0.13414249329269812, 0.13054935509459584, -0.07191633059864753, 0.039744153025130256,
        0.014098125406526996, 0.0, -0.0, NAN],
    ("bessel_i1e", "float32"): [0.0, 0.0, 5.000000413701855e-09, 0.15642082691192627, -0.1968267560005188,
        0.13489657640457153, 0.13414257764816284, 0.130549356341362, -0.07191632688045502, 0.03974415361881256,
        0.014098125509917736, 0.0, -0.0, NAN],
}
TF_GRADIENTS = {  # at x = 0, 0.5, -3, 9 (float64); at 0 TF imputes 1 for i1 and 1/2 for i1e
    "bessel_i0": [0.0, 0.2578943053908962, -3.9533702174026093, 1030.9147225169565],
    "bessel_i0e": [0.0, -0.4886144672642786, 0.04617364086452452, -0.007734540645831789],
    "bessel_i1": [1.0, 0.5476947599595314, 3.563002513397487, 979.0422742317127],
    "bessel_i1e": [0.5, 0.17577286089453537, -0.01943526356790909, -0.006401568680378361],
}


XK = [0.0, -0.0, -1.0, 1e-8, 0.5, 1.9, 2.0, 2.5, 30.0, 800.0, INF, NAN]  # K: inf for x <= 0, as TF
TF_K_VALUES = {
    ("bessel_k0", "float64"): [INF, INF, INF, 18.536612259610774, 0.9244190712276663, 0.12884597927604755,
        0.1138938727495335, 0.062347553200366196, 2.132477496463056e-14, 0.0, 0.0, NAN],
    ("bessel_k0", "float32"): [INF, INF, INF, 18.53661346435547, 0.924419105052948, 0.1288459599018097,
        0.11389389634132385, 0.06234755739569664, 2.1324774425132177e-14, 0.0, 0.0, NAN],
    ("bessel_k0e", "float64"): [INF, INF, INF, 18.536612444976896, 1.5241093857739103, 0.861450616751756,
        0.841568215070772, 0.7595486903280997, 0.2278866656162537, 0.044304427486646016, 0.0, NAN],
    ("bessel_k0e", "float32"): [INF, INF, INF, 18.53661346435547, 1.5241093635559082, 0.8614504337310791,
        0.8415684103965759, 0.7595487833023071, 0.2278866469860077, 0.04430443048477173, 0.0, NAN],
    ("bessel_k1", "float64"): [INF, INF, INF, 99999999.99999991, 1.6564411200033013, 0.15966015303266756,
        0.13986588181652243, 0.07389081634774707, 2.1677320018915495e-14, 0.0, 0.0, NAN],
    ("bessel_k1", "float32"): [INF, INF, INF, 100000000.0, 1.6564409732818604, 0.15966014564037323,
        0.13986587524414062, 0.073890820145607, 2.167732139624068e-14, 0.0, 0.0, NAN],
    ("bessel_k1e", "float64"): [INF, INF, INF, 100000000.99999991, 2.7310097082117863, 1.0674709298145695,
        1.0334768470686886, 0.900174423907878, 0.2316541293777118, 0.0443321091114121, 0.0, NAN],
    ("bessel_k1e", "float32"): [INF, INF, INF, 100000000.0, 2.7310094833374023, 1.0674707889556885,
        1.0334768295288086, 0.9001744389533997, 0.23165413737297058, 0.044332105666399, 0.0, NAN],
}
TF_K_GRADIENTS = {  # at x = 0.5, 1.5, 3, 9 (float64)
    "bessel_k0": [-1.6564411200033013, -0.2773878004568438, -0.0401564311281942, -5.363701637945195e-05],
    "bessel_k0e": [-1.206900322437876, -0.28495582025765676, -0.10880188208493535, -0.022329696116016595],
    "bessel_k1": [-4.237301311234269, -0.3987307629520882, -0.04812498142901065, -5.684098144306502e-05],
    "bessel_k1e": [-4.255119093985696, -0.5438214287773784, -0.16005261129132697, -0.02596199781147618],
}

XJ = [0.0, -0.0, 1e-8, 0.5, -3.0, 4.9, 5.0, 5.5, -30.0, 800.0, 1e10, INF, -INF, NAN]
XY = [0.0, -1.0, 1e-8, 0.5, 3.0, 4.9, 5.0, 5.5, 30.0, 800.0, 1e10, INF, NAN]  # Y: -inf for x <= 0, as TF
TF_JY_VALUES = {  # float64
    "bessel_j0": [1.0, 1.0, 1.0, 0.938469807240813, -0.2600519549019335, -0.20973832758532618, -0.1775967713143383,
        -0.006843869417819188, -0.08636798358104031, 0.008897445883815304, 2.1755892946936445e-06, NAN, NAN, NAN],
    "bessel_j1": [0.0, -0.0, 5.000000000000001e-09, 0.24226845767487387, -0.33905895852593654, -0.3146946710151907,
        -0.3275791375914653, -0.34143821542904323, 0.11875106261662303, 0.02677513872232301, -7.676506113846571e-06,
        NAN, NAN, NAN],
    "bessel_y0": [-INF, -INF, -11.800773877179532, -0.4445187335067066, 0.3768500100127906, -0.29205459424401364,
        -0.30851762524903303, -0.339480592881911, -0.11729573168666396, 0.02676957259239893, -7.676508871718481e-06,
        NAN, NAN],
    "bessel_y1": [-INF, -INF, -63661977.236758195, -1.4714723926702433, 0.3246744247918001, 0.18124669204504856,
        0.14786314339122691, -0.023758238956389646, 0.08442557066174712, -0.008880716645260096,
        -2.175599025747706e-06, NAN, NAN],
}
TF_JY_GRADIENTS = {  # at x = 0 (J; Y: 0.25), 0.5, 3, 9 (float64); TF imputes 1/2 for j1's at 0
    "bessel_j0": [-0.0, -0.24226845767487387, -0.33905895852593654, -0.24531178657332525],
    "bessel_j1": [0.5, 0.4539328918910652, -0.37307160774391235, -0.11759047635768982],
    "bessel_y0": [2.7041052293152825, 1.4714723926702433, -0.3246744247918001, -0.10431457519671593],
    "bessel_y1": [9.884847892331072, 2.49842605183378, 0.26862520174885723, 0.23834618992983406],
}

pytestmark = pytest.mark.usefixtures("on_cpu")  # compared with TF 2.21's CPU results


@pytest.mark.parametrize("fn, dtype", sorted(TF_VALUES))
def test_values_as_tf(fn, dtype):
    y = getattr(tf.math.special, fn)(tf.constant(X, dtype))
    assert y.dtype.name == dtype
    # float64: Cephes' double expansions as TF's; float32: ours are computed in float64 and rounded once, TF's
    # in float with shorter expansions (peak relative error 1.5e-6)
    np.testing.assert_allclose(y.numpy(), TF_VALUES[fn, dtype], rtol=1e-15 if dtype == "float64" else 2e-6, atol=0,
                               equal_nan=True)


@pytest.mark.parametrize("fn", sorted(TF_GRADIENTS))
def test_gradients_as_tf(fn):
    x = tf.constant([0.0, 0.5, -3.0, 9.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(tf.math, fn)(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), TF_GRADIENTS[fn], rtol=1e-14, atol=1e-300)


def test_half_precision_and_shapes():
    x = tf.constant([[0.5, -3.0, 8.5]], tf.float16)
    y = tf.math.bessel_i1e(x)
    assert y.dtype == tf.float16 and y.shape == (1, 3)
    np.testing.assert_allclose(y.numpy().astype(np.float64), [[0.1563720703125, -0.19677734375, 0.1304931640625]],
                               rtol=1e-3)  # TF's float16 values


def test_namespaces():
    for name in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"):
        assert getattr(tf.math, name) is getattr(tf.math.special, name)


@pytest.mark.parametrize("fn", ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"])
def test_integer_input_is_refused_as_tf(fn):
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be bfloat16, half, float or double, got int32"):
        getattr(tf.math, fn)(tf.constant([1, 2]))


def test_jit_compiled_chain_matches_eager():
    def f(x):
        return tf.math.bessel_i1(x * 2.0) - tf.math.bessel_i0(x)

    x = tf.constant(np.linspace(-6.0, 6.0, 13))
    np.testing.assert_allclose(tf.function(f, jit_compile=True)(x).numpy(), f(x).numpy(), rtol=1e-15)


@pytest.mark.parametrize("fn, dtype", sorted(TF_K_VALUES))
def test_second_kind_values_as_tf(fn, dtype):
    assert not hasattr(tf.math, fn)  # tf.math.special only, as TF
    y = getattr(tf.math.special, fn)(tf.constant(XK, dtype))
    assert y.dtype.name == dtype
    np.testing.assert_allclose(y.numpy(), TF_K_VALUES[fn, dtype], rtol=1e-15 if dtype == "float64" else 2e-6,
                               atol=0, equal_nan=True)


@pytest.mark.parametrize("fn", sorted(TF_K_GRADIENTS))
def test_second_kind_gradients_as_tf(fn):
    x = tf.constant([0.5, 1.5, 3.0, 9.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(tf.math.special, fn)(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), TF_K_GRADIENTS[fn], rtol=1e-14)


@pytest.mark.parametrize("fn", sorted(TF_JY_VALUES))
def test_bessel_j_y_values_as_tf(fn):
    x = XJ if fn.startswith("bessel_j") else XY
    assert not hasattr(tf.math, fn)  # tf.math.special only, as TF
    np.testing.assert_allclose(getattr(tf.math.special, fn)(tf.constant(x, tf.float64)).numpy(), TF_JY_VALUES[fn],
                               rtol=1e-15, atol=0, equal_nan=True)
    # float32 is the float64 value (checked above) of the float32 input, rounded once. TF's float32 kernels
    # (single-precision Cephes) lose digits at large |x| and near the functions' zeros (at 800: 4e-5 relative; at
    # 1e10 no digit right) and give NaN for y1(0) where their float64 kernel gives -inf: float32 follows float64.
    x32 = np.asarray(x, np.float32)
    y32 = getattr(tf.math.special, fn)(tf.constant(x32)).numpy()
    y64 = getattr(tf.math.special, fn)(tf.constant(x32.astype(np.float64))).numpy()
    np.testing.assert_array_equal(y32, y64.astype(np.float32))


@pytest.mark.parametrize("fn", sorted(TF_JY_GRADIENTS))
def test_bessel_j_y_gradients_as_tf(fn):
    x = tf.constant([0.0 if fn.startswith("bessel_j") else 0.25, 0.5, 3.0, 9.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(tf.math.special, fn)(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), TF_JY_GRADIENTS[fn], rtol=1e-14)
