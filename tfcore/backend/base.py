"""The backend interface every device implements (DESIGN.md §4)."""

import contextlib
from dataclasses import dataclass, field


class Backend:
    """One logical device's compute engine.

    Attributes:
      kind: ``'cpu'`` or ``'cuda'``; selects an op's implementation.
      xp: the array module (numpy, or cupy; numpy for emulated GPUs).
      kernels: a ``KernelLibrary`` with ``launch(name, grid, block, args, shared_mem=0)``,
        or None for the CPU.
      scoped: True when op implementations must run inside :meth:`activate` (the
        CUDA device, stream and allocator of this logical device).
      allocator: the logical device's allocator, or None (CPU: NumPy's own).
    """

    kind = "cpu"
    xp = None
    kernels = None
    scoped = False
    allocator = None

    def asarray(self, value, dtype=None):
        """An array on this device holding ``value`` (host data or a NumPy array)."""
        raise NotImplementedError

    def to_numpy(self, array):
        """A host NumPy copy of ``array``."""
        raise NotImplementedError

    def from_other(self, array, src_backend):
        """Copy an array that lives on ``src_backend``'s device onto this one."""
        return self.asarray(src_backend.to_numpy(array))

    def copy_into(self, dst, src):
        """Overwrite ``dst`` in place with ``src`` (same shape and dtype)."""
        self.xp.copyto(dst, src)

    def adopt(self, array):
        """Make an op's result array belong to this device (its allocator's memory).

        Called by ``execute`` for scoped backends only. CuPy arrays already come
        from the allocator (``cupy.cuda.using_allocator``); an emulated GPU copies
        NumPy results into allocator-backed host memory here.
        """
        return array

    def synchronize(self):
        """Block until queued work on this device is done."""

    def activate(self):
        """Context in which array creation and kernels target this logical device."""
        return contextlib.nullcontext()

    def memory_info(self):
        """``{'current': bytes, 'peak': bytes}`` for the device's allocator."""
        raise ValueError("get_memory_info is not supported for this device")

    def reset_memory_stats(self):
        raise ValueError("reset_memory_stats is not supported for this device")

    def release(self):
        """The logical device is gone (its context was reset): give its memory back to the device.

        Free regions go back now, the others as soon as the tensors still using them die, so
        a new context can reserve the memory again (see ``BFCAllocator.retire``).
        """
        retire = getattr(self.allocator, "retire", None)
        if retire is not None:
            retire()


@dataclass
class PhysicalGPUInfo:
    """What a GPU backend module reports about one physical GPU.

    ``make_backend(memory_limit, memory_growth, logical_index)`` builds the backend
    object for one logical device on it.
    """

    index: int
    device_name: str
    compute_capability: tuple
    total_memory: int
    emulated: bool
    make_backend: object = field(repr=False, default=None)
