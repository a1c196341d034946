"""Entering a real GPU's logical device for an op: CUDA device, stream and allocator (docs/architecture.md §4).

Every op on a real GPU runs inside ``CudaBackend.activate()``: CuPy must allocate from the
logical device's BFC allocator, launch on its stream and target its physical device. Doing
that with ``cupy.cuda.Device(...)``, ``with stream`` and ``cupy.cuda.using_allocator(...)``
cost about 17 µs per op on an H100 (a new Device object, a generator-based context manager,
three ``__enter__``/``__exit__`` pairs). :class:`Activation` does the same work directly:

- one :class:`Activation` per backend, made once (``activate()`` allocates nothing);
- a thread-local record of the innermost active backend: activating the backend that is
  already active on this thread (``execute`` -> op -> ``b.asarray``) is a no-op;
- the device is set only when it differs, and restored on exit only when it was changed;
- the stream is entered through its own ``__enter__``/``__exit__`` (CuPy's public context
  protocol: it keeps CuPy's per-thread stream stack, so ``with stream`` blocks of user code
  around or inside still unwind correctly);
- the allocator is swapped with the two functions ``cupy.cuda.using_allocator`` itself calls
  (``cupy.cuda.memory._get_thread_local_allocator`` / ``_set_thread_local_allocator``); when a
  CuPy lacks them, ``using_allocator`` is used (slower, same effect).

CUDA-graph capture (docs/architecture.md §7) redirects one thread's work on one logical GPU to a private capture
stream and a pinning allocator, and nothing else: :func:`capture_override` pushes that redirection
on this thread (``CudaBackend.stream`` / ``_cupy_alloc`` read it), so another thread's ops on the
same logical GPU still run on the device's own stream, from its own allocator, while the capture is
open. Overrides of overlapping captures are removed by identity, so they may end in any order.
:func:`keep_alive_for_capture` lets code that launches kernels on a cached buffer (a reduction's
workspace) hand that buffer to the capture in progress, which keeps it alive as long as its graph.

Everything is per thread, as CuPy's own state (current device, stream stack, thread-local
allocator) is: MirroredStrategy replicas on threads each enter their own device. Exits restore
exactly what the matching enter saw, also when the body raised. Activations nest LIFO per thread
(like ``with`` blocks; CuPy's stream stack assumes the same). Code that switches CuPy's device,
stream or allocator inside an activation must switch back before running an op on the same
backend, which would otherwise run in the switched state (no tfcore code does; user CuPy code
runs outside activations, and an activation inside a user's ``with stream`` or
``using_allocator`` block is a full one).
"""

import threading


class _ThreadState(threading.local):
    """Per thread: the innermost active backend, one record per activation not yet exited, and the
    capture overrides open on this thread (oldest first)."""

    def __init__(self):
        self.active = None
        self.saved = []
        self.captures = []


_state = _ThreadState()


def active_backend():
    """The backend whose activation is innermost on this thread, or None."""
    return _state.active


class CaptureOverride:
    """One open capture on this thread: ``backend``'s work goes to ``stream``, its allocations to
    ``allocator`` (either may be None: unchanged), and ``keep`` collects objects the graph must keep
    alive (see :func:`keep_alive_for_capture`)."""

    __slots__ = ("backend", "stream", "allocator", "keep")

    def __init__(self, backend, stream, allocator):
        self.backend = backend
        self.stream = stream
        self.allocator = allocator
        self.keep = []


def push_capture_override(backend, stream=None, allocator=None):
    """Open a capture override for ``backend`` on this thread (see the module docstring); returns the
    record to pass to :func:`pop_capture_override`. Refused while ``backend`` is active on this thread
    (the activation already entered the old stream and allocator and would not see the switch)."""
    st = _state
    if st.active is backend:
        raise RuntimeError(f"cannot begin a capture on {getattr(backend, 'name', backend)} inside one of its "
                           "activations on the same thread")
    rec = CaptureOverride(backend, stream, allocator)
    st.captures.append(rec)
    return rec


