"""The CUDA backend: one object per logical GPU (DESIGN.md §4, §5).

Real GPUs: ``xp = cupy``; arrays come from the logical device's BFC allocator
(``cupy.cuda.using_allocator``), ops run on the logical device's stream, and our
kernels (kernels/*.cu) are launched through :class:`CupyKernelLibrary`.

Emulated GPUs (``TFCORE_EMULATED_GPUS=N``): the same class with ``xp = numpy``, the
kernels run by the CPU emulator, and results adopted into allocator-backed host
memory so memory limits, ``get_memory_info`` and OOM behave like a device.
"""

import contextlib
import warnings

import numpy as np

from .base import Backend, PhysicalGPUInfo


def _cupy():
    try:
        import cupy
    except Exception:  # noqa: BLE001 - CuPy missing or broken: no real GPUs
        return None
    return cupy


def cupy_version():
    """CuPy's version, or None when CuPy cannot be imported."""
    cupy = _cupy()
    return None if cupy is None else cupy.__version__


def nccl_module():
    """``cupy.cuda.nccl`` when NCCL can be used, else None (CuPy's import-time warning silenced)."""
    if _cupy() is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from cupy.cuda import nccl
    except Exception:  # noqa: BLE001 - missing libnccl or a broken install: no NCCL
        return None
    return nccl if nccl.available else None


def list_physical_gpus():
    """``PhysicalGPUInfo`` for each CUDA device; ``[]`` (quietly) without CuPy, driver or GPU."""
    cupy = _cupy()
    if cupy is None:
        return []
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver / no device / driver too old
        return []
    gpus = []
    for i in range(count):
        try:
            props = cupy.cuda.runtime.getDeviceProperties(i)
        except Exception:  # noqa: BLE001
            continue
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        cc = (int(props["major"]), int(props["minor"]))

        def make(memory_limit=None, memory_growth=False, logical_index=0, _i=i, _name=name, _cc=cc,
                 _total=int(props["totalGlobalMem"])):
            return CudaBackend(_i, _name, _cc, _total, memory_limit=memory_limit, memory_growth=memory_growth,
                               logical_index=logical_index, emulated=False)

        gpus.append(PhysicalGPUInfo(index=i, device_name=name, compute_capability=cc,
                                    total_memory=int(props["totalGlobalMem"]), emulated=False, make_backend=make))
    return gpus


def default_memory_limit(device_id):
    """A logical GPU without a configured limit gets 90% of the free memory (as TF), leaving room for
    cuBLAS/cuDNN workspaces and the CUDA context. Memory that allocators of a reset context still
    hold counts as free: it goes back as their tensors die, so limits never shrink across resets."""
    import cupy

    from .allocator import retired_reserved_bytes

    free, _ = cupy.cuda.runtime.memGetInfo()
    return int((free + retired_reserved_bytes(device_id)) * 0.9)


class _Activation:
    """Enters a real GPU's device, stream and allocator (one object per ``activate()``)."""

    __slots__ = ("_backend", "_ctxs")

    def __init__(self, backend):
        self._backend = backend

    def __enter__(self):
        b = self._backend
        cupy = b.xp
        ctxs = [cupy.cuda.Device(b.device_id), b.stream, cupy.cuda.using_allocator(b._cupy_alloc)]
        for c in ctxs:
            c.__enter__()
        self._ctxs = ctxs
        return b

    def __exit__(self, *exc):
        for c in reversed(self._ctxs):
            c.__exit__(*exc)
        return False


