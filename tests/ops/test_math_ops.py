"""Math ops: values against NumPy, finite-difference gradients of every differentiable op (with
broadcasting), higher-order derivatives, jacobians, custom gradients and tape semantics."""

import math

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

rng = np.random.default_rng(2)


def r(*shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape)


def pos(*shape):
    return rng.uniform(0.5, 2.0, shape)


UNARY = [
    ("negative", tf.negative, np.negative, r), ("abs", tf.abs, np.abs, pos), ("square", tf.square, np.square, r),
    ("sqrt", tf.sqrt, np.sqrt, pos), ("rsqrt", tf.math.rsqrt, lambda x: 1 / np.sqrt(x), pos),
    ("exp", tf.exp, np.exp, r), ("expm1", tf.math.expm1, np.expm1, r), ("log", tf.math.log, np.log, pos),
    ("log1p", tf.math.log1p, np.log1p, pos), ("sin", tf.sin, np.sin, r), ("cos", tf.cos, np.cos, r),
    ("tan", tf.tan, np.tan, lambda *s: r(*s, lo=-1.2, hi=1.2)),
    ("asin", tf.asin, np.arcsin, lambda *s: r(*s, lo=-0.9, hi=0.9)),
    ("acos", tf.acos, np.arccos, lambda *s: r(*s, lo=-0.9, hi=0.9)), ("atan", tf.atan, np.arctan, r),
    ("sinh", tf.sinh, np.sinh, r), ("cosh", tf.cosh, np.cosh, r), ("tanh", tf.tanh, np.tanh, r),
    ("sigmoid", tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), r),
    ("softplus", tf.math.softplus, lambda x: np.log1p(np.exp(x)), r),
    ("softsign", tf.math.softsign, lambda x: x / (1 + np.abs(x)), r),
    ("erf", tf.math.erf, np.vectorize(math.erf), r), ("reciprocal", tf.math.reciprocal, lambda x: 1 / x, pos),
    ("log_sigmoid", tf.math.log_sigmoid, lambda x: -np.log1p(np.exp(-x)), r),
]


@pytest.mark.parametrize("name,fn,ref,gen", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_and_gradients(name, fn, ref, gen):
    x = gen(3, 4)
    np.testing.assert_allclose(fn(tf.constant(x)).numpy(), ref(x), rtol=1e-6, atol=1e-12)
    check_gradients(fn, x)


BINARY = [
    ("add", tf.add, np.add, r, r), ("subtract", tf.subtract, np.subtract, r, r),
    ("multiply", tf.multiply, np.multiply, r, r), ("divide", tf.divide, np.divide, r, pos),
    ("pow", tf.pow, np.power, pos, r), ("maximum", tf.maximum, np.maximum, r, r),
    ("minimum", tf.minimum, np.minimum, r, r),
    ("squared_difference", tf.math.squared_difference, lambda a, b: (a - b) ** 2, r, r),
    ("atan2", tf.math.atan2, np.arctan2, r, pos),
]


@pytest.mark.parametrize("name,fn,ref,gx,gy", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (3,))])
def test_binary_broadcasting_values_and_gradients(name, fn, ref, gx, gy, shapes):
    x, y = gx(*shapes[0]), gy(*shapes[1])
    np.testing.assert_allclose(fn(tf.constant(x), tf.constant(y)).numpy(), ref(x, y), rtol=1e-12)
    check_gradients(fn, x, y)


