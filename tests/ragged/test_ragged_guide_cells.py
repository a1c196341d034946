"""Ragged behaviour the ragged tensor guide prints, checked against what TF 2.21 prints for the same cells."""

import pytest

import tfcore as tf


def test_ragged_constant_rejects_mixed_types_and_depths_with_tf_messages():
    with pytest.raises(ValueError, match=r"^Can't convert Python sequence with mixed types to Tensor\.$"):
        tf.ragged.constant([["one", "two"], [3, 4]])
    with pytest.raises(ValueError, match="^all scalar values must have the same nesting depth$"):
        tf.ragged.constant(["A", ["B", "C"]])
    assert tf.ragged.constant([[1, 2.5], [3]]).to_list() == [[1.0, 2.5], [3.0]]  # ints and floats mix


def test_repr_prints_uniform_rows_as_numpy_does():
    assert repr(tf.ragged.constant([[1, 2], [3]])) == "<tf.RaggedTensor [[1, 2], [3]]>"
    # rows of one length: TF's repr is NumPy's multi-line array text with ", " separators
    assert repr(tf.ragged.constant([[1, 2], [3, 4]])) == "<tf.RaggedTensor [[1, 2],\n [3, 4]]>"
    assert tf.ragged.constant([[1, 2], [3, 4]]).numpy().shape == (2, 2)
    assert repr(tf.ragged.constant([["a"], []])) == "<tf.RaggedTensor [[b'a'], []]>"


def test_from_uniform_row_length():
    rt = tf.RaggedTensor.from_uniform_row_length(
        values=tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                               row_splits=[0, 3, 5, 9, 10]),
        uniform_row_length=2)
    assert rt.shape.as_list() == [2, 2, None] and rt.ragged_rank == 2
    assert rt.to_list() == [[[10, 11, 12], [13, 14]], [[15, 16, 17, 18], [19]]]
    assert int(rt.uniform_row_length) == 2 and rt.row_splits.numpy().tolist() == [0, 2, 4]
    assert (rt * 2).shape.as_list() == [2, 2, None]
    assert repr(tf.shape(rt)) == "<DynamicRaggedShape lengths=[2, 2, (3, 2, 4, 1)] num_row_partitions=2>"
    with pytest.raises(ValueError, match="7 values do not make 2 rows of length 3"):
        tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6, 7], 3, nrows=2)


_RAGGED_VS_DENSE = """Condition x == y did not hold.
Indices of first 3 different values:
[[1]
 [2]
 [3]]
Corresponding x values:
[ 4  8 12]
Corresponding y values:
[2 6 7]
First 3 elements of x:
[0 4 8]
First 3 elements of y:
[0 2 6]"""

_RAGGED_VS_RAGGED = """Condition x == y did not hold.
Indices of first 2 different values:
[[1]
 [3]]
Corresponding x values:
[3 6]
Corresponding y values:
[2 5]
First 3 elements of x:
[0 3 4]
First 3 elements of y:
[0 2 4]"""


def test_broadcast_errors_are_tfs_partition_assertions():
    x = tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]])
    y = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        x + y
    assert str(e.value) == _RAGGED_VS_DENSE  # x: the dense operand's uniform splits, y: the ragged ones
    x = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    y = tf.ragged.constant([[10, 20], [30, 40], [50]])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        x + y
    assert str(e.value) == _RAGGED_VS_RAGGED
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10]]])  # inner partitions differ
    y = tf.ragged.constant([[[1, 2, 0], [3, 4, 0], [5, 6, 0]], [[7, 8, 0], [9, 10, 0]]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Corresponding x values:\n\[2 4 6\]"):
        x + y


def test_to_tensor_with_a_string_default_and_wider_shape():
    rt = tf.ragged.constant([["Hi"], ["Welcome", "to", "the", "fair"], ["Have", "fun"]])
    dense = rt.to_tensor(default_value="", shape=[None, 10])
    assert dense.shape == (3, 10) and dense.numpy()[1, :5].tolist() == [b"Welcome", b"to", b"the", b"fair", b""]
