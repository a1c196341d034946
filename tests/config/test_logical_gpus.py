"""Two logical GPUs on one card: independent limits, OOM isolation, memory info that tracks tensors."""

import gc

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend.allocator import round_up

MiB = 1 << 20


@pytest.fixture
def two_logical_gpus(runtime):
    ctx = runtime(n_gpus=1, total_mb=64)
    gpu = tf.config.list_physical_devices("GPU")[0]
    tf.config.set_logical_device_configuration(
        gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=1),
              tf.config.LogicalDeviceConfiguration(memory_limit=2)])
    return ctx


def _floats(nbytes):
    return nbytes // 4


def test_split_gives_two_devices_on_one_physical_card(two_logical_gpus):
    ctx = two_logical_gpus
    g0, g1 = ctx.logical_devices("GPU")
    assert [d.name for d in tf.config.list_logical_devices("GPU")] == ["/device:GPU:0", "/device:GPU:1"]
    assert g0.physical == g1.physical == tf.config.list_physical_devices("GPU")[0]
    assert (g0.logical_index, g1.logical_index) == (0, 1)
    assert g0.shares_physical_device(g1) and not g0.shares_physical_device(g0)
    assert g0.allocator is not g1.allocator
    assert (g0.allocator.memory_limit, g1.allocator.memory_limit) == (MiB, 2 * MiB)
    assert (g0.memory_limit, g1.memory_limit) == (1, 2)


def test_tf_device_places_on_second_logical_gpu(two_logical_gpus):
    ctx = two_logical_gpus
    with tf.device("/GPU:1"):
        x = tf.ones((1000,))
    assert x.device == "/job:localhost/replica:0/task:0/device:GPU:1"
    assert tf.config.experimental.get_memory_info("GPU:1")["current"] == round_up(4000)
    assert tf.config.experimental.get_memory_info("GPU:0")["current"] == 0
    ptrs = [p for p, _, used in ctx.find("GPU", 1).allocator.chunks() if used]
    assert x._array.ctypes.data in ptrs                    # the tensor's memory is the allocator's
    with tf.device("/GPU:0"):
        y = x + 1.0                                        # input copied GPU:1 -> GPU:0
    assert y.device.endswith("GPU:0")
    np.testing.assert_array_equal(y.numpy(), np.full(1000, 2.0, np.float32))
    assert tf.config.experimental.get_memory_info("GPU:0")["current"] == round_up(4000)


def test_each_limit_enforced_independently_and_oom_isolated(two_logical_gpus):
    with tf.device("/GPU:0"):
        a = tf.zeros((_floats(768 * 1024),))               # 0.75 MiB of GPU:0's 1 MiB
        with pytest.raises(tf.errors.ResourceExhaustedError) as e:
            tf.zeros((_floats(512 * 1024),))                # 0.5 MiB more does not fit on GPU:0
    msg = str(e.value)
    assert f"{512 * 1024} bytes" in msg and f"{768 * 1024} bytes in use" in msg
    assert f"limit {MiB} bytes" in msg and f"largest free chunk {256 * 1024} bytes" in msg
    with tf.device("/GPU:1"):                               # the other logical GPU is unaffected
        b = tf.zeros((_floats(768 * 1024),))                # more than GPU:0's free space...
        c = tf.ones((_floats(512 * 1024),))
        assert float((c + 1.0).numpy().sum()) == 2 * _floats(512 * 1024)
    with tf.device("/GPU:0"):                               # and GPU:0 itself still works
        d = tf.ones((1000,))
        assert float(d.numpy().sum()) == 1000.0
    assert tf.config.experimental.get_memory_info("GPU:0")["current"] == 768 * 1024 + round_up(4000)
    assert tf.config.experimental.get_memory_info("GPU:1")["current"] == 768 * 1024 + 512 * 1024
    del a, b, c, d
    gc.collect()
    assert tf.config.experimental.get_memory_info("GPU:0")["current"] == 0
    assert tf.config.experimental.get_memory_info("GPU:1")["current"] == 0


