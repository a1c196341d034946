"""Exhaustion: a host allocation that cannot be satisfied is TF's ``ResourceExhaustedError`` naming the shape and
dtype (not NumPy's ``MemoryError``), and leaves every variable as it was.

The shapes ask for 2^48 bytes (256 TiB), more than any x86-64/arm64 process can map, so the allocation fails at
once whatever the machine's memory and overcommit settings.
"""

import numpy as np
import pytest

import tfcore as tf

HUGE = [1 << 46]  # float32: 2^48 bytes


@pytest.fixture(autouse=True)
def _on_cpu():
    with tf.device("/CPU:0"):
        yield


@pytest.mark.parametrize("make", [
    lambda: tf.zeros(HUGE), lambda: tf.ones(HUGE), lambda: tf.fill(HUGE, 1.0),
    lambda: tf.random.normal(HUGE), lambda: tf.zeros([1 << 23, 1 << 23]),
])
def test_failed_host_allocation_is_resource_exhausted_naming_shape_and_dtype(make):
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"OOM when allocating tensor with shape\[\d+(,\d+)*\] "
                                                               r"and type float32"):
        make()


def test_failed_allocation_changes_no_variable():
    v = tf.Variable(np.arange(3, dtype=np.float32))
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"shape\[70368744177664\] and type float32"):
        v.assign_add(tf.zeros(HUGE))
    with pytest.raises(tf.errors.ResourceExhaustedError):
        tf.Variable(tf.zeros(HUGE))
    np.testing.assert_array_equal(v.numpy(), [0, 1, 2])
    v.assign_add([1, 1, 1])  # the variable still works
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3])


def test_resource_exhausted_is_an_op_error_not_memory_error():
    with pytest.raises(tf.errors.OpError) as info:
        tf.zeros(HUGE, dtype=tf.int64)
    assert not isinstance(info.value, MemoryError)
    assert "type int64" in str(info.value)
