"""Emulated GPUs: ``TFCORE_EMULATED_GPUS=N`` physical GPUs backed by the CPU emulator.

Each one is a full device for tf.config: name "Emulated GPU", compute capability 8.0,
``TFCORE_EMULATED_GPU_MEMORY_MB`` MiB of memory (default 2048) managed by a BFC allocator
over host memory, logical splitting; its backend is :class:`.backend.EmulatedGPUBackend`
(``xp = numpy``, the emulator kernel library), a sibling of the real CUDA backend.
"""

import os

from ..base import PhysicalGPUInfo
from .backend import EmulatedGPUBackend

DEVICE_NAME = "Emulated GPU"
COMPUTE_CAPABILITY = (8, 0)


def memory_bytes():
    return int(float(os.environ.get("TFCORE_EMULATED_GPU_MEMORY_MB", "2048") or 2048) * (1 << 20))


def list_physical_gpus(n, first_index=0):
    """``PhysicalGPUInfo`` for ``n`` emulated GPUs numbered from ``first_index``."""
    total = memory_bytes()
    gpus = []
    for k in range(int(n)):
        index = first_index + k

        def make(memory_limit_bytes=None, memory_growth=False, logical_index=0, _index=index):
            return EmulatedGPUBackend(_index, DEVICE_NAME, COMPUTE_CAPABILITY, total,
                                      memory_limit_bytes=memory_limit_bytes, memory_growth=memory_growth,
                                      logical_index=logical_index)

        gpus.append(PhysicalGPUInfo(index=index, device_name=DEVICE_NAME, compute_capability=COMPUTE_CAPABILITY,
                                    total_memory=total, emulated=True, make_backend=make))
    return gpus
