"""Capture backends: the device-specific half of CUDA-graph replay (``cuda_graph`` is the other half).

``cuda_graph.GraphRunner`` decides WHAT to capture (which plan steps, which buffers) and owns the
buffers; a capture backend does what depends on the device:

- ``begin(backend)`` starts a capture on the logical device and returns a session. The runner
  executes the segment's steps normally (``executor.run_steps``) and calls ``session.after_step``
  after each; ``session.copy(dst, src)`` adds an in-graph device copy; ``session.end()`` returns a
  graph with ``launch()`` and ``release()``; ``session.abort()`` ends a failed capture cleanly.
- ``copy(backend, dst, src)`` (outside any graph: new input values into the captured buffers) and
  ``clone(backend, tensor)`` (a fresh tensor with a buffer's current value: outputs leave the graph's
  buffers this way, because the next replay overwrites them).

Two implementations:

- :class:`CupyStreamCapture` (real CUDA GPUs, ``CudaBackend``): CuPy stream capture on the logical
  device's stream (``Stream.begin_capture`` / ``end_capture`` -> ``cupy.cuda.graph.Graph``,
  ``Graph.launch(stream)``). Every allocation made during the capture is pinned (kept referenced)
  for the graph's lifetime: the graph writes to those addresses on every replay, so the BFC
  allocator must never hand them to anyone else.
- :class:`RecordingCapture` (any backend: CPU, emulated GPUs): a stand-in that records each op step
  with the tensors it read and wrote and, on ``launch``, runs the same ops again and copies their
  results into those same (pinned) tensors. It saves no time; it exists so the runner's mechanics
  (buffers, copies in and out, variables, fallbacks) are tested without a GPU. It is only used when
  selected with :func:`use` (tests).
"""

import contextlib
import threading

import numpy as np

from ..framework import recording
from ..framework.tensor import Tensor

_selected = threading.local()


class CaptureBackend:
    """Interface; see the module docstring."""

    name = "none"

    def supports(self, backend):
        """True when this capture backend can capture work on logical device ``backend``."""
        return False

    def begin(self, backend):
        raise NotImplementedError

    def copy(self, backend, dst, src):
        raise NotImplementedError

    def clone(self, backend, tensor):
        raise NotImplementedError


# -- real CUDA: CuPy stream capture -----------------------------------------------------------------
def _cuda_copy(backend, dst, src):
    """Device-to-device copy on the logical device's stream (a memcpy node when captured)."""
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


class CupyStreamCapture(CaptureBackend):
    """CUDA graphs through CuPy stream capture (CuPy 13/14; real GPUs only)."""

    name = "cuda"

    def supports(self, backend):
        return (backend.kind == "cuda" and not getattr(backend, "emulated", False)
                and getattr(backend, "stream", None) is not None and hasattr(backend, "_cupy_alloc"))

    def begin(self, backend):
        return _CupySession(backend)

    def copy(self, backend, dst, src):
        _cuda_copy(backend, dst, src)

    def clone(self, backend, tensor):
        a = tensor._array
        with backend.activate():
            out = backend.xp.empty(a.shape, a.dtype)
        _cuda_copy(backend, out, a)
        return Tensor(out, tensor._dtype, tensor._device)


class _CupySession:
    """One stream capture. Allocations made meanwhile go through a wrapper of the device's allocator
    that keeps every pointer (pinned until the graph is released). Capture mode: thread-local (an
    unsafe call of this thread, e.g. a synchronous copy, fails the capture; other threads unaffected)."""

    def __init__(self, backend):
        cupy = backend.xp
        self._b = backend
        self._pinned = []
        base = backend._cupy_alloc
        pinned = self._pinned

        def alloc(nbytes):
            mem = base(nbytes)
            pinned.append(mem)
            return mem

        self._base_alloc = base
        backend._cupy_alloc = alloc  # read by every backend.activate(): ops allocate through it
        mode = getattr(cupy.cuda.runtime, "streamCaptureModeThreadLocal", None)
        try:
            with cupy.cuda.Device(backend.device_id):
                backend.stream.begin_capture(mode)
        except BaseException:
            backend._cupy_alloc = base
            raise

    def after_step(self, step, env):
        """Nothing to do: the stream records the kernels the step launched."""

    def copy(self, dst, src):
        _cuda_copy(self._b, dst, src)

    def end(self):
        b = self._b
        try:
            with b.xp.cuda.Device(b.device_id):
                graph = b.stream.end_capture()
        finally:
            b._cupy_alloc = self._base_alloc
        return _CupyGraph(b, graph, self._pinned)

    def abort(self):
        b = self._b
        try:
            with b.xp.cuda.Device(b.device_id):
                if b.stream.is_capturing():
                    b.stream.end_capture()  # an invalidated capture raises here; the stream is usable again
        except Exception:  # noqa: BLE001 - abandoning: the graph is discarded either way
            pass
        finally:
            b._cupy_alloc = self._base_alloc
            self._pinned = []  # nothing captured ever ran: the memory can go back


