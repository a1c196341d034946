"""Shared test helpers: finite-difference gradient checks and GPU/emulator markers.

The session runs with memory growth (``TF_FORCE_GPU_ALLOW_GROWTH=true``, inherited by the
subprocesses tests start): on a real GPU, TF's default of reserving ~90% of the card at the first
tensor would leave nothing for the fresh processes that test tf.config. Fixtures that test the
configured growth behaviour (tests/config, tests/distribute, tests/seeds) clear it for their test.

It also runs with TF32 off (``NVIDIA_TF32_OVERRIDE=0``, inherited by subprocesses), as TensorFlow's own
tests compare float32 results: GPU float32 matmuls then match float64 references and the CPU to float32
tolerance on real and emulated sm_80+ GPUs alike. Tests of the TF32 path remove the variable
(``tf32_allowed`` fixture).
"""

import os

os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
os.environ.setdefault("NVIDIA_TF32_OVERRIDE", "0")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tfcore as tf  # noqa: E402


def numeric_gradient(f, x, eps=1e-6):
    """Central finite differences of scalar-valued ``f`` (NumPy float64 in, float out)."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        old = x[i]
        x[i] = old + eps
        fp = f(x)
        x[i] = old - eps
        fm = f(x)
        x[i] = old
        g[i] = (fp - fm) / (2 * eps)
    return g


def check_gradients(fn, *inputs, rtol=1e-5, atol=1e-6, eps=1e-6):
    """Compare tape gradients of ``sum(fn(*inputs) * w)`` against finite differences.

    ``inputs`` are float64 NumPy arrays; a fixed random weighting ``w`` makes every
    output element matter. ``eps`` is the finite-difference step (raise it for ops
    that compute in float32 internally).
    """
    ts = [tf.constant(np.asarray(x, np.float64)) for x in inputs]
    with tf.GradientTape() as tape:
        for t in ts:
            tape.watch(t)
        out = fn(*ts)
        w = tf.constant(np.random.default_rng(0).standard_normal(out.shape.as_list()))
        loss = tf.reduce_sum(out * w)
    grads = tape.gradient(loss, ts)
    for k, x in enumerate(inputs):
        def f(v, k=k):
            args = [tf.constant(np.asarray(a, np.float64)) for a in inputs]
            args[k] = tf.constant(v)
            o = fn(*args)
            return float(np.sum(o.numpy() * w.numpy()))

        expected = numeric_gradient(f, x, eps)
        got = grads[k]
        assert got is not None, f"no gradient for input {k}"
        np.testing.assert_allclose(got.numpy(), expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {k}")


@pytest.fixture(autouse=True)
def _fresh_keras_names():
    """Every test starts with Keras's name counters at zero (layers ``dense``, optimizers ``adam``), as Keras 3's
    own TestCase.setUp does with ``clear_session``: names do not depend on which tests ran before."""
    tf.keras.backend.reset_uids()


@pytest.fixture
def on_cpu():
    """Pin the test to /CPU:0: for tests of CPU behaviour (CPU kernels and fast paths, TF's CPU-only
    errors), which must not depend on which device is the default (a GPU when there is one)."""
    with tf.device("/CPU:0"):
        yield


@pytest.fixture
def tf32_allowed(monkeypatch):
    """Let TF32 run (the session sets NVIDIA_TF32_OVERRIDE=0): for tests of the TF32 path."""
    monkeypatch.delenv("NVIDIA_TF32_OVERRIDE", raising=False)


@pytest.fixture
def gradcheck():
    return check_gradients


@pytest.fixture
def two_cpus(monkeypatch):
    """Two logical CPUs (for MirroredStrategy over /cpu:0 and /cpu:1), the context reset around the test."""
    from tfcore.framework.context import context

    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
    context.reset_for_tests()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    yield
    context.reset_for_tests()


class _GradientSpy:
    """Wraps one op's gradient function and counts its calls."""

    def __init__(self, op):
        self.calls = 0
        self._grad = op.grad

    def __call__(self, call, *dys):
        self.calls += 1
        return self._grad(call, *dys)


@pytest.fixture
def gradient_spy(monkeypatch):
    """``gradient_spy(op_name)``: that op's gradient function wrapped to count its calls (restored after)."""
    from tfcore.ops.registry import REGISTRY

    def spy(name):
        op = REGISTRY[name]
        wrapped = _GradientSpy(op)
        monkeypatch.setattr(op, "grad", wrapped)
        return wrapped

    return spy
