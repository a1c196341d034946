"""Chunked hand-offs between stages, batch slicing, and map AUTOTUNE (counted, never timed)."""

import gc
import subprocess
import sys
import threading

import numpy as np
import pytest

import tfcore as tf
from tfcore.data import autotune
from tfcore.data.transform_map import AutotunedMap, SequentialMap

D = tf.data.Dataset


def _new_threads(before):
    return [t for t in threading.enumerate() if t not in before and t.is_alive()]


def _outcomes(it):
    """Every element of ``it`` as an int, or ('err', message) where producing it raised."""
    out = []
    while True:
        try:
            x = next(it)
        except StopIteration:
            return out
        except ValueError as e:
            out.append(("err", str(e)))
            continue
        out.append(x.numpy().tolist())


def _fail_on_multiples_of(k):
    # Python code that sees element values runs per element through tf.py_function (a traced map
    # function's own Python code runs once, when the dataset is built, as in TF)
    def check(x):
        if int(x) % k == 0:
            raise ValueError(f"bad {int(x)}")
        return x

    def fn(x):
        return tf.py_function(check, [x], tf.int64) * 10
    return fn


def _expected(n, k):
    return [("err", f"bad {i}") if i % k == 0 else i * 10 for i in range(n)]


# -- the chunk protocol on sources and stages --------------------------------------------
def test_sources_serve_chunks_and_single_elements_interleaved():
    it = D.range(10)._make_iter(None)
    assert [int(x) for x in it.next_chunk(4)] == [0, 1, 2, 3]
    assert int(next(it)) == 4
    assert [int(x) for x in it.next_chunk(100)] == [5, 6, 7, 8, 9]
    with pytest.raises(StopIteration):
        it.next_chunk(3)

    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    it = D.from_tensor_slices((x, {"b": np.arange(6)}))._make_iter(None)
    first = it.next_chunk(2)
    assert len(first) == 2 and first[1][1]["b"].numpy() == 1
    np.testing.assert_array_equal(first[1][0].numpy(), [2.0, 3.0])
    assert int(next(it)[1]["b"]) == 2
    assert [int(e[1]["b"]) for e in it.next_chunk(10)] == [3, 4, 5]


def test_sequential_map_error_inside_a_chunk_keeps_its_position():
    # batch pulls chunks from the map: the error of element 5 drops the partial batch [4] (as TF) and
    # iteration goes on after it
    it = iter(D.range(1, 12).map(_fail_on_multiples_of(5)).batch(4))
    assert next(it).numpy().tolist() == [10, 20, 30, 40]
    with pytest.raises(ValueError, match="bad 5"):
        next(it)
    assert next(it).numpy().tolist() == [60, 70, 80, 90]
    with pytest.raises(ValueError, match="bad 10"):
        next(it)
    assert next(it).numpy().tolist() == [110]
    with pytest.raises(StopIteration):
        next(it)


def test_batch_returns_completed_batches_before_an_error():
    inner = D.range(1, 20).map(_fail_on_multiples_of(9)).batch(3)._make_iter(_ctx())
    batches = inner.next_chunk(5)  # elements 1..8 make two full batches, 9 fails
    assert [b.numpy().tolist() for b in batches] == [[10, 20, 30], [40, 50, 60]]
    with pytest.raises(ValueError, match="bad 9"):
        inner.next_chunk(5)
    assert [b.numpy().tolist() for b in inner.next_chunk(1)] == [[100, 110, 120]]


def _ctx():
    from tfcore.data.iterators import IterContext

    return IterContext(tf.data.Options())


@pytest.mark.parametrize("parallel", [None, 2])
def test_errors_at_their_element_through_chunked_stages(parallel):
    ds = D.range(200).map(_fail_on_multiples_of(37), num_parallel_calls=parallel)
    assert _outcomes(iter(ds)) == _expected(200, 37)
    assert _outcomes(iter(ds.prefetch(16))) == _expected(200, 37)