def test_other_differentiable_ops():
    check_gradients(lambda x, lo, hi: tf.clip_by_value(x, lo, hi), r(3, 4), np.full((1, 4), -0.5), np.array(0.7))
    check_gradients(lambda x, y: tf.where(x > y, x * y, x - y), r(3, 4), r(3, 4))
    check_gradients(lambda x, y: tf.add_n([x, y, x]), r(2, 2), r(2, 2))
    check_gradients(lambda x: tf.cast(tf.cast(x, tf.float32), tf.float64) * 0 + x ** 3, r(3))
    check_gradients(lambda x: tf.math.cumsum(x, axis=1, exclusive=True, reverse=True), r(2, 4))
    check_gradients(lambda x, y: tf.math.divide_no_nan(x, y), r(3), pos(3))
    check_gradients(lambda x: tf.math.scalar_mul(3.0, x), r(2))


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_transposes_and_batch_broadcast_gradients(ta, tb):
    a = r(2, 4, 3) if ta else r(2, 3, 4)
    b = r(5, 4) if tb else r(4, 5)
    got = tf.matmul(a, b, transpose_a=ta, transpose_b=tb).numpy()
    want = np.matmul(np.swapaxes(a, -1, -2) if ta else a, b.T if tb else b)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    check_gradients(lambda x, y: tf.matmul(x, y, transpose_a=ta, transpose_b=tb), a, b)


def test_tensordot_and_einsum_gradients():
    check_gradients(lambda x, y: tf.tensordot(x, y, axes=[[1, 2], [0, 1]]), r(2, 3, 4), r(3, 4, 2))
    check_gradients(lambda x, y: tf.einsum("bij,bjk->bik", x, y), r(2, 3, 4), r(2, 4, 2))
    check_gradients(lambda x, y: tf.einsum("...i,i->...", x, y), r(2, 3), r(3))


