"""Softmax cross-entropy and log-softmax on large logits (|logits| ~ 1e3 - 1e4), where exp() of
every logit but the row's maximum underflows: the kernels (kernels/softmax.cu on the emulator) and
the gradients a GradientTape takes through them on an emulated GPU, against float64 references.
Rows where one logit dominates by ~1e4 have loss 0 (label = the dominant class) or ~1e4 (any other
label) and one-hot-like gradients."""

import numpy as np
import pytest
from kernel_helpers import tol

import tfcore as tf
from tfcore.backend import cuda as cuda_backend
from tfcore.framework.context import context
from tfcore.ops.cuda_kernels import softmax as sm
from tfcore.selftest.references import softmax_ref, sparse_xent_ref

pytestmark = pytest.mark.emulator


def _logits(rows, classes, scale, dtype, seed=0):
    """Uniform in [-scale, scale]; row 0: class 3 dominates by 2 * scale, row 1: two classes tie at the top,
    row 2: all equal (large), the rest random. Labels: row 0 hits the dominant class, row 1 misses it."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-scale, scale, (rows, classes))
    x[0] = -scale
    x[0, 3] = scale
    x[1] = -scale
    x[1, 1] = x[1, 2] = scale
    x[2] = scale
    labels = rng.integers(0, classes, rows).astype(np.int64)
    labels[0], labels[1] = 3, 0
    return x.astype(dtype), labels


def _xent_tol(dtype):
    """Losses / log-probabilities up to ~2 * scale: a few ulps of the result's type, relative."""
    return (1e-6, 1e-4) if dtype == np.float32 else (1e-3, 1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("scale", [1e3, 1e4])
@pytest.mark.parametrize("rows, classes", [(6, 10), (5, 300)])
def test_sparse_xent_large_logits(kb, dtype, scale, rows, classes):
    x, labels = _logits(rows, classes, scale, dtype)
    loss, grad = sm.sparse_softmax_xent(kb, x, labels)
    ref_loss, ref_grad = sparse_xent_ref(x, labels)
    assert np.isfinite(ref_loss).all() and np.isfinite(loss.astype(np.float64)).all()
    np.testing.assert_allclose(loss.astype(np.float64), ref_loss.astype(np.float64), *_xent_tol(dtype))
    np.testing.assert_allclose(grad.astype(np.float64), ref_grad.astype(np.float64), *tol(dtype))
    # the dominant rows exactly: loss 0 and zero gradient when the label is the dominant class ...
    assert loss[0] == 0 and not grad[0].any()
    # ... a loss of 2 * scale (+ log 2 for the tie) and -1 / +1/2 gradients when it is not
    np.testing.assert_allclose(float(loss[1]), float(x[1, 1]) - float(x[1, 0]) + np.log(2), rtol=1e-3)
    assert grad[1, 0] == -1 and grad[1, 1] == grad[1, 2] == 0.5
    np.testing.assert_allclose(grad[2].astype(np.float64), 1.0 / classes - (np.arange(classes) == labels[2]),
                               *tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("scale", [1e3, 1e4])
@pytest.mark.parametrize("shape", [(6, 40), (3, 1500)])  # warp rows and block rows
def test_log_softmax_large_logits(kb, dtype, scale, shape):
    x, _ = _logits(*shape, scale, dtype)
    y = sm.softmax_last_axis(kb, x, log=True)
    ref = softmax_ref(x, log=True).astype(np.float64)
    assert np.isfinite(ref).all()
    np.testing.assert_allclose(y.astype(np.float64), ref, *_xent_tol(dtype))
    assert y[0, 3] == 0 and y[2, 0] == -np.float32(np.log(shape[1])).astype(dtype)
    p = sm.softmax_last_axis(kb, x)
    np.testing.assert_allclose(p.astype(np.float64), softmax_ref(x).astype(np.float64), *tol(dtype))


# -- gradients through the tape on an emulated GPU -------------------------------------------------

@pytest.fixture
def emulated_gpu(monkeypatch):
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "1")
    monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
    monkeypatch.setattr(cuda_backend, "list_physical_gpus", lambda: [])
    context.reset_for_tests()
    context.ensure_initialized()
    gpu = tf.config.list_logical_devices("GPU")[0]
    yield gpu.name
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
    context.reset_for_tests()


def _weights(shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("scale", [1e3, 1e4])
def test_sparse_xent_gradient_on_emulated_gpu(emulated_gpu, scale):
    x, labels = _logits(6, 50, scale, np.float32)
    w = _weights(6)
    with tf.device(emulated_gpu):
        logits = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(logits)
            loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(labels), logits=logits)
            total = tf.reduce_sum(loss * tf.constant(w.astype(np.float32)))
        g = tape.gradient(total, logits)
    assert "GPU" in g.device
    ref_loss, ref_grad = sparse_xent_ref(x.astype(np.float64), labels)
    np.testing.assert_allclose(loss.numpy(), ref_loss, *_xent_tol(np.float32))
    np.testing.assert_allclose(g.numpy(), ref_grad * w[:, None], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("scale", [1e3, 1e4])
@pytest.mark.parametrize("classes", [40, 1500])
def test_log_softmax_gradient_on_emulated_gpu(emulated_gpu, scale, classes):
    x, _ = _logits(4, classes, scale, np.float32)
    w = _weights((4, classes))
    with tf.device(emulated_gpu):
        logits = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(logits)
            y = tf.nn.log_softmax(logits)
            total = tf.reduce_sum(y * tf.constant(w.astype(np.float32)))
        g = tape.gradient(total, logits)
    assert "GPU" in g.device
    x64 = x.astype(np.float64)
    ref_y = softmax_ref(x64, log=True)
    ref_g = w - np.exp(ref_y) * w.sum(-1, keepdims=True)     # d/dx sum(w * log_softmax(x))
    np.testing.assert_allclose(y.numpy(), ref_y, *_xent_tol(np.float32))
    np.testing.assert_allclose(g.numpy(), ref_g, rtol=1e-5, atol=1e-4 * np.sqrt(classes))