def test_parallel_map_hands_over_chunks_not_elements():
    ds = D.range(3000).map(lambda x: x + 1, num_parallel_calls=2)
    it = iter(ds)
    stage = it._it
    assert [int(x) for x in it] == list(range(1, 3001))
    # each hand-off carries many light elements (chunk sizes adapt from 1 up to 64)
    assert stage.hand_offs() <= 3000 // 4


def test_prefetch_hands_over_chunks_and_stays_bounded():
    it = iter(D.range(5000).prefetch(200))
    stage = it._it
    assert [int(x) for x in it] == list(range(5000))
    assert stage.hand_offs() <= 5000 // 4


def test_chunks_mixed_with_single_elements_on_threaded_stages():
    it = D.range(300).map(lambda x: x * 2, num_parallel_calls=3).prefetch(50)._make_iter(_ctx())
    got = []
    while True:
        try:
            got.extend(int(x) for x in it.next_chunk(7))
            got.append(int(next(it)))
        except StopIteration:
            break
    assert got == [2 * i for i in range(300)]
    it.close()


def test_nondeterministic_parallel_map_with_chunks_is_a_permutation():
    out = [int(x) for x in D.range(2000).map(lambda x: x, num_parallel_calls=3, deterministic=False)]
    assert sorted(out) == list(range(2000))


# -- shuffle: chunk path and element path draw the same order --------------------------------
def test_shuffle_order_is_the_same_by_chunks_and_by_elements():
    by_element = [int(x) for x in D.range(300).shuffle(40, seed=5)]
    by_chunks = [int(v) for b in D.range(300).shuffle(40, seed=5).batch(7) for v in b.numpy()]
    assert by_chunks == by_element
    assert sorted(by_element) == list(range(300)) and by_element != list(range(300))


# -- batch straight out of a from_tensor_slices source ---------------------------------------
def test_batch_slices_the_source_arrays():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int64)
    ds = D.from_tensor_slices((x, {"y": y})).batch(4)
    batches = list(ds)
    assert [b[0].shape.as_list() for b in batches] == [[4, 2], [4, 2], [2, 2]]
    for k, (bx, by) in enumerate(batches):
        np.testing.assert_array_equal(bx.numpy(), x[4 * k:4 * k + 4])
        np.testing.assert_array_equal(by["y"].numpy(), y[4 * k:4 * k + 4])
        assert bx.dtype == tf.float32 and by["y"].dtype == tf.int64
    # views of one private read-only buffer, not stacked copies
    source = ds._input._arrays[0]
    assert all(np.shares_memory(b[0]._array, source) for b in batches)
    assert not batches[0][0]._array.flags.writeable
    x[0, 0] = 99.0  # the dataset copied its input
    assert float(list(ds)[0][0].numpy()[0, 0]) == 0.0
    dropped = D.from_tensor_slices(x).with_options(tf.data.Options()).batch(4, drop_remainder=True)
    assert [b.shape.as_list() for b in dropped] == [[4, 2], [4, 2]]
    assert dropped.element_spec == tf.TensorSpec([4, 2], tf.float32)
    assert list(D.from_tensor_slices(np.zeros((0, 3))).batch(2)) == []


def test_batch_after_map_matches_numpy():
    x = np.random.default_rng(0).standard_normal((50, 3)).astype(np.float32)
    out = [b.numpy() for b in D.from_tensor_slices(x).map(lambda r: r * 2.0).shuffle(1).batch(8)]
    np.testing.assert_allclose(np.concatenate(out), x * 2.0)
    assert [len(b) for b in out] == [8] * 6 + [2]


# -- the map function never sees the consumer's tape or device scope ---------------------------
@pytest.mark.parametrize("batched", [False, True])
def test_map_function_is_not_recorded_by_the_consumers_tape(batched):
    v = tf.Variable(3.0)
    ds = D.range(4).map(lambda x: tf.cast(x, tf.float32) * v)
    if batched:
        ds = ds.batch(2)
    with tf.GradientTape() as tape:
        total = tf.add_n([tf.reduce_sum(e) for e in ds])
    assert float(total) == 18.0
    assert tape.gradient(total, v) is None


