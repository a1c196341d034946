"""Backends: the only code that computes with numpy/cupy (docs/architecture.md §1, §4).

``cpu`` is NumPy. Device kind ``cuda`` has two sibling backends over
``base.GPUBackend``: ``cuda.CudaBackend`` (CuPy with our kernels) and
``emulator.backend.EmulatedGPUBackend`` (NumPy, kernels run by the CPU emulator).
This module discovers GPUs (:func:`discover_gpus`) and makes one backend object
per logical device.
"""

import os

from .base import Backend, PhysicalGPUInfo  # noqa: F401


def emulated_gpu_count():
    """``TFCORE_EMULATED_GPUS`` as a count (0 when unset or empty); ValueError naming it otherwise."""
    raw = os.environ.get("TFCORE_EMULATED_GPUS", "").strip()
    if not raw:
        return 0
    try:
        n = int(raw)
    except ValueError:
        n = -1
    if n < 0:
        raise ValueError(f"TFCORE_EMULATED_GPUS must be a non-negative integer, got {raw!r}")
    return n


def discover_gpus():
    """Physical GPUs: N emulated GPUs when ``TFCORE_EMULATED_GPUS=N`` (N > 0), else the real CUDA GPUs.

    Emulated GPUs *replace* real ones (docs/architecture.md §4): asking for N gives exactly N GPUs, all
    emulated, on any machine, so a program (or test) sees the same devices with or without a
    GPU; real GPUs are not probed then. Unset or 0: the GPUs CuPy finds (none without CuPy,
    driver or device). Returns a list of :class:`PhysicalGPUInfo`.
    """
    n_emulated = emulated_gpu_count()
    if n_emulated:
        from .emulator import device as emulated_device

        return emulated_device.list_physical_gpus(n_emulated, first_index=0)
    try:
        from . import cuda
    except ImportError:
        return []
    return list(cuda.list_physical_gpus()) if hasattr(cuda, "list_physical_gpus") else []


def make_cpu_backend():
    from . import host_malloc
    from .cpu import CPUBackend

    host_malloc.tune()  # steady reuse of host memory for NumPy buffers (see host_malloc)
    return CPUBackend()


def make_gpu_backend(info, memory_limit_bytes=None, memory_growth=False, logical_index=0):
    """Backend object for one logical GPU carved from physical GPU ``info``."""
    return info.make_backend(memory_limit_bytes=memory_limit_bytes, memory_growth=memory_growth,
                             logical_index=logical_index)
