"""RaggedTensors in tf.data (the ragged guide's dataset cells); expected values are TF 2.21's."""

import tfcore as tf


def _rt():
    return tf.ragged.constant([[1, 2], [3], [4, 5, 6]])


def test_from_tensor_slices_gives_dense_rows_with_ragged_spec():
    ds = tf.data.Dataset.from_tensor_slices({"a": _rt()})
    spec = ds.element_spec["a"]
    assert isinstance(spec, tf.RaggedTensorSpec) and spec.ragged_rank == 0
    assert [e["a"].numpy().tolist() for e in ds] == [[1, 2], [3], [4, 5, 6]]


def test_batch_makes_rows_ragged_and_unbatch_splits_them():
    batched = tf.data.Dataset.from_tensor_slices({"a": _rt()}).batch(2)
    assert batched.element_spec["a"].ragged_rank == 1
    out = [e["a"] for e in batched]
    assert all(isinstance(x, tf.RaggedTensor) for x in out)
    assert [x.to_list() for x in out] == [[[1, 2], [3]], [[4, 5, 6]]]
    rows = [e["a"].numpy().tolist() for e in batched.unbatch()]
    assert rows == [[1, 2], [3], [4, 5, 6]]


def test_dense_to_ragged_batch_and_ragged_map_output():
    ds = tf.data.Dataset.from_tensor_slices([1, 5, 3]).map(tf.range)
    out = [e.to_list() for e in ds.apply(tf.data.experimental.dense_to_ragged_batch(2))]
    assert out == [[[0], [0, 1, 2, 3, 4]], [[0, 1, 2]]]
