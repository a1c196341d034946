"""Background execution for tf.data: prefetch buffers and parallel map workers.

Threads exchange *chunks* (lists of consecutive elements, see :mod:`.chunks`):
a hand-off between threads costs ~12 us (an OS wake-up plus a GIL switch), so
the workers pull chunks from their input, the buffers hold chunks, and the
consumer takes a whole chunk under one lock acquisition and then serves its
elements lock-free. Chunk sizes adapt to the measured cost per element
(:class:`~.chunks.ChunkSizer`): one element at a time for slow producers, up to
:data:`~.chunks.MAX_CHUNK` for light ones.

Every threaded stage is split in two objects so that dropping an iterator stops
its threads:

- a *state* object shared with the worker threads (buffer, condition variable,
  stop flag, the upstream iterator). Threads reference only the state.
- a thin *iterator* object the consumer holds. A ``weakref.finalize`` on it
  calls ``state.stop()`` when it is garbage collected (or ``close()`` is called):
  the stop flag is set, waiting workers wake up and exit, and the upstream
  iterator is closed by the last worker to leave, which cascades the shutdown
  through nested stages. ``stop()`` then joins the workers (bounded), so after
  an abandoned iterator is collected its threads are gone.

Threads are daemons, so a pipeline blocked in user code never holds up
interpreter exit. Chunks carry exceptions raised upstream or in user functions
as :class:`~.chunks.Failure` entries; the consumer re-raises them (with their
original traceback) at the position of the failing element, and iteration may
continue after them, as in TF.
"""

import atexit
import collections
import threading
import time
import weakref

from . import structure
from .chunks import ChunkSizer, Failure, chunked, close_iterator, split_at_failure

__all__ = ["PrefetchIterator", "ParallelMapIterator", "close_iterator"]

_JOIN_TIMEOUT = 5.0
_END = None  # the end-of-input marker in a prefetch buffer (chunks are tuples)
_EMPTY = []
_clock = time.perf_counter
_exiting = [False, False]  # (interpreter is exiting, atexit hook registered)


def _mark_exiting():
    _exiting[0] = True


def _register_finalizer(obj, fn):
    f = weakref.finalize(obj, fn)
    if not _exiting[1]:
        # Registered after weakref's own atexit hook, so it runs first (LIFO): at exit,
        # finalizers only signal their threads (daemons) instead of joining them.
        _exiting[1] = True
        atexit.register(_mark_exiting)
    return f


class _StageState:
    """What the worker threads of one stage share (never the consumer-facing iterator)."""

    def __init__(self, upstream):
        self.cond = threading.Condition(threading.Lock())
        self.upstream = chunked(upstream)
        self.stopped = False
        self.detached = False  # workers leave without closing upstream (its new owner goes on with it)
        self.threads = []
        self.live = 0
        self.chunks = 0        # chunks handed over to the consumer side (hand-offs, for tests and stats)

    def start(self, target, n, name):
        self.live = n
        for i in range(n):
            t = threading.Thread(target=target, args=(self,), name=f"tf.data-{name}-{i}", daemon=True)
            self.threads.append(t)
        for t in self.threads:
            t.start()

    def worker_exit(self):
        """Called by each worker on exit; the last one closes the upstream iterator."""
        with self.cond:
            self.live -= 1
            last = self.live == 0
            self.cond.notify_all()
        if last:
            up, self.upstream = self.upstream, None
            if not self.detached:
                close_iterator(up)

    def stop(self):
        with self.cond:
            self.stopped = True
            self.cond.notify_all()
        if _exiting[0]:
            return
        me = threading.current_thread()
        for t in self.threads:
            if t is not me:
                t.join(_JOIN_TIMEOUT)


class _ConsumerWaitState(_StageState):
    """A stage whose consumer sleeps on a second condition, ``ready`` (same lock as ``cond``,
    on which the workers sleep), so each side wakes only the other."""

    def __init__(self, upstream):
        super().__init__(upstream)
        self.ready = threading.Condition(self.cond._lock)
        self.consumer_waiting = False

    def stop(self):
        with self.cond:
            self.stopped = True
            self.cond.notify_all()
            self.ready.notify_all()
        super().stop()