class _CupyGraph:
    """An instantiated CUDA graph and the memory it writes (pinned until :meth:`release`)."""

    def __init__(self, backend, graph, pinned):
        self._b = backend
        self._graph = graph
        self._pinned = pinned

    def launch(self):
        b = self._b
        with b.xp.cuda.Device(b.device_id):
            self._graph.launch(stream=b.stream)

    def release(self):
        self._graph = None
        self._pinned = []


# -- recording stand-in (tests; CPU and emulated GPUs) ---------------------------------------------
class RecordingCapture(CaptureBackend):
    """Records op steps during "capture" and re-runs them on "launch" against the same pinned tensors.

    Args:
      fail_at: raise RuntimeError after this many recorded steps of a capture (tests of abandoning).
      devices: None (any logical device) or a predicate ``backend -> bool``.

    Attributes ``captures`` and ``launches`` count what happened (tests assert on them).
    """

    name = "recording"

    def __init__(self, fail_at=None, devices=None):
        self.fail_at = fail_at
        self.devices = devices
        self.captures = 0
        self.launches = 0

    def supports(self, backend):
        return self.devices is None or bool(self.devices(backend))

    def begin(self, backend):
        self.captures += 1
        return _RecordingSession(self, backend)

    def copy(self, backend, dst, src):
        np.copyto(dst, src)

    def clone(self, backend, tensor):
        host = np.array(backend.to_numpy(tensor._array), copy=True)
        arr = backend.asarray(host) if backend.scoped else host
        return Tensor(arr, tensor._dtype, tensor._device)


class _RecordingSession:
    def __init__(self, owner, backend):
        self._owner = owner
        self._b = backend
        self._entries = []
        self._n = 0

    def after_step(self, step, env):
        if self._owner.fail_at is not None and self._n >= self._owner.fail_at:
            raise RuntimeError("RecordingCapture: injected capture failure")
        self._n += 1
        kind, outs = step[0], step[3]
        if kind != 0:
            return  # reads and assignments launch nothing: later steps read the tensors they produced
        for s in outs:  # the graph's own, writable buffers (op results may be read-only views)
            env[s] = self._owner.clone(self._b, env[s])
        self._entries.append((step, list(env)))

    def copy(self, dst, src):
        self._entries.append((None, (dst, src)))

    def end(self):
        return _RecordingGraph(self._owner, self._entries)

    def abort(self):
        self._entries = []


class _RecordingGraph:
    def __init__(self, owner, entries):
        self._owner = owner
        self._entries = entries

    def launch(self):
        from . import executor

        self._owner.launches += 1
        with recording.stop_recording():
            for step, snap in self._entries:
                if step is None:
                    np.copyto(snap[0], snap[1])
                    continue
                tmp = list(snap)
                executor.run_steps(tmp, [step])
                for s in step[3]:
                    np.copyto(snap[s]._array, tmp[s]._array)

    def release(self):
        self._entries = []


# -- selection --------------------------------------------------------------------------------------
_DEFAULT = CupyStreamCapture()


def active():
    """The capture backend new runners use: the one :func:`use` selected on this thread, else CuPy's."""
    return getattr(_selected, "backend", None) or _DEFAULT


@contextlib.contextmanager
def use(capture_backend):
    """Select ``capture_backend`` (e.g. a :class:`RecordingCapture`) for functions first run in this scope."""
    prev = getattr(_selected, "backend", None)
    _selected.backend = capture_backend
    try:
        yield capture_backend
    finally:
        _selected.backend = prev
