"""The eager hot path's shortcuts give the same answers as the general path.

``execute`` fast checks, the binary-op scalar conversion, gradient functions that skip
inputs the tape drops (``Call.needs_grad``), ``_unbroadcast``, the small-copy
``BroadcastTo`` kernel and the thread state shared by device scopes and tapes.
Values are checked against NumPy or by hand.
"""

import threading

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework import context, recording
from tfcore.ops.array_shape_ops import _unbroadcast

_rng = np.random.default_rng(7)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("watch", ["a", "b", "both"])
def test_matmul_gradient_with_one_input_watched(ta, tb, watch):
    a_np = _rng.standard_normal((3, 4) if not ta else (4, 3)).astype(np.float32)
    b_np = _rng.standard_normal((4, 5) if not tb else (5, 4)).astype(np.float32)
    w_np = _rng.standard_normal((3, 5)).astype(np.float32)
    a, b = tf.constant(a_np), tf.constant(b_np)
    with tf.GradientTape(persistent=True) as tape:
        if watch in ("a", "both"):
            tape.watch(a)
        if watch in ("b", "both"):
            tape.watch(b)
        loss = tf.reduce_sum(tf.matmul(a, b, transpose_a=ta, transpose_b=tb) * w_np)
    ga, gb = tape.gradient(loss, [a, b])
    am, bm = (a_np.T if ta else a_np), (b_np.T if tb else b_np)
    if watch in ("a", "both"):
        exp_a = w_np @ bm.T
        np.testing.assert_allclose(ga.numpy(), exp_a.T if ta else exp_a, rtol=1e-5, atol=1e-5)
    else:
        assert ga is None
    if watch in ("b", "both"):
        exp_b = am.T @ w_np
        np.testing.assert_allclose(gb.numpy(), exp_b.T if tb else exp_b, rtol=1e-5, atol=1e-5)
    else:
        assert gb is None


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_gradients_with_one_side_constant_and_broadcast(op):
    x_np = _rng.uniform(1, 2, (2, 3)).astype(np.float64)
    y_np = _rng.uniform(1, 2, (3,)).astype(np.float64)
    fn = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y,
          "mul": lambda x, y: x * y, "div": lambda x, y: x / y}[op]
    dfx = {"add": lambda x, y: np.ones_like(x), "sub": lambda x, y: np.ones_like(x),
           "mul": lambda x, y: np.broadcast_to(y, x.shape), "div": lambda x, y: np.broadcast_to(1 / y, x.shape)}[op]
    dfy = {"add": lambda x, y: np.ones_like(x), "sub": lambda x, y: -np.ones_like(x),
           "mul": lambda x, y: x, "div": lambda x, y: -x / y ** 2}[op]
    x, y = tf.constant(x_np), tf.constant(y_np)
    with tf.GradientTape() as tape:
        tape.watch(y)                       # only the broadcast operand
        out = tf.reduce_sum(fn(x, y))
    gx, gy = tape.gradient(out, [x, y])
    assert gx is None
    np.testing.assert_allclose(gy.numpy(), dfy(x_np, y_np).sum(0), rtol=1e-12)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = tf.reduce_sum(fn(x, y))
    np.testing.assert_allclose(tape.gradient(out, x).numpy(), dfx(x_np, y_np), rtol=1e-12)


def test_gradient_reaches_tensor_watched_after_its_use():
    # The op is recorded because w is watched; x is watched later: TF still gives its gradient.
    x, w = tf.constant(3.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * w
        tape.watch(x)
    assert float(tape.gradient(y, x)) == 2.0


def test_second_derivative_needs_gradient_of_input_the_inner_tape_ignores():
    x, y = tf.constant(3.0), tf.constant(4.0)
    with tf.GradientTape() as outer:
        outer.watch(y)
        with tf.GradientTape() as inner:
            inner.watch(x)
            z = x * x * y
        dzdx = inner.gradient(z, x)                      # 2xy
    assert float(dzdx) == 24.0
    assert float(outer.gradient(dzdx, y)) == 6.0         # 2x


def test_python_scalar_operands_follow_convert_to_tensor():
    x = tf.constant([1.0, 2.0], dtype=tf.float16)
    for out in (x * 0.5, 0.5 * x, x + 1, 3 - x):
        assert out.dtype == tf.float16
    np.testing.assert_allclose((3 - x).numpy(), [2.0, 1.0])
    np.testing.assert_allclose((0.5 * tf.constant([4.0], tf.float64)).numpy(), [2.0])
    i = tf.constant([1, 2])
    assert (i * 2).dtype == tf.int32
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        i * 1.5                                           # not representable as int32, as TF
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError, ValueError)):
        tf.constant([True]) * 2.0


