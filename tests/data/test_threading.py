"""Parallel map and prefetch overlap (counted, not timed), error delivery, thread lifetime."""

import gc
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import tfcore as tf

D = tf.data.Dataset
WAIT = 10.0  # generous bound for waits that succeed immediately when the code is right


class InFlight:
    """Counts concurrent calls of a map function and completed calls."""

    def __init__(self):
        self.cond = threading.Condition()
        self.active = 0
        self.max_active = 0
        self.done = 0

    def slow_map(self, x):
        with self.cond:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            self.cond.notify_all()
            # hold this call until a second one is running (or give up): sequential code can never
            # have two calls in flight, so max_active stays 1 and the test fails.
            self.cond.wait_for(lambda: self.active >= 2 or self.done > 0, timeout=0.5)
        time.sleep(0.002)
        with self.cond:
            self.active -= 1
            self.done += 1
            self.cond.notify_all()
        return x * 2

    def wait_done(self, n):
        with self.cond:
            return self.cond.wait_for(lambda: self.done >= n, timeout=WAIT)


def _tf_data_threads():
    return [t for t in threading.enumerate() if t.name.startswith("tf.data")]


def _per_element(fn, dtype=tf.int64):
    """``fn`` run on every element's value: Python code in a map function runs once, when the map is
    traced (as in TF); tf.py_function runs its function per element (and once while tracing)."""
    return lambda x: tf.py_function(fn, [x], dtype)


def test_parallel_map_runs_calls_concurrently_and_prefetch_runs_ahead():
    counter = InFlight()
    ds = D.range(40).map(_per_element(counter.slow_map), num_parallel_calls=4).prefetch(8)
    counter.done = counter.max_active = 0  # forget the call made while tracing
    it = iter(ds)
    assert int(next(it)) == 0
    # The consumer now stops. The producer must keep going on its own: the map workers
    # fill their buffer and the prefetch thread its queue, far beyond the one element consumed.
    assert counter.wait_done(12), f"only {counter.done} map calls finished while the consumer waited"
    assert counter.max_active > 1, "map calls never overlapped"
    assert counter.max_active <= 4
    assert [int(x) for x in it] == [2 * i for i in range(1, 40)]
    assert counter.done == 40


def test_sequential_map_is_not_concurrent():
    counter = InFlight()
    out = [int(x) for x in D.range(4).map(_per_element(counter.slow_map))]
    assert out == [0, 2, 4, 6] and counter.max_active == 1


def test_prefetch_buffer_is_bounded():
    produced = []

    def gen():
        for i in range(100):
            produced.append(i)
            yield i

    it = iter(D.from_generator(gen, output_types=tf.int64).prefetch(3))
    next(it)
    deadline = time.monotonic() + WAIT
    while len(produced) < 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.05)
    # one consumed + 3 buffered + at most one being produced
    assert 4 <= len(produced) <= 5
    it._close()


@pytest.mark.parametrize("parallel", [None, 3])
def test_map_exception_reaches_consumer_with_traceback(parallel):
    def failing_map_fn(x):
        if int(x) == 5:
            raise ValueError("bad element 5")
        return x

    ds = D.range(10).map(_per_element(failing_map_fn), num_parallel_calls=parallel).prefetch(2)
    it = iter(ds)
    got = [int(next(it)) for _ in range(5)]
    assert got == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="bad element 5") as info:
        next(it)
    assert any(entry.name == "failing_map_fn" for entry in info.traceback)
    # as in TF, the error belongs to one element; iteration can go on
    assert [int(x) for x in it] == [6, 7, 8, 9]


def test_errors_can_be_ignored():
    def fn(x):
        if int(x) % 3 == 0:
            raise tf.errors.InvalidArgumentError(None, None, "skip me")
        return x

    ds = D.range(7).map(_per_element(fn), num_parallel_calls=2).apply(tf.data.experimental.ignore_errors())
    assert [int(x) for x in ds] == [1, 2, 4, 5]


def test_abandoned_iterators_leave_no_threads():
    gc.collect()
    before = set(threading.enumerate())
    ds = (D.range(1000).map(lambda x: x + 1, num_parallel_calls=3).shuffle(10).batch(4)
          .prefetch(2).interleave(lambda b: D.from_tensor_slices(b), cycle_length=2, num_parallel_calls=2)
          .prefetch(tf.data.AUTOTUNE))
    for i in range(100):
        it = iter(ds)
        for _ in range(i % 7 + 1):
            next(it)
        del it
    for x in ds:  # breaking out of a for loop abandons that iterator too
        if int(x) > 10:
            break
    gc.collect()
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert leaked == []


def test_exhausted_iterators_leave_no_threads():
    gc.collect()
    before = set(threading.enumerate())
    ds = D.range(30).map(lambda x: x, num_parallel_calls=4).prefetch(4)
    for _ in range(5):
        assert len(list(ds)) == 30
    gc.collect()
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []


def test_close_while_producer_blocked_on_full_buffer():
    gc.collect()
    before = set(threading.enumerate())
    it = iter(D.range(10**9).map(lambda x: x, num_parallel_calls=2).prefetch(1))
    next(it)
    it._close()
    with pytest.raises(StopIteration):
        next(it)
    gc.collect()
    assert [t for t in threading.enumerate() if t not in before and t.is_alive()] == []


_EXIT_SCRIPT = """
import threading, time
import tfcore as tf
def gen():
    while True:
        time.sleep(0.01)
        yield 1
ds = tf.data.Dataset.from_generator(gen, output_types=tf.int32).map(lambda x: x, num_parallel_calls=2).prefetch(4)
it = iter(ds)
next(it)
print("ok", flush=True)
"""


def test_no_hang_at_interpreter_exit():
    out = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_parallel_map_numpy_work_overlaps():
    """Functions doing NumPy work (which releases the GIL) run on several threads at once."""
    names = set()
    lock = threading.Lock()

    def work(x):
        with lock:
            names.add(threading.current_thread().name)
        a = np.ones((64, 64))
        return np.float32((a @ a).sum() + x)

    ds = D.range(64).map(lambda x: tf.numpy_function(work, [x], tf.float32), num_parallel_calls=4)
    names.clear()  # the call made while tracing ran on this thread
    out = [float(v) for v in ds]
    assert out == [64.0 ** 3 + i for i in range(64)]
    assert all(n.startswith("tf.data-map") for n in names)