class _StageIterator:
    """The consumer-facing end of a threaded stage: starts its workers, stops them when closed or
    collected (see the module docstring), and serves the elements of the chunk it holds.

    Subclasses implement ``_fetch()`` (the next ``(elements, has_failures)`` chunk, waiting
    for it; StopIteration at the end) and may override ``_took(n)`` (``n`` elements left the
    stage).
    """

    __slots__ = ("_st", "_finalizer", "_chunk", "_i", "_failed", "__weakref__")

    def _start(self, st, worker, n, name):
        self._st = st
        self._chunk, self._i, self._failed = _EMPTY, 0, False
        st.start(worker, n, name)
        self._finalizer = _register_finalizer(self, st.stop)

    def __iter__(self):
        return self

    def close(self):
        self._finalizer()

    def _took(self, n):
        pass

    def __next__(self):
        c, i = self._chunk, self._i
        if i >= len(c):
            c, self._failed = self._fetch()
            self._chunk, i = c, 0
        x = c[i]
        self._i = i + 1
        self._took(1)
        if type(x) is Failure:
            raise x.exc
        return x

    def next_chunk(self, n):
        """Up to ``n`` ready elements (at least one; see :mod:`.chunks`)."""
        c, i = self._chunk, self._i
        if i >= len(c):
            c, self._failed = self._fetch()
            self._chunk, i = c, 0
        if i == 0 and n >= len(c) and not self._failed:
            self._chunk = _EMPTY  # the caller owns the list from now on
            self._took(len(c))
            return c
        out = c[i:i + n]
        if self._failed:
            out, exc = split_at_failure(out, n)
            if not out:  # the failure is the next element
                self._i = i + 1
                self._took(1)
                raise exc
        self._i = i + len(out)
        self._took(len(out))
        return out

    def hand_offs(self):
        """Chunks passed from the workers to the consumer so far (each one is a thread hand-off)."""
        return self._st.chunks


def _element_nbytes(element):
    nbytes = 0
    for t in structure.flatten(element):
        nbytes += getattr(getattr(t, "_array", None), "nbytes", 0)
    return nbytes