def test_lists_as_inputs_are_not_aliased_by_tapes():
    x = tf.constant([1.0, 2.0])
    ins = [x, x]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.add_n(ins)
    ins.clear()
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 2.0])


def test_unbroadcast_reduces_leading_and_unit_axes():
    g = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert _unbroadcast(g, (2, 3, 4)) is g
    np.testing.assert_allclose(_unbroadcast(g, (4,)).numpy(), g.numpy().sum((0, 1)))
    np.testing.assert_allclose(_unbroadcast(g, (3, 1)).numpy(), g.numpy().sum((0, 2)).reshape(3, 1))
    np.testing.assert_allclose(_unbroadcast(g, [1, 1, 1]).numpy(), g.numpy().sum().reshape(1, 1, 1))
    np.testing.assert_allclose(_unbroadcast(g, ()).numpy(), g.numpy().sum())


@pytest.mark.parametrize("shape", [(4, 3), (300, 300)])   # small: copied; large: NumPy's view
def test_broadcast_to_values_and_errors(shape):
    x = tf.constant(np.arange(shape[1], dtype=np.float32))
    y = tf.broadcast_to(x, shape)
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(x.numpy(), shape))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.broadcast_to(tf.constant([1.0, 2.0]), (3, 3))


def test_reshape_checks_and_infers():
    t = tf.constant(np.arange(6, dtype=np.float32))
    assert tf.reshape(t, (2, 3)).shape == (2, 3)
    assert tf.reshape(t, [-1, 2]).shape == (3, 2)
    assert tf.reshape(tf.zeros((0, 4)), (-1, 2)).shape == (0, 2)
    for bad in [(4, 2), (-1, 4), (-1, -1), (0, -1), (-2, -3)]:
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.reshape(t, bad)


def test_tapes_and_device_scope_are_per_thread():
    seen = {}
    x = tf.constant(2.0)
    active_before = context.ACTIVE[0]

    def worker():
        seen["tapes"] = list(recording.active_tapes())
        seen["device"] = context.current_device()
        seen["y"] = float(x * x)

    with tf.device("/CPU:0"), tf.GradientTape() as tape:
        tape.watch(x)
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert recording.active_tapes() == [tape]
        assert context.current_device() is not None
    assert seen == {"tapes": [], "device": None, "y": 4.0}
    assert recording.active_tapes() == []
    assert context.ACTIVE[0] == active_before  # this thread is no longer counted


def test_scope_in_another_thread_does_not_leak_into_this_one():
    entered, release = threading.Event(), threading.Event()

    def holder():
        with tf.device("/CPU:0"), tf.GradientTape():
            entered.set()
            release.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    try:
        entered.wait(5)
        assert context.ACTIVE[0] >= 1          # the other thread forces the slow reads here
        x = tf.constant([1.0, 2.0])
        y = x * x                               # no tape in this thread: nothing recorded, no error
        assert context.current_device() is None and recording.active_tapes() == []
        np.testing.assert_allclose(y.numpy(), [1.0, 4.0])
    finally:
        release.set()
        t.join()


def test_stop_recording_restores_the_tape_stack_on_error():
    with tf.GradientTape() as tape:
        with pytest.raises(ZeroDivisionError), recording.stop_recording():
            assert recording.active_tapes() == []
            raise ZeroDivisionError
        assert recording.active_tapes() == [tape]


def test_divide_no_nan_values_shapes_and_gradient():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = tf.constant([2.0, 0.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        out = tf.math.divide_no_nan(x, y)
        loss = tf.reduce_sum(out)
    np.testing.assert_allclose(out.numpy(), [[0.5, 0.0, 0.75], [2.0, 0.0, 1.5]])
    gx, gy = tape.gradient(loss, [x, y])
    np.testing.assert_allclose(gx.numpy(), [[0.5, 0.0, 0.25], [0.5, 0.0, 0.25]])
    np.testing.assert_allclose(gy.numpy(), [-5.0 / 4.0, 0.0, -9.0 / 16.0])
    assert tf.math.divide_no_nan(tf.constant(3.0), tf.constant([0.0, 3.0])).shape == (2,)
    np.testing.assert_allclose(tf.math.divide_no_nan(tf.constant([0.0, 1.0]), 0.0).numpy(), [0.0, 0.0])
