"""The backend interface every device implements (docs/architecture.md §4)."""

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
      device_collectives: True when all-reduce can run on the device itself (NCCL across
        cards, one kernel across the logical GPUs of one card); False: through the host.
      host_memory: True when arrays are host memory, so reading their values (a finiteness check
        choosing a faster formula) costs no device synchronisation; False on real GPUs.
      compiles_elementwise: True when :meth:`compile_elementwise` turns generated CUDA C into a
        kernel, so ``tf.function(jit_compile=True)`` fuses element-wise chains into one generated
        kernel; False: chains run as the ops' own kernels back to back (unscoped backends) or unfused.
    """

    kind = "cpu"
    xp = None
    kernels = None
    scoped = False
    allocator = None
    device_collectives = False  # can run NCCL / on-device collectives (backend.collectives)
    host_memory = True
    compiles_elementwise = False

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
        from the allocator (CuPy's thread-local allocator, set by ``activate``); an emulated GPU copies
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


class GPUBackend(Backend):
    """What every logical GPU shares, real (``cuda.CudaBackend``) or emulated
    (``emulator.backend.EmulatedGPUBackend``): its identity, memory limit and allocator.

    Args:
      device_id: physical device ordinal.
      device_name, compute_capability, total_memory: what the physical device reports.
      logical_index: index of this logical device among those carved from the physical one.
    """

    kind = "cuda"
    scoped = True
    host_memory = False
    compiles_elementwise = True
    emulated = False  # descriptive (tests, ``tfcore info``); behaviour lives in the subclasses
    memory_limit_bytes = None

    def __init__(self, device_id, device_name, compute_capability, total_memory, logical_index=0):
        self.device_id = int(device_id)
        self.device_name = device_name
        self.compute_capability = tuple(compute_capability)
        self.total_memory = int(total_memory)
        self.logical_index = int(logical_index)

    def _allocator_name(self, prefix):
        return f"{prefix}_{self.device_id}_{self.logical_index}_bfc"

    def __repr__(self):
        return f"<{type(self).__name__} GPU {self.device_id}.{self.logical_index} {self.device_name}>"

    def memory_info(self):
        s = self.allocator.stats()
        return {"current": s["bytes_in_use"], "peak": s["peak_bytes_in_use"]}

    def reset_memory_stats(self):
        self.allocator.reset_peak()

    def compile_elementwise(self, source, name):
        """``launch(grid, block, args)`` for kernel ``name`` of run-time generated CUDA C (tf.function's
        fused element-wise chains): NVRTC and a cubin on a real GPU, g++ through the emulator on an
        emulated one. Compiled once per source; callers compile when they build a plan, never inside a
        launch (so never under a CUDA-graph capture)."""
        return self.kernels.compile_source(source, name)


@dataclass
class PhysicalGPUInfo:
    """What a GPU backend module reports about one physical GPU.

    ``make_backend(memory_limit_bytes, memory_growth, logical_index)`` builds the backend
    object for one logical device on it.
    """

    index: int
    device_name: str
    compute_capability: tuple
    total_memory: int
    emulated: bool
    make_backend: object = field(repr=False, default=None)
