"""Functions give eager's results on an emulated GPU too (TFCORE_EMULATED_GPUS=1: GPU:0 is the default device)."""

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework.context import context


@pytest.fixture(scope="module", autouse=True)
def emulated_gpu():
    mp = pytest.MonkeyPatch()
    mp.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    assert context.find("GPU", 0) is not None and context.find("GPU", 0).backend.emulated
    yield
    mp.undo()
    context.reset_for_tests()


def _step_results(use_function):
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((8, 6)).astype(np.float32))
    y = tf.constant(rng.integers(0, 3, 8))
    model = tf.keras.Sequential([tf.keras.layers.Dense(5, activation="tanh", input_shape=(6,)),
                                 tf.keras.layers.Dense(3)])
    model.set_weights([np.random.default_rng(i).standard_normal(w.shape).astype(np.float32) * 0.4
                       for i, w in enumerate(model.weights)])
    opt = tf.keras.optimizers.Adam(0.05)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(a, b):
        with tf.GradientTape() as tape:
            logits = model(a, training=True)
            loss = loss_fn(b, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss, tf.cond(loss > 0.5, lambda: loss * 2.0, lambda: loss)

    fn = tf.function(step) if use_function else step
    outs = [fn(x, y) for _ in range(3)]
    return [float(o[0]) for o in outs] + [float(o[1]) for o in outs], [w.numpy() for w in model.weights], \
        [w.device for w in model.weights]


def test_train_step_function_equals_eager_on_the_emulated_gpu():
    eager_out, eager_w, devs = _step_results(False)
    fn_out, fn_w, fn_devs = _step_results(True)
    assert all(d.endswith("GPU:0") for d in devs + fn_devs)
    np.testing.assert_allclose(fn_out, eager_out, rtol=1e-6)
    for a, b in zip(eager_w, fn_w):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_control_flow_and_autograph_on_the_emulated_gpu():
    @tf.function
    def f(x, n):
        s = tf.zeros_like(x)
        for i in tf.range(n):
            if i % 2 == 0:
                s += x * tf.cast(i, tf.float32)
        return tf.map_fn(lambda r: r * 2.0, s)

    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = f(x, tf.constant(5))
    assert out.device.endswith("GPU:0")
    np.testing.assert_allclose(out.numpy(), x.numpy() * (0 + 2 + 4) * 2)
    np.testing.assert_allclose(f(x, tf.constant(2)).numpy(), x.numpy() * 0.0)


def test_jit_compile_fuses_a_chain_into_one_generated_kernel():
    from tfcore.backend import nvrtc

    def f(x, y):
        h = tf.nn.relu(x * y + 1.0) - x
        return tf.tanh(h) * tf.sigmoid(h)

    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64):
        x, y = (tf.constant(rng.standard_normal((5, 67)).astype(dt)) for _ in range(2))
        want = f(x, y).numpy()
        fn = tf.function(f, jit_compile=True)
        fn(x, y)                      # trace
        got = fn(x, y)                # replay: the fused kernels run on the emulator
        assert got.device.endswith("GPU:0")
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dt is np.float32 else 1e-13)
        plan = fn.get_concrete_function(x, y)._fused_plan
        kernels = [step[1] for step in plan.steps if step[0] == 3]
        assert [k.__name__ for k in kernels] == ["fused_Mul+AddV2+Relu+Sub", "fused_Sigmoid+Mul"]
        for k in kernels:  # every generated source also compiles with NVRTC
            assert ".entry tfc_fused_" in nvrtc.compile_ptx(k.cuda_source, 80)
