"""Fixtures giving a config test its own runtime context, with optional simulated GPUs.

Devices initialise once per process, so each test gets a reset context (before
and after). ``fake_gpus(n)`` installs ``n`` host-memory GPUs: a minimal backend of
kind ``'cuda'`` (NumPy arrays living in the logical device's BFC allocator), so
tf.config, allocators and placement are tested without waiting for real or
emulated GPUs. Tests through the real emulated GPUs run in subprocesses.
"""

import numpy as np
import pytest

from tfcore import backend as _backend
from tfcore.backend.allocator import BFCAllocator, HostRegionProvider, host_array
from tfcore.backend.base import Backend, PhysicalGPUInfo
from tfcore.framework.context import context

MiB = 1 << 20


class HostMemoryGPUBackend(Backend):
    """One logical GPU whose arrays are NumPy arrays in its allocator's memory."""

    kind = "cuda"
    xp = np
    scoped = True

    def __init__(self, allocator):
        self.allocator = allocator

    def asarray(self, value, dtype=None):
        a = np.asarray(value, dtype=dtype)
        out = host_array(self.allocator, a.shape, a.dtype)
        np.copyto(out, a)
        return out

    def to_numpy(self, array):
        return np.asarray(array)

    def from_other(self, array, src_backend):
        return self.asarray(src_backend.to_numpy(array))

    def adopt(self, array):
        return self.asarray(array)


def fake_gpu_info(index, total_mb):
    def make_backend(memory_limit_bytes=None, memory_growth=False, logical_index=0):
        limit = memory_limit_bytes if memory_limit_bytes is not None else total_mb * MiB
        name = f"GPU{index}.{logical_index}_bfc"
        return HostMemoryGPUBackend(BFCAllocator(name, HostRegionProvider(), limit, memory_growth))

    return PhysicalGPUInfo(index, "Fake Host GPU", (8, 6), total_mb * MiB, True, make_backend)


@pytest.fixture
def runtime(monkeypatch):
    """``runtime(n_gpus=2, total_mb=64)`` -> a freshly reset context with that many fake GPUs."""

    def make(n_gpus=0, total_mb=64):
        monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
        monkeypatch.delenv("TF_FORCE_GPU_ALLOW_GROWTH", raising=False)
        monkeypatch.setattr(_backend, "discover_gpus", lambda: [fake_gpu_info(i, total_mb) for i in range(n_gpus)])
        context.reset_for_tests()
        return context

    context.reset_for_tests()
    yield make
    context.reset_for_tests()
