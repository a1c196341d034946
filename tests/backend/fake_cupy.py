"""A recording stand-in for the parts of CuPy that entering a logical GPU touches (no GPU needed).

It models CuPy 13/14's per-thread state as CuPy's sources keep it: the CUDA runtime's current
device per host thread (``cuda.runtime.getDevice``/``setDevice``), the per-thread stream stack of
``cupy/cuda/stream.pyx`` (``Stream.__enter__`` checks the stream's device, pushes; ``__exit__``
pops), and the thread-local allocator of ``cupy/cuda/memory.pyx``
(``_get_thread_local_allocator``/``_set_thread_local_allocator``, ``get_allocator``,
``set_allocator`` refusing inside ``using_allocator``; ``cupy/cuda/__init__.py``'s
``using_allocator`` generator). Every state change is appended to :attr:`FakeCupy.log`.

It also models the device as CUDA runs it, for the CUDA-graph and copy-ordering tests
(``tests/backend/test_cuda_graphs.py``): device memory (``runtime.malloc``/``free`` hand out
addresses of real byte buffers, so arrays at one address alias), arrays (``empty``/``zeros``/
``asarray``/``copyto``/``asnumpy``), streams whose work is QUEUED and runs only when the device is
drained (:meth:`FakeCupy.drain`, in a chosen stream order; ``Stream.wait_event`` and events order it),
and stream capture as CuPy 13/14 and CUDA define it: ``begin_capture(mode)``, work pushed to a
capturing stream is recorded instead of run, ``end_capture()`` returns a graph whose ``launch(stream)``
queues it again; an unsafe call (``synchronize`` of a capturing stream; ``cudaMalloc`` under a
ThreadLocal or Global mode capture of this thread) invalidates the capture and raises (900); an
invalidated stream refuses all work (901) until ``end_capture()``, which ends it and raises;
``is_capturing()`` RAISES ``RuntimeError`` on an invalidated capture (``runtime.pyx``); an event
recorded inside a capture is never ``done`` (``cudaEventQuery`` returns 907), and CuPy's pinned
staging of ``asarray(host)`` keeps its buffer on a watch list until the event recorded after the copy
is done (``pinned_memory._add_to_watch_list``).

:func:`install` puts one in ``sys.modules`` (as ``cupy``, ``cupy.cuda``, ``cupy.cuda.memory``).
"""

import bisect
import contextlib
import sys
import threading
import types

import numpy as np

# CUDA error codes the fake raises (cudaError_t)
ERR_ILLEGAL_STATE = 401
ERR_CAPTURE_UNSUPPORTED = 900
ERR_CAPTURE_INVALIDATED = 901
ERR_CAPTURED_EVENT = 907


class CUDARuntimeError(RuntimeError):
    """``cupy_backends.cuda.api.runtime.CUDARuntimeError``: a RuntimeError with ``status``."""

    def __init__(self, status, what=""):
        self.status = status
        super().__init__(f"cudaError {status}: {what}")


class FakeNdarray:
    """Stands for ``cupy.ndarray`` (kernel arguments)."""


class FakeArray(FakeNdarray):
    """A device array of the fake: ``shape``/``dtype`` over ``data`` (a MemoryPointer from the current
    allocator, kept referenced as CuPy's ndarray does: dropping the array frees the allocation)."""

    def __init__(self, fake, mem, shape, dtype):
        self._fake = fake
        self.data = mem
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self.ndim = len(self.shape)
        self.flags = types.SimpleNamespace(c_contiguous=True)

    @property
    def __cuda_array_interface__(self):
        return {"data": (self.data.ptr, False), "shape": self.shape, "typestr": self.dtype.str, "version": 3}

    def host(self):
        """A NumPy view of the device memory now (what a kernel running now reads and writes)."""
        if self.nbytes == 0:
            return np.zeros(self.shape, self.dtype)
        return self._fake.bytes_at(self.data.ptr, self.nbytes).view(self.dtype).reshape(self.shape)

    def _write(self, value):
        self.host()[...] = np.asarray(value).reshape(self.shape) if np.ndim(value) else value

    def fill(self, value):
        self._fake._copyto(self, value)

    def __setitem__(self, key, other):
        self._fake._copyto(self, other)

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple) else shape
        return FakeArray(self._fake, self.data, shape, self.dtype)

    def get(self):
        return self._fake._asnumpy(self)