def pop_capture_override(record):
    """Close ``record`` (idempotent; any order among overlapping captures)."""
    caps = _state.captures
    for i in range(len(caps) - 1, -1, -1):
        if caps[i] is record:
            del caps[i]
            return


def capture_override(backend):
    """The innermost open :class:`CaptureOverride` of ``backend`` on this thread, or None."""
    caps = _state.captures
    if caps:
        for rec in reversed(caps):
            if rec.backend is backend:
                return rec
    return None


def keep_alive_for_capture(backend, obj):
    """When this thread is capturing work on ``backend``: the graph being captured keeps ``obj``
    alive until it is released (a buffer a captured kernel reads or writes but which the capture did
    not allocate, e.g. a cached workspace). Returns True when a capture took it."""
    rec = capture_override(backend)
    if rec is None:
        return False
    rec.keep.append(obj)
    return True


class Activation:
    """The reusable context manager behind ``CudaBackend.activate()`` (one per backend).

    Enter: unless ``backend`` is already this thread's active backend, make ``backend.device_id``
    the current CUDA device, enter ``backend.stream`` and make ``backend._cupy_alloc`` CuPy's
    thread-local allocator. Exit undoes exactly that. ``backend.stream`` and ``backend._cupy_alloc``
    are read at each enter: on a ``CudaBackend`` they are this thread's (a CUDA-graph capture's
    private stream and pinning allocator while :func:`push_capture_override` is open on it).

    Args:
      backend: a ``CudaBackend`` (anything with ``device_id``, ``stream``, ``_cupy_alloc``).
      cupy: the ``cupy`` module (tests pass a recording stand-in).
    """

    __slots__ = ("backend", "_get_device", "_set_device", "_get_alloc", "_set_alloc", "_using_allocator")

    def __init__(self, backend, cupy):
        self.backend = backend
        runtime = cupy.cuda.runtime
        self._get_device = runtime.getDevice
        self._set_device = runtime.setDevice
        memory = cupy.cuda.memory
        get = getattr(memory, "_get_thread_local_allocator", None)
        set_ = getattr(memory, "_set_thread_local_allocator", None)
        if get is None or set_ is None:  # a CuPy without them: its public context manager instead
            get = set_ = None
        self._get_alloc = get
        self._set_alloc = set_
        self._using_allocator = cupy.cuda.using_allocator

    def __enter__(self):
        st = _state
        b = self.backend
        if st.active is b:  # nested (e.g. execute -> op -> b.asarray): everything is already entered
            st.saved.append(None)
            return b
        dev = b.device_id
        prev_dev = self._get_device()
        if prev_dev != dev:
            self._set_device(dev)
        stream = b.stream
        try:
            stream.__enter__()
            try:
                if self._get_alloc is not None:
                    prev_alloc = self._get_alloc()
                    self._set_alloc(b._cupy_alloc)
                else:
                    prev_alloc = self._using_allocator(b._cupy_alloc)
                    prev_alloc.__enter__()
            except BaseException:
                stream.__exit__(None, None, None)
                raise
        except BaseException:
            if prev_dev != dev:
                self._set_device(prev_dev)
            raise
        st.saved.append((st.active, prev_dev, stream, prev_alloc))
        st.active = b
        return b

    def __exit__(self, *exc):
        st = _state
        rec = st.saved.pop()
        if rec is None:
            return False
        prev_active, prev_dev, stream, prev_alloc = rec
        st.active = prev_active
        try:
            if self._set_alloc is not None:
                self._set_alloc(prev_alloc)
            else:
                prev_alloc.__exit__(None, None, None)
        finally:
            try:
                stream.__exit__(None, None, None)
            finally:
                if prev_dev != self.backend.device_id:
                    self._set_device(prev_dev)
        return False
