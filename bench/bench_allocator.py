"""BFC allocator benchmarks (docs/architecture.md §5).

- alloc/free throughput: random sizes with a steady population of live chunks,
  raw ``allocate``/``free`` pairs and ``host_array`` (allocation + NumPy wrapper +
  free on garbage collection), next to ``numpy.empty`` for scale.
- memory efficiency on a training-like trace: persistent weights and Adam
  slots, then steps whose forward pass allocates activations (plus short-lived
  temporaries), whose backward pass frees them in reverse while allocating
  gradients, and an optimizer update; batch sizes vary (a short last batch,
  a larger evaluation batch) as in real input pipelines. Reported:
  ``peak_bytes_reserved / peak_bytes_in_use`` with memory growth on (target
  <= 1.3), the number of regions and the final fragmentation.

Run ``python bench/bench_allocator.py``; under pytest the same functions are
pytest-benchmark cases.
"""

import argparse
import time

import numpy as np

from tfcore.backend.allocator import BFCAllocator, HostRegionProvider, host_array

MiB = 1 << 20


class AddressOnlyProvider:
    """Fake device memory: distinct aligned addresses, no real bytes (to model large cards)."""

    def __init__(self):
        self._next = 1 << 44

    def alloc(self, nbytes):
        ptr = self._next
        self._next += nbytes + (1 << 32)
        return ptr, ptr

    def free(self, owner):
        pass


def alloc_free_throughput(n_ops=200_000, live=1000, seed=0):
    """Allocate/free operations per second with ``live`` chunks outstanding."""
    rng = np.random.default_rng(seed)
    sizes = (rng.lognormal(9, 2.5, n_ops).astype(np.int64) + 1).clip(1, 64 * MiB).tolist()
    victims = rng.integers(0, live, n_ops).tolist()
    alloc = BFCAllocator("bench", AddressOnlyProvider(), None, allow_growth=True)
    held = [alloc.allocate(s) for s in sizes[:live]]
    t0 = time.perf_counter()
    for s, v in zip(sizes, victims):
        alloc.free(held[v])
        held[v] = alloc.allocate(s)
    dt = time.perf_counter() - t0
    for c in held:
        alloc.free(c)
    return 2 * n_ops / dt


def eager_pair_us(n_ops=200_000, nbytes=32, live=1000, seed=0):
    """Microseconds per allocate+free pair of one small size (an eager op's output, e.g. ``a + b`` of
    8 floats) while ``live`` chunks of lognormal sizes stay allocated."""
    rng = np.random.default_rng(seed)
    alloc = BFCAllocator("bench-eager", AddressOnlyProvider(), None, allow_growth=True)
    held = [alloc.allocate(int(s)) for s in (rng.lognormal(9, 2.5, live).astype(np.int64) + 1).clip(1, 64 * MiB)]
    allocate, free = alloc.allocate, alloc.free
    t0 = time.perf_counter()
    for _ in range(n_ops):
        free(allocate(nbytes))
    dt = time.perf_counter() - t0
    for c in held:
        free(c)
    return dt / n_ops * 1e6


def host_array_throughput(n_ops=100_000, seed=0):
    """host_array create+drop per second, and numpy.empty's for reference."""
    rng = np.random.default_rng(seed)
    shapes = [(int(n),) for n in rng.integers(1, 50_000, n_ops)]
    alloc = BFCAllocator("bench-host", HostRegionProvider(), 256 * MiB, allow_growth=True)
    window = [None] * 64
    t0 = time.perf_counter()
    for i, shape in enumerate(shapes):
        window[i & 63] = host_array(alloc, shape, np.float32)
    ours = n_ops / (time.perf_counter() - t0)
    window = [None] * 64
    t0 = time.perf_counter()
    for i, shape in enumerate(shapes):
        window[i & 63] = np.empty(shape, np.float32)
    ref = n_ops / (time.perf_counter() - t0)
    return ours, ref