class FakeCupy:
    """One fake ``cupy`` module: ``.module`` is what ``import cupy`` returns."""

    def __init__(self, device_count=2, with_thread_local_allocator_api=True):
        self.log = []
        self.streams = {}
        self._regions = {}      # device address -> uint8 buffer (cudaMalloc)
        self._starts = []       # sorted region addresses
        self._next = 1 << 20
        self.watch_list = []    # CuPy's pinned-memory watch list: [event, pinned buffer]
        self.device_count = device_count
        self._tls = threading.local()
        fake = self

        class Stream:
            def __init__(self, non_blocking=False, null=False, name=None, device_id=None):
                self.device_id = fake._current() if device_id is None else device_id
                self.name = name or ("null" if null else f"stream{len(fake.log)}-{id(self)}")
                self.ptr = 0 if null else id(self)
                self.pending = []        # queued work: ("op", fn, label) / ("record", ev) / ("wait", ev)
                self.capture = None      # list of captured ops while capturing
                self.capture_mode = None
                self.capture_thread = None
                self.invalidated = False
                fake.streams[self.ptr] = self

            # -- queued work and capture (CUDA's rules, CuPy's API) ------------------------------
            def _check_usable(self):
                if self.invalidated:
                    raise CUDARuntimeError(ERR_CAPTURE_INVALIDATED, f"capture on {self.name} was invalidated")

            def enqueue(self, fn, label):
                self._check_usable()
                if self.capture is not None:
                    self.capture.append((fn, label))
                    fake.log.append(("captured", self.name, label))
                else:
                    self.pending.append(("op", fn, label))

            def invalidate(self):
                self.invalidated = True
                self.capture = None

            def begin_capture(self, mode=None):
                self._check_usable()
                if self.capture is not None:
                    raise CUDARuntimeError(ERR_ILLEGAL_STATE, f"{self.name} is already capturing")
                self.capture = []
                self.capture_mode = 2 if mode is None else mode  # CuPy's default: relaxed
                self.capture_thread = threading.get_ident()
                fake.log.append(("begin_capture", self.name, self.capture_mode))

            def is_capturing(self):
                if self.invalidated:
                    raise RuntimeError("the stream was capturing, but an error has invalidated the capture sequence")
                return self.capture is not None

            def end_capture(self):
                fake.log.append(("end_capture", self.name))
                if self.invalidated:
                    self.invalidated = False
                    self.capture = None
                    raise CUDARuntimeError(ERR_CAPTURE_INVALIDATED, "the capture was invalidated")
                if self.capture is None:
                    raise CUDARuntimeError(ERR_ILLEGAL_STATE, f"{self.name} is not capturing")
                ops, self.capture = self.capture, None
                return Graph(ops)

            def record(self, event=None):
                self._check_usable()
                ev = event if event is not None else Event()
                ev.stream = self
                if self.capture is not None:
                    ev.captured = True
                else:
                    ev.captured = False
                    ev.done_flag = False
                    self.pending.append(("record", ev))
                return ev

            def wait_event(self, event):
                self._check_usable()
                fake.log.append(("wait_event", self.name, getattr(event.stream, "name", None)))
                if self.capture is None:
                    self.pending.append(("wait", event))

            def __enter__(self):
                cur = fake._current()
                if self.device_id != -1 and self.device_id != cur:
                    raise RuntimeError(f"The device that the stream is created on ({self.device_id}) does not "
                                       f"match with the current device ({cur})")
                fake.log.append(("stream_enter", self.name))
                t = fake._thread()
                t.stream_stack[cur].append(self)
                t.device_id_stack.append(cur)
                return self

            def __exit__(self, *exc):
                t = fake._thread()
                dev = t.device_id_stack.pop()
                popped = t.stream_stack[dev].pop()
                fake.log.append(("stream_exit", popped.name))

            def synchronize(self):
                if self.capture is not None:  # a host wait on a capturing stream: prohibited
                    self.invalidate()
                    raise CUDARuntimeError(ERR_CAPTURE_UNSUPPORTED, f"synchronize of capturing {self.name}")
                self._check_usable()
                fake.drain()

            def __repr__(self):
                return f"<FakeStream {self.name} dev {self.device_id}>"

        class Event:
            def __init__(self, *args, **kw):
                self.stream = None
                self.captured = False
                self.done_flag = True  # never recorded: waits on it are no-ops

            @property
            def done(self):  # cudaEventQuery == cudaSuccess; 907 for an event last recorded in a capture
                return not self.captured and self.done_flag

            def synchronize(self):
                fake.drain()

        class Graph:
            def __init__(self, ops):
                self.ops = ops

            def launch(self, stream=None):
                stream = stream if stream is not None else fake.module.cuda.get_current_stream()
                fake.log.append(("graph_launch", stream.name, len(self.ops)))
                for fn, label in self.ops:
                    stream.enqueue(fn, label)

        self.Event = Event

        class Device:
            def __init__(self, device=None):
                self.id = fake._current() if device is None else int(device)
                self._stack = []

            def __enter__(self):
                cur = fake._current()
                self._stack.append(cur)
                if cur != self.id:
                    fake._set(self.id)
                return self

            def __exit__(self, *exc):
                fake._set(self._stack.pop())

            @property
            def compute_capability(self):
                return "90"

        def getDevice():  # noqa: N802 - CuPy's name
            fake.log.append(("getDevice",))
            return fake._current()

        def setDevice(d):  # noqa: N802 - CuPy's name
            fake._set(int(d))

        def _get_thread_local_allocator():
            return getattr(fake._tls, "allocator", None)

        def _set_thread_local_allocator(a):
            fake.log.append(("set_alloc", getattr(a, "tag", a)))
            fake._tls.allocator = a

        def _global_malloc(nbytes):
            return ("global", nbytes)

        self.global_allocator = _global_malloc

        def get_allocator():
            a = getattr(fake._tls, "allocator", None)
            return fake.global_allocator if a is None else a

        def set_allocator(a=None):
            if getattr(fake._tls, "allocator", None) is not None:
                raise ValueError("Can't change the global allocator inside `using_allocator` context manager")
            fake.global_allocator = a or _global_malloc

        @contextlib.contextmanager
        def using_allocator(allocator=None):
            previous = _get_thread_local_allocator()
            _set_thread_local_allocator(allocator)
            try:
                yield
            finally:
                _set_thread_local_allocator(previous)

        def get_current_stream():
            t = fake._thread()
            return t.stream_stack[fake._current()][-1]

        class UnownedMemory:
            def __init__(self, ptr, size, owner, device_id):
                self.ptr, self.size, self._owner, self.device_id = ptr, size, owner, device_id

        class MemoryPointer:
            def __init__(self, mem, offset):
                self.mem, self.ptr = mem, mem.ptr + offset

        memory = types.SimpleNamespace(get_allocator=get_allocator, set_allocator=set_allocator,
                                       UnownedMemory=UnownedMemory, MemoryPointer=MemoryPointer,
                                       _malloc=_global_malloc)
        if with_thread_local_allocator_api:
            memory._get_thread_local_allocator = _get_thread_local_allocator
            memory._set_thread_local_allocator = _set_thread_local_allocator
        else:  # a CuPy without them: only the public context manager (its uses are logged)
            inner = using_allocator

            @contextlib.contextmanager
            def using_allocator(allocator=None):
                fake.log.append(("using_allocator", getattr(allocator, "tag", allocator)))
                with inner(allocator):
                    yield

        self.null_stream = Stream(null=True, device_id=-1)
        def malloc(nbytes):
            for st in list(fake.streams.values()):  # cudaMalloc is unsafe under a non-relaxed capture
                if st.capture is not None and st.capture_mode != 2 and (
                        st.capture_mode == 0 or st.capture_thread == threading.get_ident()):
                    st.invalidate()
                    raise CUDARuntimeError(ERR_CAPTURE_UNSUPPORTED, "cudaMalloc during a capture")
            fake.log.append(("malloc", nbytes))
            return fake._malloc(nbytes)

        def free(ptr):
            fake.log.append(("free", ptr))
            fake._free(ptr)

        def memcpyAsync(dst, src, nbytes, kind, stream_ptr):  # noqa: N802 - CuPy's name
            def run():
                fake.bytes_at(dst, nbytes)[:] = fake.bytes_at(src, nbytes)
            fake.streams[stream_ptr].enqueue(run, "memcpy")

        def memcpyPeerAsync(dst, dst_dev, src, src_dev, nbytes, stream_ptr):  # noqa: N802 - CuPy's name
            memcpyAsync(dst, src, nbytes, 3, stream_ptr)

        runtime = types.SimpleNamespace(getDevice=getDevice, setDevice=setDevice,
                                        getDeviceCount=lambda: fake.device_count, CUDARuntimeError=CUDARuntimeError,
                                        malloc=malloc, free=free, memcpyAsync=memcpyAsync,
                                        memcpyPeerAsync=memcpyPeerAsync, memcpyDeviceToDevice=3,
                                        streamCaptureModeGlobal=0, streamCaptureModeThreadLocal=1,
                                        streamCaptureModeRelaxed=2)
        cuda = types.SimpleNamespace(runtime=runtime, memory=memory, Device=Device, Stream=Stream, Event=Event,
                                     using_allocator=using_allocator, get_current_stream=get_current_stream,
                                     get_allocator=get_allocator, set_allocator=set_allocator)
        self.module = types.SimpleNamespace(cuda=cuda, ndarray=FakeNdarray, __version__="14.2.0-fake",
                                            RawModule=None, empty=self._empty, zeros=self._zeros,
                                            asarray=self._asarray, copyto=self._copyto, asnumpy=self._asnumpy,
                                            float32=np.float32, uint32=np.uint32)
        self.Stream = Stream

    # -- device memory and arrays ------------------------------------------------------
    def _malloc(self, nbytes):
        ptr = self._next
        self._next += (max(int(nbytes), 1) + 0xFFF) & ~0xFFF
        self._regions[ptr] = np.zeros(max(int(nbytes), 1), np.uint8)
        bisect.insort(self._starts, ptr)
        return ptr

    def _free(self, ptr):
        del self._regions[ptr]
        self._starts.remove(ptr)

    def bytes_at(self, ptr, nbytes):
        """The device bytes [ptr, ptr + nbytes) (a view: writes land in device memory)."""
        start = self._starts[bisect.bisect_right(self._starts, ptr) - 1]
        off = ptr - start
        return self._regions[start][off:off + nbytes]

    def _empty(self, shape, dtype=np.float32):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        mem = self.module.cuda.memory.get_allocator()(nbytes)
        return FakeArray(self, mem, shape, dtype)

    def _zeros(self, shape, dtype=np.float32):
        a = self._empty(shape, dtype)
        a.fill(0)
        return a

    def _asarray(self, obj, dtype=None):
        """CuPy's ``_array_default`` for host data: pinned staging buffer, async copy on the current
        stream, and the staging buffer on the watch list until the event recorded after it is done."""
        if isinstance(obj, FakeArray):
            return obj
        host = np.ascontiguousarray(np.asarray(obj, dtype=dtype))
        out = self._empty(host.shape, host.dtype)
        staging = host.copy()  # the pinned buffer
        stream = self.module.cuda.get_current_stream()
        optr, on = out.data.ptr, out.nbytes
        if on:
            stream.enqueue(lambda: self.bytes_at(optr, on).__setitem__(slice(None), staging.view(np.uint8).ravel()),
                           "h2d")
        self.watch_list.append([stream.record(), staging])
        while self.watch_list and self.watch_list[0][0].done:  # pinned_memory._add_to_watch_list
            self.watch_list.pop(0)
        return out

    def _copyto(self, dst, src):
        """A copy kernel on the current stream. Like a CUDA launch it keeps no reference to the arrays:
        it reads and writes their addresses when it runs (a dropped source's memory may be reused)."""
        if not isinstance(src, FakeArray):
            value, dptr, dn, dt = src, dst.data.ptr, dst.nbytes, dst.dtype
            if dn:
                self.module.cuda.get_current_stream().enqueue(
                    lambda: self.bytes_at(dptr, dn).view(dt).__setitem__(slice(None), value), "fill")
            return
        dptr, sptr, n = dst.data.ptr, src.data.ptr, dst.nbytes

        def run():
            self.bytes_at(dptr, n)[:] = self.bytes_at(sptr, n)
        self.module.cuda.get_current_stream().enqueue(run, "copy")

    def _asnumpy(self, a, stream=None):
        self.drain()
        return a.host().copy()

    def drain(self, order=None):
        """Run the queued work of every stream; ``order`` (a list of streams) is the preference when
        several streams could run next (a stream waiting on an event not yet done cannot)."""
        streams = list(order or []) + [s for s in self.streams.values() if s not in (order or [])]
        while True:
            for st in streams:
                if not st.pending:
                    continue
                kind, *rest = st.pending[0]
                if kind == "wait" and not rest[0].done and rest[0].stream is not None:
                    continue
                st.pending.pop(0)
                if kind == "op":
                    rest[0]()
                elif kind == "record":
                    rest[0].done_flag = True
                break
            else:
                if any(s.pending for s in streams):
                    raise RuntimeError("fake device deadlock: every stream waits on an event")
                return

    # -- per-thread CUDA state ---------------------------------------------------------
    def _thread(self):
        t = self._tls
        if not hasattr(t, "stream_stack"):
            t.device = 0
            t.stream_stack = [[self.null_stream] for _ in range(self.device_count)]
            t.device_id_stack = []
        return t

    def _current(self):
        return self._thread().device

    def _set(self, d):
        self.log.append(("setDevice", d))
        self._thread().device = d

    # -- what tests read -----------------------------------------------------------------
    def state(self):
        """(current device, current stream's name, thread-local allocator or None) of this thread."""
        t = self._thread()
        return t.device, t.stream_stack[t.device][-1].name, getattr(self._tls, "allocator", None)

    def count(self, what):
        return sum(1 for e in self.log if e[0] == what)

    def changes(self):
        """The log without the (read-only) getDevice calls."""
        return [e for e in self.log if e[0] != "getDevice"]


def install(monkeypatch, **kw):
    """A :class:`FakeCupy` as ``cupy`` (and ``cupy.cuda``, ``cupy.cuda.memory``) for this test."""
    fake = FakeCupy(**kw)
    monkeypatch.setitem(sys.modules, "cupy", fake.module)
    monkeypatch.setitem(sys.modules, "cupy.cuda", fake.module.cuda)
    monkeypatch.setitem(sys.modules, "cupy.cuda.memory", fake.module.cuda.memory)
    return fake
