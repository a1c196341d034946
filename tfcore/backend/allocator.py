"""BFC (best-fit with coalescing) allocator: one per logical device (docs/architecture.md §5).

The allocator manages *regions* obtained from a region provider (``cudaMalloc``
through CuPy for real GPUs, anonymous host memory for emulated GPUs) and carves
them into *chunks*:

- every request is rounded up to a multiple of 256 bytes (:data:`ALIGNMENT`) and
  every chunk starts on a 256-byte boundary;
- free chunks sit in power-of-two size bins (bin ``b`` holds sizes in
  ``[256 * 2**b, 256 * 2**(b+1))``), each a sorted list of ``(size, ptr)``; a
  request takes the smallest free chunk that fits (lowest address on ties) and
  splits off the rest;
- a freed chunk merges with free neighbours in its region (coalescing), so
  fragmentation goes back to zero once everything is freed.

Small-size fast path: a freed chunk of at most :data:`CACHE_MAX_CHUNK` bytes first goes to a
per-size free list (a bounded cache: :data:`CACHE_DEPTH` chunks per size, :data:`CACHE_BYTES`
in all) and the next request of the same rounded size takes it back without the bin search,
split and merge (eager ops allocate and free the same small sizes over and over). Caching never
costs a merge the plain allocator would make:

- a cached chunk counts as free in every statistic (``bytes_in_use``, peaks, active allocations);
- a chunk that is freed next to a cached one takes it out of the cache and merges with it;
- a cached chunk that a free neighbour would have absorbed ("loose") goes back to the bins
  before any request the cache cannot serve, so such requests see the free space the plain
  allocator would have;
- the whole cache goes back to the bins before the allocator grows, releases regions or raises
  out-of-memory, and before any report of the free space (``stats``, ``chunks``).

What remains different from the plain allocator is placement only: an exact-size request gets
the most recently freed chunk of its size (not the lowest address), and a cached chunk between
two chunks in use is not offered to requests of other sizes until the next flush.

Memory growth on: regions are added on demand, each at least as large as the
previous one and at least 1/8 of what is reserved (few regions, little
over-reservation); fully free regions go back to the device with
:meth:`BFCAllocator.release_free_regions` (also tried automatically before
raising out-of-memory). Growth off: the whole limit is reserved at the first
allocation, as TensorFlow does.

Exceeding the limit raises ``tfcore.errors.ResourceExhaustedError`` naming the
request, the bytes in use, the limit and the largest free chunk; the allocator is
unchanged by a failed request.

Thread safety and garbage collection: a ``free`` can arrive from a finalizer that
the garbage collector runs in the middle of another allocator call (same thread)
or from another thread. Frees are therefore queued and applied by whoever holds
the lock, so no call ever blocks on, or re-enters, a half-done operation.

Also here: :func:`host_array` (a NumPy array living in an allocation, freed when
the array and all its views are gone) and :func:`cupy_allocator` (the function
for ``cupy.cuda.using_allocator``).
"""

import bisect
import mmap
import sys
import threading
import weakref
from ctypes import addressof, c_char

import numpy as np

from .errors import ResourceExhaustedError

ALIGNMENT = 256
_SHIFT = 8                      # log2(ALIGNMENT)
_MIN_REGION = 2 << 20           # first region under memory growth (TF's 2 MiB)
_REGION_GRANULE = 1 << 20       # growth regions are rounded up to 1 MiB
_GROWTH_FRACTION_SHIFT = 3      # a new region is at least reserved / 8
CACHE_MAX_CHUNK = 256 << 10      # freed chunks up to this size go to the per-size cache
CACHE_DEPTH = 8                  # at most this many cached chunks per size
CACHE_BYTES = 4 << 20            # and at most this many cached bytes per allocator
_bisect_left = bisect.bisect_left
_insort = bisect.insort


def round_up(nbytes):
    """``nbytes`` rounded up to the allocator's 256-byte granule."""
    return (nbytes + ALIGNMENT - 1) & ~(ALIGNMENT - 1)