def training_trace(steps=30, seed=0):
    """A list of ('a', key, nbytes) / ('f', key) events shaped like a training loop."""
    rng = np.random.default_rng(seed)
    widths = [3 * 224 * 224 // 64, 4096, 4096, 2048, 2048, 1024, 1024, 512, 1000]
    layers = list(zip(widths[:-1], widths[1:]))
    ev = []
    key = 0

    def new(nbytes):
        nonlocal key
        key += 1
        ev.append(("a", key, int(nbytes)))
        return key

    for fan_in, fan_out in layers:                      # weights, bias, Adam m and v for each
        for n in (4 * fan_in * fan_out, 4 * fan_out):
            new(n), new(n), new(n)
    for step in range(steps):
        batch = 64 if step % 10 != 9 else int(rng.integers(8, 64))   # short last batch of an epoch
        if step % 15 == 14:
            batch = 256                                 # an evaluation batch
        acts = [new(4 * batch * widths[0])]
        for _fan_in, fan_out in layers:                 # forward: matmul out, bias-add out, activation out
            tmp = new(4 * batch * fan_out)
            pre = new(4 * batch * fan_out)
            ev.append(("f", tmp))
            acts.append(new(4 * batch * fan_out))
            acts.append(pre)
        loss_tmp = new(4 * batch * widths[-1])
        ev.append(("f", loss_tmp))
        grad = new(4 * batch * widths[-1])
        grads = []
        for (fan_in, fan_out) in reversed(layers):     # backward: free activations as gradients appear
            g_pre = new(4 * batch * fan_out)
            ev.append(("f", grad))
            ev.append(("f", acts.pop()))
            ev.append(("f", acts.pop()))
            grads.append((new(4 * fan_in * fan_out), 4 * fan_in * fan_out))
            grads.append((new(4 * fan_out), 4 * fan_out))
            grad = new(4 * batch * fan_in)
            ev.append(("f", g_pre))
        ev.append(("f", grad))
        for a in acts:
            ev.append(("f", a))
        for g, nbytes in grads:                         # optimizer: one temporary per parameter
            ev.append(("f", new(nbytes)))
            ev.append(("f", g))
    return ev


def replay(events, allocator):
    live = {}
    for e in events:
        if e[0] == "a":
            live[e[1]] = allocator.allocate(e[2])
        else:
            allocator.free(live.pop(e[1]))
    return live


def trace_efficiency(steps=30, seed=0, allow_growth=True):
    """Stats after replaying the training trace on a fresh allocator."""
    events = training_trace(steps, seed)
    alloc = BFCAllocator("trace", AddressOnlyProvider(), 16 << 30, allow_growth=allow_growth)
    t0 = time.perf_counter()
    replay(events, alloc)
    dt = time.perf_counter() - t0
    st = alloc.stats()
    st["ratio"] = st["peak_bytes_reserved"] / st["peak_bytes_in_use"]
    st["events_per_s"] = len(events) / dt
    return st


def smallest_fixed_limit(steps=30, seed=0):
    """Smallest memory_limit (growth off, 1 MiB resolution) under which the trace runs without OOM."""
    from tfcore.errors import ResourceExhaustedError

    events = training_trace(steps, seed)
    peak = trace_efficiency(steps, seed)["peak_bytes_in_use"]
    lo, hi = peak // MiB, 2 * peak // MiB + 1
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            replay(events, BFCAllocator("fixed", AddressOnlyProvider(), mid * MiB, allow_growth=False))
            hi = mid
        except ResourceExhaustedError:
            lo = mid + 1
    return lo * MiB


# -- pytest-benchmark cases ---------------------------------------------------------

def test_alloc_free_throughput(benchmark):
    rate = benchmark.pedantic(alloc_free_throughput, kwargs={"n_ops": 20_000}, rounds=1, iterations=1)
    assert rate > 0


def test_eager_pair(benchmark):
    us = benchmark.pedantic(eager_pair_us, kwargs={"n_ops": 20_000}, rounds=1, iterations=1)
    assert us > 0


def test_training_trace_reserved_over_in_use(benchmark):
    st = benchmark.pedantic(trace_efficiency, kwargs={"steps": 10}, rounds=1, iterations=1)
    assert st["ratio"] >= 1.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    rate = alloc_free_throughput()
    print(f"allocate/free (1000 live, lognormal sizes): {rate / 1e6:.2f} M ops/s "
          f"({1e6 / rate:.2f} us per operation)")
    print(f"allocate+free pair of 32 bytes (eager op output, 1000 live): {eager_pair_us():.2f} us")
    ours, ref = host_array_throughput()
    print(f"host_array create+free: {ours / 1e3:.0f} k/s  (numpy.empty: {ref / 1e3:.0f} k/s)")
    st = trace_efficiency(args.steps, allow_growth=True)
    print(f"training trace, memory growth on: peak in use {st['peak_bytes_in_use'] / MiB:.1f} MiB, "
          f"peak reserved {st['peak_bytes_reserved'] / MiB:.1f} MiB, ratio {st['ratio']:.3f} (target <= 1.3), "
          f"{st['num_regions']} regions, {st['events_per_s'] / 1e6:.2f} M events/s")
    need = smallest_fixed_limit(args.steps)
    print(f"training trace, memory growth off: smallest limit that runs it = {need / MiB:.1f} MiB "
          f"= {need / st['peak_bytes_in_use']:.3f} x peak in use")

if __name__ == "__main__":
    main()