# -- prefetch ---------------------------------------------------------------------------
# Wake-ups cost an OS context switch plus a GIL hand-off (~12 us), so both sides sleep
# with hysteresis: the producer, once the buffer is full, is woken only when a quarter
# of it has drained (small buffers: at every free slot); the consumer is woken only
# when it is actually waiting. The buffer bound counts elements, not chunks: the
# consumer counts every element it takes (``consumed``), so "buffer_size elements
# ahead of the consumer" holds exactly as in TF.
def _low_watermark(capacity):
    return capacity - max(1, capacity // 4)


class _PrefetchState(_ConsumerWaitState):
    def __init__(self, upstream, capacity, autotune):
        super().__init__(upstream)
        self.capacity = capacity
        self.low = _low_watermark(capacity)
        self.autotune = autotune
        self.buf = collections.deque()  # (elements, has_failures) chunks, then _END
        self.produced = 0
        self.consumed = 0
        self.producer_waiting = False
        self.sizer = ChunkSizer()


def _prefetch_worker(st):
    up = st.upstream
    cond, ready, buf, sizer = st.cond, st.ready, st.buf, st.sizer
    try:
        while True:
            if st.produced - st.consumed >= st.capacity:
                with cond:
                    while st.produced - st.consumed >= st.capacity and not st.stopped:
                        st.producer_waiting = True
                        cond.wait()
                        st.producer_waiting = False
            if st.stopped:
                return
            k = min(sizer.size, st.capacity - (st.produced - st.consumed))
            t0 = _clock()
            try:
                item = (up.next_chunk(k), False)
                sizer.observe(len(item[0]), _clock() - t0)
            except StopIteration:
                item = _END
            except BaseException as e:  # delivered to the consumer at this position
                item = ([Failure(e)], True)
            if st.autotune and item is not _END and not item[1]:
                st.autotune = False
                cap = st.capacity = _autotune_capacity(item[0][0])
                st.low = _low_watermark(cap)
            with cond:
                buf.append(item)
                if item is not _END:
                    st.produced += len(item[0])
                if st.consumer_waiting:
                    ready.notify()
            if item is _END:
                return
            item = None
    finally:
        up = None
        with cond:
            ready.notify_all()
        st.worker_exit()


AUTOTUNE_RAM_BUDGET = 64 << 20
AUTOTUNE_MAX_BUFFER = 64


def _autotune_capacity(element):
    """Buffer size for ``prefetch(AUTOTUNE)``: as many elements as fit a RAM budget, 2 to 64.

    Larger buffers let the producer run in longer stretches for small elements; big
    batches keep 2.
    """
    return max(2, min(AUTOTUNE_MAX_BUFFER, AUTOTUNE_RAM_BUDGET // max(_element_nbytes(element), 1)))


class PrefetchIterator(_StageIterator):
    """Fills a bounded buffer from ``upstream`` on a background thread.

    ``buffer_size=None`` autotunes: the buffer is sized from the first element.
    """

    __slots__ = ()

    def __init__(self, upstream, buffer_size):
        autotune = buffer_size is None
        self._start(_PrefetchState(upstream, 2 if autotune else max(1, int(buffer_size)), autotune),
                    _prefetch_worker, 1, "prefetch")

    def _took(self, n):
        st = self._st
        st.consumed += n
        if st.producer_waiting and st.produced - st.consumed <= st.low:
            with st.cond:
                st.cond.notify()

    def _fetch(self):
        st = self._st
        buf = st.buf
        with st.cond:
            if st.producer_waiting:  # about to wait: make sure the producer is not asleep too
                st.cond.notify()
            while not buf:
                if st.live == 0:  # stopped before producing the end marker
                    raise StopIteration
                st.consumer_waiting = True
                st.ready.wait()
                st.consumer_waiting = False
            item = buf[0]
            if item is _END:
                raise StopIteration  # sticky: the marker stays for later calls
            buf.popleft()
            st.chunks += 1
        return item

    def buffered(self):
        """Elements ready in the buffer (for tests and introspection)."""
        return sum(len(x[0]) for x in list(self._st.buf) if x is not _END)


# -- parallel map --------------------------------------------------------------------------
class _MapState(_ConsumerWaitState):
    """Shared by the map workers. ``cond`` (workers wait for capacity) and ``ready``
    (the consumer waits for its next result) share one lock; a result wakes the
    consumer only when it is the one the consumer waits for, and waiting workers are
    woken only when the outstanding count has dropped to half the capacity.

    Accounting is per chunk: a worker claims ``k`` elements of capacity before pulling a
    chunk of up to ``k`` inputs; the consumer releases a chunk's elements when it takes it.
    """

    def __init__(self, upstream, fn, capacity, deterministic, autotune_capacity):
        super().__init__(upstream)
        self.fn = fn
        self.capacity = self.base_capacity = capacity
        self.low = capacity // 2
        self.autotune_capacity = autotune_capacity
        self.budget_elements = None  # elements that fit MAP_RAM_BUDGET (from the first result)
        self.deterministic = deterministic
        self.in_lock = threading.Lock()
        self.results = {} if deterministic else collections.deque()
        self.claimed = 0     # elements claimed by workers and not yet taken by the consumer (upper bound)
        self.next_seq = 0    # chunks pulled from upstream (sequence numbers)
        self.out_seq = 0     # chunks taken by the consumer
        self.end = None      # chunk sequence number at which upstream ended
        self.workers_waiting = 0
        self.sizer = ChunkSizer()


# Parallel map's in-flight bound, when sized from the elements: two chunks per worker (of the
# current adaptive chunk size), within this RAM budget, and never below the stage's base capacity.
MAP_RAM_BUDGET = 64 << 20


def _map_worker(st):
    cond, ready, fn, det, in_lock, sizer = st.cond, st.ready, st.fn, st.deterministic, st.in_lock, st.sizer
    try:
        while True:
            with cond:
                while not (st.stopped or st.detached) and st.end is None and st.claimed >= st.capacity:
                    st.workers_waiting += 1
                    cond.wait()
                    st.workers_waiting -= 1
                if st.stopped or st.detached or st.end is not None:
                    return
                k = max(1, min(sizer.size, st.capacity - st.claimed))
                st.claimed += k
            with in_lock:
                if st.end is not None or st.stopped or st.detached:
                    with cond:
                        st.claimed -= k
                    return
                seq = st.next_seq
                try:
                    xs = st.upstream.next_chunk(k)
                    failed = None
                except StopIteration:
                    with cond:
                        st.end = seq
                        st.claimed -= k
                        ready.notify_all()
                    return
                except BaseException as e:  # delivered at this position
                    xs = [Failure(e)]
                    failed = True
                st.next_seq = seq + 1
            if failed is None:
                t0 = _clock()
                xs = fn.map_chunk(xs, False, BaseException)
                size = sizer.observe(len(xs), _clock() - t0)
                failed = any(type(r) is Failure for r in xs)
                if st.autotune_capacity and not failed:
                    if st.budget_elements is None:
                        st.budget_elements = MAP_RAM_BUDGET // max(1, _element_nbytes(xs[0]))
                    st.capacity = max(st.base_capacity, min(st.budget_elements, 2 * len(st.threads) * size))
                    st.low = st.capacity // 2
            item = (xs, failed)
            with cond:
                st.claimed -= k - len(xs)
                if det:
                    st.results[seq] = item
                    if st.consumer_waiting and seq == st.out_seq:
                        ready.notify()
                else:
                    st.results.append(item)
                    if st.consumer_waiting:
                        ready.notify()
            item = xs = None
    finally:
        with cond:
            ready.notify_all()
        st.worker_exit()


class ParallelMapIterator(_StageIterator):
    """Applies ``fn`` (a :class:`~._runtime.DataFunction`) to upstream elements on ``num_workers`` threads.

    Workers pull chunks of consecutive inputs and publish chunks of results. At most
    ``capacity`` elements are claimed but not yet taken by the consumer; with
    ``autotune_capacity`` the bound follows the chunk size (two chunks per worker, within
    a RAM budget) so that light elements travel in full chunks.
    With ``deterministic`` results come out in input order, otherwise chunk by chunk as
    they complete.
    """

    __slots__ = ()

    def __init__(self, upstream, fn, num_workers, deterministic=True, capacity=None, autotune_capacity=True,
                 element_seconds=None):
        capacity = max(num_workers, capacity or 0)
        st = _MapState(upstream, fn, capacity, deterministic, autotune_capacity)
        if element_seconds:  # known cost per element: start with chunks of the right size
            st.sizer.observe(1, element_seconds)
        self._start(st, _map_worker, num_workers, "map")

    def _fetch(self):
        st = self._st
        results = st.results
        with st.cond:
            while True:
                if st.deterministic:
                    item = results.pop(st.out_seq, None)
                else:
                    item = results.popleft() if results else None
                if item is not None:
                    st.out_seq += 1
                    st.chunks += 1
                    st.claimed -= len(item[0])
                    if st.workers_waiting and st.claimed <= st.low:
                        st.cond.notify_all()
                    return item
                if (st.end is not None and st.out_seq >= st.end) or st.live == 0:
                    raise StopIteration
                st.consumer_waiting = True
                st.ready.wait()
                st.consumer_waiting = False

    def detach(self):
        """Stop the workers without closing upstream; returns ``(pending, ended)``.

        ``pending`` are the elements already pulled and not yet delivered, in delivery
        order (failed ones as :class:`~.chunks.Failure`); ``ended`` tells whether upstream
        reached its end. The caller then owns the upstream iterator. Used by AUTOTUNE to
        go back to running the function inline.
        """
        st = self._st
        with st.cond:
            st.detached = True
            st.cond.notify_all()
        me = threading.current_thread()
        for t in st.threads:
            if t is not me:
                t.join()
        pending = list(self._chunk[self._i:])
        self._chunk, self._i = _EMPTY, 0
        if st.deterministic:
            for seq in range(st.out_seq, st.next_seq):
                pending.extend(st.results.pop(seq)[0])
        else:
            for xs, _ in st.results:
                pending.extend(xs)
            st.results.clear()
        ended = st.end is not None
        self._finalizer()
        return pending, ended