class Chunk:
    """A contiguous piece of one region; what :meth:`BFCAllocator.allocate` returns.

    Attributes:
      ptr: address (int) of the first byte, a multiple of 256.
      size: bytes in the chunk (the request rounded up to 256).
      requested: bytes the caller asked for (0 once freed).
      in_use: True while allocated or held in the allocator's small-size cache (maintained
        under the allocator's lock).
      cached: True while held in the small-size cache.
    """

    __slots__ = ("ptr", "size", "requested", "in_use", "cached", "prev", "next", "region")

    def __init__(self, ptr, size, region, prev=None, nxt=None):
        self.ptr = ptr
        self.size = size
        self.requested = 0
        self.in_use = False
        self.cached = False
        self.prev = prev
        self.next = nxt
        self.region = region

    def __repr__(self):
        state = "in use" if self.in_use else "free"
        return f"<Chunk 0x{self.ptr:x} size={self.size} {state}>"


class _Region:
    __slots__ = ("ptr", "size", "owner", "first", "allocator")

    def __init__(self, ptr, size, owner, allocator):
        self.ptr = ptr
        self.size = size
        self.owner = owner
        self.allocator = allocator
        self.first = Chunk(ptr, size, self)


_ZERO = Chunk(0, 0, None)  # what a 0-byte request gets (TF returns nullptr); freeing it is a no-op


