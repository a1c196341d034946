"""Fixtures giving a test its own device configuration (devices initialise once per process)."""

import pytest

import tfcore as tf
from tfcore.backend import cuda as cuda_backend
from tfcore.framework.context import context


def _configure(monkeypatch, n_cpus=1, emulated_gpus=0, gpu_split=1, gpu_memory_mb=256):
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", str(emulated_gpus))
    monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
    if not emulated_gpus:  # exactly the devices asked for, even on a machine with real GPUs
        monkeypatch.setattr(cuda_backend, "list_physical_gpus", lambda: [])
    context.reset_for_tests()
    cpu = tf.config.list_physical_devices("CPU")[0]
    if n_cpus > 1:
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n_cpus)
    for gpu in tf.config.list_physical_devices("GPU"):
        if gpu_split > 1:
            tf.config.set_logical_device_configuration(
                gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=gpu_memory_mb)] * gpu_split)
    context.ensure_initialized()
    return context


@pytest.fixture
def devices(monkeypatch):
    """Call ``devices(n_cpus=4)`` or ``devices(emulated_gpus=1, gpu_split=2)``; restored afterwards.

    The machine then has exactly these devices: real GPUs are hidden (and emulated ones replace them).
    """
    yield lambda **kw: _configure(monkeypatch, **kw)
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
    context.reset_for_tests()
