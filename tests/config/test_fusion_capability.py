"""tf.function(jit_compile=True) decides how to fuse element-wise chains from the device's backend capability
(``Backend.compiles_elementwise``), not from its kind: a GPU backend that cannot compile generated kernels (the
host-memory fake GPUs of conftest.py) runs the chain unfused, with the same values."""

import numpy as np

import tfcore as tf


def _chain(x, y):
    return tf.tanh(x * 2.0 + y) - x


def test_a_gpu_that_compiles_no_elementwise_kernels_runs_chains_unfused(runtime):
    runtime(n_gpus=1)
    gpu = tf.config.list_logical_devices("GPU")[0].name
    rng = np.random.default_rng(0)
    with tf.device(gpu):
        x, y = tf.constant(rng.random((3, 4), np.float32)), tf.constant(rng.random((3, 4), np.float32))
        want = _chain(x, y).numpy()
        fused = tf.function(_chain, jit_compile=True)
        got = fused(x, y)
        assert got.device.endswith("GPU:0")
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
        cf = fused.get_concrete_function(x, y)
        cf(x, y)
    assert cf._fused_plan.stats["fused"] == 0


def test_capabilities_of_the_backends():
    from tfcore.backend.base import Backend, GPUBackend
    from tfcore.backend.cpu import CPUBackend
    from tfcore.backend.emulator.backend import EmulatedGPUBackend

    assert not CPUBackend.compiles_elementwise and CPUBackend.host_memory
    assert GPUBackend.compiles_elementwise and not GPUBackend.host_memory
    assert EmulatedGPUBackend.compiles_elementwise and EmulatedGPUBackend.host_memory
    assert not Backend.compiles_elementwise