class BFCAllocator:
    """Best-fit-with-coalescing allocator over regions from ``region_provider``.

    Args:
      name: shown in error messages and stats (e.g. ``'GPU:0_bfc'``).
      region_provider: object with ``alloc(nbytes) -> (ptr, owner)`` (raising
        MemoryError when the device has no more memory) and ``free(owner)``.
      memory_limit: hard limit in bytes on the memory reserved from the provider
        (None: unlimited, only with ``allow_growth``).
      allow_growth: grow regions on demand (True) or reserve the whole limit at
        the first allocation (False).
    """

    def __init__(self, name, region_provider, memory_limit, allow_growth):
        if memory_limit is None and not allow_growth:
            raise ValueError(f"{name}: a memory_limit is required when allow_growth is False")
        if memory_limit is not None:
            memory_limit = int(memory_limit) & ~(ALIGNMENT - 1)
            if memory_limit <= 0:
                raise ValueError(f"{name}: memory_limit must be at least {ALIGNMENT} bytes, got {memory_limit}")
        self.name = name
        self.provider = region_provider
        self.memory_limit = memory_limit
        self.allow_growth = bool(allow_growth)
        self._lock = threading.Lock()
        self._pending = []              # frees waiting for the lock
        self._bins = [[] for _ in range(64)]
        self._mask = 0                  # bit b set <=> bins[b] non-empty
        self._free = {}                 # ptr -> free Chunk
        self._cache = {}                # rounded size -> freed chunks kept for reuse (in_use stays True)
        self._cached = 0                # bytes in the cache
        self._loose = {}                # ptr -> cached chunk next to a free or cached one (would have merged)
        self._regions = []
        self._last_region = 0
        self._in_use = 0
        self._peak_in_use = 0
        self._reserved = 0
        self._peak_reserved = 0
        self._num_allocs = 0
        self._active = 0
        self._largest_alloc = 0
        self._retired = False           # see retire(): regions go back as soon as they are free

    # -- free-chunk bins ---------------------------------------------------
    def _insert_free(self, c):
        b = (c.size >> _SHIFT).bit_length() - 1
        _insort(self._bins[b], (c.size, c.ptr))
        self._mask |= 1 << b
        self._free[c.ptr] = c

    def _remove_free(self, c):
        b = (c.size >> _SHIFT).bit_length() - 1
        lst = self._bins[b]
        del lst[_bisect_left(lst, (c.size, c.ptr))]
        if not lst:
            self._mask &= ~(1 << b)
        del self._free[c.ptr]

    def _find(self, rounded):
        """The smallest free chunk of at least ``rounded`` bytes, or None."""
        b = (rounded >> _SHIFT).bit_length() - 1
        lst = self._bins[b]
        if lst:
            i = _bisect_left(lst, (rounded, 0))
            if i < len(lst):
                return self._free[lst[i][1]]
        m = self._mask >> (b + 1)
        if not m:
            return None
        nb = b + (m & -m).bit_length()
        return self._free[self._bins[nb][0][1]]

    def _largest_free(self):
        if not self._mask:
            return 0
        return self._bins[self._mask.bit_length() - 1][-1][0]

    # -- locking with deferred frees ---------------------------------------
    def _unlock(self):
        while True:
            if self._pending:
                self._drain()
            self._lock.release()
            if not self._pending or not self._lock.acquire(False):
                return

    def _drain(self):
        pending = self._pending
        while pending:
            self._release_chunk(pending.pop())

    # -- allocation --------------------------------------------------------
    def allocate(self, nbytes):
        """A :class:`Chunk` of at least ``nbytes`` bytes (256-byte aligned).

        Raises ResourceExhaustedError when the limit (or the device) cannot
        supply it; the allocator is then exactly as before the call.
        """
        if nbytes <= 0:
            if nbytes == 0:
                return _ZERO
            raise ValueError(f"{self.name}: cannot allocate a negative number of bytes ({nbytes})")
        rounded = (nbytes + ALIGNMENT - 1) & ~(ALIGNMENT - 1)
        self._lock.acquire()
        try:
            if self._pending:
                self._drain()
            cached = self._cache.get(rounded) if rounded <= CACHE_MAX_CHUNK else None
            if cached:
                c = cached.pop()            # fast path: a recently freed chunk of exactly this size
                c.cached = False
                self._cached -= rounded
                if self._loose:
                    self._loose.pop(c.ptr, None)
            else:
                c = self._carve(nbytes, rounded)
            c.requested = nbytes
            self._in_use += rounded
            if self._in_use > self._peak_in_use:
                self._peak_in_use = self._in_use
            if rounded > self._largest_alloc:
                self._largest_alloc = rounded
            self._num_allocs += 1
            self._active += 1
            return c
        finally:
            self._lock.release()
            if self._pending and self._lock.acquire(False):  # frees queued while we held the lock
                self._unlock()

    def _carve(self, nbytes, rounded):
        """Best fit from the bins (flushing the cache, then growing, when nothing fits); the chunk is
        marked in use, the accounting is the caller's."""
        if self._loose:
            self._flush_loose()
        c = self._find(rounded)
        if c is None:
            if self._cached:
                self._flush_cache()
                c = self._find(rounded)
            if c is None:
                c = self._grow_for(rounded)
                if c is None:
                    raise ResourceExhaustedError(None, None, self._oom_message(nbytes, rounded))
        self._remove_free(c)
        rest = c.size - rounded
        if rest:
            r = Chunk(c.ptr + rounded, rest, c.region, c, c.next)
            if c.next is not None:
                c.next.prev = r
            c.next = r
            c.size = rounded
            self._insert_free(r)
        c.in_use = True
        return c

    def free(self, chunk):
        """Return ``chunk`` (from :meth:`allocate`) to the allocator."""
        if chunk is _ZERO:
            return
        region = chunk.region
        if region is None or region.allocator is not self:
            raise ValueError(f"{self.name}: {chunk!r} was not allocated by this allocator")
        if not chunk.requested:  # 0 once freed (in_use only changes under the lock, in _release_chunk)
            raise ValueError(f"{self.name}: double free of {chunk!r}")
        chunk.requested = 0
        lock = self._lock
        if lock.acquire(False):
            self._release_chunk(chunk)
            if self._pending:
                self._drain()
            lock.release()
            if not self._pending:
                return
        else:
            self._pending.append(chunk)
        # the holder (another thread, or the call this finalizer interrupted) applies queued frees;
        # if it released the lock before seeing ours, apply them now
        if lock.acquire(False):
            self._unlock()

    def _release_chunk(self, c):
        size = c.size
        self._in_use -= size
        self._active -= 1
        if size <= CACHE_MAX_CHUNK and not self._retired:
            cached = self._cache.get(size)
            if cached is None:
                cached = self._cache[size] = []
            if len(cached) < CACHE_DEPTH and self._cached + size <= CACHE_BYTES:
                cached.append(c)            # stays marked in use: the bins do not see it
                c.cached = True
                self._cached += size
                nxt, prv = c.next, c.prev
                if (nxt is not None and (not nxt.in_use or nxt.cached)) or \
                        (prv is not None and (not prv.in_use or prv.cached)):
                    self._loose[c.ptr] = c
                return
        self._coalesce(c)

    def _uncache(self, c):
        self._cache[c.size].remove(c)
        c.cached = False
        self._cached -= c.size
        if self._loose:
            self._loose.pop(c.ptr, None)

    def _flush_loose(self):
        """Give the cached chunks that would have merged with a neighbour back to the bins."""
        loose = list(self._loose.values())
        self._loose.clear()
        for c in loose:
            if c.cached:                    # (not already merged into an earlier one)
                self._uncache(c)
                self._coalesce(c)

    def _flush_cache(self):
        """Give every cached chunk back to the bins (merging with free neighbours)."""
        if not self._cached:
            return
        cache, self._cache, self._cached = self._cache, {}, 0
        self._loose.clear()
        flushed = [c for chunks in cache.values() for c in chunks]
        for c in flushed:
            c.cached = False                # in use until its own turn below: merges happen then
        for c in flushed:
            self._coalesce(c)

    def _coalesce(self, c):
        """Free ``c`` into the bins, merging with the free and cached chunks around it (cached chunks
        may sit next to free or cached ones; two free chunks are never adjacent)."""
        nxt = c.next
        while nxt is not None and (not nxt.in_use or nxt.cached):
            if nxt.cached:
                self._uncache(nxt)
            else:
                self._remove_free(nxt)
            c.size += nxt.size
            c.next = nxt = nxt.next
            if nxt is not None:
                nxt.prev = c
        prv = c.prev
        while prv is not None and (not prv.in_use or prv.cached):
            if prv.cached:
                self._uncache(prv)
            else:
                self._remove_free(prv)
            prv.size += c.size
            prv.next = c.next
            if c.next is not None:
                c.next.prev = prv
            c = prv
            prv = c.prev
        c.in_use = False
        self._insert_free(c)
        if self._retired and c.size == c.region.size:
            self._release_free_regions()

    # -- regions -----------------------------------------------------------
    def _grow_for(self, rounded):
        """Reserve a region able to hold ``rounded`` bytes; its free chunk, or None."""
        region = self._extend(rounded)
        if region is None and self.allow_growth and self._release_free_regions():
            region = self._extend(rounded)
        return None if region is None else region.first

    def _extend(self, rounded):
        limit = self.memory_limit
        available = None if limit is None else limit - self._reserved
        if available is not None and rounded > available:
            return None
        if not self.allow_growth:
            size = available  # everything up to the limit at once (more than one region only when the
            #                   device was short at first: see the back-off below)
        else:
            size = max(rounded, self._last_region, _MIN_REGION, self._reserved >> _GROWTH_FRACTION_SHIFT)
            size = (size + _REGION_GRANULE - 1) & ~(_REGION_GRANULE - 1)
            if available is not None:
                size = min(size, available)
        try:
            ptr, owner = self.provider.alloc(size)
        except MemoryError:
            if size == rounded:
                return None
            try:  # the device is short: back off to exactly what this request needs
                size = rounded
                ptr, owner = self.provider.alloc(size)
            except MemoryError:
                return None
        if ptr % ALIGNMENT:
            self.provider.free(owner)
            raise RuntimeError(f"{self.name}: region provider returned unaligned address 0x{ptr:x}")
        region = _Region(ptr, size, owner, self)
        self._regions.append(region)
        self._last_region = max(self._last_region, size)
        self._reserved += size
        if self._reserved > self._peak_reserved:
            self._peak_reserved = self._reserved
        self._insert_free(region.first)
        return region

    def _release_free_regions(self):
        self._flush_cache()
        released = 0
        keep = []
        for r in self._regions:
            c = r.first
            if not c.in_use and c.size == r.size:
                self._remove_free(c)
                self.provider.free(r.owner)
                self._reserved -= r.size
                released += r.size
            else:
                keep.append(r)
        self._regions = keep
        return released

    def release_free_regions(self):
        """Give fully free regions back to the device (memory growth only); bytes released."""
        if not self.allow_growth:
            return 0
        self._lock.acquire()
        try:
            if self._pending:
                self._drain()
            return self._release_free_regions()
        finally:
            self._unlock()

    def retire(self):
        """The logical device is gone (context reset): give every free region back to the device now
        and each other region when its last chunk is freed, growth or not, so device memory is never
        stranded in an allocator nobody will allocate from again."""
        self._lock.acquire()
        try:
            self._retired = True
            _RETIRED.add(self)
            if self._pending:
                self._drain()
            self._flush_cache()
            self._release_free_regions()
        finally:
            self._unlock()

    def close(self):
        """Give every region back (only when nothing is in use); for teardown."""
        self._lock.acquire()
        try:
            if self._pending:
                self._drain()
            self._flush_cache()
            if self._in_use:
                raise RuntimeError(f"{self.name}: close() with {self._in_use} bytes still in use")
            for r in self._regions:
                self._remove_free(r.first)
                self.provider.free(r.owner)
            self._regions = []
            self._reserved = 0
        finally:
            self._unlock()

    # -- statistics --------------------------------------------------------
    def _oom_message(self, nbytes, rounded):
        limit = "unlimited" if self.memory_limit is None else f"{self.memory_limit} bytes"
        return (f"OOM when allocating {nbytes} bytes ({rounded} rounded) on {self.name}: "
                f"{self._in_use} bytes in use, limit {limit}, largest free chunk {self._largest_free()} bytes "
                f"({self._reserved} bytes reserved in {len(self._regions)} regions). "
                "Free tensors you no longer need, use a smaller batch, or raise the device's memory_limit.")

    def stats(self):
        """Allocator statistics (bytes unless stated), like TF's ``AllocatorStats``."""
        self._lock.acquire()
        try:
            if self._pending:
                self._drain()
            self._flush_cache()             # free-space figures as the plain BFC allocator has them
            largest = self._largest_free()
            total_free = self._reserved - self._in_use
            return {
                "name": self.name,
                "bytes_in_use": self._in_use,
                "peak_bytes_in_use": self._peak_in_use,
                "bytes_reserved": self._reserved,
                "peak_bytes_reserved": self._peak_reserved,
                "bytes_limit": self.memory_limit,
                "num_allocs": self._num_allocs,
                "active_allocs": self._active,
                "largest_alloc_size": self._largest_alloc,
                "largest_free_block": largest,
                "fragmentation": 0.0 if total_free == 0 else 1.0 - largest / total_free,
                "num_regions": len(self._regions),
                "allow_growth": self.allow_growth,
            }
        finally:
            self._unlock()

    def reset_peak(self):
        """Set the peaks (in use and reserved) to the current values."""
        self._lock.acquire()
        try:
            if self._pending:
                self._drain()
            self._peak_in_use = self._in_use
            self._peak_reserved = self._reserved
        finally:
            self._unlock()

    def chunks(self):
        """``[(ptr, size, in_use), ...]`` over every region in address order (for tests and debugging)."""
        self._lock.acquire()
        try:
            if self._pending:
                self._drain()
            self._flush_cache()
            out = []
            for r in sorted(self._regions, key=lambda r: r.ptr):
                c = r.first
                while c is not None:
                    out.append((c.ptr, c.size, c.in_use))
                    c = c.next
            return out
        finally:
            self._unlock()

    def check_consistency(self):
        """Raise AssertionError if the internal structures disagree (tests and debugging)."""
        self._lock.acquire()
        try:
            if self._pending:
                self._drain()
            self._flush_cache()
            in_use = reserved = 0
            free_seen = {}
            for r in self._regions:
                reserved += r.size
                c, prev, end = r.first, None, r.ptr
                assert c.ptr == r.ptr, "region does not start with its first chunk"
                while c is not None:
                    assert c.region is r and c.prev is prev, f"broken chunk links at {c!r}"
                    assert c.ptr == end, f"gap or overlap at {c!r}"
                    assert c.ptr % ALIGNMENT == 0 and c.size % ALIGNMENT == 0 and c.size > 0, f"misaligned {c!r}"
                    if c.in_use:
                        in_use += c.size
                    else:
                        assert prev is None or prev.in_use, f"two adjacent free chunks at {c!r}"
                        free_seen[c.ptr] = c
                    end = c.ptr + c.size
                    prev, c = c, c.next
                assert end == r.ptr + r.size, "chunks do not cover their region"
            assert in_use == self._in_use, f"bytes in use {self._in_use} != chunk total {in_use}"
            assert reserved == self._reserved, f"bytes reserved {self._reserved} != region total {reserved}"
            assert free_seen == self._free, "free-chunk index out of sync"
            binned = sorted(p for lst in self._bins for _, p in lst)
            assert binned == sorted(free_seen), "bins out of sync"
            for b, lst in enumerate(self._bins):
                assert bool(lst) == bool(self._mask >> b & 1), f"bin mask wrong at {b}"
                assert lst == sorted(lst), f"bin {b} unsorted"
                assert all((s >> _SHIFT).bit_length() - 1 == b for s, _ in lst), f"chunk in wrong bin {b}"
            if self.memory_limit is not None:
                assert reserved <= self.memory_limit, "reserved beyond the limit"
        finally:
            self._unlock()

    def __repr__(self):
        return (f"<BFCAllocator {self.name} in_use={self._in_use} reserved={self._reserved} "
                f"limit={self.memory_limit} growth={self.allow_growth}>")


