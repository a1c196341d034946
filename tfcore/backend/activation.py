"""Entering a real GPU's logical device for an op: CUDA device, stream and allocator (DESIGN.md §4).

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
    """Per thread: the innermost active backend and one record per activation not yet exited."""

    def __init__(self):
        self.active = None
        self.saved = []


_state = _ThreadState()


def active_backend():
    """The backend whose activation is innermost on this thread, or None."""
    return _state.active


class Activation:
    """The reusable context manager behind ``CudaBackend.activate()`` (one per backend).

    Enter: unless ``backend`` is already this thread's active backend, make ``backend.device_id``
    the current CUDA device, enter ``backend.stream`` and make ``backend._cupy_alloc`` CuPy's
    thread-local allocator. Exit undoes exactly that. ``backend.stream`` and ``backend._cupy_alloc``
    are read at each enter (code may swap them, e.g. to capture a CUDA graph on another stream).

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
