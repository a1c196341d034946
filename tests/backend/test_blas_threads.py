"""backend/blas_threads: small host matrix products run with OpenBLAS's workers asleep, and the thread count
the user's NumPy sees is unchanged after them."""

import numpy as np
import pytest
import threadpoolctl

import tfcore as tf
from tfcore.backend import blas_threads


class RecordingBlas:
    """Stands in for OpenBLAS's get/set_num_threads and records the products' thread counts."""

    def __init__(self, threads):
        self.threads = threads
        self.sets = []

    def get(self):
        return self.threads

    def set(self, n):
        self.sets.append(n)
        self.threads = n


@pytest.fixture
def blas(monkeypatch):
    """The recording stand-in, with the ops on the host (the emulated GPU pass places them on a GPU)."""
    fake = RecordingBlas(threads=4)
    monkeypatch.setattr(blas_threads, "_functions", (fake.get, fake.set))
    with tf.device("/CPU:0"):
        yield fake


def test_a_dense_layer_sized_product_runs_on_one_blas_thread_and_restores_the_count(blas):
    x = tf.constant(np.ones((64, 3136), np.float32))
    w = tf.constant(np.ones((3136, 10), np.float32))
    y = tf.matmul(x, w)
    assert blas.sets == [1, 4]
    np.testing.assert_array_equal(y.numpy(), np.full((64, 10), 3136, np.float32))


def test_large_and_tiny_products_leave_the_blas_threads_alone(blas):
    big = tf.constant(np.ones((512, 512), np.float32))
    tf.matmul(big, big)  # 268 MFLOP: worth the threads
    tiny = tf.constant(np.ones((4, 4), np.float32))
    tf.matmul(tiny, tiny)  # OpenBLAS keeps this one on the caller's thread by itself
    assert blas.sets == []


def test_a_bias_gradient_sum_is_a_serial_product(blas):
    x = tf.Variable(np.ones((8, 28, 28, 32), np.float32))
    b = tf.Variable(np.zeros(32, np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(tf.nn.bias_add(x, b)))  # a contiguous upstream gradient, 2 * 1
    grad = tape.gradient(loss, b)
    np.testing.assert_array_equal(grad.numpy(), np.full(32, 2 * 8 * 28 * 28, np.float32))
    assert blas.sets[:2] == [1, 4]


def test_nested_products_switch_once(blas):
    blas_threads._enter_serial()
    blas_threads._enter_serial()
    blas_threads._leave_serial()
    assert blas.sets == [1]
    blas_threads._leave_serial()
    assert blas.sets == [1, 4]


def test_one_thread_already_switches_nothing(blas):
    blas.threads = 1
    tf.matmul(tf.ones((64, 3136)), tf.ones((3136, 10)))
    assert blas.sets == []


def test_the_real_openblas_count_is_unchanged_for_the_user():
    before = [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]
    tf.matmul(tf.ones((64, 3136)), tf.ones((3136, 10)))
    after = [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]
    assert before == after


@pytest.mark.parametrize("m,n,k,serial", [(64, 10, 3136, True), (512, 512, 512, False), (4, 4, 4, False),
                                          (1, 32, 50176, True)])
def test_wants_serial_cut_overs(m, n, k, serial):
    assert blas_threads.wants_serial(m, n, k) is serial
