"""Entering the logical GPU per op on a real card (backend/activation.py): results land in the right
logical device's allocator, on its stream, and CuPy's state is the user's again after every op.

tests/backend/test_cuda_activation.py checks the same protocol against a CuPy stand-in; this file
is the proof with CuPy's real device, stream and allocator state. Skipped without a real GPU.
"""

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend import activation

pytestmark = pytest.mark.usefixtures("real_gpu0")  # tests/gpu/conftest.py: skip unless GPU:0 is real


def _cupy_state():
    import cupy

    return (cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr,
            cupy.cuda.memory._get_thread_local_allocator())


def test_op_results_come_from_the_logical_device_and_leave_cupy_as_it_was(real_gpu0):
    before = _cupy_state()
    with tf.device("/GPU:0"):
        a = tf.constant(np.arange(8, dtype=np.float32))
        used = real_gpu0.backend.memory_info()["current"]
        y = a + a
    assert _cupy_state() == before
    assert activation.active_backend() is None
    assert real_gpu0.backend.memory_info()["current"] >= used + y._array.nbytes
    np.testing.assert_array_equal(y.numpy(), 2 * np.arange(8, dtype=np.float32))


def test_a_users_allocator_and_stream_are_in_effect_after_a_tfcore_op():
    import cupy

    before = _cupy_state()
    pool = cupy.cuda.MemoryPool()
    user_malloc = pool.malloc
    user_stream = cupy.cuda.Stream(non_blocking=True)
    with tf.device("/GPU:0"):
        a = tf.constant(np.ones(8, np.float32))
    with cupy.cuda.using_allocator(user_malloc), user_stream:
        y = a + a
        assert cupy.cuda.get_current_stream() == user_stream
        assert cupy.cuda.memory._get_thread_local_allocator() is user_malloc
        z = cupy.arange(1024, dtype=cupy.float32)  # the user's own CuPy code: the user's pool
        assert pool.used_bytes() >= z.nbytes
    user_stream.synchronize()
    assert _cupy_state() == before
    np.testing.assert_array_equal(y.numpy(), np.full(8, 2.0, np.float32))
    cupy.cuda.set_allocator(cupy.get_default_memory_pool().malloc)  # refused if a thread-local one were left


def test_state_is_restored_after_an_op_fails():
    before = _cupy_state()
    with tf.device("/GPU:0"):
        a, b = tf.constant(np.ones((2, 3), np.float32)), tf.constant(np.ones((4, 5), np.float32))
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.matmul(a, b)
    assert _cupy_state() == before
    assert activation.active_backend() is None


def test_threads_running_ops_keep_their_own_cupy_state():
    import cupy

    errors = []
    main_before = _cupy_state()

    def worker(i):
        try:
            s = cupy.cuda.Stream(non_blocking=True)
            with s:
                with tf.device("/GPU:0"):
                    x = tf.constant(np.full(64, float(i), np.float32))
                    for _ in range(50):
                        x = x + 1.0
                assert cupy.cuda.get_current_stream() == s
            np.testing.assert_array_equal(x.numpy(), np.full(64, i + 50.0, np.float32))
            assert cupy.cuda.memory._get_thread_local_allocator() is None
            assert activation.active_backend() is None
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert _cupy_state() == main_before


TWO_LOGICAL = textwrap.dedent("""
    import cupy
    import numpy as np
    import tfcore as tf
    gpu = tf.config.list_physical_devices("GPU")[0]
    tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=256)] * 2)
    info = lambda i: tf.config.experimental.get_memory_info(f"GPU:{i}")["current"]
    with tf.device("/GPU:0"):
        a = tf.constant(np.ones(1 << 20, np.float32))
    with tf.device("/GPU:1"):
        b = tf.constant(np.ones(1 << 20, np.float32))
    m0, m1 = info(0), info(1)
    with tf.device("/GPU:1"):
        c = b + b                       # GPU:1's allocator only
        d = tf.identity(a) * 3.0        # a copied to GPU:1, computed there
    assert info(0) == m0, (info(0), m0)
    assert info(1) == m1 + 2 * (4 << 20), (info(1), m1)  # c and d; the copy of a is freed after the product
    with tf.device("/GPU:0"):
        e = a - a
    assert info(0) >= m0 + (4 << 20)
    assert c.device.endswith("GPU:1") and d.device.endswith("GPU:1") and e.device.endswith("GPU:0")
    np.testing.assert_array_equal(c.numpy(), 2.0)
    np.testing.assert_array_equal(d.numpy(), 3.0)
    np.testing.assert_array_equal(e.numpy(), 0.0)
    assert cupy.cuda.memory._get_thread_local_allocator() is None
    assert cupy.cuda.runtime.getDevice() == 0
    print("ok")
""")


def test_two_logical_gpus_allocate_from_their_own_allocators():
    out = subprocess.run([sys.executable, "-c", TWO_LOGICAL], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stdout + out.stderr