_LOGICAL_CPUS = """
import tfcore as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
seen = []
def fn(x):
    seen.append(tf.constant(1.0).device)
    return x
with tf.device("/CPU:1"):
    list(tf.data.Dataset.range(3).map(fn))
    list(tf.data.Dataset.range(3).map(fn).batch(2))
list(tf.data.Dataset.range(3).map(fn))
print(sorted(set(seen)))
"""


def test_map_pins_cpu0_when_other_devices_exist():
    out = subprocess.run([sys.executable, "-c", _LOGICAL_CPUS], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['/job:localhost/replica:0/task:0/device:CPU:0']"


# -- AUTOTUNE ------------------------------------------------------------------------------------
def _window(tuner, level_period, n=100):
    """Feed one full window (``n`` elements at ``level_period`` s each); returns the new level."""
    t = tuner._start + n * level_period
    tuner.record(n, n * level_period * (1.0 if tuner.level == 0 else 0.0), t)
    return tuner.level


def test_tuner_keeps_cheap_functions_inline():
    tuner = autotune.MapTuner(8, handoff=10e-6, start_time=0.0, window_seconds=0.0, window_elements=10)
    assert tuner.level == 0 and not tuner.final
    assert _window(tuner, 5e-6) == 0  # 5 us per element < 2 hand-offs
    assert tuner.final and tuner.fn_cost == pytest.approx(5e-6)


def test_tuner_tries_every_level_and_keeps_the_best():
    tuner = autotune.MapTuner(8, handoff=10e-6, start_time=0.0, window_seconds=0.0, window_elements=10)
    assert tuner.levels == [0, 1, 2, 4, 8]
    assert _window(tuner, 1e-3) == 1      # expensive: try one worker
    assert _window(tuner, 1e-3) == 2      # no gain with one worker (the consumer waits for it): go on
    assert _window(tuner, 0.5e-3) == 4
    assert _window(tuner, 0.3e-3) == 8
    assert _window(tuner, 0.4e-3) == 4    # the best level is kept
    assert tuner.final
    assert [lvl for lvl, _ in tuner.history] == [0, 1, 2, 4, 8]


def test_tuner_goes_back_inline_when_threads_do_not_help():
    tuner = autotune.MapTuner(2, handoff=10e-6, start_time=0.0, window_seconds=0.0, window_elements=10)
    assert _window(tuner, 100e-6) == 1
    assert _window(tuner, 130e-6) == 2    # slower with a worker (GIL contention)
    assert _window(tuner, 95e-6) == 0     # < 10% better than inline: not worth threads
    assert tuner.final


def test_tuner_windows_need_both_elements_and_time():
    tuner = autotune.MapTuner(2, handoff=10e-6, start_time=0.0, window_seconds=1.0, window_elements=10)
    assert not tuner.record(50, 0.5, 0.5)          # enough elements, not enough time
    assert tuner.fn_cost is None
    tuner.record(1, 0.01, 1.01)
    assert tuner.fn_cost == pytest.approx(0.51 / 51)
    assert autotune.worker_levels(1) == [0, 1] and autotune.worker_levels(3) == [0, 1, 2, 3]


def test_handoff_cost_is_measured_once():
    h = autotune.handoff_cost()
    assert 0.0 < h < 0.1
    assert autotune.handoff_cost() == h


class ScriptedTuner:
    """Switches to the given levels after the given numbers of delivered elements, then is final."""

    def __init__(self, plan):
        self.plan, self.level, self.final, self.fn_cost, self.n = list(plan), 0, False, None, 0

    def record(self, n, fn_seconds, now):
        self.n += n
        old = self.level
        while self.plan and self.n >= self.plan[0][0]:
            self.level = self.plan.pop(0)[1]
        self.final = not self.plan
        return self.level != old


class ThreadLog:
    """A map function recording which thread ran each element (per element, through tf.py_function)."""

    def __init__(self, fn=None):
        self.names = {}
        self.fn = fn

    def _log(self, x):
        self.names[int(x)] = threading.current_thread().name
        return x

    def __call__(self, x):
        x = tf.py_function(self._log, [x], tf.int64)
        return self.fn(x) if self.fn else x * 10


def test_autotune_switches_to_workers_and_back_keeping_order(monkeypatch):
    monkeypatch.setattr(autotune, "make_map_tuner", lambda n: ScriptedTuner([(40, 2), (300, 0), (301, 0)]))
    gc.collect()
    before = set(threading.enumerate())
    log = ThreadLog()
    ds = D.range(1500).map(log, num_parallel_calls=tf.data.AUTOTUNE)
    it = iter(ds)
    assert isinstance(it._it, AutotunedMap)
    assert [int(x) for x in it] == [10 * i for i in range(1500)]
    main = threading.current_thread().name
    assert all(log.names[i] == main for i in range(40))               # inline first
    assert any(log.names[i].startswith("tf.data-map") for i in range(40, 300))
    # inline again once the results the workers had pulled ahead (bounded: < 2 chunks per worker
    # plus the chunk being delivered) are used up
    assert all(log.names[i] == main for i in range(300 + 5 * 64, 1500))
    assert ds._autotuned_level == 0
    del it
    gc.collect()
    assert _new_threads(before) == []
    assert isinstance(iter(ds)._it, SequentialMap)  # later iterators reuse the decision


def test_autotune_errors_keep_their_position_across_switches(monkeypatch):
    monkeypatch.setattr(autotune, "make_map_tuner", lambda n: ScriptedTuner([(30, 2), (200, 1), (320, 0)]))
    ds = D.range(400).map(_fail_on_multiples_of(23), num_parallel_calls=tf.data.AUTOTUNE)
    assert _outcomes(iter(ds)) == _expected(400, 23)
    # the same through batch, which pulls chunks: an error drops the partial batch it interrupts
    batched = D.range(400).map(_fail_on_multiples_of(23), num_parallel_calls=tf.data.AUTOTUNE).batch(5)
    expected, partial = [], []
    for item in _expected(400, 23):
        if isinstance(item, tuple):
            expected.append(item)
            partial = []
            continue
        partial.append(item)
        if len(partial) == 5:
            expected.append(partial)
            partial = []
    expected.append(partial)
    assert _outcomes(iter(batched)) == expected


def test_autotune_chosen_workers_are_reused_and_abandoned_iterators_stop(monkeypatch):
    monkeypatch.setattr(autotune, "make_map_tuner", lambda n: ScriptedTuner([(5, 2)]))
    gc.collect()
    before = set(threading.enumerate())
    log = ThreadLog()
    ds = D.range(10**6).map(log, num_parallel_calls=tf.data.AUTOTUNE)
    for i in range(20):
        it = iter(ds)
        for _ in range(3 + i % 11):
            next(it)
        del it
    assert ds._autotuned_level == 2
    log.names.clear()
    it = iter(ds)
    assert int(next(it)) == 0
    it._close()
    assert log.names[0].startswith("tf.data-map")  # the cached level starts workers at once
    gc.collect()
    assert _new_threads(before) == []


def test_autotune_runs_cheap_functions_inline(monkeypatch):
    monkeypatch.setattr(autotune, "make_map_tuner", lambda n: autotune.MapTuner(
        max(n, 2), handoff=1.0, start_time=autotune.time.perf_counter(), window_seconds=0.0, window_elements=16))
    gc.collect()
    before = set(threading.enumerate())
    log = ThreadLog()
    ds = D.range(100).map(log, num_parallel_calls=tf.data.AUTOTUNE).batch(10)
    assert [b.numpy().tolist() for b in ds] == [[10 * i for i in range(k, k + 10)] for k in range(0, 100, 10)]
    assert set(log.names.values()) == {threading.current_thread().name}
    assert ds._input._autotuned_level == 0
    assert _new_threads(before) == []
