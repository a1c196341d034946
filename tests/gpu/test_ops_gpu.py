"""The op-info table's samples (tests/opinfo/table.py) on a real CUDA GPU (CuPy arrays, our kernels).

Every sample runs on ``/GPU:0`` and must give the CPU's values and gradients, with outputs
and gradients on the GPU. tests/opinfo/test_devices.py runs the same samples on an
emulated GPU in strict CuPy mode; this file is the proof on the real thing.
Skipped (tests/gpu/conftest.py) where CuPy finds no GPU.
"""

import numpy as np
import pytest

import tfcore as tf
from tests.opinfo import table  # noqa: F401  (fills the table)
from tests.opinfo.core import RecordingKernels, all_samples, assert_kernels_launched, assert_same, run_sample

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"

GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"


pytestmark = pytest.mark.usefixtures("real_gpu0")  # tests/gpu/conftest.py: skip unless GPU:0 is real


SAMPLES = all_samples()


@pytest.mark.parametrize("c", SAMPLES, ids=[f"{c.op or 'composite'}:{c.id}" for c in SAMPLES])
def test_op_on_real_gpu_matches_cpu(c, real_gpu0, monkeypatch):
    want, _, want_grads = run_sample(c, "/CPU:0")
    kernels = RecordingKernels(real_gpu0.backend.kernels)
    monkeypatch.setattr(real_gpu0.backend, "kernels", kernels)
    got, devices, grads = run_sample(c, "/GPU:0")
    assert_kernels_launched(c, kernels.names)
    expected = CPU0 if c.host else GPU0
    assert devices == [expected] * len(devices), f"{c.id}: outputs or gradients on {devices}"
    assert_same(c, got, want, "output")
    assert_same(c, grads, want_grads, "gradient")


def test_results_are_cupy_arrays(real_gpu0):
    import cupy

    with tf.device("/GPU:0"):
        y = tf.nn.softmax(tf.constant(np.ones((2, 3), np.float32)))
    assert isinstance(y._array, cupy.ndarray)
    assert y._array.device.id == real_gpu0.backend.device_id


def test_hot_ops_do_not_synchronise_with_the_host():
    """conv / pool / matmul / softmax cross-entropy forward and backward with host syncs forbidden."""
    import cupyx

    x = np.random.default_rng(0).standard_normal((2, 5, 5, 3)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((3, 3, 3, 4)).astype(np.float32)
    with tf.device("/GPU:0"):
        xt, wt, ones = tf.constant(x), tf.constant(w), tf.ones([16, 3])
        with cupyx.allow_synchronize(False):
            with tf.GradientTape() as tape:
                tape.watch([xt, wt])
                y = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(xt, wt, 1, "SAME")), 2, 2, "VALID")
                logits = tf.matmul(tf.reshape(y, [2, -1]), ones)
                loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(logits), logits))
            gx, gw = tape.gradient(loss, [xt, wt])
    assert gx.shape == xt.shape and gw.shape == wt.shape
    assert np.isfinite(gx.numpy()).all() and np.isfinite(gw.numpy()).all()