class CudaBackend(Backend):
    """One logical GPU: a physical CUDA (or emulated) GPU, a memory limit, an allocator, a stream.

    Args:
      device_id: physical device ordinal (CUDA ordinal for real GPUs).
      device_name, compute_capability, total_memory: what the physical device reports.
      memory_limit: bytes for this logical device (None: the whole device).
      memory_growth: allocate regions on demand instead of reserving the limit up front.
      logical_index: index of this logical device among those carved from the physical one.
      emulated: run on the CPU emulator (xp = numpy) instead of CuPy.
    """

    kind = "cuda"
    scoped = True

    def __init__(self, device_id, device_name, compute_capability, total_memory, memory_limit=None,
                 memory_growth=False, logical_index=0, emulated=False):
        from . import allocator as alloc_mod

        self.device_id = int(device_id)
        self.device_name = device_name
        self.compute_capability = tuple(compute_capability)
        self.total_memory = int(total_memory)
        self.logical_index = int(logical_index)
        self.emulated = bool(emulated)
        name = f"{'EmulatedGPU' if emulated else 'GPU'}_{self.device_id}_{self.logical_index}_bfc"
        if self.emulated:
            from .kernel_library import emulator_library

            self.xp = np
            self.kernels = emulator_library()
            limit = memory_limit if memory_limit is not None else self.total_memory
            self.allocator = alloc_mod.BFCAllocator(name, alloc_mod.HostRegionProvider(), limit, memory_growth)
            self.stream = None
            self._null_ctx = contextlib.nullcontext(self)
            self._host_array = alloc_mod.host_array
        else:
            import cupy

            from .kernel_library import CupyKernelLibrary

            self.xp = cupy
            with cupy.cuda.Device(self.device_id):
                if memory_limit is None:
                    memory_limit = default_memory_limit(self.device_id)
                self.stream = cupy.cuda.Stream(non_blocking=True)
            self.kernels = CupyKernelLibrary(self.device_id)
            self.allocator = alloc_mod.BFCAllocator(name, alloc_mod.CudaRegionProvider(self.device_id),
                                                    memory_limit, memory_growth)
            self._cupy_alloc = alloc_mod.cupy_allocator(self.allocator, self.device_id)
        self.memory_limit = memory_limit

    def __repr__(self):
        kind = "emulated" if self.emulated else "cuda"
        return f"<CudaBackend {kind} GPU {self.device_id}.{self.logical_index} {self.device_name}>"

    # -- scope -------------------------------------------------------------------
    def activate(self):
        if self.emulated:
            return self._null_ctx
        return _Activation(self)

    # -- arrays ------------------------------------------------------------------
    def _host_copy(self, value, dtype=None):
        src = np.asarray(value, dtype=dtype)
        out = self._host_array(self.allocator, src.shape, src.dtype)
        if src.size:
            np.copyto(out, src)
        return out

    def asarray(self, value, dtype=None):
        if self.emulated:
            return self._host_copy(value, dtype)
        with self.activate():
            return self.xp.asarray(value, dtype=dtype)

    def to_numpy(self, array):
        if self.emulated:
            return np.asarray(array)
        return self.xp.asnumpy(array, stream=self.stream)

    def adopt(self, array):
        """Emulated GPUs: move a NumPy result into this device's allocator memory."""
        if not self.emulated:
            return array
        if isinstance(array, np.generic):
            array = np.asarray(array)
        base = array
        while isinstance(base, np.ndarray) and base.base is not None:
            base = base.base
        if getattr(base, "allocator", None) is self.allocator:  # already ours (allocator _Block)
            return array
        return self._host_copy(array)

    def from_other(self, array, src_backend):
        """Copy onto this device: device-to-device on one physical GPU, peer copy across GPUs."""
        if self.emulated or getattr(src_backend, "kind", None) != "cuda" or getattr(src_backend, "emulated", True):
            return self.asarray(src_backend.to_numpy(array))
        cupy = self.xp
        with self.activate():
            out = cupy.empty(array.shape, array.dtype)
            if src_backend.device_id == self.device_id:
                src_backend.stream.synchronize()
                out[...] = array  # same physical GPU: a copy in device memory
            else:
                src_backend.stream.synchronize()
                cupy.cuda.runtime.memcpyPeerAsync(out.data.ptr, self.device_id, array.data.ptr,
                                                  src_backend.device_id, array.nbytes, self.stream.ptr)
        return out

    def copy_into(self, dst, src):
        if self.emulated:
            np.copyto(dst, src)
            return
        with self.activate():
            self.xp.copyto(dst, src)

    def synchronize(self):
        if not self.emulated:
            self.stream.synchronize()

    # -- memory ------------------------------------------------------------------
    def memory_info(self):
        s = self.allocator.stats()
        return {"current": s["bytes_in_use"], "peak": s["peak_bytes_in_use"]}

    def reset_memory_stats(self):
        self.allocator.reset_peak()
