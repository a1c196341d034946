"""float16 / bfloat16 ops on the CPU compute in float32 and round once (as a GPU's float32 accumulators),
so they match float64 references within 16-bit rounding, where NumPy's own 16-bit loops drift."""

import numpy as np
import pytest

import tfcore as tf

HALF = [tf.float16] + ([tf.bfloat16] if tf.bfloat16 is not None else [])


def _ulp_tol(dtype):
    return 1e-2 if dtype == tf.float16 else 8e-3 * 4  # bfloat16 has 8 bits of mantissa


def _rounded(a, dtype):
    """The float64 values of ``a`` after rounding to ``dtype``."""
    return tf.cast(tf.constant(np.asarray(a, np.float32)), dtype).numpy().astype(np.float64)


@pytest.fixture(autouse=True)
def on_cpu():
    with tf.device("/CPU:0"):
        yield


@pytest.mark.parametrize("dtype", HALF, ids=lambda d: d.name)
def test_long_sums_accumulate_in_float32(dtype):
    x = tf.cast(tf.fill([1000, 3], 0.1), dtype)
    want = 1000 * _rounded(0.1, dtype)
    for got in (tf.reduce_sum(x, axis=0), tf.reduce_mean(x, axis=0) * 1000.0):
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy().astype(np.float64), [want] * 3, rtol=_ulp_tol(dtype))
    with tf.GradientTape() as tape:  # BiasAddGrad: the bias gradient is a column sum
        tape.watch(x)
        b = tf.cast(tf.zeros([3]), dtype)
        tape.watch(b)
        y = tf.nn.bias_add(x, b)
    gb = tape.gradient(y, b, output_gradients=x)
    np.testing.assert_allclose(gb.numpy().astype(np.float64), [want] * 3, rtol=_ulp_tol(dtype))


@pytest.mark.parametrize("dtype", HALF, ids=lambda d: d.name)
def test_matmul_conv_and_cross_entropy_match_float64_references(dtype):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 300)), rng.standard_normal((300, 7))
    ah, bh = _rounded(a, dtype), _rounded(b, dtype)
    got = tf.matmul(tf.cast(tf.constant(a, tf.float32), dtype), tf.cast(tf.constant(b, tf.float32), dtype))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.numpy().astype(np.float64), ah @ bh, rtol=_ulp_tol(dtype), atol=_ulp_tol(dtype) * 4)

    x, w = rng.standard_normal((2, 6, 6, 8)), rng.standard_normal((3, 3, 8, 4))
    xh, wh = _rounded(x, dtype), _rounded(w, dtype)
    conv = tf.nn.conv2d(tf.cast(tf.constant(x, tf.float32), dtype), tf.cast(tf.constant(w, tf.float32), dtype), 1,
                        "VALID")
    ref = tf.nn.conv2d(tf.constant(xh), tf.constant(wh), 1, "VALID").numpy()
    assert conv.dtype == dtype
    np.testing.assert_allclose(conv.numpy().astype(np.float64), ref, rtol=_ulp_tol(dtype), atol=_ulp_tol(dtype) * 4)

    logits, labels = rng.standard_normal((6, 10)) * 4, np.array([0, 3, 9, 2, 2, 7])
    lh = _rounded(logits, dtype)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, tf.cast(tf.constant(logits, tf.float32), dtype))
    ref = np.log(np.exp(lh).sum(1)) - lh[np.arange(6), labels]
    assert loss.dtype == dtype
    np.testing.assert_allclose(loss.numpy().astype(np.float64), ref, rtol=_ulp_tol(dtype), atol=_ulp_tol(dtype))
    probs = tf.nn.softmax(tf.cast(tf.constant(logits, tf.float32), dtype))
    np.testing.assert_allclose(probs.numpy().astype(np.float64), np.exp(lh) / np.exp(lh).sum(1, keepdims=True),
                               atol=_ulp_tol(dtype))


def test_keras_losses_of_float16_predictions_are_float32():
    y_pred = tf.constant(np.array([[0.2, 0.8], [0.6, 0.4]], np.float16))
    loss = tf.keras.losses.SparseCategoricalCrossentropy()([1, 0], y_pred)
    assert loss.dtype == tf.float32
    p = _rounded([[0.2, 0.8], [0.6, 0.4]], tf.float16)  # log-probabilities renormalised by the softmax xent op
    np.testing.assert_allclose(loss.numpy(), -np.mean(np.log([p[0, 1] / p[0].sum(), p[1, 0] / p[1].sum()])),
                               rtol=1e-6)
    assert tf.keras.losses.MeanSquaredError()(np.zeros((2, 2)), y_pred).dtype == tf.float32


@pytest.fixture
def emulated_gpu(monkeypatch):
    from tfcore.framework.context import context

    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    yield
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
    context.reset_for_tests()


def _layer_step(x, w, bias, labels):
    """A float16 conv + bias + ReLU, max-pool, dense and softmax cross-entropy, with its gradients."""
    with tf.GradientTape() as tape:
        tape.watch([w, bias])
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), bias))
        h = tf.reshape(tf.nn.max_pool2d(h, 2, 2, "VALID"), [x.shape[0], -1])
        logits = tf.matmul(h, tf.ones([h.shape[1], 10], tf.float16) * 0.05)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
    return [loss, logits, *tape.gradient(loss, [w, bias])]


def test_float16_training_ops_on_an_emulated_gpu_match_the_cpu(emulated_gpu):
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((4, 8, 8, 3)), rng.standard_normal((3, 3, 3, 8)) * 0.3, rng.standard_normal(8))
    labels = tf.constant(np.array([1, 4, 9, 0]))
    results = {}
    for device in ("/CPU:0", "/GPU:0"):
        with tf.device(device):
            x, w, bias = (tf.cast(tf.constant(a, tf.float32), tf.float16) for a in args)
            results[device] = _layer_step(x, w, bias, labels)
    for cpu, gpu in zip(results["/CPU:0"], results["/GPU:0"]):
        assert gpu.dtype == tf.float16 and gpu.device.endswith("GPU:0")
        np.testing.assert_allclose(gpu.numpy().astype(np.float64), cpu.numpy().astype(np.float64),
                                   rtol=2e-2, atol=2e-2)
