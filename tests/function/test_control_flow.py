"""Control-flow ops eagerly and inside tf.function, with finite-difference gradients."""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

X = np.array([0.7, -1.3, 0.4])


def _both(fn):
    """fn eagerly and as a tf.function (traced on the first call, replayed afterwards)."""
    return [fn, tf.function(fn)]


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_cond_values_and_gradients(mode):
    def f(x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.sin(x) * x, lambda: tf.exp(x) - x * x)

    fn = _both(f)[mode == "function"]
    check_gradients(fn, X)             # sum < 0: false branch
    check_gradients(fn, -X * 3 + 1.0)  # sum > 0: true branch (replayed when traced)
    np.testing.assert_allclose(fn(tf.constant(X)).numpy(), np.exp(X) - X * X)
    np.testing.assert_allclose(fn(tf.constant(-X + 1)).numpy(), np.sin(-X + 1) * (-X + 1))


def test_cond_inside_function_takes_the_branch_of_each_call_and_applies_only_its_effects():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        tf.cond(x > 0, lambda: v.assign_add(1.0).read_value(), lambda: v.assign_sub(10.0).read_value())
        return v.read_value()

    assert float(f(tf.constant(1.0))) == 1.0   # trace: the untaken branch is traced without effects
    assert float(f(tf.constant(-1.0))) == -9.0
    assert float(f(tf.constant(2.0))) == -8.0
    assert f.experimental_get_tracing_count() == 1


def test_cond_errors():
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(True, 1, lambda: 2)

    @tf.function
    def bad(x):
        return tf.cond(x > 0, lambda: x, lambda: (x, x))

    with pytest.raises(ValueError, match="same nested structure"):
        bad(tf.constant(1.0))


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_while_loop_gradient_and_maximum_iterations(mode):
    def f(x):
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * x), [tf.constant(0), x])
        return y

    fn = _both(f)[mode == "function"]
    check_gradients(fn, X)
    check_gradients(fn, X * 2)

    def g(n):
        return tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)], maximum_iterations=4)[0]

    gf = _both(g)[mode == "function"]
    assert int(gf(tf.constant(2))) == 2
    assert int(gf(tf.constant(10))) == 4


def test_while_loop_shape_invariants():
    @tf.function
    def grow(n):
        return tf.while_loop(lambda x: tf.size(x) < n, lambda x: tf.concat([x, x], 0), [tf.ones([1])],
                             shape_invariants=[tf.TensorShape([None])])[0]

    assert grow(tf.constant(5)).shape == (8,)
    assert grow(tf.constant(2)).shape == (2,)

    @tf.function
    def bad(n):
        return tf.while_loop(lambda x: tf.size(x) < n, lambda x: tf.concat([x, x], 0), [tf.ones([1])])[0]

    with pytest.raises(ValueError, match="shape_invariants"):
        bad(tf.constant(5))


def test_while_loop_variable_gradient_inside_function():
    w = tf.Variable(2.0)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x * w), [0, tf.constant(1.0)])
        return tape.gradient(y, [x, w])

    gx, gw = f(tf.constant(1.5))
    assert float(gx) == pytest.approx(3 * 1.5 ** 2 * 8) and float(gw) == pytest.approx(3 * 4 * 1.5 ** 3)
    gx, gw = f(tf.constant(0.5))
    assert float(gx) == pytest.approx(3 * 0.25 * 8) and float(gw) == pytest.approx(3 * 4 * 0.125)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_case_and_switch_case(mode):
    def c(x):
        return tf.case([(x < 0, lambda: tf.constant(-1)), (x > 0, lambda: tf.constant(1))],
                       default=lambda: tf.constant(0))

    def s(i):
        return tf.switch_case(i, [lambda: tf.constant(10.0), lambda: tf.constant(20.0)],
                              default=lambda: tf.constant(-1.0))

    cf, sf = _both(c)[mode == "function"], _both(s)[mode == "function"]
    assert [int(cf(tf.constant(v))) for v in (-3, 3, 0)] == [-1, 1, 0]
    assert [float(sf(tf.constant(v))) for v in (1, 0, 7)] == [20.0, 10.0, -1.0]

    def sg(x):
        return tf.switch_case(tf.constant(1), [lambda: x * x, lambda: tf.sin(x)])

    check_gradients(_both(sg)[mode == "function"], X)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_map_fn_scan_foldl(mode):
    m, sc, fl = _both(lambda e: tf.map_fn(lambda v: v * v + 1.0, e)), \
        _both(lambda e: tf.scan(lambda a, x: a * x + 1.0, e)), _both(lambda e: tf.foldl(lambda a, x: a + x * x, e))
    k = mode == "function"
    for fn, ref in ((m[k], X * X + 1), (sc[k], None), (fl[k], None)):
        if ref is not None:
            np.testing.assert_allclose(fn(tf.constant(X)).numpy(), ref)
    acc, expected = X[0], [X[0]]
    for x in X[1:]:
        acc = acc * x + 1.0
        expected.append(acc)
    np.testing.assert_allclose(sc[k](tf.constant(X)).numpy(), expected)
    np.testing.assert_allclose(float(fl[k](tf.constant(X))), X[0] + np.sum(X[1:] ** 2))
    check_gradients(m[k], X)
    check_gradients(sc[k], X)
    check_gradients(lambda e: tf.reshape(fl[k](e), [1]), X)


def test_tensor_array_write_returns_a_new_array_in_graphs():
    @tf.function
    def squares(n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i * i, tf.float32))
        return ta.stack()

    np.testing.assert_allclose(squares(tf.constant(4)).numpy(), [0, 1, 4, 9])
    np.testing.assert_allclose(squares(tf.constant(6)).numpy(), [0, 1, 4, 9, 16, 25])

    @tf.function
    def dropped_write():
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[])
        ta.write(0, 5.0)  # seed 004: in a graph the result must be assigned; here it is lost
        return ta.stack()

    np.testing.assert_allclose(dropped_write().numpy(), [0.0, 0.0])
    eager = tf.TensorArray(tf.float32, size=2)
    eager.write(0, 5.0)  # eagerly the array itself changes (TF's eager TensorArray)
    assert float(eager.read(0)) == 5.0


def test_py_function_and_numpy_function_run_every_call():
    calls = []

    def double(a):
        calls.append(1)
        return a.numpy() * 2

    f = tf.function(lambda x: tf.py_function(double, [x], tf.float32) + 1.0)
    assert float(f(tf.constant(3.0))) == 7.0
    assert float(f(tf.constant(4.0))) == 9.0
    assert len(calls) == 2
    g = tf.function(lambda x: tf.numpy_function(lambda a: np.sort(a), [x], tf.float64))
    np.testing.assert_allclose(g(tf.constant([3.0, 1.0, 2.0], tf.float64)).numpy(), [1, 2, 3])


def test_identity_control_dependencies_init_scope():
    v = tf.Variable(1.0)
    made = []

    @tf.function
    def f(x):
        with tf.init_scope():
            made.append(tf.executing_eagerly())
        with tf.control_dependencies([v.assign_add(1.0)]):
            y = tf.identity(x)
        return y + v

    assert float(f(tf.constant(1.0))) == 3.0
    assert float(f(tf.constant(1.0))) == 4.0
    assert made == [True]
    with pytest.raises(TypeError):
        tf.control_dependencies([object()])
