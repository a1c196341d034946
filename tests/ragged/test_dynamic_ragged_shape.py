"""``tf.shape`` of a RaggedTensor and ``tf.experimental.DynamicRaggedShape`` / ``RowPartition`` (the ragged
guide's shape cells; expected text is what TF 2.21 prints)."""

import numpy as np
import pytest

import tfcore as tf


def test_shape_of_a_ragged_tensor():
    rt = tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    rt_shape = tf.shape(rt)
    assert isinstance(rt_shape, tf.experimental.DynamicRaggedShape)
    assert repr(rt_shape) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    assert str(rt_shape) == repr(rt_shape)
    assert rt_shape.rank == 2 and rt_shape.num_row_partitions == 1
    assert rt_shape.inner_shape.numpy().tolist() == [6]
    assert rt_shape.static_lengths() == [4, (1, 3, 0, 2)]
    first = rt_shape[0]
    assert first.dtype == tf.int32 and int(first) == 4  # tf.shape's default out_type
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        rt_shape[1]
    assert repr(rt_shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    assert repr(tf.shape(tf.ragged.constant([[[1, 2], [3]], [[4, 5]]]))) == \
        "<DynamicRaggedShape lengths=[2, (2, 1), (2, 1, 2)] num_row_partitions=2>"


def test_ops_build_ragged_tensors_of_a_dynamic_shape():
    rt_shape = tf.shape(tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
    x = tf.constant([["a", "b"], ["c", "d"], ["e", "f"]])
    assert tf.reshape(x, rt_shape).to_list() == [[b"a"], [b"b", b"c", b"d"], [], [b"e", b"f"]]
    assert tf.zeros(rt_shape).to_list() == [[0.0], [0.0, 0.0, 0.0], [], [0.0, 0.0]]
    assert tf.ones(rt_shape, dtype=tf.int32).to_list() == [[1], [1, 1, 1], [], [1, 1]]
    assert tf.fill(rt_shape, "x").to_list() == [[b"x"], [b"x", b"x", b"x"], [], [b"x", b"x"]]


def test_dynamic_ragged_shape_constructors():
    shape = tf.experimental.DynamicRaggedShape(
        row_partitions=[tf.experimental.RowPartition.from_row_lengths([5, 3, 2])], inner_shape=[10, 8])
    assert repr(shape) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    assert tf.zeros(shape).flat_values.shape == (10, 8)
    shape = tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    assert repr(shape) == "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    uniform = tf.experimental.DynamicRaggedShape.from_lengths([2, 3, (1, 2, 3, 1, 2, 3)])
    assert uniform.static_lengths() == [2, 3, (1, 2, 3, 1, 2, 3)] and uniform.is_uniform(1)
    with pytest.raises(ValueError, match="number of values"):
        tf.experimental.DynamicRaggedShape(
            row_partitions=[tf.experimental.RowPartition.from_row_lengths([5, 3, 2])], inner_shape=[9])


def test_row_partition():
    p = tf.experimental.RowPartition.from_row_lengths([1, 3, 0, 2])
    assert repr(p) == "tf.RowPartition(row_splits=[0 1 4 4 6])"
    assert p.row_lengths().numpy().tolist() == [1, 3, 0, 2] and int(p.nrows()) == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="do not form a valid RowPartition"):
        tf.experimental.RowPartition.from_row_lengths([1, -1])
    np.testing.assert_array_equal(tf.experimental.RowPartition.from_row_splits([0, 2, 5]).row_splits().numpy(),
                                  [0, 2, 5])
