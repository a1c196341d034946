"""tf.function's element-wise fusion on a real GPU: the generated kernel compiles with NVRTC through the
backend (``compile_elementwise``) and gives what the unfused ops give."""

import numpy as np
import pytest

import tfcore as tf


@pytest.fixture(autouse=True)
def _on_gpu(real_gpu0):
    with tf.device("/GPU:0"):
        yield


@pytest.mark.parametrize("dt,rtol", [(np.float32, 1e-6), (np.float64, 1e-13)])
def test_a_fused_chain_runs_as_one_generated_kernel_and_matches_the_eager_ops(dt, rtol):
    def f(x, y):
        h = tf.nn.relu(x * y + 1.0) - x
        return tf.tanh(h) * tf.sigmoid(h)

    rng = np.random.default_rng(0)
    x, y = (tf.constant(rng.standard_normal((257, 1031)).astype(dt)) for _ in range(2))
    want = f(x, y).numpy()
    fn = tf.function(f, jit_compile=True)
    fn(x, y)
    got = fn(x, y)
    assert got.device.endswith("GPU:0")
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=rtol)
    plan = fn.get_concrete_function(x, y)._fused_plan
    assert [step[1].__name__ for step in plan.steps if step[0] == 3] == ["fused_Mul+AddV2+Relu+Sub",
                                                                         "fused_Sigmoid+Mul"]
