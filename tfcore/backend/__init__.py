"""Backends: the only code that computes with numpy/cupy (DESIGN.md §1, §4).

``cpu`` is NumPy. Device kind ``cuda`` has two sibling backends over
``base.GPUBackend``: ``cuda.CudaBackend`` (CuPy with our kernels) and
``emulator.backend.EmulatedGPUBackend`` (NumPy, kernels run by the CPU emulator).
This module discovers GPUs (:func:`discover_gpus`) and makes one backend object
per logical device.
"""

import os

from .base import Backend, PhysicalGPUInfo  # noqa: F401


def discover_gpus():
    """Physical GPUs: real CUDA GPUs (when CuPy finds any), else emulated ones.

    ``TFCORE_EMULATED_GPUS=N`` adds N emulated GPUs (DESIGN.md §4). Returns a list
    of :class:`PhysicalGPUInfo`.
    """
    gpus = []
    try:
        from . import cuda
    except ImportError:
        cuda = None
    if cuda is not None and hasattr(cuda, "list_physical_gpus"):
        gpus.extend(cuda.list_physical_gpus())
    n_emulated = int(os.environ.get("TFCORE_EMULATED_GPUS", "0") or 0)
    if n_emulated:
        from .emulator import device as emulated_device

        gpus.extend(emulated_device.list_physical_gpus(n_emulated, first_index=len(gpus)))
    return gpus


def make_cpu_backend():
    from .cpu import CPUBackend

    return CPUBackend()


def make_gpu_backend(info, memory_limit_bytes=None, memory_growth=False, logical_index=0):
    """Backend object for one logical GPU carved from physical GPU ``info``."""
    return info.make_backend(memory_limit_bytes=memory_limit_bytes, memory_growth=memory_growth,
                             logical_index=logical_index)
