"""A recording stand-in for the parts of CuPy that entering a logical GPU touches (no GPU needed).

It models CuPy 13/14's per-thread state as CuPy's sources keep it: the CUDA runtime's current
device per host thread (``cuda.runtime.getDevice``/``setDevice``), the per-thread stream stack of
``cupy/cuda/stream.pyx`` (``Stream.__enter__`` checks the stream's device, pushes; ``__exit__``
pops), and the thread-local allocator of ``cupy/cuda/memory.pyx``
(``_get_thread_local_allocator``/``_set_thread_local_allocator``, ``get_allocator``,
``set_allocator`` refusing inside ``using_allocator``; ``cupy/cuda/__init__.py``'s
``using_allocator`` generator). Every state change is appended to :attr:`FakeCupy.log`.

:func:`install` puts one in ``sys.modules`` (as ``cupy``, ``cupy.cuda``, ``cupy.cuda.memory``).
"""

import contextlib
import sys
import threading
import types


class FakeNdarray:
    """Stands for ``cupy.ndarray`` (kernel arguments)."""


class FakeCupy:
    """One fake ``cupy`` module: ``.module`` is what ``import cupy`` returns."""

    def __init__(self, device_count=2, with_thread_local_allocator_api=True):
        self.log = []
        self.device_count = device_count
        self._tls = threading.local()
        fake = self

        class Stream:
            def __init__(self, non_blocking=False, null=False, name=None, device_id=None):
                self.device_id = fake._current() if device_id is None else device_id
                self.name = name or ("null" if null else f"stream{len(fake.log)}-{id(self)}")
                self.ptr = 0 if null else id(self)

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
                pass

            def __repr__(self):
                return f"<FakeStream {self.name} dev {self.device_id}>"

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
        runtime = types.SimpleNamespace(getDevice=getDevice, setDevice=setDevice,
                                        getDeviceCount=lambda: fake.device_count, CUDARuntimeError=RuntimeError)
        cuda = types.SimpleNamespace(runtime=runtime, memory=memory, Device=Device, Stream=Stream,
                                     using_allocator=using_allocator, get_current_stream=get_current_stream,
                                     get_allocator=get_allocator, set_allocator=set_allocator)
        self.module = types.SimpleNamespace(cuda=cuda, ndarray=FakeNdarray, __version__="14.2.0-fake",
                                            RawModule=None)
        self.Stream = Stream

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