def test_integer_division_and_mod_follow_tf():
    assert tf.constant([7, -7]) // 2 is not None
    assert (tf.constant([7, -7]) // 2).numpy().tolist() == [3, -4]
    assert (tf.constant([7, -7]) % 3).numpy().tolist() == [1, 2]
    assert (tf.constant([1, 2]) / tf.constant([2, 2])).dtype == tf.float64
    assert tf.round(tf.constant([0.5, 1.5, 2.5])).numpy().tolist() == [0, 2, 2]


# -- higher order, jacobians ----------------------------------------------------------------------

def test_second_and_third_derivatives_nested_tapes():
    x = tf.constant(0.7, tf.float64)
    with tf.GradientTape() as t3:
        t3.watch(x)
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = tf.sin(x) * tf.exp(x)
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    v = 0.7
    assert dy.numpy() == pytest.approx(np.exp(v) * (np.sin(v) + np.cos(v)))
    assert d2y.numpy() == pytest.approx(2 * np.exp(v) * np.cos(v))
    assert d3y.numpy() == pytest.approx(2 * np.exp(v) * (np.cos(v) - np.sin(v)))


@pytest.mark.parametrize("fn", [tf.tanh, tf.sigmoid, tf.math.softplus, tf.sqrt, tf.math.log, tf.math.reciprocal,
                                lambda x: tf.pow(x, tf.constant(2.5, tf.float64)), tf.math.erf])
def test_second_derivative_matches_finite_difference(fn):
    x0 = pos(4)
    x = tf.constant(x0)

    def grad_at(v):
        t = tf.constant(v)
        with tf.GradientTape() as tape:
            tape.watch(t)
            y = tf.reduce_sum(fn(t))
        return tape.gradient(y, t).numpy()

    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(fn(x))
        g = inner.gradient(y, x)
    h = outer.gradient(g, x).numpy()
    eps = 1e-5
    num = (grad_at(x0 + eps) - grad_at(x0 - eps)) / (2 * eps)
    np.testing.assert_allclose(h, num, rtol=1e-5, atol=1e-7)


def test_hessian_of_matmul_via_jacobian():
    a = tf.constant(r(3, 3))
    x = tf.constant(r(3))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(x * tf.linalg.matvec(a, x)) if hasattr(tf.linalg, "matvec") else tf.reduce_sum(
                x * tf.reshape(tf.matmul(a, tf.reshape(x, [3, 1])), [3]))
        g = inner.gradient(y, x)
    hess = outer.jacobian(g, x)
    np.testing.assert_allclose(hess.numpy(), a.numpy() + a.numpy().T, rtol=1e-12)


def test_jacobian_and_batch_jacobian():
    x = tf.constant(r(2, 3))
    w = tf.constant(r(3, 4))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.matmul(x, w)
    jac = tape.jacobian(y, x)
    assert jac.shape == (2, 4, 2, 3)
    want = np.einsum("ac,bd->abcd", np.eye(2), w.numpy().T)
    np.testing.assert_allclose(jac.numpy(), want)
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == (2, 4, 3)
    np.testing.assert_allclose(bj.numpy(), np.broadcast_to(w.numpy().T, (2, 4, 3)))


# -- tape semantics -------------------------------------------------------------------------------

def test_persistent_tape_and_non_persistent_reuse_error():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert tape.gradient(y, x).numpy() == 6.0
    assert tape.gradient(z, x).numpy() == 27.0
    with tf.GradientTape() as t2:
        t2.watch(x)
        y = x * x
    t2.gradient(y, x)
    with pytest.raises(RuntimeError):
        t2.gradient(y, x)


def test_unconnected_gradients():
    x, y = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * 3.0
    assert tape.gradient(z, y) is None
    g = tape.gradient(z, [x, y], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert g[0].numpy() == 3.0 and g[1].numpy() == 0.0
    assert tape.gradient(z, y, unconnected_gradients="zero").numpy() == 0.0


def test_variables_watched_and_integer_ops_not_differentiated():
    v = tf.Variable(2.0)
    frozen = tf.Variable(5.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * frozen + tf.cast(tf.constant(3) * 2, tf.float32)
    gv, gf = tape.gradient(y, [v, frozen])
    assert gv.numpy() == 5.0 and gf is None


def test_custom_gradient():
    @tf.custom_gradient
    def clip_grad_identity(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.5, 0.5)
        return tf.identity(x), grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = clip_grad_identity(x) * tf.constant([3.0, -0.1])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, -0.1])

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

    x = tf.constant(100.0, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert tape.gradient(y, x).numpy() == pytest.approx(1.0)


def test_stop_recording_and_watch_nested():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch({"a": [x]})
        with tape.stop_recording():
            y = x * x
        z = x * y
    assert tape.gradient(z, x).numpy() == 4.0  # y is a constant to the tape


def test_dtype_errors_name_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match="MatMul: Matrix size-incompatible: In\\[0\\]: \\[2, 3\\]"):
        tf.matmul(tf.zeros([2, 3]), tf.zeros([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Sqrt"):
        tf.sqrt(tf.constant([4]))


def test_matmul_adjoint_conjugates_complex_inputs():
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))).astype(np.complex128)
    b = (rng.standard_normal((2, 3, 5)) + 1j * rng.standard_normal((2, 3, 5))).astype(np.complex128)
    got = tf.linalg.matmul(a, b, adjoint_a=True).numpy()
    np.testing.assert_allclose(got, np.conj(np.swapaxes(a, -1, -2)) @ b, rtol=1e-12)
    got = tf.linalg.matmul(b, b, adjoint_b=True).numpy()  # B B^H: Hermitian
    np.testing.assert_allclose(got, np.conj(np.swapaxes(got, -1, -2)), rtol=1e-12)
    real = rng.standard_normal((3, 4))
    np.testing.assert_allclose(tf.linalg.matmul(real, real, adjoint_b=True).numpy(), real @ real.T, rtol=1e-12)
    with pytest.raises(ValueError, match="transpose_a and adjoint_a"):
        tf.linalg.matmul(a, b, transpose_a=True, adjoint_a=True)


def test_conj():
    z = np.array([1 + 2j, -3j], np.complex64)
    np.testing.assert_array_equal(tf.math.conj(z).numpy(), np.conj(z))
    x = tf.constant([1.5, -2.0])
    assert tf.math.conj(x) is x  # real tensors come back unchanged, as in TF
