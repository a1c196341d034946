"""Threads: read-modify-write updates of one variable from many threads lose nothing (as TF's resource ops).

Each test shortens the interpreter's thread switch interval so that, without the variable's update
lock, threads interleave inside ``assign_add`` and updates are lost (about 2,000 of 8,000 survive).
"""

import sys
import threading

import numpy as np
import pytest

import tfcore as tf


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _run_threads(n, fn):
    errors = []

    def body(i):
        try:
            fn(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_assign_add_from_8_threads_loses_no_update(fast_switching):
    with tf.device("/CPU:0"):
        v = tf.Variable(0.0)

    def work(_):
        for _ in range(1000):
            v.assign_add(1.0)
    _run_threads(8, work)
    assert v.numpy() == 8000.0


def test_assign_add_and_assign_sub_interleaved_balance(fast_switching):
    with tf.device("/CPU:0"):
        v = tf.Variable(np.zeros(3, np.int64))

    def work(i):
        for _ in range(500):
            if i % 2:
                v.assign_sub(np.array([1, 2, 3]))
            else:
                v.assign_add(np.array([2, 4, 6]))
    _run_threads(8, work)
    np.testing.assert_array_equal(v.numpy(), [4 * 500, 8 * 500, 12 * 500])


def test_scatter_add_from_8_threads_loses_no_update(fast_switching):
    with tf.device("/CPU:0"):
        v = tf.Variable(np.zeros(4, np.float32))

    def work(i):
        for _ in range(250):
            v.scatter_add(tf.IndexedSlices(tf.constant([1.0, 1.0]), tf.constant([i % 4, 3])))
    _run_threads(8, work)
    np.testing.assert_array_equal(v.numpy(), [500, 500, 500, 2000 + 500])


def test_reads_see_whole_values(fast_switching):
    """A reader never sees a half-applied update: every element of a read moved together."""
    with tf.device("/CPU:0"):
        v = tf.Variable(np.zeros(64, np.float64))
    torn = []
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            a = v.numpy()
            if not (a == a[0]).all():
                torn.append(a)

    t = threading.Thread(target=reader)
    t.start()
    try:
        _run_threads(4, lambda i: [v.assign_add(np.ones(64)) for _ in range(300)])
    finally:
        stop.set()
        t.join()
    assert not torn
    assert v.numpy()[0] == 1200.0
