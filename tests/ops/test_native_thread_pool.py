"""The native kernels' persistent thread pool (``ThreadPool`` in ``kernels/cpu_kernels.cc``).

The split kernels (direct convolution and its gradients, depthwise, pooling, ReluGrad, batch norm) run
on the calling thread plus workers started once and reused. These tests check what a user relies on:
the same bits for any thread count, correct results when several Python threads call kernels at once
(ctypes releases the GIL), a pool that follows ``tf.config.threading``'s intra-op count, a forked child
(multiprocessing, tf.data workers) that runs split kernels on its own pool, and a clean process exit.
"""

import os
import select
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from tfcore.backend import native_cpu
from tfcore.ops import conv_ops, pool_ops

pytestmark = [pytest.mark.usefixtures("on_cpu"),
              pytest.mark.skipif(native_cpu.library() is None, reason="no C++ compiler: NumPy paths only")]

_ATTRS = dict(strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC",
              dilations=(1, 1, 1, 1))
_rng = np.random.default_rng(28)
# 13 images of 23x17, 8 -> 16 channels, 4x4 SAME (asymmetric pads): ~26 MFLOP, split over any thread count
_X = _rng.standard_normal((13, 23, 17, 8)).astype(np.float32)
_W = _rng.standard_normal((4, 4, 8, 16)).astype(np.float32)
_WD = _rng.standard_normal((3, 3, 32, 1)).astype(np.float32)


@pytest.fixture
def threads():
    """Sets the native kernels' thread count for one test, restored after."""
    before = native_cpu.num_threads()
    yield native_cpu.set_num_threads
    native_cpu.set_num_threads(before)


def _ops(cpu):
    """A split forward, filter gradient, depthwise forward and max pool: their outputs."""
    y = conv_ops.direct_conv2d(_X, _W, None, **_ATTRS)
    dy = np.cos(y)
    dw = conv_ops.CONV2D_BACKPROP_FILTER.run_kernel(cpu, (_X, dy), {**_ATTRS, "filter_sizes": _W.shape})
    xd = np.repeat(_X, 4, axis=3)
    dwise = conv_ops._depthwise_conv2d_native(cpu, xd, _WD, **_ATTRS)
    pooled = pool_ops._max_pool_native(cpu, np.repeat(xd, 4, axis=0), ksize=(1, 3, 3, 1), strides=(1, 2, 2, 1),
                                       padding="SAME", explicit_paddings=(), data_format="NHWC").output
    return y, dw, dwise, pooled


def test_split_kernels_give_the_one_thread_bits_for_every_thread_count(cpu, threads):
    threads(1)
    one = _ops(cpu)
    assert native_cpu.last_parts() == 1
    for count in (2, 3, 1, 3, 2):  # growing, shrinking and regrowing the pool between calls
        threads(count)
        got = _ops(cpu)
        assert native_cpu.last_parts() == count
        if count > 1:
            assert native_cpu.pool_workers() == count - 1
        for a, b, name in zip(got[:1] + got[2:], one[:1] + one[2:], ("forward", "depthwise", "max pool")):
            np.testing.assert_array_equal(a, b, err_msg=f"{name}, {count} threads")
        # the filter gradient adds per-chunk partial sums: the chunking (and rounding) follows the count
        np.testing.assert_allclose(got[1], one[1], rtol=2e-5, atol=2e-5 * np.sqrt(_X[..., 0].size))


def test_repeated_calls_reuse_the_pool(cpu, threads):
    threads(3)
    first = conv_ops.direct_conv2d(_X, _W, None, **_ATTRS)
    assert native_cpu.pool_workers() == 2
    for _ in range(50):  # back to back: workers caught spinning, asleep, or waking late
        np.testing.assert_array_equal(conv_ops.direct_conv2d(_X, _W, None, **_ATTRS), first)
        assert native_cpu.last_parts() == 3


def test_concurrent_python_threads_get_correct_results(cpu, threads):
    """Several Python threads call split kernels at once (ctypes drops the GIL): whoever finds the pool
    busy runs its chunks on its own thread; every result is the one-thread result and nobody deadlocks."""
    threads(1)
    want = [conv_ops.direct_conv2d(_X[i:i + 7], _W, None, **_ATTRS) for i in range(4)]
    threads(2)
    errors, results = [], {}

    def worker(i):
        try:
            for r in range(15):
                results[i, r] = conv_ops.direct_conv2d(_X[i:i + 7], _W, None, **_ATTRS)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in pool), "a kernel call never returned"
    assert not errors, errors
    for (i, _), got in results.items():
        np.testing.assert_array_equal(got, want[i])
    assert len(results) == 60


def _wait_child(pid, read_fd, timeout=120):
    """The child's output and exit status; kills it (and fails) if it hangs."""
    data, deadline = b"", time.monotonic() + timeout
    while True:
        ready, _, _ = select.select([read_fd], [], [], 0.5)
        if ready:
            chunk = os.read(read_fd, 1 << 16)
            data += chunk
            if not chunk:
                break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
    _, status = os.waitpid(pid, 0)
    return data.decode(), status


def test_a_forked_child_runs_split_kernels_on_its_own_pool(cpu, threads):
    """After fork the parent's workers do not exist in the child: the child starts its own pool, gets
    the parent's results, and exits; the parent's pool still works."""
    threads(2)
    want = conv_ops.direct_conv2d(_X, _W, None, **_ATTRS)
    assert native_cpu.pool_workers() == 1
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into pytest
        code = 1
        try:
            os.close(read_fd)
            before = native_cpu.pool_workers()
            got = [conv_ops.direct_conv2d(_X, _W, None, **_ATTRS) for _ in range(3)]
            ok = all(np.array_equal(g, want) for g in got)
            os.write(write_fd, f"{before} {native_cpu.pool_workers()} {native_cpu.last_parts()} {ok}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    try:
        out, status = _wait_child(pid, read_fd)
    finally:
        os.close(read_fd)
    assert os.waitstatus_to_exitcode(status) == 0, out
    assert out.split() == ["0", "1", "2", "True"]  # no pool before its first split op, then its own
    np.testing.assert_array_equal(conv_ops.direct_conv2d(_X, _W, None, **_ATTRS), want)


_EXIT_PROGRAM = """
import threading
import numpy as np
import tfcore as tf
from tfcore.ops import conv_ops
tf.config.threading.set_intra_op_parallelism_threads(2)
attrs = dict(strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), dilations=(1, 1, 1, 1))
x, w = np.ones((16, 28, 28, 8), np.float32), np.ones((3, 3, 8, 16), np.float32)

def busy():
    while True:  # still calling kernels when the interpreter shuts down
        conv_ops.direct_conv2d(x, w, None, **attrs)

conv_ops.direct_conv2d(x, w, None, **attrs)
for _ in range(2):
    threading.Thread(target=busy, daemon=True).start()
conv_ops.direct_conv2d(x, w, None, **attrs)
print("done")
"""


def test_the_process_exits_cleanly_with_the_pool_started():
    """Interpreter shutdown with pool workers asleep and daemon threads inside kernels: no hang, no crash."""
    proc = subprocess.run([sys.executable, "-c", _EXIT_PROGRAM], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["done"]


def test_idle_workers_sleep(cpu, threads):
    """After a split op the workers spin briefly, then sleep: an idle process burns no CPU (a pool that
    busy-waited would use a whole core here, 0.5 s of CPU time in 0.5 s)."""
    threads(3)
    conv_ops.direct_conv2d(_X, _W, None, **_ATTRS)
    assert native_cpu.pool_workers() == 2
    time.sleep(0.05)  # past the spin
    before = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - before < 0.1
