"""CUDA-graph capture on a real GPU's logical device, through CuPy (docs/architecture.md §4, §7).

``tfcore.function.cuda_graph`` decides WHAT to capture; this module does the device half, as
PyTorch's ``CUDAGraph`` does, so that a capture can never harm work outside it:

- **A private stream.** The capture runs on a fresh non-blocking stream of the logical device,
  forked from the device's stream (the capture stream waits on an event recorded there) and joined
  back when it ends (the device stream waits on an event recorded on the capture stream). The
  device's own stream never enters capture mode, so other threads' ops on the same logical GPU run
  normally meanwhile, and a failed capture cannot leave it unusable.
- **Thread-local redirection.** Only the capturing thread's work goes to that stream and through the
  pinning allocator: :func:`tfcore.backend.activation.push_capture_override`, read by
  ``CudaBackend.stream`` / ``_cupy_alloc`` and so by every activation on this thread only. Another
  thread's allocations are ordinary ones (never pinned); overlapping captures each restore only
  their own override.
- **The graph owns what it writes.** Every allocation made during the capture, and every cached
  buffer a captured kernel uses (``activation.keep_alive_for_capture``: the reductions' workspace),
  stays referenced by the graph until :meth:`CudaGraph.release`: a replay writes to those addresses,
  so the BFC allocator must never hand them to anyone else.
- **Relaxed capture mode.** ``cudaStreamCaptureModeRelaxed`` (CuPy's default): BFC growth may call
  ``cudaMalloc`` during the capture, which ThreadLocal/Global mode forbid (PyTorch relaxes the mode
  around its capture-time ``cudaMalloc`` for the same reason). Host-to-device staging is kept out of
  captures by the caller (ops marked host-staging run between segments) and refused here:
  ``CudaBackend.asarray`` of host data while this thread captures raises :class:`CaptureUnsafeError`
  (CuPy would stage it through a pinned buffer the graph re-reads after CuPy reused it, and put an
  event recorded inside the capture on its pinned-memory watch list, where ``cudaEventQuery`` never
  reports it done: no pinned staging buffer of the process would be freed again).
- **A failed capture ends cleanly.** CuPy's ``Stream.is_capturing()`` RAISES ``RuntimeError`` when
  the capture was invalidated (``cupy_backends/cuda/api/runtime.pyx``: "the stream was capturing,
  but an error has invalidated the capture sequence"), so :meth:`CaptureSession.abort` treats that
  as capturing and calls ``end_capture()`` (which ends the capture, invalidated or not, and raises
  ``cudaErrorStreamCaptureInvalidated``, ignored here), then drops the stream.

The functions take a ``CudaBackend``; ``cupy`` is ``backend.xp`` (tests pass a stand-in that models
CuPy's and CUDA's capture rules, ``tests/backend/fake_cupy.py``).
"""

from . import activation


class CaptureUnsafeError(RuntimeError):
    """A call that must not happen inside a CUDA-graph capture was made while capturing."""


def _relaxed_mode(cupy):
    rt = cupy.cuda.runtime
    return getattr(rt, "streamCaptureModeRelaxed", 2)


def device_copy(backend, dst, src):
    """Device-to-device copy of ``src`` into ``dst`` on the logical device's current stream for this
    thread (a memcpy node when this thread captures)."""
    if dst.nbytes == 0:
        return
    cupy = backend.xp
    if dst.flags.c_contiguous and src.flags.c_contiguous and dst.nbytes == src.nbytes:
        with cupy.cuda.Device(backend.device_id):
            cupy.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, dst.nbytes,
                                          cupy.cuda.runtime.memcpyDeviceToDevice, backend.stream.ptr)
    else:
        with backend.activate():
            cupy.copyto(dst, src)


class CaptureSession:
    """One capture of this thread's work on ``backend`` (see the module docstring).

    Use: ``s = CaptureSession(backend)``, run the work (ops activate the backend as usual), then
    ``s.end()`` -> :class:`CudaGraph`, or ``s.abort()`` after any failure. ``pinned`` lists what the
    graph keeps alive.
    """

    def __init__(self, backend):
        cupy = backend.xp
        self._b = backend
        self.pinned = []
        self._override = None
        self._stream = None
        base = backend._cupy_alloc  # this thread's allocator for the device before the capture
        pinned = self.pinned

        def alloc(nbytes):
            mem = base(nbytes)
            pinned.append(mem)
            return mem

        with cupy.cuda.Device(backend.device_id):
            main = backend.stream
            stream = cupy.cuda.Stream(non_blocking=True)
            stream.wait_event(main.record())  # fork: the capture starts after the device's queued work
            self._main = main
            self._stream = stream
            self._override = activation.push_capture_override(backend, stream, alloc)
            try:
                stream.begin_capture(_relaxed_mode(cupy))
            except BaseException:
                self._restore()
                raise

    @property
    def stream(self):
        """The private capture stream."""
        return self._stream

    def _restore(self):
        if self._override is not None:
            self.pinned.extend(self._override.keep)
            activation.pop_capture_override(self._override)
            self._override = None

    def end(self):
        """End the capture: the instantiated graph, launched on the logical device's stream. Raises what
        ``end_capture`` raises (e.g. an invalidated capture); call :meth:`abort` then."""
        b = self._b
        with b.xp.cuda.Device(b.device_id):
            graph = self._stream.end_capture()
            self._restore()
            self._main.wait_event(self._stream.record())  # join
        self._stream = None
        return CudaGraph(b, graph, self.pinned)

    def abort(self):
        """End a failed capture; the private stream is dropped and nothing captured is kept."""
        b = self._b
        stream = self._stream
        self._stream = None
        try:
            if stream is not None:
                with b.xp.cuda.Device(b.device_id):
                    try:
                        capturing = stream.is_capturing()
                    except RuntimeError:  # CuPy raises exactly when the capture was invalidated
                        capturing = True
                    if capturing:
                        try:
                            stream.end_capture()  # ends it; an invalidated capture raises here
                        except Exception:  # noqa: BLE001 - abandoning: no graph either way
                            pass
        finally:
            self._restore()
            self.pinned = []  # nothing captured ever ran: the memory can go back


class CudaGraph:
    """An instantiated CUDA graph and everything it reads or writes (kept alive until :meth:`release`)."""

    def __init__(self, backend, graph, pinned):
        self._b = backend
        self._graph = graph
        self.pinned = pinned

    def launch(self):
        """Replay on the logical device's stream (ordered with every other op on it)."""
        b = self._b
        with b.xp.cuda.Device(b.device_id):
            self._graph.launch(stream=b.stream)

    def release(self):
        """Drop the graph and its buffers (a launch still in flight keeps running: the driver defers
        destroying an executing graph; the buffers go back to the allocator, which reuses them only for
        work queued after this point on the same stream)."""
        self._graph = None
        self.pinned = []
