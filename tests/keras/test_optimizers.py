"""Optimizers against hand-computed update formulas (one and two steps), clipping, schedules, atomicity."""

import numpy as np
import pytest

import tfcore as tf
from tfcore.keras import optimizers

W0 = np.array([1.0, -2.0, 0.5], np.float32)
G1 = np.array([0.5, -1.0, 2.0], np.float32)
G2 = np.array([-0.25, 0.75, 1.0], np.float32)


def run_two_steps(opt):
    v = tf.Variable(W0)
    out = []
    for g in (G1, G2):
        opt.apply_gradients([(tf.constant(g), v)])
        out.append(v.numpy())
    return out


def reference(update, state):
    w = W0.astype(np.float64)
    out = []
    for t, g in enumerate((G1, G2), start=1):
        w = update(w, g.astype(np.float64), state, t)
        out.append(w)
    return out


def check(opt, update, state=None, rtol=1e-5):
    got = run_two_steps(opt)
    want = reference(update, {} if state is None else state)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)
    assert int(opt.iterations.numpy()) == 2


def test_sgd_plain():
    check(optimizers.SGD(0.1), lambda w, g, s, t: w - 0.1 * g)


@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_momentum(nesterov):
    def update(w, g, s, t):
        m = s.get("m", 0.0)
        m = 0.9 * m - 0.1 * g
        s["m"] = m
        return w + (0.9 * m - 0.1 * g if nesterov else m)

    check(optimizers.SGD(0.1, momentum=0.9, nesterov=nesterov), update)


@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam(amsgrad):
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-7

    def update(w, g, s, t):
        m = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
        v = s.get("v", 0.0) + (g * g - s.get("v", 0.0)) * (1 - b2)
        s["m"], s["v"] = m, v
        if amsgrad:
            s["vhat"] = np.maximum(s.get("vhat", 0.0), v)
            v = s["vhat"]
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return w - alpha * m / (np.sqrt(v) + eps)

    check(optimizers.Adam(lr, amsgrad=amsgrad), update)


def test_adamw_decays_before_the_adam_step():
    lr, wd, b1, b2, eps = 0.01, 0.1, 0.9, 0.999, 1e-7

    def update(w, g, s, t):
        w = w - w * wd * lr
        m = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
        v = s.get("v", 0.0) + (g * g - s.get("v", 0.0)) * (1 - b2)
        s["m"], s["v"] = m, v
        return w - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)

    check(optimizers.AdamW(lr, weight_decay=wd), update)


@pytest.mark.parametrize("centered,momentum", [(False, 0.0), (True, 0.0), (False, 0.5), (True, 0.5)])
def test_rmsprop(centered, momentum):
    lr, rho, eps = 0.01, 0.9, 1e-7

    def update(w, g, s, t):
        ms = rho * s.get("ms", 0.0) + (1 - rho) * g * g
        s["ms"] = ms
        denom = ms + eps
        if centered:
            mg = rho * s.get("mg", 0.0) + (1 - rho) * g
            s["mg"] = mg
            denom = ms - mg * mg + eps
        inc = lr * g / np.sqrt(denom)
        if momentum:
            s["mom"] = momentum * s.get("mom", 0.0) + inc
            return w - s["mom"]
        return w - inc

    opt = optimizers.RMSprop(lr, centered=centered, momentum=momentum)
    check(opt, update)
    # Keras 3: iteration, learning_rate, velocity (+ average_gradient, momentum)
    assert len(opt.variables) == 2 + 1 + int(centered) + int(momentum > 0)


def test_adagrad():
    lr, init, eps = 0.1, 0.1, 1e-7

    def update(w, g, s, t):
        acc = s.get("acc", init) + g * g
        s["acc"] = acc
        return w - lr * g / np.sqrt(acc + eps)

    check(optimizers.Adagrad(lr), update)


def test_clipnorm_clipvalue_global_clipnorm():
    v = tf.Variable(W0)
    optimizers.SGD(1.0, clipnorm=1.0).apply_gradients([(tf.constant(G1), v)])
    np.testing.assert_allclose(v.numpy(), W0 - G1 / np.linalg.norm(G1), rtol=1e-6)
    v = tf.Variable(W0)
    optimizers.SGD(1.0, clipvalue=0.6).apply_gradients([(tf.constant(G1), v)])
    np.testing.assert_allclose(v.numpy(), W0 - np.clip(G1, -0.6, 0.6), rtol=1e-6)
    a, b = tf.Variable(W0), tf.Variable(W0)
    optimizers.SGD(1.0, global_clipnorm=1.0).apply_gradients([(tf.constant(G1), a), (tf.constant(G2), b)])
    gn = np.sqrt(np.sum(G1 ** 2) + np.sum(G2 ** 2))
    np.testing.assert_allclose(a.numpy(), W0 - G1 / gn, rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), W0 - G2 / gn, rtol=1e-5)
    with pytest.raises(ValueError, match="Only one of"):
        optimizers.SGD(clipnorm=1.0, clipvalue=1.0)


def test_none_gradients_are_skipped_and_all_none_raises():
    a, b = tf.Variable(W0), tf.Variable(W0)
    opt = optimizers.SGD(0.1)
    opt.apply_gradients([(tf.constant(G1), a), (None, b)])
    np.testing.assert_allclose(a.numpy(), W0 - 0.1 * G1, rtol=1e-6)
    np.testing.assert_array_equal(b.numpy(), W0)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, b)])


