"""Device fixtures for the seed snippets that configure tf.config / tf.distribute.

Devices initialise once per process, so each such test gets a reset context (before and after).
``fake_gpus(n)`` reuses tests/config's host-memory GPUs (enough for tf.config, placement and
allocators, not for kernels); ``logical_cpus(n)`` splits CPU:0 so MirroredStrategy runs real
replicas on any machine.
"""

import importlib.util
import pathlib

import pytest

import tfcore as tf
from tfcore import backend as _backend
from tfcore.backend import cuda as cuda_backend
from tfcore.framework.context import context

_spec = importlib.util.spec_from_file_location(
    "_config_conftest", pathlib.Path(__file__).parent.parent / "config" / "conftest.py")
_config_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_config_conftest)


@pytest.fixture
def fake_gpus(monkeypatch):
    """``fake_gpus(4)`` -> a freshly reset context whose machine has that many (fake) GPUs."""

    def make(n, total_mb=4096):
        monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
        monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
        monkeypatch.setattr(_backend, "discover_gpus",
                            lambda: [_config_conftest.fake_gpu_info(i, total_mb) for i in range(n)])
        context.reset_for_tests()
        return context

    context.reset_for_tests()
    yield make
    context.reset_for_tests()


@pytest.fixture
def logical_cpus(monkeypatch):
    """``logical_cpus(2)`` -> a freshly reset context with CPU:0 split into that many logical CPUs."""

    def make(n):
        monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
        monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
        monkeypatch.setattr(cuda_backend, "list_physical_gpus", lambda: [])  # CPUs only, on any machine
        context.reset_for_tests()
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)
        return context

    context.reset_for_tests()
    yield make
    context.reset_for_tests()