# -- region providers ----------------------------------------------------------

_MAP_NORESERVE = 0x4000 if sys.platform.startswith("linux") else 0   # not exported by the mmap module
_MAP_FLAGS = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE


_RETIRED = weakref.WeakSet()  # retired allocators still holding regions (tensors outlived their context)


def retired_reserved_bytes(device_id):
    """Bytes that retired allocators on ``device_id`` still reserve: they come back to the device
    as the tensors of a reset context die, so a new logical device counts them as free."""
    return sum(a._reserved for a in list(_RETIRED) if getattr(a.provider, "device_id", None) == device_id)


class _HostRegion:
    """Anonymous host memory: page-aligned, committed lazily by the OS, so reserving a
    whole emulated card (memory growth off) costs address space, not RAM."""

    __slots__ = ("ptr", "size", "_map")

    def __init__(self, nbytes):
        try:
            self._map = mmap.mmap(-1, nbytes, flags=_MAP_FLAGS)
        except (OSError, OverflowError, ValueError) as e:
            raise MemoryError(f"could not map {nbytes} bytes of host memory: {e}") from e
        view = c_char.from_buffer(self._map)
        self.ptr = addressof(view)
        del view  # drop the buffer export so close() is allowed
        self.size = nbytes

    def release(self):
        if self._map is not None:
            self._map.close()
            self._map = None


