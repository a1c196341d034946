"""Element-wise and structural transformations against TF's documented sequences."""

import numpy as np
import pytest

import tfcore as tf

D = tf.data.Dataset


def as_list(ds):
    return list(ds.as_numpy_iterator())


def test_map_documented_examples_and_unpacking():
    assert as_list(D.range(1, 6).map(lambda x: x + 1)) == [2, 3, 4, 5, 6]
    # tuples are splatted into arguments
    elements = D.from_tensor_slices(([1, 2], [3, 4]))
    assert as_list(elements.map(lambda a, b: a + b)) == [4, 6]
    # a dict is passed as one argument
    d = D.from_tensor_slices({"a": [1, 2], "b": [10, 20]})
    assert as_list(d.map(lambda e: e["a"] * e["b"])) == [10, 40]
    # nested tuple element: outer tuple splatted, inner kept
    n = D.zip((D.range(3), D.zip((D.range(3), D.range(3)))))
    assert as_list(n.map(lambda a, bc: a + bc[0] * bc[1])) == [0, 2, 6]
    # returning a list makes a tuple; returning Python/NumPy values makes tensors
    out = as_list(D.range(2).map(lambda x: [x, x * 2]))
    assert out == [(0, 0), (1, 2)]
    ds = D.range(3).map(lambda x: np.float64(1.5))
    assert ds.element_spec == tf.TensorSpec([], tf.float64)
    assert as_list(D.range(2).map(lambda x: {"v": x, "w": (x, x)})) == [{"v": 0, "w": (0, 0)}, {"v": 1, "w": (1, 1)}]


def test_map_element_spec_and_cardinality():
    ds = D.from_tensor_slices(np.zeros((5, 4), np.float32)).map(lambda x: tf.reduce_sum(x) * 2.0)
    assert ds.element_spec == tf.TensorSpec([], tf.float32)
    assert ds.cardinality().numpy() == 5
    assert len(ds) == 5


def test_map_runs_on_cpu_without_tape():
    ds = D.from_tensor_slices(np.ones((3, 2), np.float32)).map(lambda x: x * 3.0)
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        total = 0.0
        for x in ds:
            assert x.device.endswith("CPU:0")
            total = total + tf.reduce_sum(x) * v
    assert float(tape.gradient(total, v)) == pytest.approx(18.0)


def test_filter_documented_examples():
    assert as_list(D.from_tensor_slices([1, 2, 3]).filter(lambda x: x < 3)) == [1, 2]
    assert as_list(D.from_tensor_slices([1, 2, 3]).filter(lambda x: tf.math.equal(x, 1))) == [1]
    pairs = D.from_tensor_slices(([1, 2, 3], [4, 5, 6])).filter(lambda a, b: a + b > 6)
    assert as_list(pairs) == [(2, 5), (3, 6)]
    assert pairs.cardinality().numpy() == tf.data.UNKNOWN_CARDINALITY
    with pytest.raises(ValueError, match="tf.bool"):
        list(D.range(3).filter(lambda x: x))


def test_repeat_take_skip_documented():
    ds = D.from_tensor_slices([1, 2, 3])
    assert as_list(ds.repeat(3)) == [1, 2, 3, 1, 2, 3, 1, 2, 3]
    assert as_list(ds.repeat().take(7)) == [1, 2, 3, 1, 2, 3, 1]
    assert as_list(D.range(10).take(3)) == [0, 1, 2]
    assert as_list(D.range(10).take(-1)) == list(range(10))
    assert as_list(D.range(10).skip(7)) == [7, 8, 9]
    assert as_list(D.range(10).skip(-1)) == []
    assert as_list(D.range(0).repeat()) == []  # an empty dataset repeated forever ends
    assert ds.repeat().cardinality().numpy() == tf.data.INFINITE_CARDINALITY
    assert ds.repeat(2).cardinality().numpy() == 6
    assert ds.repeat().take(5).cardinality().numpy() == 5
    assert D.range(10).skip(7).cardinality().numpy() == 3
    with pytest.raises(TypeError, match="infinite"):
        len(ds.repeat())


def test_concatenate_documented():
    a = D.range(1, 4)
    b = D.range(4, 8)
    assert as_list(a.concatenate(b)) == [1, 2, 3, 4, 5, 6, 7]
    assert a.concatenate(b).cardinality().numpy() == 7
    c = D.zip((D.range(7, 13), D.range(7, 13)))
    with pytest.raises(TypeError):
        a.concatenate(c)
    s = D.from_tensor_slices(["Four", "Five"])
    with pytest.raises(TypeError):
        a.concatenate(s)


