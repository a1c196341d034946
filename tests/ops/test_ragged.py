"""tf.RaggedTensor / tf.ragged: construction, conversion, indexing, element-wise ops, gradients and
ragged batches in tf.data."""

import numpy as np
import pytest

import tfcore as tf


def test_constant_and_factories():
    rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert rt.dtype == tf.int32 and rt.shape.as_list() == [5, None] and rt.ragged_rank == 1
    assert rt.to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    np.testing.assert_array_equal(rt.row_splits.numpy(), [0, 4, 4, 7, 8, 8])
    np.testing.assert_array_equal(rt.row_lengths().numpy(), [4, 0, 3, 1, 0])
    np.testing.assert_array_equal(rt.value_rowids().numpy(), [0, 0, 0, 0, 2, 2, 2, 3])
    values = [3, 1, 4, 1, 5, 9, 2, 6]
    for made in (tf.RaggedTensor.from_row_splits(values, [0, 4, 4, 7, 8, 8]),
                 tf.RaggedTensor.from_row_lengths(values, [4, 0, 3, 1, 0]),
                 tf.RaggedTensor.from_value_rowids(values, [0, 0, 0, 0, 2, 2, 2, 3], nrows=5),
                 tf.RaggedTensor.from_row_starts(values, [0, 4, 4, 7, 8]),
                 tf.RaggedTensor.from_row_limits(values, [4, 4, 7, 8, 8])):
        assert made.to_list() == rt.to_list()
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.RaggedTensor.from_row_splits(values, [0, 4, 3, 8])
    with pytest.raises(ValueError, match="private"):
        tf.RaggedTensor(values, [0, 8])
    nested = tf.ragged.constant([[[1.0, 2.0], [3.0]], [[4.0, 5.0, 6.0]]])
    assert nested.ragged_rank == 2 and nested.dtype == tf.float32
    assert tf.RaggedTensor.from_nested_row_lengths([1.0, 2, 3, 4, 5, 6], [[2, 1], [2, 1, 3]]).to_list() == \
        nested.to_list()
    assert [s.numpy().tolist() for s in nested.nested_row_splits] == [[0, 2, 3], [0, 2, 3, 6]]
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert inner.flat_values.shape == (3, 2) and inner.shape.as_list() == [2, None, 2]


def test_to_tensor_from_tensor_round_trip():
    rt = tf.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0]])
    np.testing.assert_array_equal(rt.to_tensor().numpy(), [[1, 2, 0], [0, 0, 0], [3, 4, 5]])
    np.testing.assert_array_equal(rt.to_tensor(default_value=-1.0).numpy(), [[1, 2, -1], [-1, -1, -1], [3, 4, 5]])
    np.testing.assert_array_equal(rt.to_tensor(shape=[3, 2]).numpy(), [[1, 2], [0, 0], [3, 4]])
    dense = [[1, 0, 0], [2, 3, 0], [4, 5, 6]]
    assert tf.RaggedTensor.from_tensor(dense, padding=0).to_list() == [[1], [2, 3], [4, 5, 6]]
    assert tf.RaggedTensor.from_tensor(dense, lengths=[2, 0, 3]).to_list() == [[1, 0], [], [4, 5, 6]]
    assert tf.RaggedTensor.from_tensor(dense).to_list() == dense
    cube = np.arange(8).reshape(2, 2, 2)
    assert tf.RaggedTensor.from_tensor(cube, ragged_rank=2).to_list() == cube.tolist()
    nested = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]])
    np.testing.assert_array_equal(nested.to_tensor().numpy(), [[[1, 2, 0], [3, 0, 0]], [[4, 5, 6], [0, 0, 0]]])
    np.testing.assert_array_equal(nested.bounding_shape().numpy(), [2, 2, 3])
    assert [list(r) for r in rt.numpy()] == [[1.0, 2.0], [], [3.0, 4.0, 5.0]]


def test_indexing_ops_and_gradients():
    rt = tf.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0]])
    np.testing.assert_array_equal(rt[2].numpy(), [3.0, 4.0, 5.0])
    np.testing.assert_array_equal(rt[-1].numpy(), [3.0, 4.0, 5.0])
    assert rt[1:].to_list() == [[], [3.0, 4.0, 5.0]]
    assert float(rt[2, 1].numpy()) == 4.0
    assert [r.numpy().tolist() for r in rt] == [[1.0, 2.0], [], [3.0, 4.0, 5.0]] and len(rt) == 3
    assert (rt * 2.0 + 1.0).to_list() == [[3.0, 5.0], [], [7.0, 9.0, 11.0]]
    assert (rt - rt).to_list() == [[0.0, 0.0], [], [0.0, 0.0, 0.0]]
    assert tf.ragged.map_flat_values(tf.square, rt).to_list() == [[1.0, 4.0], [], [9.0, 16.0, 25.0]]
    assert tf.ragged.map_flat_values(tf.add, rt, rt).to_list() == (rt * 2.0).to_list()
    with pytest.raises(ValueError, match="identical ragged splits"):
        tf.ragged.map_flat_values(tf.add, rt, tf.ragged.constant([[1.0], [2.0, 3.0], [4.0, 5.0]]))
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    with tf.GradientTape() as tape:
        r = tf.RaggedTensor.from_row_lengths(v, [1, 3])
        loss = tf.reduce_sum(tf.ragged.map_flat_values(tf.square, r).to_tensor() * [[1.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(tape.gradient(loss, v).numpy(), [2.0, 4.0, 12.0, 24.0])


def test_ragged_helpers():
    assert tf.ragged.range([0, 2], [3, 5]).to_list() == [[0, 1, 2], [2, 3, 4]]
    assert tf.ragged.range(3).to_list() == [[0, 1, 2]]
    np.testing.assert_array_equal(tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]).numpy(), [0, 0, 2, 2, 2])
    np.testing.assert_array_equal(tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2]).numpy(), [0, 2, 2, 5])
    assert tf.ragged.stack([[1, 2], [3]]).to_list() == [[1, 2], [3]]
    assert tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, True]]).to_list() == \
        [[1, 3], [6]]
    spec = tf.RaggedTensorSpec.from_value(tf.ragged.constant([[1], [2, 3]]))
    assert spec.ragged_rank == 1 and spec.dtype == tf.int32 and spec.shape.as_list() == [2, None]
    assert spec.is_compatible_with(tf.ragged.constant([[4], [5, 6]]))


def test_ragged_batch_in_tf_data():
    ds = tf.data.Dataset.range(5).map(lambda x: (tf.range(x), x))
    batches = list(ds.ragged_batch(2))
    assert [b[0].to_list() for b in batches] == [[[], [0]], [[0, 1], [0, 1, 2]], [[0, 1, 2, 3]]]
    assert [b[1].numpy().tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    spec = ds.ragged_batch(2, drop_remainder=True).element_spec
    assert isinstance(spec[0], tf.RaggedTensorSpec) and spec[0].shape.as_list() == [2, None]
    assert len(list(ds.ragged_batch(2, drop_remainder=True))) == 2
    padded = [b[0].to_tensor().numpy().tolist() for b in ds.ragged_batch(3)]
    assert padded[0] == [[0, 0], [0, 0], [0, 1]]
