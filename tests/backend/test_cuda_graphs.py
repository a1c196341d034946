"""CUDA-graph capture and cross-device copies of a real GPU's backend, against a CuPy stand-in that
models CUDA's rules (tests/backend/fake_cupy.py: queued stream work, capture, events, aliasing memory).

Each test drives the code a real GPU runs (``graph_capture.CupyStreamCapture`` -> ``CudaBackend``,
``tfcore.backend.cuda_graphs``, ``CudaBackend.from_other``, the reductions' workspace) and checks what
hardware would show: a stream left in an invalidated capture, another thread's work swallowed by a
capture, a graph replaying into memory it no longer owns, a copy reading a reused source.
tests/gpu/test_cuda_graph_safety_gpu.py checks the same on a real card.
"""

import gc
import threading

import numpy as np
import pytest
from fake_cupy import ERR_CAPTURE_INVALIDATED, ERR_CAPTURE_UNSUPPORTED, CUDARuntimeError, install

from tfcore.backend import activation
from tfcore.function import graph_capture


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


def make_backend(device_id=0, logical_index=0, limit=1 << 24):
    from tfcore.backend.cuda import CudaBackend

    return CudaBackend(device_id, "Fake GPU", (9, 0), 1 << 30, memory_limit_bytes=limit, memory_growth=True,
                       logical_index=logical_index)


def filled(fake, b, n, value, dtype=np.float32):
    """A device array of ``n`` values on ``b`` filled with ``value`` (queued on b's stream for this thread)."""
    with b.activate():
        a = fake.module.empty((n,), dtype)
        a.fill(value)
    return a


def begin(b):
    """A capture through the runner's interface (what tf.function's GraphRunner calls)."""
    return graph_capture.CupyStreamCapture().begin(b)


# -- 1: a failed capture never poisons the device ------------------------------------------------------

def test_an_invalidated_capture_ends_and_the_device_stays_usable(fake):
    b = make_backend()
    x = filled(fake, b, 4, 1.0)
    session = begin(b)
    with pytest.raises(CUDARuntimeError) as e, b.activate():
        x.fill(2.0)                  # captured
        b.stream.synchronize()       # a host wait inside the capture: invalidates it (as CUDA)
    assert e.value.status == ERR_CAPTURE_UNSUPPORTED
    session.abort()
    # the logical device's stream runs eager work again, and a later capture can begin
    assert not b.stream.is_capturing()
    y = filled(fake, b, 4, 3.0)
    np.testing.assert_array_equal(fake.module.asnumpy(y), np.full(4, 3.0, np.float32))
    np.testing.assert_array_equal(fake.module.asnumpy(x), np.ones(4, np.float32))  # the captured fill never ran
    begin(b).end()
    assert activation.capture_override(b) is None


def test_abort_ends_an_invalidated_capture_although_is_capturing_raises(fake):
    """CuPy's ``is_capturing()`` raises on an invalidated capture; abort must still call ``end_capture()``."""
    b = make_backend()
    session = begin(b)
    cap_stream = b.stream
    cap_stream.invalidate()
    with pytest.raises(RuntimeError, match="invalidated the capture"):
        cap_stream.is_capturing()
    session.abort()
    assert ("end_capture", cap_stream.name) in fake.log
    assert not cap_stream.invalidated and cap_stream.capture is None


def test_the_capture_runs_on_a_private_stream_forked_and_joined_with_events(fake):
    b = make_backend()
    main = b.stream
    session = begin(b)
    cap = b.stream
    assert cap is not main and cap.capture is not None and main.capture is None
    assert ("wait_event", cap.name, main.name) in fake.log   # fork
    with b.activate():
        assert fake.module.cuda.get_current_stream() is cap
    graph = session.end()
    assert b.stream is main
    assert ("wait_event", main.name, cap.name) in fake.log   # join
    graph.launch()
    assert ("graph_launch", main.name, 0) in fake.log


# -- 2: capture is private to the capturing thread --------------------------------------------------

def test_another_threads_ops_run_and_are_not_pinned_while_a_capture_is_open(fake):
    b = make_backend()
    opened, done = threading.Event(), threading.Event()
    box = {}

    def capturer():
        s = begin(b)
        opened.set()
        done.wait(10)
        box["graph"] = s.end()

    t = threading.Thread(target=capturer)
    t.start()
    assert opened.wait(10)
    try:
        y = filled(fake, b, 8, 5.0)                       # this thread: the device's own stream
        assert b.stream.capture is None
        np.testing.assert_array_equal(fake.module.asnumpy(y), np.full(8, 5.0, np.float32))
    finally:
        done.set()
        t.join(10)
    assert not t.is_alive()
    graph = box["graph"]
    assert graph.pinned == []                            # the other thread's allocation is its own
    ptr = y.data.ptr
    del y
    gc.collect()
    z = filled(fake, b, 8, 0.0)
    assert z.data.ptr == ptr                             # it went back to the allocator


