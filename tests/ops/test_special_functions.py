"""tf.math.special.dawsn and tf.math.special.spence (TF's Dawsn, Spence): values and gradients as TF 2.21 gives
them (the numbers below were printed by TF 2.21 for the same inputs: every branch of the approximations, TF's
sign for dawsn below -1e9, NaN for spence at x < 0 and at inf). References on ragged shapes, devices and
finite-difference gradients: their op-info entries (tests/opinfo/table.py)."""

import numpy as np
import pytest

import tfcore as tf

NAN, INF = float("nan"), float("inf")
X = {
    "dawsn": [0.0, -0.0, 1e-8, 0.5, -3.0, 3.25, 4.0, -6.25, 7.0, 1e8, 2e9, -2e9, INF, -INF, NAN],
    "spence": [0.0, -1.0, 1e-8, 0.3, 0.5, 0.9, 1.0, 1.2, 1.5, 1.7, 2.0, 3.0, 100.0, 1e300, INF, NAN],
}
TF_VALUES = {
    ("dawsn", "float64"): [0.0, 0.0, 1e-08, 0.4244363835020223, -0.17827103061055835, 0.162570914560687,
        0.1293480012360051, -0.08106609406101173, 0.0721809746582363, 5e-09, 2.5e-10, 2.5e-10, 0.0, 0.0, NAN],
    ("dawsn", "float32"): [0.0, 0.0, 9.99999993922529e-09, 0.42443639039993286, -0.17827101051807404,
        0.16257092356681824, 0.1293479949235916, -0.08106609433889389, 0.07218097895383835, 4.999999969612645e-09,
        2.4999999292951713e-10, 2.4999999292951713e-10, 0.0, 0.0, NAN],
    ("spence", "float64"): [1.6449340668482264, NAN, 1.6449338726414182, 0.8893776242860388, 0.5822405264650135,
        0.1026177910993911, 0.0, -0.19080013777753554, -0.4484142069236462, -0.6051584023377057, -0.8224670334241142,
        -1.4367463668836808, -12.192421669033168, -238587.05990559477, NAN, NAN],
    ("spence", "float32"): [1.644934058189392, NAN, 1.644933819770813, 0.8893775939941406, 0.5822403430938721,
        0.10261781513690948, 0.0, -0.19080018997192383, -0.4484141767024994, -0.6051583290100098, -0.8224668502807617,
        -1.43674635887146, -12.192422866821289, NAN, NAN, NAN],
}
GRAD_X = {"dawsn": [0.0, 0.5, -3.0, 9.0], "spence": [0.5, 1.0, 1.7, 3.0]}  # spence: TF's -1 at x == 1
TF_GRADIENTS = {
    "dawsn": [1.0, 0.5755636164979777, -0.06962618366335005, -0.006290841038308237],
    "spence": [-1.3862943611198906, -1.0, -0.7580403586602434, -0.5493061443340548],
}


@pytest.fixture(autouse=True)
def _on_cpu():
    with tf.device("/CPU:0"):
        yield


@pytest.mark.parametrize("fn, dtype", sorted(TF_VALUES))
def test_values_as_tf(fn, dtype):
    with np.errstate(over="ignore"):  # 1e300 is inf in float32
        x = np.asarray(X[fn]).astype(dtype)
    y = getattr(tf.math.special, fn)(tf.constant(x))
    assert y.dtype.name == dtype
    np.testing.assert_allclose(y.numpy(), TF_VALUES[fn, dtype], rtol=1e-15 if dtype == "float64" else 2e-6, atol=0,
                               equal_nan=True)


@pytest.mark.parametrize("fn", sorted(TF_GRADIENTS))
def test_gradients_as_tf(fn):
    x = tf.constant(GRAD_X[fn], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(tf.math.special, fn)(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), TF_GRADIENTS[fn], rtol=1e-14)


def test_dawsn_keeps_tfs_sign_below_minus_1e9():
    """TF's kernel returns 0.5 / x beyond |x| = 1e9 and then negates it for negative x again."""
    assert tf.math.special.dawsn(tf.constant(-2e9, tf.float64)).numpy() == 2.5e-10


def test_integer_input_is_refused():
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be bfloat16, half, float or double"):
        tf.math.special.spence(tf.constant([1, 2]))
