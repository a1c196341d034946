"""tf.math.unsorted_segment_prod and tf.math.segment_prod (TF's UnsortedSegmentProd / SegmentProd): values,
gradients and errors as TF 2.21 gives them (the expected numbers below were printed by TF 2.21 for the same
inputs). Devices, references and finite-difference gradients: their op-info entries (tests/opinfo/table.py);
the CUDA kernels: tests/kernels/test_segment.py."""

import numpy as np
import pytest

import tfcore as tf

# a segment with one zero per column... and two zeros in column 1, a dropped row (-1), an empty segment (1)
ZEROS = np.array([[1., 0.], [3., 0.], [0., 6.], [2., 2.], [4., -1.]])


@pytest.fixture(autouse=True)
def _on_cpu():
    with tf.device("/CPU:0"):
        yield


def _value_and_grad(fn, x, dy=None):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y.numpy(), tape.gradient(y, x, output_gradients=dy).numpy()


def test_unsorted_empty_segments_are_one_and_negative_ids_dropped():
    y, g = _value_and_grad(lambda x: tf.math.unsorted_segment_prod(x, [0, 0, 0, -1, 2], 3), ZEROS)
    np.testing.assert_array_equal(y, [[0., 0.], [1., 1.], [4., -1.]])
    # TF's zero handling: the lone zero of column 0 gets the product of the others, column 1's two zeros
    # give nothing; the dropped row gets 0
    np.testing.assert_array_equal(g, [[0., 0.], [0., 0.], [3., 0.], [0., 0.], [1., 1.]])


def test_sorted_gradient_with_zeros_and_output_gradients():
    dy = tf.constant([[1., 2.], [3., 4.], [5., 6.]], tf.float64)
    y, g = _value_and_grad(lambda x: tf.math.segment_prod(x, [0, 0, 0, 2, 2]), ZEROS, dy)
    np.testing.assert_array_equal(y, [[0., 0.], [1., 1.], [8., -2.]])
    np.testing.assert_array_equal(g, [[0., 0.], [0., 0.], [3., 0.], [20., -6.], [10., 12.]])


def test_unsorted_rank_2_ids_and_inner_dims():
    d = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 10 + 0.5
    y, g = _value_and_grad(lambda x: tf.math.unsorted_segment_prod(x, [[1, 0, 1], [-1, 1, 3]], 4), d)
    np.testing.assert_allclose(y, [[0.9, 1.0, 1.1, 1.2], [1.365, 1.848, 2.415, 3.072], [1.0] * 4,
                                   [2.5, 2.6, 2.7, 2.8]], rtol=1e-12)
    np.testing.assert_allclose(g, [[[2.73, 3.08, 3.45, 3.84], [1.0] * 4, [1.05, 1.32, 1.61, 1.92]],
                                   [[0.0] * 4, [0.65, 0.84, 1.05, 1.28], [1.0] * 4]], rtol=1e-12)


def test_dtypes_as_tf():
    assert tf.math.unsorted_segment_prod(tf.constant([100, 3, 100, 100], tf.int8), [0, 1, 0, 0], 2).numpy().tolist() \
        == [64, 3]  # wraps, as TF's int8 product
    z = tf.math.segment_prod(tf.constant([1 + 2j, 3j], tf.complex64), [0, 0])
    assert z.dtype == tf.complex64 and z.numpy().tolist() == [-6 + 3j]
    h = tf.math.unsorted_segment_prod(tf.constant([2., 3.], tf.float16), tf.constant([1, 1], tf.int64),
                                      tf.constant(3, tf.int64))
    assert h.dtype == tf.float16 and h.numpy().tolist() == [1.0, 6.0, 1.0]
    assert tf.math.segment_prod(tf.constant([1., 2.]), [0, 2]).numpy().tolist() == [1.0, 1.0, 2.0]


def test_empty_data():
    e = tf.zeros([0, 2])
    assert tf.math.segment_prod(e, tf.zeros([0], tf.int32)).shape == (0, 2)
    np.testing.assert_array_equal(tf.math.unsorted_segment_prod(e, tf.zeros([0], tf.int32), 2), np.ones((2, 2)))


@pytest.mark.parametrize("call, message", [
    (lambda d: tf.math.segment_prod(d, [1, 0, 0]), "segment ids are not increasing"),
    (lambda d: tf.math.segment_prod(d, [-1, 0, 0]), r"Segment id -1 out of range \[0, 1\), possibly because"),
    (lambda d: tf.math.segment_prod(d, [0, 0]), "segment_ids should be the same size as dimension 0"),
    (lambda d: tf.math.segment_prod(d, [[0, 0, 1]]), "segment_ids should be a vector"),
    (lambda d: tf.math.segment_prod(tf.constant(1.0), tf.constant(0)), "input must be at least rank 1"),
    (lambda d: tf.math.unsorted_segment_prod(d, [0, 3, 1], 3), r"segment_ids\[1\] = 3 is out of range \[0, 3\)"),
    (lambda d: tf.math.unsorted_segment_prod(d, [0, 1], 3),
     r"data.shape = \[3, 2\] does not start with segment_ids.shape = \[2\]"),
    (lambda d: tf.math.unsorted_segment_prod(d, [0, 1, 1], -1), "num_segments == -1 must not be negative"),
    (lambda d: tf.math.unsorted_segment_prod(d, tf.constant([0, 1, 1], tf.int16), 2),
     "segment_ids must be int32 or int64, got int16"),
    (lambda d: tf.math.unsorted_segment_prod(tf.constant([True, False, True]), [0, 1, 1], 2),
     "data must be numeric, got bool"),
])
def test_errors_as_tf(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        call(tf.constant([[1., 2.], [3., 4.], [5., 6.]]))


def test_traced_and_saved_graph_uses_tf_op_names():
    f = tf.function(lambda x: (tf.math.segment_prod(x, [0, 0, 1]), tf.math.unsorted_segment_prod(x, [1, 0, 1], 2)))
    a, b = f(tf.constant([2., 3., 4.]))
    assert a.numpy().tolist() == [6.0, 4.0] and b.numpy().tolist() == [3.0, 8.0]
    ops = {n.op for n in f.get_concrete_function(tf.constant([2., 3., 4.])).graph.as_graph_def().node}
    assert {"SegmentProd", "UnsortedSegmentProd"} <= ops
