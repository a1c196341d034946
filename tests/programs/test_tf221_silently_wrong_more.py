"""Three behaviours found silently wrong by comparing with TF 2.21 (issue 29): a SavedModel's
``tf.custom_gradient``, sparse (``IndexedSlices``) gradients of ``tf.gather``/Embedding through the
optimizers, and ``Dataset.cache()`` after ``batch().unbatch()``. Each test fails on the code before its
fix and states what TF 2.21 / Keras 3 do."""

import tfcore as tf


# -- Dataset.cache() after batch().unbatch() -----------------------------------------------------------------
def test_map_over_cache_after_unbatch_runs_no_upstream_function():
    """TF 2.21: once ``ds.batch(2).unbatch().cache()`` is filled, building ``.map(f)`` on top and iterating
    it twice runs the upstream ``tf.py_function`` zero more times. tfcore used to pull an element through
    the whole pipeline (batch of 2: two upstream calls) to trace each new map over the unbatch."""
    calls = []

    def count(x):
        calls.append(int(x))
        return x

    cached = (tf.data.Dataset.range(5).map(lambda x: tf.py_function(count, [x], tf.int64))
              .batch(2).unbatch().cache())
    assert [int(v) for v in cached] == [0, 1, 2, 3, 4]
    filled = len(calls)
    doubled = cached.map(lambda x: x * 2)
    assert [int(v) for v in doubled] == [0, 2, 4, 6, 8]
    assert [int(v) for v in doubled] == [0, 2, 4, 6, 8]
    assert [v.numpy().tolist() for v in cached.map(lambda x: x * 3).batch(2)] == [[0, 3], [6, 9], [12]]
    assert len(calls) == filled


def test_unbatch_trace_element_is_row_zero_of_its_input():
    """A map over ``unbatch()`` is traced with one row of the batch (its element_spec as TF's), for tuples
    too, and an empty batch gives zeros of the element's shape."""
    ds = tf.data.Dataset.from_tensor_slices(([[1, 2], [3, 4], [5, 6]], [7, 8, 9])).batch(2).unbatch()
    mapped = ds.map(lambda a, b: (tf.reduce_sum(a), b))
    assert [(int(a), int(b)) for a, b in mapped] == [(3, 7), (7, 8), (11, 9)]
    assert mapped.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))
    empty = tf.data.Dataset.from_tensor_slices(tf.zeros([0, 3])).batch(2).unbatch().map(lambda x: x + 1)
    assert empty.element_spec == tf.TensorSpec([3], tf.float32)
    assert list(empty) == []
