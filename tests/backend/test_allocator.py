"""The BFC allocator on its own: address-space model checks, growth, limits, release, arrays."""

import gc
import threading

import numpy as np
import pytest

from tfcore.backend.allocator import (
    ALIGNMENT,
    CACHE_BYTES,
    CACHE_DEPTH,
    CACHE_MAX_CHUNK,
    BFCAllocator,
    HostRegionProvider,
    cupy_allocator,
    host_array,
    round_up,
)
from tfcore.errors import ResourceExhaustedError

MiB = 1 << 20


class FakeProvider:
    """Hands out fake, well-separated, 256-aligned addresses and records what is live."""

    def __init__(self, capacity=None, base=1 << 40):
        self.next = base
        self.live = {}
        self.capacity = capacity
        self.calls = []

    def alloc(self, nbytes):
        self.calls.append(nbytes)
        if self.capacity is not None and sum(self.live.values()) + nbytes > self.capacity:
            raise MemoryError("fake device full")
        ptr = self.next
        self.next += nbytes + (1 << 30)  # never adjacent: chunks must not merge across regions
        self.live[ptr] = nbytes
        return ptr, ptr

    def free(self, owner):
        del self.live[owner]


class Model:
    """Independent model of the address space: each live allocation as [ptr, ptr + size)."""

    def __init__(self):
        self.live = {}

    def add(self, chunk, nbytes):
        assert chunk.ptr % ALIGNMENT == 0
        assert chunk.size == round_up(nbytes) and chunk.size >= nbytes
        for p, (s, _) in self.live.items():
            assert chunk.ptr + chunk.size <= p or p + s <= chunk.ptr, "overlapping allocations"
        self.live[chunk.ptr] = (chunk.size, chunk)

    def remove(self, chunk):
        del self.live[chunk.ptr]

    def bytes(self):
        return sum(s for s, _ in self.live.values())


def _check(alloc, model, provider=None):
    alloc.check_consistency()
    st = alloc.stats()
    assert st["bytes_in_use"] == model.bytes()
    assert st["active_allocs"] == len(model.live)
    chunks = alloc.chunks()
    assert sum(s for _, s, u in chunks if u) == model.bytes()
    assert {p for p, _, u in chunks if u} == set(model.live)
    assert sum(s for _, s, _ in chunks) == st["bytes_reserved"]  # every reserved byte is in exactly one chunk
    if provider is not None:
        assert sum(provider.live.values()) == st["bytes_reserved"]
    free = st["bytes_reserved"] - st["bytes_in_use"]
    if free:
        assert st["largest_free_block"] == max(s for _, s, u in chunks if not u)
        assert st["fragmentation"] == pytest.approx(1 - st["largest_free_block"] / free)
    else:
        assert st["fragmentation"] == 0.0