def test_bad_gradient_changes_nothing():
    a, b = tf.Variable(W0), tf.Variable(np.ones((2, 2), np.float32))
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(tf.constant(G1), a), (tf.ones((2, 2)), b)])
    before = [v.numpy() for v in (a, b, *opt.variables)]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"ResourceApplyAdam.*shape.*\[2, 2\].*\[3\]|"
                       r"ResourceApplyAdam.*float32\[2, 2\].*float32\[3\]"):
        opt.apply_gradients([(tf.constant(G2), a), (tf.constant(G1), b)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
        opt.apply_gradients([(tf.constant(G2.astype(np.float64)), a)])
    after = [v.numpy() for v in (a, b, *opt.variables)]
    for x, y in zip(before, after):
        np.testing.assert_array_equal(x, y)
    assert int(opt.iterations.numpy()) == 1


def test_minimize_with_tape_and_callable():
    v = tf.Variable(3.0)
    opt = optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = v * v
    opt.minimize(loss, [v], tape=tape)
    assert v.numpy() == pytest.approx(3.0 - 0.1 * 6.0)
    opt.minimize(lambda: v * v, [v])
    assert v.numpy() == pytest.approx(2.4 - 0.1 * 4.8)
    with pytest.raises(ValueError, match="tape"):
        opt.minimize(v * v, [v])


def test_updates_are_not_recorded_by_an_outer_tape():
    v = tf.Variable(2.0)
    opt = optimizers.SGD(0.5)
    with tf.GradientTape() as tape:
        y = v * 3.0
        opt.apply_gradients([(tf.constant(1.0), v)])
    assert tape.gradient(y, v).numpy() == pytest.approx(3.0)


def test_slots_are_variables_on_the_variable_device():
    v = tf.Variable(W0)
    opt = optimizers.Adam()
    opt.apply_gradients([(tf.constant(G1), v)])
    slots = opt.variables[2:]  # Keras 3: [iteration, learning_rate, *slots]
    assert opt.variables[1] is opt.learning_rate
    assert len(slots) == 2 and all(isinstance(s, tf.Variable) and not s.trainable for s in slots)
    assert all(s.device == v.device for s in slots)
    assert opt.variables[0] is opt.iterations and opt.iterations.dtype == tf.int64


def test_learning_rate_is_settable_and_schedules_drive_it():
    opt = optimizers.SGD(0.1)
    assert opt.learning_rate.numpy() == pytest.approx(0.1)
    opt.learning_rate = 0.5
    v = tf.Variable(1.0)
    opt.apply_gradients([(tf.constant(1.0), v)])
    assert v.numpy() == pytest.approx(0.5)
    sched = optimizers.schedules.PiecewiseConstantDecay([1], [1.0, 0.1])
    opt = optimizers.SGD(sched)
    v = tf.Variable(0.0)
    for _ in range(3):
        opt.apply_gradients([(tf.constant(1.0), v)])
    assert v.numpy() == pytest.approx(-(1.0 + 1.0 + 0.1))  # steps 0 and 1 use 1.0, step 2 uses 0.1
    with pytest.raises(TypeError, match="not settable"):
        opt.learning_rate = 0.3


def test_schedule_formulas():
    s = optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    assert float(s(5)) == pytest.approx(0.1 * 0.5 ** 0.5)
    s = optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5, staircase=True)
    assert float(s(15)) == pytest.approx(0.05)
    s = optimizers.schedules.CosineDecay(1.0, decay_steps=10, alpha=0.1)
    assert float(s(5)) == pytest.approx(0.9 * 0.5 * (1 + np.cos(np.pi * 0.5)) + 0.1)
    assert float(s(20)) == pytest.approx(0.1)
    p = optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    assert [float(p(i)) for i in (0, 10, 11, 20, 21)] == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.1])
    with pytest.raises(ValueError):
        optimizers.schedules.PiecewiseConstantDecay([1, 2], [1.0])


def test_get_and_config_round_trip():
    for name, cls in [("adam", optimizers.Adam), ("sgd", optimizers.SGD), ("rmsprop", optimizers.RMSprop),
                      ("adagrad", optimizers.Adagrad), ("adamw", optimizers.AdamW)]:
        assert type(optimizers.get(name)) is cls
    opt = optimizers.Adam(0.02, beta_1=0.8, amsgrad=True, clipnorm=2.0)
    clone = optimizers.Adam.from_config(opt.get_config())
    assert clone.get_config() == opt.get_config()
    sched = optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
    clone = optimizers.deserialize(optimizers.serialize(optimizers.SGD(sched, momentum=0.5)))
    assert isinstance(clone._learning_rate, optimizers.schedules.ExponentialDecay)
    assert clone.momentum == 0.5
    with pytest.raises(ValueError):
        optimizers.get("nope")


def test_tf_style_custom_optimizer_subclass():
    class SignSGD(optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, name="SignSGD"):
            super().__init__(name=name)
            self._learning_rate = self._build_learning_rate(learning_rate)

        def update_step(self, gradient, variable):
            variable.assign_sub(tf.sign(gradient) * tf.cast(self.learning_rate, variable.dtype))

    v = tf.Variable(W0)
    SignSGD().apply_gradients([(tf.constant(G1), v)])
    np.testing.assert_allclose(v.numpy(), W0 - 0.1 * np.sign(G1), rtol=1e-6)
