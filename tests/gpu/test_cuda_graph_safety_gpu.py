"""CUDA-graph safety on a real GPU (issue 21 items 1-5, 8): the mechanisms that
tests/backend/test_cuda_graphs.py checks against a CuPy stand-in, run on the card itself."""

import threading

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend import activation
from tfcore.backend.cuda_graphs import CaptureUnsafeError
from tfcore.function import cuda_graph, cuda_graph_checks


@pytest.fixture(autouse=True)
def _gpu(real_gpu0):
    return real_gpu0


def test_a_forced_capture_failure_leaves_the_gpu_usable(real_gpu0):
    r = cuda_graph_checks.forced_capture_failure(real_gpu0)
    assert r["ok"], r["detail"]
    with tf.device("/GPU:0"):
        np.testing.assert_array_equal((tf.ones(8) + 1).numpy(), np.full(8, 2.0, np.float32))


def test_a_replayed_graph_keeps_its_workspace_after_an_eager_regrowth(real_gpu0):
    r = cuda_graph_checks.workspace_regrowth(real_gpu0)
    assert r["ok"], r["detail"]
    assert "'replaying'" in r["detail"], r["detail"]


def test_another_threads_ops_run_while_a_capture_is_open(real_gpu0):
    b = real_gpu0.backend
    session = b.begin_graph_capture()
    box = {}

    def other():
        try:
            with tf.device("/GPU:0"):
                box["value"] = (tf.ones(1024) + 1).numpy()   # a host wait: would invalidate a shared capture
        except Exception as e:  # noqa: BLE001
            box["error"] = e

    try:
        t = threading.Thread(target=other)
        t.start()
        t.join(30)
    finally:
        graph = session.end()
    assert "error" not in box, box.get("error")
    np.testing.assert_array_equal(box["value"], np.full(1024, 2.0, np.float32))
    assert graph.pinned == []                                # nothing of the other thread is pinned
    graph.launch()
    b.synchronize()
    graph.release()


def test_allocator_growth_and_staging_rules_inside_a_capture(real_gpu0):
    b = real_gpu0.backend
    xp = b.xp
    session = b.begin_graph_capture()
    try:
        with b.activate():
            big = xp.empty(b.allocator.stats()["bytes_reserved"] // 4 + (64 << 20) // 4, np.float32)
            big.fill(3.0)                                    # captured; may need cudaMalloc (relaxed mode)
        with pytest.raises(CaptureUnsafeError):
            b.asarray(np.arange(4, dtype=np.float32))
    except BaseException:
        session.abort()
        raise
    graph = session.end()
    assert activation.capture_override(b) is None
    graph.launch()
    b.synchronize()
    assert float(big[-1].get()) == 3.0
    graph.release()


def test_graphs_are_off_unless_switched_on(monkeypatch):
    from tfcore.config import experimental

    monkeypatch.delenv(cuda_graph.ENV_SWITCH, raising=False)
    monkeypatch.setattr(experimental, "_cuda_graphs", None)
    with tf.device("/GPU:0"):
        f = tf.function(lambda x: tf.nn.relu(x * 2.0) + 1.0)
        x = tf.ones((4, 4))
        for _ in range(4):
            f(x)
    assert f.get_concrete_function(x).experimental_cuda_graph_stats()["status"] == "off"


def test_copies_between_logical_gpus_survive_immediate_reuse_of_the_source(real_gpu0):
    from tfcore.backend.cuda import CudaBackend

    b0 = real_gpu0.backend
    other = CudaBackend(b0.device_id, b0.device_name, b0.compute_capability, b0.total_memory,
                        memory_limit_bytes=256 << 20, memory_growth=True, logical_index=7)
    xp = b0.xp
    n = 1 << 22
    for i in range(20):
        with b0.activate():
            src = xp.full(n, float(i), np.float32)
        out = other.from_other(src, b0)
        del src
        with b0.activate():
            reuse = xp.empty(n, np.float32)
            reuse.fill(-1.0)                                # the next op on the source stream
        other.synchronize()
        b0.synchronize()
        assert float(out[0].get()) == float(i) and float(out[-1].get()) == float(i)
        del reuse