def test_flat_map_documented():
    ds = D.from_tensor_slices([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert as_list(ds.flat_map(D.from_tensor_slices)) == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert ds.flat_map(D.from_tensor_slices).element_spec == tf.TensorSpec([], tf.int32)


INTERLEAVE_DOC = [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]


@pytest.mark.parametrize("parallel", [None, 2, tf.data.AUTOTUNE])
def test_interleave_documented_order(parallel):
    ds = D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(6), cycle_length=2, block_length=4,
                                  num_parallel_calls=parallel)
    assert as_list(ds) == INTERLEAVE_DOC


def test_interleave_cycle_and_empty_inputs():
    # cycle_length=3, block_length=2 over datasets of different lengths (hand-derived)
    ds = D.range(4).interleave(lambda x: D.range(x * 10, x * 10 + x), cycle_length=3, block_length=2)
    # slot0 opens 0 (empty) -> slot1 opens 1: [10] ends -> slot2 opens 2: [20, 21] -> slot0 opens 3: [30, 31], [32]
    assert as_list(ds) == [10, 20, 21, 30, 31, 32]


def test_enumerate_documented():
    ds = D.from_tensor_slices([1, 2, 3]).enumerate(start=5)
    assert as_list(ds) == [(5, 1), (6, 2), (7, 3)]
    assert ds.element_spec[0] == tf.TensorSpec([], tf.int64)
    nested = D.from_tensor_slices([(7, 8), (9, 10)]).enumerate()
    out = as_list(nested)
    assert out[1][0] == 1
    np.testing.assert_array_equal(out[1][1], [9, 10])


def _windows(ds):
    return [as_list(w) for w in ds]


def test_window_documented_examples():
    assert _windows(D.range(7).window(2)) == [[0, 1], [2, 3], [4, 5], [6]]
    assert _windows(D.range(7).window(3, 2, 1, True)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert _windows(D.range(7).window(3, 1, 2, True)) == [[0, 2, 4], [1, 3, 5], [2, 4, 6]]
    assert _windows(D.range(7).window(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert _windows(D.range(7).window(2, shift=3)) == [[0, 1], [3, 4], [6]]
    assert D.range(7).window(3, 2, 1, True).cardinality().numpy() == 3
    assert D.range(7).window(2).cardinality().numpy() == 4
    # nested elements give nested windows
    nested = D.from_tensor_slices((np.arange(4), np.arange(4) * 10)).window(2)
    out = [(as_list(a), as_list(b)) for a, b in nested]
    assert out == [([0, 1], [0, 10]), ([2, 3], [20, 30])]
    d = D.from_tensor_slices({"a": np.arange(4)}).window(2)
    assert [as_list(w["a"]) for w in d] == [[0, 1], [2, 3]]
    assert isinstance(d.element_spec["a"], tf.data.DatasetSpec)
    # the usual flat_map(batch) idiom
    flat = D.range(7).window(3, 1, 1, True).flat_map(lambda w: w.batch(3))
    assert [list(b) for b in as_list(flat)] == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]


def test_shard_documented():
    A = D.range(10)
    assert as_list(A.shard(num_shards=3, index=0)) == [0, 3, 6, 9]
    assert as_list(A.shard(num_shards=3, index=1)) == [1, 4, 7]
    assert as_list(A.shard(num_shards=3, index=2)) == [2, 5, 8]
    assert [A.shard(3, i).cardinality().numpy() for i in range(3)] == [4, 3, 3]
    with pytest.raises(tf.errors.InvalidArgumentError):
        A.shard(3, 3)


def test_reduce_documented():
    assert D.range(5).reduce(np.int64(0), lambda x, _: x + 1).numpy() == 5
    assert D.range(5).reduce(np.int64(0), lambda x, y: x + y).numpy() == 10
    pair = D.from_tensor_slices(([1, 2], [3, 4])).reduce((0, 0), lambda s, e: (s[0] + e[0], s[1] + e[1]))
    assert (int(pair[0]), int(pair[1])) == (3, 7)
    with pytest.raises(TypeError):
        D.range(3).reduce(np.int64(0), lambda s, e: tf.cast(s, tf.float32))


def test_apply_take_while_scan_unique():
    def dataset_fn(ds):
        return ds.filter(lambda x: x < 5)

    assert as_list(D.range(100).apply(dataset_fn)) == [0, 1, 2, 3, 4]
    assert as_list(D.range(10).take_while(lambda x: x < 5)) == [0, 1, 2, 3, 4]
    cumsum = D.range(5).scan(np.int64(0), lambda s, x: (s + x, s + x))
    assert as_list(cumsum) == [0, 1, 3, 6, 10]
    assert as_list(D.from_tensor_slices([1, 37, 2, 37, 2, 1]).unique()) == [1, 37, 2]
    with pytest.raises(TypeError):
        D.range(3).apply(lambda ds: 3)


def test_iteration_starts_over_and_get_next():
    ds = D.range(3)
    assert as_list(ds) == as_list(ds) == [0, 1, 2]
    it = iter(ds)
    assert int(it.get_next()) == 0
    assert int(next(it)) == 1
    assert int(it.get_next()) == 2
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    with pytest.raises(StopIteration):
        next(it)
    opt = iter(D.range(1)).get_next_as_optional()
    assert bool(opt.has_value()) and int(opt.get_value()) == 0
    it = iter(D.range(0))
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    with pytest.raises(tf.errors.InvalidArgumentError):
        empty.get_value()
    assert D.from_tensors(4).get_single_element().numpy() == 4
    with pytest.raises(tf.errors.InvalidArgumentError):
        D.range(2).get_single_element()


def test_cache_memory_and_file(tmp_path):
    calls = []

    def count_py(x):
        calls.append(1)
        return x

    def count(x):  # counts elements through tf.py_function: a traced function's own Python runs once
        return tf.py_function(count_py, [x], tf.int64) * 2

    ds = D.range(5).map(count).cache()
    calls.clear()  # the call made while tracing
    assert as_list(ds) == [0, 2, 4, 6, 8]
    assert as_list(ds) == [0, 2, 4, 6, 8]
    assert len(calls) == 5  # the second pass reads the cache
    # a partial first pass publishes nothing
    partial = D.range(5).map(count).cache()
    calls.clear()
    assert as_list(partial.take(2)) == [0, 2]
    assert as_list(partial) == [0, 2, 4, 6, 8]
    assert as_list(partial) == [0, 2, 4, 6, 8]
    assert len(calls) == 7

    prefix = str(tmp_path / "cache")
    fds = D.from_tensor_slices((np.arange(4), ["a", "b", "c", "d"])).map(lambda a, b: (count(a), b)).cache(prefix)
    calls.clear()
    assert as_list(fds) == [(0, b"a"), (2, b"b"), (4, b"c"), (6, b"d")]
    again = D.from_tensor_slices((np.arange(4), ["a", "b", "c", "d"])).map(lambda a, b: (count(a), b)).cache(prefix)
    calls.pop()  # again's trace
    assert as_list(again) == [(0, b"a"), (2, b"b"), (4, b"c"), (6, b"d")]
    assert len(calls) == 4  # the second dataset (same prefix) read the files
    it1 = iter(D.range(3).cache(str(tmp_path / "locked")))
    next(it1)
    with pytest.raises(tf.errors.AlreadyExistsError):
        next(iter(D.range(3).cache(str(tmp_path / "locked"))))
    del it1


def test_options_and_with_options():
    opts = tf.data.Options()
    assert opts.deterministic is None
    opts.experimental_deterministic = False
    assert opts.deterministic is False
    opts.threading.private_threadpool_size = 3
    ds = D.range(3).with_options(opts).map(lambda x: x)
    assert ds.options().deterministic is False
    assert ds.options().threading.private_threadpool_size == 3
    later = tf.data.Options()
    later.deterministic = True
    assert ds.with_options(later).options().deterministic is True
    assert ds.with_options(later).options().threading.private_threadpool_size == 3
    with pytest.raises(AttributeError):
        opts.not_an_option = 1


def test_constants_and_experimental_namespace():
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1
    assert tf.data.INFINITE_CARDINALITY == tf.data.experimental.INFINITE_CARDINALITY == -1
    assert tf.data.UNKNOWN_CARDINALITY == tf.data.experimental.UNKNOWN_CARDINALITY == -2
    assert tf.data.experimental.cardinality(D.range(42)).numpy() == 42
    ds = D.range(5).filter(lambda x: x < 10).apply(tf.data.experimental.assert_cardinality(5))
    assert ds.cardinality().numpy() == 5 and len(as_list(ds)) == 5
    bad = D.range(5).apply(tf.data.experimental.assert_cardinality(3))
    with pytest.raises(tf.errors.FailedPreconditionError, match="at least 4"):
        list(bad)
    short = D.range(2).apply(tf.data.experimental.assert_cardinality(3))
    with pytest.raises(tf.errors.FailedPreconditionError, match="only 2"):
        list(short)
    assert as_list(tf.data.experimental.from_list([(1, "a"), (2, "b")])) == [(1, b"a"), (2, b"b")]
    assert as_list(D.range(3).apply(tf.data.experimental.enumerate_dataset(1))) == [(1, 0), (2, 1), (3, 2)]


def test_choose_and_sample_from_datasets():
    datasets = [D.from_tensors("foo").repeat(), D.from_tensors("bar").repeat(), D.from_tensors("baz").repeat()]
    choice = D.range(3).repeat(3)
    out = as_list(D.choose_from_datasets(datasets, choice))
    assert out == [b"foo", b"bar", b"baz"] * 3
    a, b = D.from_tensors(1).repeat(50), D.from_tensors(2).repeat(50)
    sampled = as_list(D.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=7))
    assert sorted(sampled) == [1] * 50 + [2] * 50 and sampled != sorted(sampled)
    assert sampled == as_list(D.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=7))