def test_memory_info_tracks_live_tensors(two_logical_gpus):
    info = tf.config.experimental.get_memory_info
    with tf.device("/GPU:1"):
        xs = [tf.zeros((n,)) for n in (10, 1000, 33_000)]
        expected = sum(round_up(4 * n) for n in (10, 1000, 33_000))
        assert info("GPU:1") == {"current": expected, "peak": expected}
        big = tf.ones((200_000,))                             # 800 000 bytes
        peak = expected + round_up(800_000)
        del big
        assert info("GPU:1") == {"current": expected, "peak": peak}
        tf.config.experimental.reset_memory_stats("GPU:1")
        assert info("GPU:1") == {"current": expected, "peak": expected}
        assert tf.config.experimental.get_memory_usage("GPU:1") == expected
        del xs[1]
        assert info("GPU:1")["current"] == expected - round_up(4000)
    assert info("/device:GPU:0") == {"current": 0, "peak": 0}


def test_variable_assign_on_logical_gpu_frees_old_value(two_logical_gpus):
    with tf.device("/GPU:0"):
        v = tf.Variable(tf.zeros((1000,)))
        for _ in range(20):                                 # would exceed 1 MiB if old values leaked
            v.assign(v + 1.0)
    assert float(v.numpy()[0]) == 20.0
    assert tf.config.experimental.get_memory_info("GPU:0")["current"] == round_up(4000)


def test_small_size_cache_per_logical_gpu_keeps_memory_info_exact_and_oom_unchanged(two_logical_gpus):
    """Small tensors freed on one logical GPU go to THAT allocator's cache: memory info stays exact on
    both, the other GPU never gets them, and a large tensor needing the cached memory still fits
    (flush before OOM) while one that cannot fit still raises."""
    ctx = two_logical_gpus
    a0, a1 = ctx.find("GPU", 0).allocator, ctx.find("GPU", 1).allocator
    info = tf.config.experimental.get_memory_info
    with tf.device("/GPU:0"):
        keep = tf.ones((10,))
        for _ in range(50):                                  # eager small ops: outputs come and go
            keep = keep + 1.0
        small = [tf.ones((n,)) for n in (8, 64, 1000, 8, 64)]
    with tf.device("/GPU:1"):
        other = tf.ones((8,))
    del small
    gc.collect()
    assert a0._cached > 0 and a1._cached == 0               # GPU:0's frees are cached on GPU:0 only
    assert info("GPU:0")["current"] == round_up(40)         # ... and not counted as in use
    assert info("GPU:1")["current"] == round_up(32)
    assert float(keep.numpy()[0]) == 51.0
    layout = [(p - a0.chunks()[0][0], s, u) for p, s, u in a0.chunks()]   # (flushes the cache)
    assert layout == [(0, 256, False), (256, 256, True), (512, MiB - 512, False)]  # as without a cache
    with tf.device("/GPU:0"):
        for _ in range(5):                                   # fill the cache again
            _ = [tf.ones((n,)) for n in (8, 64, 1000)]
        del _
        gc.collect()
        assert a0._cached > 0
        big = tf.zeros((_floats(MiB - 512),))                # needs the memory the cache holds
        assert info("GPU:0")["current"] == MiB - 256
        with pytest.raises(tf.errors.ResourceExhaustedError) as e:
            tf.zeros((65,))                                  # 512 bytes: only 256 free
        assert "largest free chunk 256 bytes" in str(e.value)
    del big
    gc.collect()
    assert info("GPU:0")["current"] == round_up(40) and info("GPU:0")["peak"] == MiB - 256
    del keep, other
    gc.collect()
    assert info("GPU:0")["current"] == 0 and info("GPU:1")["current"] == 0
    a0.check_consistency()
    a1.check_consistency()
