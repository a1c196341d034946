"""Dataset functions are traced once into a graph, as in TF (map, filter, take_while, scan, reduce)."""

import contextlib
import io
import sys

import numpy as np
import pytest

import tfcore as tf

D = tf.data.Dataset


def test_print_runs_once_at_map_time_and_tf_print_per_element():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        def fn(x):
            print("tracing")
            tf.print("element", x, output_stream=sys.stdout)
            return x + 1

        ds = D.range(10).map(fn)
        print("built")
        values = [int(v) for v in ds]
    lines = out.getvalue().splitlines()
    assert values == list(range(1, 11))
    assert lines[:2] == ["tracing", "built"]  # traced when map() is called, before any iteration
    assert lines.count("tracing") == 1
    assert [ln for ln in lines if ln.startswith("element")] == [f"element {i}" for i in range(10)]


def test_traced_once_and_replayed_on_a_second_pass():
    traces = []

    def fn(x):
        traces.append(1)
        return x * 2

    ds = D.range(10).map(fn)
    assert traces == [1]
    assert [int(v) for v in ds] == [2 * i for i in range(10)]
    assert [int(v) for v in ds] == [2 * i for i in range(10)]
    assert traces == [1] and ds._fn.tracing_count == 1


def test_autograph_if_on_a_tensor_inside_map():
    def fn(x):
        if x % 2 == 0:
            y = x * 10
        else:
            y = -x
        return y

    assert [int(v) for v in D.range(6).map(fn)] == [0, -1, 20, -3, 40, -5]


def test_filter_predicate_traced_once():
    traces = []

    def pred(x):
        traces.append(1)
        return x % 3 == 0

    ds = D.range(10).filter(pred)
    assert [int(v) for v in ds] == [0, 3, 6, 9]
    assert traces == [1]


def test_take_while_scan_and_reduce_traced_once():
    traces = []

    def below(x):
        traces.append("take_while")
        return x < 4

    def step(state, x):
        traces.append("scan")
        return state + x, state * 2

    def add(state, x):
        traces.append("reduce")
        return state + x

    assert [int(v) for v in D.range(10).take_while(below)] == [0, 1, 2, 3]
    assert [int(v) for v in D.range(5).scan(tf.constant(0, tf.int64), step)] == [0, 0, 2, 6, 12]
    assert int(D.range(10).reduce(tf.constant(0, tf.int64), add)) == 45
    assert traces == ["take_while", "scan", "reduce"]


@pytest.mark.parametrize("read", [lambda x: x.numpy(), lambda x: int(x), lambda x: bool(x > 2),
                                  lambda x: np.asarray(x)])
def test_reading_an_element_value_in_python_raises_like_tf(read):
    with pytest.raises((AttributeError, TypeError, NotImplementedError), match="tf.py_function"):
        D.range(5).map(read)


def test_numpy_error_is_tfs_attribute_error():
    with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
        D.range(5).map(lambda x: x.numpy() + 1)
    with pytest.raises(TypeError, match="Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"):
        D.range(5).filter(lambda x: bool(x))  # TF's OperatorNotAllowedInGraphError, a TypeError


def test_py_function_runs_per_element():
    seen = []

    def work(v):
        seen.append(int(v))
        return v * 3

    ds = D.range(5).map(lambda x: tf.py_function(work, [x], tf.int64))
    seen.clear()  # it also ran once while map() traced, to learn its result
    assert [int(v) for v in ds] == [0, 3, 6, 9, 12]
    assert seen == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("parallel", [2, 4, tf.data.AUTOTUNE])
def test_parallel_map_with_a_traced_function_gives_the_same_elements(parallel):
    def fn(x, y):
        z = tf.cast(x, tf.float32) * 0.5 + tf.reduce_sum(y)
        if z > 10.0:
            z = z - 10.0
        return {"z": z, "x": x}

    base = D.from_tensor_slices((np.arange(300), np.ones((300, 3), np.float32)))
    want = [(float(e["z"]), int(e["x"])) for e in base.map(fn)]
    got = [(float(e["z"]), int(e["x"])) for e in base.map(fn, num_parallel_calls=parallel)]
    assert got == want
    assert want[4] == (5.0, 4) and want[30] == (8.0, 30)


def test_debug_mode_runs_functions_eagerly(monkeypatch):
    from tfcore.data import _runtime

    monkeypatch.setattr(_runtime, "_debug_mode", [False])
    tf.data.experimental.enable_debug_mode()
    calls = []

    def fn(x):
        calls.append(int(x))  # allowed eagerly
        return x

    assert [int(v) for v in D.range(3).map(fn)] == [0, 1, 2]
    assert calls[-3:] == [0, 1, 2]


def test_variable_shapes_trace_again_at_most_once_when_the_graph_is_shape_free():
    traces = []

    def fn(x):
        traces.append(1)
        return tf.reduce_sum(x) + tf.cast(tf.shape(x)[0], tf.int64)

    ds = D.range(10).batch(3).map(fn)  # batches of 3, 3, 3 and 1
    assert [int(v) for v in ds] == [3 + 3, 12 + 3, 21 + 3, 9 + 1]
    assert len(traces) == 2  # the short batch traced again, found the same graph
    texts = D.range(1, 30).map(lambda n: tf.range(n)).map(fn)  # every element its own length
    traces.clear()
    assert [int(v) for v in texts] == [n * (n - 1) // 2 + n for n in range(1, 30)]
    assert len(traces) == 1


def test_seeded_random_ops_in_map_match_eager_calls():
    tf.random.set_seed(5)
    eager = [float(tf.random.uniform([], seed=3)) for _ in range(4)]
    tf.random.set_seed(5)
    mapped = [float(v) for v in D.range(4).map(lambda x: tf.random.uniform([], seed=3))]
    tf.random.set_seed(None)
    assert mapped == eager  # tracing drew no number


def test_map_after_generator_does_not_run_the_generator_to_trace():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = D.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64)).map(lambda x: x * 2)
    assert calls == []
    assert [int(v) for v in ds] == [0, 2, 4]
