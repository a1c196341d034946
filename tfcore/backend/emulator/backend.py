"""The emulated-GPU backend: a logical GPU whose arrays are host memory and whose kernels run
on the CPU emulator (``TFCORE_EMULATED_GPUS=N``; docs/architecture.md §4).

Sibling of :class:`tfcore.backend.cuda.CudaBackend` over :class:`tfcore.backend.base.GPUBackend`:
``xp = numpy``, kernels from the emulator library, and op results adopted into this device's
BFC allocator (host regions) so memory limits, ``get_memory_info`` and OOM behave like a device.
"""

import contextlib

import numpy as np

from .. import allocator as alloc_mod
from ..base import GPUBackend
from ..kernel_library import emulator_library


class EmulatedGPUBackend(GPUBackend):
    """One logical GPU of an emulated card.

    Args:
      device_id: index of the emulated physical GPU.
      device_name, compute_capability, total_memory: what the emulated card reports.
      memory_limit_bytes: bytes for this logical device (None: the whole card).
      memory_growth: allocate regions on demand instead of reserving the limit up front.
      logical_index: index of this logical device among those carved from the card.
    """

    emulated = True
    xp = np
    host_memory = True  # NumPy arrays in the allocator's host regions
    stream = None

    def __init__(self, device_id, device_name, compute_capability, total_memory, memory_limit_bytes=None,
                 memory_growth=False, logical_index=0):
        super().__init__(device_id, device_name, compute_capability, total_memory, logical_index)
        self.xp = np  # per instance, like CudaBackend's cupy (tests swap it for a strict CuPy stand-in)
        self.kernels = emulator_library()
        self.memory_limit_bytes = memory_limit_bytes if memory_limit_bytes is not None else self.total_memory
        self.allocator = alloc_mod.BFCAllocator(self._allocator_name("EmulatedGPU"), alloc_mod.HostRegionProvider(),
                                                self.memory_limit_bytes, memory_growth)
        self._null_ctx = contextlib.nullcontext(self)

    # -- scope -------------------------------------------------------------------
    def activate(self):
        return self._null_ctx

    # -- arrays ------------------------------------------------------------------
    def _host_copy(self, value, dtype=None):
        src = np.asarray(value, dtype=dtype)
        out = alloc_mod.host_array(self.allocator, src.shape, src.dtype)
        if src.size:
            np.copyto(out, src)
        return out

    def asarray(self, value, dtype=None):
        return self._host_copy(value, dtype)

    def to_numpy(self, array):
        return np.asarray(array)

    def adopt(self, array):
        """Move a NumPy result into this device's allocator memory (unless it already lives there)."""
        if isinstance(array, np.generic):
            array = np.asarray(array)
        base = array
        while isinstance(base, np.ndarray) and base.base is not None:
            base = base.base
        if getattr(base, "allocator", None) is self.allocator:  # already ours (allocator _Block)
            return array
        return self._host_copy(array)

    def from_other(self, array, src_backend):
        return self.asarray(src_backend.to_numpy(array))

    def copy_into(self, dst, src):
        np.copyto(dst, src)