class HostRegionProvider:
    """Regions of host memory (anonymous mmap): backs emulated GPUs and CPU-side tests."""

    def alloc(self, nbytes):
        region = _HostRegion(nbytes)
        return region.ptr, region

    def free(self, owner):
        owner.release()


class _CudaRegion:
    __slots__ = ("ptr", "device_id")

    def __init__(self, ptr, device_id):
        self.ptr = ptr
        self.device_id = device_id

    def release(self):
        if self.ptr:
            import cupy

            with cupy.cuda.Device(self.device_id):
                cupy.cuda.runtime.free(self.ptr)
            self.ptr = 0


class CudaRegionProvider:
    """Regions from ``cudaMalloc`` on ``device_id`` through CuPy (imported lazily)."""

    _CUDA_ERROR_MEMORY_ALLOCATION = 2

    def __init__(self, device_id):
        self.device_id = int(device_id)

    def alloc(self, nbytes):
        import cupy

        runtime = cupy.cuda.runtime
        try:
            with cupy.cuda.Device(self.device_id):
                ptr = runtime.malloc(nbytes)
        except runtime.CUDARuntimeError as e:
            if getattr(e, "status", None) == self._CUDA_ERROR_MEMORY_ALLOCATION:
                raise MemoryError(f"cudaMalloc({nbytes}) failed on GPU {self.device_id}: out of memory") from e
            raise
        return ptr, _CudaRegion(ptr, self.device_id)

    def free(self, owner):
        owner.release()