def test_overlapping_captures_on_two_threads_restore_their_own_state(fake):
    b = make_backend()
    steps = [threading.Event() for _ in range(4)]
    graphs = {}

    def first():
        s = begin(b)
        filled(fake, b, 16, 1.0)
        steps[0].set()
        steps[1].wait(10)
        graphs["a"] = s.end()                              # ends before the second capture does
        steps[2].set()

    def second():
        steps[0].wait(10)
        s = begin(b)
        steps[1].set()
        steps[2].wait(10)
        filled(fake, b, 16, 2.0)
        graphs["b"] = s.end()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(graphs["a"].pinned) == 1 and len(graphs["b"].pinned) == 1
    assert graphs["a"].pinned[0] is not graphs["b"].pinned[0]
    assert b._cupy_alloc is b._base_alloc and activation.capture_override(b) is None
    filled(fake, b, 16, 3.0)                               # nothing pins allocations any more
    assert len(graphs["a"].pinned) == 1 and len(graphs["b"].pinned) == 1


# -- 3: graphs own every buffer they use (the reductions' workspace) --------------------------------

class ReduceKernels:
    """Launches of kernels/reduce.cu's column kernels, modelled: a kernel reads and writes ADDRESSES when
    it runs (as a replayed graph does); ``reduce_cols_split`` writes its partials into the workspace."""

    def __init__(self, fake):
        self.fake = fake

    def launch(self, name, grid, block, args, shared_mem=0):
        fake = self.fake
        x, y = args[0], args[1]
        xp_, xn, yp, yn = x.data.ptr, x.nbytes, y.data.ptr, y.nbytes
        if "split" in name:
            part, _tickets, outer, r, inner, splits = args[2], args[3], *(int(v) for v in args[4:8])
            pp = part.data.ptr
        else:
            outer, r, inner, splits = int(args[2]), int(args[3]), int(args[4]), 1

        def run():
            xs = fake.bytes_at(xp_, xn).view(np.float32).reshape(outer, r, inner)
            if splits > 1:
                per = -(-r // splits)
                pv = fake.bytes_at(pp, outer * splits * inner * 4).view(np.float32).reshape(outer, splits, inner)
                for k in range(splits):
                    pv[:, k] = xs[:, k * per:(k + 1) * per].sum(1)
                total = pv.sum(1)
            else:
                total = xs.sum(1)
            fake.bytes_at(yp, yn).view(np.float32)[:] = total.ravel()
        fake.module.cuda.get_current_stream().enqueue(run, name)


def test_a_graph_keeps_the_reduction_workspace_it_captured_after_the_cache_regrows(fake):
    from tfcore.ops.cuda_kernels import reduce as rd

    b = make_backend()
    b.kernels = ReduceKernels(fake)
    rng = np.random.default_rng(0)
    host = rng.standard_normal((1, 512, 32)).astype(np.float32)
    with b.activate():
        x = fake.module.asarray(host)
        rd.reduce_layout(b, x, 1, 512, 32, "sum", splits=4)           # warm-up: the workspace is made
    workspace_before = b._tfc_kernel_workspaces["reduce_cols_split"][1]
    session = begin(b)
    with b.activate():
        y = rd.reduce_layout(b, x, 1, 512, 32, "sum", splits=4)       # captured: bakes in the workspace
    graph = session.end()
    part_ptr = workspace_before[0].data.ptr
    del workspace_before
    with b.activate():                                                # a larger eager reduction regrows it
        big = fake.module.asarray(np.ones((1, 1024, 256), np.float32))
        rd.reduce_layout(b, big, 1, 1024, 256, "sum", splits=8)
    gc.collect()
    others = [filled(fake, b, 128, 7.0) for _ in range(64)]           # other tensors take freed memory
    graph.launch()                                                    # replays write the captured addresses
    np.testing.assert_allclose(fake.module.asnumpy(y), host.sum(1).ravel(), rtol=1e-5)
    for o in others:
        np.testing.assert_array_equal(fake.module.asnumpy(o), np.full(128, 7.0, np.float32))
    assert all(o.data.ptr != part_ptr for o in others)                # ...which no other tensor was given
    assert any(getattr(w, "__len__", None) and w[0].data.ptr == part_ptr for w in graph.pinned)
    graph.release()
    assert graph.pinned == []


def test_a_workspace_first_made_inside_a_capture_belongs_to_that_graph_only(fake):
    from tfcore.ops.cuda_kernels import reduce as rd

    b = make_backend()
    b.kernels = ReduceKernels(fake)
    with b.activate():
        x = fake.module.asarray(np.ones((1, 512, 32), np.float32))
    session = begin(b)
    with b.activate():
        rd.reduce_layout(b, x, 1, 512, 32, "sum", splits=4)
    graph = session.end()
    assert "reduce_cols_split" not in getattr(b, "_tfc_kernel_workspaces", {})  # its zero-fill never ran
    assert len(graph.pinned) >= 3  # output, partials, tickets


# -- 4: nothing capture-unsafe inside a capture ------------------------------------------------------

def test_allocator_growth_inside_a_capture_uses_relaxed_mode(fake):
    """BFC growth calls cudaMalloc; CUDA refuses it in a ThreadLocal/Global capture (the fake raises 900)."""
    b = make_backend()
    filled(fake, b, 16, 0.0)                          # a first, small region
    session = begin(b)
    assert b.stream.capture_mode == fake.module.cuda.runtime.streamCaptureModeRelaxed
    n_malloc = fake.count("malloc")
    big = filled(fake, b, 1 << 20, 1.0)               # needs a new region: cudaMalloc during the capture
    assert fake.count("malloc") == n_malloc + 1
    graph = session.end()
    assert any(m.ptr == big.data.ptr for m in graph.pinned)


def test_host_to_device_staging_is_refused_inside_a_capture_and_the_watch_list_drains(fake):
    from tfcore.backend.cuda_graphs import CaptureUnsafeError

    b = make_backend()
    session = begin(b)
    with pytest.raises(CaptureUnsafeError, match="host-to-device"):
        b.asarray(np.arange(4, dtype=np.float32))
    assert not any(ev.captured for ev, _ in fake.watch_list)  # no event recorded inside the capture
    session.abort()
    a = b.asarray(np.arange(4, dtype=np.float32))    # outside a capture: staged as usual
    np.testing.assert_array_equal(fake.module.asnumpy(a), np.arange(4, dtype=np.float32))
    b.asarray(np.zeros(2, np.float32))
    assert len(fake.watch_list) <= 1                  # every staging event recorded outside a capture completes


def test_resize_ops_are_not_captured():
    from tfcore.function import cuda_graph

    assert {"ResizeBilinear", "ResizeNearestNeighbor"} <= cuda_graph.HOST_STAGING_OPS


# -- 8: copies between logical GPUs are ordered against reuse of the source ----------------------------

def test_a_copy_between_logical_gpus_finishes_before_the_source_memory_is_reused(fake):
    src_b, dst_b = make_backend(0, 0), make_backend(0, 1)
    src = filled(fake, src_b, 64, 1.0)
    out = dst_b.from_other(src, src_b)
    ptr = src.data.ptr
    del src                                            # the caller drops the source right away
    gc.collect()
    reuse = filled(fake, src_b, 64, 9.0)               # the next allocation on the source device reuses it
    assert reuse.data.ptr == ptr
    fake.drain(order=[src_b.stream, dst_b.stream])     # the source's stream runs first when it may
    np.testing.assert_array_equal(out.host(), np.ones(64, np.float32))
    np.testing.assert_array_equal(reuse.host(), np.full(64, 9.0, np.float32))


def test_a_copy_waits_for_the_sources_pending_writes(fake):
    src_b, dst_b = make_backend(0, 0), make_backend(0, 1)
    src = filled(fake, src_b, 8, 4.0)                  # still queued on the source's stream
    out = dst_b.from_other(src, src_b)
    fake.drain(order=[dst_b.stream, src_b.stream])     # the destination's stream runs first when it may
    np.testing.assert_array_equal(out.host(), np.full(8, 4.0, np.float32))


def test_errors_are_cuda_errors():
    assert issubclass(CUDARuntimeError, RuntimeError) and ERR_CAPTURE_INVALIDATED == 901


# -- the runner's interface over the backend (graph_capture.CupyStreamCapture) ---------------------------

def test_cupy_stream_capture_supports_real_cuda_backends_only(fake):
    from tfcore.backend.emulator.backend import EmulatedGPUBackend

    cap = graph_capture.CupyStreamCapture()
    assert cap.supports(make_backend())
    assert not cap.supports(EmulatedGPUBackend(0, "Emulated", (8, 0), 1 << 30, memory_limit_bytes=1 << 20))


def test_copies_in_a_capture_are_graph_nodes_and_clones_copy_now(fake):
    from tfcore.framework import dtypes
    from tfcore.framework.tensor import Tensor

    b = make_backend()
    cap = graph_capture.CupyStreamCapture()
    src, dst = filled(fake, b, 8, 2.0), filled(fake, b, 8, 0.0)
    session = cap.begin(b)
    session.copy(dst, src)                              # recorded on the capture stream, not run
    graph = session.end()
    np.testing.assert_array_equal(fake.module.asnumpy(dst), np.zeros(8, np.float32))
    graph.launch()
    np.testing.assert_array_equal(fake.module.asnumpy(dst), np.full(8, 2.0, np.float32))
    t = cap.clone(b, Tensor(src, dtypes.float32, None))
    assert t._array.data.ptr != src.data.ptr
    np.testing.assert_array_equal(fake.module.asnumpy(t._array), np.full(8, 2.0, np.float32))