@pytest.mark.parametrize("growth", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_sequences_match_address_space_model(growth, seed):
    rng = np.random.default_rng(seed)
    provider = FakeProvider()
    alloc = BFCAllocator("test", provider, 64 * MiB, allow_growth=growth)
    model = Model()
    live = []
    peak = 0
    for step in range(1500):
        if live and (rng.random() < 0.45 or model.bytes() > 40 * MiB):
            chunk = live.pop(int(rng.integers(len(live))))
            model.remove(chunk)
            alloc.free(chunk)
        else:
            n = int(rng.choice([rng.integers(1, 600), rng.integers(1, 70_000), rng.integers(1, 3 * MiB)]))
            chunk = alloc.allocate(n)
            model.add(chunk, n)
            live.append(chunk)
        peak = max(peak, model.bytes())
        if step % 50 == 0:
            _check(alloc, model, provider)
    _check(alloc, model, provider)
    assert alloc.stats()["peak_bytes_in_use"] == peak
    for chunk in live:
        model.remove(chunk)
        alloc.free(chunk)
    _check(alloc, model, provider)
    st = alloc.stats()
    assert st["bytes_in_use"] == 0
    # coalescing: every region is one free chunk again
    assert len(alloc.chunks()) == st["num_regions"]
    if growth:
        assert alloc.release_free_regions() == st["bytes_reserved"]
        assert provider.live == {}
    else:
        assert st["num_regions"] == 1
    assert alloc.stats()["fragmentation"] == 0.0


def test_best_fit_split_and_coalesce_by_hand():
    alloc = BFCAllocator("hand", FakeProvider(), 4096, allow_growth=False)
    a = alloc.allocate(256)
    b = alloc.allocate(512)
    c = alloc.allocate(256)
    base = a.ptr
    assert (b.ptr, c.ptr) == (base + 256, base + 768)
    alloc.free(b)                       # hole of 512 between a and c
    d = alloc.allocate(300)             # best fit: the 512 hole (not the 3072 tail)
    assert d.ptr == base + 256 and d.size == 512
    alloc.free(d)
    alloc.free(a)                       # a merges with the hole: 768 free at base
    st = alloc.stats()
    assert st["largest_free_block"] == 4096 - 1024
    assert st["fragmentation"] == pytest.approx(1 - 3072 / (768 + 3072))
    alloc.free(c)                       # everything merges back into one chunk
    assert alloc.chunks() == [(base, 4096, False)]
    assert alloc.stats()["fragmentation"] == 0.0


def test_no_growth_reserves_whole_limit_at_first_allocation():
    provider = FakeProvider()
    alloc = BFCAllocator("nogrowth", provider, 10 * MiB + 100, allow_growth=False)
    assert provider.calls == [] and alloc.stats()["bytes_reserved"] == 0
    x = alloc.allocate(10)
    assert provider.calls == [10 * MiB]           # the limit, rounded down to 256
    assert alloc.stats()["bytes_reserved"] == 10 * MiB
    alloc.free(x)
    assert alloc.release_free_regions() == 0      # growth off keeps its reservation
    assert alloc.stats()["bytes_reserved"] == 10 * MiB


def test_growth_regions_grow_monotonically_and_release():
    provider = FakeProvider()
    alloc = BFCAllocator("growth", provider, None, allow_growth=True)
    held = [alloc.allocate(MiB) for _ in range(40)]
    big = alloc.allocate(9 * MiB)
    held += [alloc.allocate(MiB) for _ in range(10)]
    sizes = provider.calls
    assert sizes[0] == 2 * MiB
    assert all(b >= a for a, b in zip(sizes, sizes[1:])), sizes
    assert len(sizes) < 25                         # grows geometrically, not one region per MiB
    st = alloc.stats()
    assert st["bytes_reserved"] <= 1.3 * st["bytes_in_use"] + 9 * MiB
    alloc.free(big)
    for c in held:
        alloc.free(c)
    released = alloc.release_free_regions()
    assert released == st["bytes_reserved"] and provider.live == {}
    assert alloc.stats()["bytes_reserved"] == 0
    c = alloc.allocate(100)                        # usable after releasing everything
    assert alloc.stats()["bytes_reserved"] >= sizes[-1]   # new region at least as large as the last
    alloc.free(c)


def test_limit_raises_resource_exhausted_with_details_and_stays_usable():
    alloc = BFCAllocator("GPU:0_bfc", FakeProvider(), 4 * MiB, allow_growth=True)
    a = alloc.allocate(3 * MiB)
    before = (alloc.chunks(), alloc.stats())
    with pytest.raises(ResourceExhaustedError) as e:
        alloc.allocate(2 * MiB)
    msg = str(e.value)
    largest = before[1]["largest_free_block"]
    for text in (f"{2 * MiB} bytes", f"{3 * MiB} bytes in use", f"limit {4 * MiB} bytes",
                 f"largest free chunk {largest} bytes", "GPU:0_bfc"):
        assert text in msg, (text, msg)
    after = (alloc.chunks(), alloc.stats())
    assert after == before                         # a failed request changes nothing
    b = alloc.allocate(MiB)                        # the rest of the limit still works
    alloc.free(a)
    c = alloc.allocate(2 * MiB)                    # and freed memory is reusable
    alloc.free(b)
    alloc.free(c)
    alloc.check_consistency()


def test_growth_releases_free_regions_before_giving_up():
    provider = FakeProvider()
    alloc = BFCAllocator("reuse", provider, 8 * MiB, allow_growth=True)
    small = [alloc.allocate(2 * MiB) for _ in range(4)]   # fills the limit with 2 MiB regions
    assert alloc.stats()["bytes_reserved"] == 8 * MiB
    for c in small:
        alloc.free(c)
    big = alloc.allocate(6 * MiB)                  # no region fits; empty ones are released first
    assert alloc.stats()["bytes_reserved"] <= 8 * MiB
    alloc.free(big)
    alloc.check_consistency()


def test_device_out_of_memory_backs_off_then_raises():
    provider = FakeProvider(capacity=5 * MiB)
    alloc = BFCAllocator("small-device", provider, None, allow_growth=True)
    a = alloc.allocate(2 * MiB)
    b = alloc.allocate(2 * MiB)                    # growth wants >= 2 MiB; fits exactly
    with pytest.raises(ResourceExhaustedError):
        alloc.allocate(2 * MiB)                    # device has only 1 MiB left
    c = alloc.allocate(MiB)                        # backs off to the request size
    for x in (a, b, c):
        alloc.free(x)
    alloc.check_consistency()


def test_zero_bytes_and_bad_frees():
    alloc = BFCAllocator("z", FakeProvider(), MiB, allow_growth=True)
    z = alloc.allocate(0)
    assert z.size == 0
    alloc.free(z)
    assert alloc.stats()["bytes_reserved"] == 0
    with pytest.raises(ValueError):
        alloc.allocate(-1)
    a = alloc.allocate(10)
    alloc.free(a)
    with pytest.raises(ValueError, match="double free"):
        alloc.free(a)
    other = BFCAllocator("other", FakeProvider(), MiB, allow_growth=True)
    b = other.allocate(10)
    with pytest.raises(ValueError, match="not allocated by this allocator"):
        alloc.free(b)
    with pytest.raises(ValueError):
        BFCAllocator("x", FakeProvider(), None, allow_growth=False)


def test_reset_peak():
    alloc = BFCAllocator("peak", FakeProvider(), 8 * MiB, allow_growth=True)
    a = alloc.allocate(3 * MiB)
    alloc.free(a)
    b = alloc.allocate(MiB)
    assert alloc.stats()["peak_bytes_in_use"] == 3 * MiB
    alloc.reset_peak()
    assert alloc.stats()["peak_bytes_in_use"] == MiB
    alloc.free(b)
    assert alloc.stats()["num_allocs"] == 2


def test_host_array_lives_in_allocation_and_frees_with_last_view():
    alloc = BFCAllocator("host", HostRegionProvider(), 16 * MiB, allow_growth=True)
    x = host_array(alloc, (100, 3), np.float32)
    x[...] = np.arange(300, dtype=np.float32).reshape(100, 3)
    chunk_ptrs = [p for p, _, u in alloc.chunks() if u]
    assert x.ctypes.data == chunk_ptrs[0] and x.ctypes.data % ALIGNMENT == 0
    view = x[10:20, 1]
    del x
    gc.collect()
    assert alloc.stats()["bytes_in_use"] == round_up(1200)   # the view keeps it alive
    np.testing.assert_array_equal(view, np.arange(31, 60, 3, dtype=np.float32))
    del view
    assert alloc.stats()["bytes_in_use"] == 0
    empty = host_array(alloc, (0, 5), np.float64)
    assert empty.shape == (0, 5) and alloc.stats()["bytes_in_use"] == 0
    flags = host_array(alloc, 7, bool)
    flags[:] = True
    assert flags.dtype == np.bool_ and flags.all()
    with pytest.raises(TypeError, match="Python objects"):
        host_array(alloc, 3, object)


def test_host_array_odd_dtype_uses_byte_view():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    alloc = BFCAllocator("bf16", HostRegionProvider(), MiB, allow_growth=True)
    y = host_array(alloc, (2, 3), ml_dtypes.bfloat16)
    y[...] = 1.5
    assert y.dtype == np.dtype(ml_dtypes.bfloat16) and y.shape == (2, 3) and float(y.sum()) == 9.0
    del y
    assert alloc.stats()["bytes_in_use"] == 0


def test_cupy_allocator_pointers_free_their_chunk():
    pytest.importorskip("cupy")
    alloc = BFCAllocator("cupy", FakeProvider(), 8 * MiB, allow_growth=True)
    make = cupy_allocator(alloc, device_id=0)   # no CUDA call: pointers are only created and dropped
    p = make(1000)
    q = make(5000)
    assert p.ptr % ALIGNMENT == 0 and q.ptr >= p.ptr + 1024
    assert alloc.stats()["bytes_in_use"] == 1024 + round_up(5000)
    del p
    assert alloc.stats()["bytes_in_use"] == round_up(5000)
    del q
    assert alloc.stats()["bytes_in_use"] == 0
    assert make(0).ptr == 0


def test_frees_from_finalizers_and_threads_are_applied():
    alloc = BFCAllocator("threads", HostRegionProvider(), 64 * MiB, allow_growth=True)

    def work(seed):
        rng = np.random.default_rng(seed)
        keep = []
        for _ in range(300):
            keep.append(host_array(alloc, (int(rng.integers(1, 5000)),), np.float32))
            if len(keep) > 20:
                keep.pop(int(rng.integers(len(keep))))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    alloc.check_consistency()
    assert alloc.stats()["bytes_in_use"] == 0


def test_reentrant_free_during_allocate_is_deferred():
    alloc = BFCAllocator("reentrant", FakeProvider(), 8 * MiB, allow_growth=True)
    victim = alloc.allocate(1000)
    alloc._lock.acquire()          # as if a GC finalizer ran inside allocate()
    try:
        alloc.free(victim)         # must not deadlock nor touch the structures
        assert alloc._pending == [victim]
    finally:
        alloc._unlock()            # the holder applies it
    assert alloc.stats()["bytes_in_use"] == 0
    alloc.check_consistency()


def test_cuda_region_provider_maps_cuda_oom_to_memory_error(monkeypatch):
    cupy = pytest.importorskip("cupy")
    from tfcore.backend.allocator import CudaRegionProvider

    runtime = cupy.cuda.runtime
    freed = []

    class NoDevice:            # this machine may have no GPU: stand in for cupy.cuda.Device(i)
        def __init__(self, i):
            self.id = i

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def malloc(n):
        if n > 8 * MiB:
            raise runtime.CUDARuntimeError(2)   # cudaErrorMemoryAllocation
        return 1 << 30

    monkeypatch.setattr(cupy.cuda, "Device", NoDevice)
    monkeypatch.setattr(runtime, "malloc", malloc)
    monkeypatch.setattr(runtime, "free", freed.append)
    provider = CudaRegionProvider(1)
    alloc = BFCAllocator("GPU:1_bfc", provider, 64 * MiB, allow_growth=True)
    a = alloc.allocate(4 * MiB)                 # a 4 MiB region from "cudaMalloc"
    assert a.ptr == 1 << 30
    with pytest.raises(ResourceExhaustedError):
        alloc.allocate(16 * MiB)                # the device refuses: OOM error, not a CUDA crash
    alloc.free(a)
    assert alloc.release_free_regions() == 4 * MiB and freed == [1 << 30]


# -- the small-size cache (freed small chunks reused without the bin search) ----------------------------

def test_small_free_is_reused_by_same_size_without_touching_bins():
    alloc = BFCAllocator("cache", FakeProvider(), 4 * MiB, allow_growth=True)
    keep = alloc.allocate(1000)
    a = alloc.allocate(32)
    bins_before = [list(b) for b in alloc._bins]
    alloc.free(a)
    assert alloc._cached == ALIGNMENT                       # held in the cache, not merged into the bins
    assert [list(b) for b in alloc._bins] == bins_before
    b = alloc.allocate(200)                                 # same rounded size: the same chunk back
    assert b is a and b.ptr == a.ptr and b.requested == 200 and alloc._cached == 0
    assert [list(b) for b in alloc._bins] == bins_before
    alloc.free(b)
    alloc.free(keep)
    alloc.check_consistency()                               # flushes: everything coalesces
    assert len(alloc.chunks()) == alloc.stats()["num_regions"]


def test_stats_exact_while_chunks_are_cached():
    alloc = BFCAllocator("cache-stats", FakeProvider(), 8 * MiB, allow_growth=True)
    big = alloc.allocate(MiB)
    small = [alloc.allocate(n) for n in (1, 256, 257, 4000, 70_000, CACHE_MAX_CHUNK)]
    in_use = MiB + sum(c.size for c in small)
    st = alloc.stats()
    assert (st["bytes_in_use"], st["peak_bytes_in_use"], st["active_allocs"]) == (in_use, in_use, 7)
    for c in small[:4]:
        alloc.free(c)
    assert alloc._cached > 0                                # the fast path is in play ...
    freed = sum(c.size for c in small[:4])
    assert alloc._in_use == in_use - freed                  # ... and the counters already exclude it
    st = alloc.stats()                                      # the exact figures of the plain BFC allocator
    assert st["bytes_in_use"] == in_use - freed and st["active_allocs"] == 3
    assert st["peak_bytes_in_use"] == in_use
    chunks = alloc.chunks()
    assert sum(s for _, s, u in chunks if u) == in_use - freed
    assert st["largest_free_block"] == max(s for _, s, u in chunks if not u)
    x = alloc.allocate(256)                                 # after a flush the bins serve it
    alloc.reset_peak()
    assert alloc.stats()["peak_bytes_in_use"] == in_use - freed + 256
    for c in [x, big, *small[4:]]:
        alloc.free(c)
    st = alloc.stats()
    assert st["bytes_in_use"] == 0 and st["active_allocs"] == 0 and st["fragmentation"] == 0.0
    assert st["num_allocs"] == 8


def test_cache_is_bounded():
    alloc = BFCAllocator("cache-bound", FakeProvider(), 64 * MiB, allow_growth=True)
    pairs = [(alloc.allocate(512), alloc.allocate(256)) for _ in range(CACHE_DEPTH + 5)]
    for c, _spacer in pairs:                                # isolated: nothing to merge with
        alloc.free(c)
    assert len(alloc._cache[512]) == CACHE_DEPTH and not alloc._loose
    for _, spacer in pairs:
        alloc.free(spacer)
    sizes = list(range(ALIGNMENT, CACHE_MAX_CHUNK + 1, 4096 + ALIGNMENT))
    many = [alloc.allocate(n) for n in sizes for _ in range(2)]
    for c in many:
        alloc.free(c)
    assert alloc._cached <= CACHE_BYTES
    big = alloc.allocate(CACHE_MAX_CHUNK + ALIGNMENT)       # larger chunks never enter the cache
    alloc.free(big)
    assert CACHE_MAX_CHUNK + ALIGNMENT not in alloc._cache
    alloc.check_consistency()


@pytest.mark.parametrize("growth", [False, True])
def test_cached_chunks_are_flushed_before_out_of_memory(growth):
    """A request that only fits once the cached small chunks merge back succeeds (no OOM); a request
    that does not fit at all raises with the plain allocator's figures and leaves everything usable."""
    limit = 64 * 1024
    provider = FakeProvider()
    alloc = BFCAllocator("cache-oom", provider, limit, allow_growth=growth)
    first = alloc.allocate(1)        # growth regions are >= 2 MiB, capped by the limit: one region either way
    assert first.size == ALIGNMENT and provider.calls == [limit]
    alloc.free(first)
    small = [alloc.allocate(1024) for _ in range(limit // 1024)]      # fills the limit
    with pytest.raises(ResourceExhaustedError):
        alloc.allocate(1)
    for c in small:
        alloc.free(c)
    assert alloc._cached > 0
    whole = alloc.allocate(limit)                           # only possible after the flush
    assert whole.size == limit and alloc._cached == 0
    with pytest.raises(ResourceExhaustedError) as e:
        alloc.allocate(ALIGNMENT)
    assert f"{limit} bytes in use" in str(e.value) and "largest free chunk 0 bytes" in str(e.value)
    alloc.free(whole)
    st = alloc.stats()
    assert st["bytes_in_use"] == 0 and st["largest_free_block"] == limit
    assert provider.calls == [limit]                        # never grew past the limit nor re-reserved
    with pytest.raises(ResourceExhaustedError) as e:
        alloc.allocate(limit + 1)
    # as the plain allocator: growth gives its empty region back before giving up, growth off keeps it
    assert f"largest free chunk {0 if growth else limit} bytes" in str(e.value)
    alloc.check_consistency()


def test_cached_chunks_do_not_pin_regions_under_growth():
    provider = FakeProvider()
    alloc = BFCAllocator("cache-release", provider, None, allow_growth=True)
    chunks = [alloc.allocate(n) for n in (100, 300, 5000, 100_000)]
    for c in chunks:
        alloc.free(c)
    assert alloc._cached > 0
    reserved = alloc.stats()["bytes_reserved"]
    assert alloc.release_free_regions() == reserved and provider.live == {}
    c = alloc.allocate(100)
    alloc.free(c)
    alloc.retire()                                          # a retired allocator keeps nothing cached
    assert provider.live == {} and alloc._cached == 0


def test_cached_chunks_flushed_before_growth_keeps_reservation():
    """Memory growth: a request that fits in the merged cached chunks does not reserve a new region."""
    provider = FakeProvider()
    alloc = BFCAllocator("cache-growth", provider, None, allow_growth=True)
    small = [alloc.allocate(64 * 1024) for _ in range(32)]  # exactly the first 2 MiB region
    assert provider.calls == [2 * MiB]
    for c in small:
        alloc.free(c)
    assert alloc._cached > 0
    c = alloc.allocate(2 * MiB)
    assert provider.calls == [2 * MiB]
    alloc.free(c)


@pytest.mark.parametrize("growth", [False, True])
def test_random_small_sizes_with_cache_match_model(growth):
    """Like the randomized test above with sizes the cache serves, checked while chunks are cached."""
    rng = np.random.default_rng(7)
    provider = FakeProvider()
    alloc = BFCAllocator("cache-random", provider, 4 * MiB, allow_growth=growth)
    model = Model()
    live = []
    peak = hits = 0
    sizes = [1, 200, 256, 1000, 4096, 5000, 60_000, CACHE_MAX_CHUNK]
    for step in range(3000):
        if live and (rng.random() < 0.5 or model.bytes() > 3 * MiB):
            chunk = live.pop(int(rng.integers(len(live))))
            model.remove(chunk)
            alloc.free(chunk)
        else:
            n = int(rng.choice(sizes)) if rng.random() < 0.8 else int(rng.integers(1, 300_000))
            cached = alloc._cached
            chunk = alloc.allocate(n)
            hits += alloc._cached < cached
            model.add(chunk, n)
            live.append(chunk)
        peak = max(peak, model.bytes())
        assert alloc._in_use == model.bytes() and alloc._active == len(live)
        if step % 97 == 0:
            _check(alloc, model, provider)
    assert hits > 500
    _check(alloc, model, provider)
    assert alloc.stats()["peak_bytes_in_use"] == peak
    for chunk in live:
        model.remove(chunk)
        alloc.free(chunk)
    _check(alloc, model, provider)
    assert len(alloc.chunks()) == alloc.stats()["num_regions"]


def test_cache_with_frees_from_threads_and_finalizers():
    alloc = BFCAllocator("cache-threads", HostRegionProvider(), 64 * MiB, allow_growth=True)

    def work(seed):
        rng = np.random.default_rng(seed)
        keep = []
        for _ in range(2000):
            keep.append(host_array(alloc, (int(rng.choice([2, 8, 64, 1000, 20_000])),), np.float32))
            if len(keep) > 10:
                keep.pop(int(rng.integers(len(keep))))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    assert alloc._in_use == 0 and alloc._active == 0
    alloc.check_consistency()
    st = alloc.stats()
    assert st["bytes_in_use"] == 0 and st["fragmentation"] == 0.0


def test_cached_chunk_double_free_detected():
    alloc = BFCAllocator("cache-double", FakeProvider(), MiB, allow_growth=True)
    a = alloc.allocate(10)
    alloc.free(a)
    assert alloc._cached
    with pytest.raises(ValueError, match="double free"):
        alloc.free(a)
    alloc.check_consistency()


def test_neighbours_of_cached_chunks_merge_as_without_cache():
    """Chunks freed next to cached ones merge with them, and a request the cache cannot serve sees
    the free space the plain allocator would have (the cache never adds fragmentation there)."""
    alloc = BFCAllocator("cache-merge", FakeProvider(), 8192, allow_growth=False)
    a, b, c, d = (alloc.allocate(n) for n in (256, 512, 256, 1024))
    base = a.ptr
    alloc.free(b)                                           # isolated: cached
    alloc.free(a)                                           # next to a cached chunk: cached, loose
    assert b.cached and a.cached and a.ptr in alloc._loose
    e = alloc.allocate(700)                                 # miss: a + b (768) merge and serve it
    assert e.ptr == base and e.size == 768
    alloc.free(c)                                           # between e and d: cached, isolated
    alloc.free(e)                                           # next to cached c: cached, loose
    alloc.free(d)                                           # cached too: a run of cached chunks
    assert c.cached and e.cached and d.cached
    assert alloc.stats()["largest_free_block"] == 8192 and alloc.chunks() == [(base, 8192, False)]
    whole = alloc.allocate(8192)                            # nothing lost to the cache
    assert whole.ptr == base
    alloc.free(whole)
    alloc.check_consistency()


def test_first_small_free_does_not_fragment_a_full_limit():
    """The plain allocator fits 64 KiB of 1 KiB requests after a small allocation came and went."""
    limit = 64 * 1024
    alloc = BFCAllocator("cache-frag", FakeProvider(), limit, allow_growth=False)
    alloc.free(alloc.allocate(1))                           # cached, loose (its neighbour is free)
    full = [alloc.allocate(1024) for _ in range(limit // 1024)]
    assert alloc.stats()["bytes_in_use"] == limit
    for c in full:
        alloc.free(c)
    alloc.check_consistency()