# -- arrays living in allocations ------------------------------------------------

class _Block:
    """Owns one allocation; frees it when the last array (or CuPy pointer) using it dies.

    For host arrays it also carries ``__array_interface__`` so NumPy arrays can be
    built over its memory with the block as their ``base``: every view keeps the
    block alive, and only the last one to die triggers the free.
    """

    __slots__ = ("__array_interface__", "allocator", "chunk")

    def __init__(self, allocator, chunk):
        self.allocator = allocator
        self.chunk = chunk

    def __del__(self):
        try:
            self.allocator.free(self.chunk)
        except Exception:  # noqa: BLE001 - interpreter shutdown; nothing left to free into
            pass


def host_array(allocator, shape, dtype):
    """An uninitialised NumPy array of ``shape``/``dtype`` whose memory is an allocation.

    The allocation is freed when the array and all its views are garbage
    collected. ``allocator`` must hand out host addresses (HostRegionProvider).
    Object dtypes (tf.string) raise TypeError: their elements are Python references.
    """
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError(f"host_array cannot hold Python objects (dtype {dtype}); keep such arrays in NumPy memory")
    shape = tuple(int(s) for s in shape) if not isinstance(shape, int) else (int(shape),)
    count = 1
    for s in shape:
        count *= s
    nbytes = count * dtype.itemsize
    if nbytes == 0:
        return np.empty(shape, dtype)
    chunk = allocator.allocate(nbytes)
    block = _Block(allocator, chunk)
    if dtype.kind in "biufcM" and not dtype.metadata:
        block.__array_interface__ = {"data": (chunk.ptr, False), "shape": shape, "typestr": dtype.str,
                                     "version": 3}
        return np.asarray(block)
    block.__array_interface__ = {"data": (chunk.ptr, False), "shape": (nbytes,), "typestr": "|u1", "version": 3}
    return np.asarray(block).view(dtype).reshape(shape)


def cupy_allocator(allocator, device_id=None):
    """A function ``nbytes -> cupy.cuda.MemoryPointer`` for ``cupy.cuda.using_allocator``.

    Each pointer's memory is an UnownedMemory whose owner frees the chunk when
    CuPy drops the last reference. ``device_id`` defaults to the provider's.
    """
    from cupy.cuda import memory as cupy_memory

    if device_id is None:
        device_id = getattr(allocator.provider, "device_id", None)
    if device_id is None:
        import cupy

        device_id = cupy.cuda.runtime.getDevice()
    unowned = cupy_memory.UnownedMemory
    pointer = cupy_memory.MemoryPointer
    allocate = allocator.allocate

    def alloc(nbytes):
        chunk = allocate(nbytes)
        if chunk is _ZERO:
            return pointer(unowned(0, 0, None, device_id), 0)
        return pointer(unowned(chunk.ptr, nbytes, _Block(allocator, chunk), device_id), 0)

    return alloc
