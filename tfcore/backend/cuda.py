"""The CUDA backend: one object per logical GPU of a real card (docs/architecture.md §4, §5).

``xp = cupy``; arrays come from the logical device's BFC allocator (CuPy's thread-local
allocator), ops run on the logical device's stream (both entered by ``activate()``, see
:mod:`tfcore.backend.activation`: once per op, no allocation), and our
kernels (kernels/*.cu) are launched through :class:`CupyKernelLibrary`. Its sibling
for ``TFCORE_EMULATED_GPUS`` is :class:`tfcore.backend.emulator.backend.EmulatedGPUBackend`;
both implement :class:`tfcore.backend.base.GPUBackend`.
"""

import warnings

from . import activation as _activation
from .activation import Activation
from .base import GPUBackend, PhysicalGPUInfo
from .kernel_library import CupyKernelLibrary


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

        def make(memory_limit_bytes=None, memory_growth=False, logical_index=0, _i=i, _name=name, _cc=cc,
                 _total=int(props["totalGlobalMem"])):
            return CudaBackend(_i, _name, _cc, _total, memory_limit_bytes=memory_limit_bytes,
                               memory_growth=memory_growth, logical_index=logical_index)

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


class CudaBackend(GPUBackend):
    """One logical GPU of a physical CUDA GPU: a memory limit, an allocator, a stream.

    Args:
      device_id: CUDA ordinal of the physical device.
      device_name, compute_capability, total_memory: what the physical device reports.
      memory_limit_bytes: bytes for this logical device (None: 90% of the free memory).
      memory_growth: allocate regions on demand instead of reserving the limit up front.
      logical_index: index of this logical device among those carved from the physical one.
    """

    device_collectives = True

    def __init__(self, device_id, device_name, compute_capability, total_memory, memory_limit_bytes=None,
                 memory_growth=False, logical_index=0):
        import cupy

        from . import allocator as alloc_mod

        super().__init__(device_id, device_name, compute_capability, total_memory, logical_index)
        self.xp = cupy
        with cupy.cuda.Device(self.device_id):
            if memory_limit_bytes is None:
                memory_limit_bytes = default_memory_limit(self.device_id)
            self._stream = cupy.cuda.Stream(non_blocking=True)
        self.kernels = CupyKernelLibrary(self.device_id)
        self.allocator = alloc_mod.BFCAllocator(self._allocator_name("GPU"), alloc_mod.CudaRegionProvider(
            self.device_id), memory_limit_bytes, memory_growth)
        self._base_alloc = alloc_mod.cupy_allocator(self.allocator, self.device_id)
        self.memory_limit_bytes = memory_limit_bytes
        self._activation = Activation(self, cupy)

    # -- stream and allocator (this thread's: a CUDA-graph capture redirects its own thread only) ------
    @property
    def stream(self):
        """The CuPy stream this thread's work on the logical device goes to: the device's stream, or the
        private capture stream while this thread captures a CUDA graph (:mod:`.cuda_graphs`)."""
        rec = _activation.capture_override(self)
        if rec is not None and rec.stream is not None:
            return rec.stream
        return self._stream

    @stream.setter
    def stream(self, value):
        self._stream = value

    @property
    def _cupy_alloc(self):
        """``nbytes -> MemoryPointer`` from the BFC allocator (pinning while this thread captures)."""
        rec = _activation.capture_override(self)
        if rec is not None and rec.allocator is not None:
            return rec.allocator
        return self._base_alloc

    # -- CUDA graphs (the device half; tfcore.function.cuda_graph decides what to capture) ----------
    def begin_graph_capture(self):
        """Start capturing this thread's work on this logical GPU: a ``cuda_graphs.CaptureSession``
        (``end()`` -> graph with ``launch()``/``release()``, ``abort()`` after a failure)."""
        from .cuda_graphs import CaptureSession

        return CaptureSession(self)

    def device_copy(self, dst, src):
        """``dst[...] = src`` on the device, on this thread's stream (captured as a memcpy node when capturing)."""
        from .cuda_graphs import device_copy

        device_copy(self, dst, src)

    # -- scope -------------------------------------------------------------------
    def activate(self):
        """This logical GPU's device, stream and allocator (a no-op when already active on this thread)."""
        return self._activation

    # -- arrays ------------------------------------------------------------------
    def asarray(self, value, dtype=None):
        if _activation.capture_override(self) is not None and not hasattr(value, "__cuda_array_interface__"):
            from .cuda_graphs import CaptureUnsafeError

            raise CaptureUnsafeError(f"host-to-device copy of a {type(value).__name__} on {self!r} during a "
                                     "CUDA-graph capture (the op should be marked host-staging)")
        with self.activate():
            return self.xp.asarray(value, dtype=dtype)

    def to_numpy(self, array):
        return self.xp.asnumpy(array, stream=self.stream)

    def from_other(self, array, src_backend):
        """Copy onto this device: device-to-device on one physical GPU, peer copy across GPUs.

        The copy runs on this device's stream, ordered on both sides by events (no host wait): it starts
        after the work queued on the source's stream (which may still be writing ``array``), and the
        source's stream waits for the copy to finish before running anything queued later. The BFC
        allocator is not stream-aware: once the caller drops ``array``, its memory goes to the next
        allocation on the source device, whose kernels must not overwrite it while the copy still reads.
        """
        if not isinstance(src_backend, CudaBackend):
            return self.asarray(src_backend.to_numpy(array))
        cupy = self.xp
        src_stream = src_backend.stream
        with cupy.cuda.Device(src_backend.device_id):  # an event is recorded on its stream's device
            ready = src_stream.record()
        with self.activate():
            out = cupy.empty(array.shape, array.dtype)
            dst_stream = self.stream
            dst_stream.wait_event(ready)  # the copy waits for the source's pending writes
            if src_backend.device_id == self.device_id:
                out[...] = array  # same physical GPU: a copy in device memory
            else:
                cupy.cuda.runtime.memcpyPeerAsync(out.data.ptr, self.device_id, array.data.ptr,
                                                  src_backend.device_id, array.nbytes, dst_stream.ptr)
            copied = dst_stream.record()
        with cupy.cuda.Device(src_backend.device_id):
            src_stream.wait_event(copied)  # later work on the source (reusing its memory) waits for the copy
        return out

    def copy_into(self, dst, src):
        with self.activate():
            self.xp.copyto(dst, src)

    def synchronize(self):
        self.stream.synchronize()
