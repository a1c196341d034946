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

- :class:`CupyStreamCapture` (real CUDA GPUs, ``CudaBackend``): asks the backend, which owns the
  device mechanism (docs/architecture.md §4): ``CudaBackend.begin_graph_capture()`` captures this thread's work
  with CuPy stream capture on a private stream and keeps alive every buffer the graph uses until
  it is released (:mod:`tfcore.backend.cuda_graphs`).
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
from . import executor

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


# -- real CUDA: the backend's capture (tfcore.backend.cuda_graphs) -----------------------------------
class CupyStreamCapture(CaptureBackend):
    """CUDA graphs of a real GPU's logical device: ``CudaBackend.begin_graph_capture()`` (CuPy stream
    capture on a private stream, thread-local redirection, pinned buffers; see
    :mod:`tfcore.backend.cuda_graphs`). This class only adapts it to the runner's interface."""

    name = "cuda"

    def supports(self, backend):
        return (backend.kind == "cuda" and not getattr(backend, "emulated", False)
                and hasattr(backend, "begin_graph_capture"))

    def begin(self, backend):
        return _BackendSession(backend, backend.begin_graph_capture())

    def copy(self, backend, dst, src):
        backend.device_copy(dst, src)

    def clone(self, backend, tensor):
        a = tensor._array
        with backend.activate():
            out = backend.xp.empty(a.shape, a.dtype)
        backend.device_copy(out, a)
        return Tensor(out, tensor._dtype, tensor._device)


class _BackendSession:
    """The runner's session over a backend capture session (the stream records each step's kernels)."""

    def __init__(self, backend, session):
        self._b = backend
        self._s = session

    def after_step(self, step, env):
        """Nothing to do: the capture stream recorded the kernels the step launched."""

    def copy(self, dst, src):
        self._b.device_copy(dst, src)

    def end(self):
        return self._s.end()

    def abort(self):
        self._s.abort()


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
