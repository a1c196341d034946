"""TF's ops take ``tf.RaggedTensor`` arguments through type-based dispatch (the ragged guide's first cells).

Expected values are what TensorFlow 2.21 prints for the same calls.
"""

import numpy as np
import pytest

import tfcore as tf


@pytest.fixture
def digits():
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def test_binary_elementwise_op_applies_to_flat_values(digits):
    out = tf.add(digits, 3)
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[6, 4, 7, 4], [], [8, 12, 5], [9], []]
    assert tf.math.maximum(digits, digits).to_list() == digits.to_list()


def test_binary_op_broadcasts_a_dense_column(digits):
    out = digits + tf.constant([1, 2, 3, 4, 5])[:, None]
    assert out.to_list() == [[4, 2, 5, 2], [], [8, 12, 5], [10], []]


def test_ragged_operands_need_the_same_row_partitions(digits):
    other = tf.ragged.constant([[1], [2], [3], [4], [5]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x == y did not hold"):  # TF's assertion
        tf.add(digits, other)


def test_unary_ops_and_string_ops_keep_partitions(digits):
    assert tf.math.square(digits).to_list() == [[9, 1, 16, 1], [], [25, 81, 4], [36], []]
    words = tf.ragged.constant([["So", "long"], ["thanks", "for"]])
    assert tf.strings.substr(words, 0, 2).to_list() == [[b"So", b"lo"], [b"th", b"fo"]]


def test_reductions_per_row_per_column_and_all(digits):
    mean = tf.reduce_mean(digits, axis=1)
    assert mean.dtype == tf.float64  # as TF: integer ragged means are float64
    np.testing.assert_allclose(mean.numpy(), [2.25, np.nan, 16 / 3, 6.0, np.nan])
    assert tf.reduce_sum(digits, axis=1).numpy().tolist() == [9, 0, 16, 6, 0]
    assert tf.reduce_sum(digits, axis=0).numpy().tolist() == [14, 10, 6, 1]
    assert int(tf.reduce_sum(digits)) == 31
    assert tf.reduce_max(digits, axis=1).numpy().tolist()[0] == 4
    assert tf.reduce_prod(digits, axis=-1).numpy().tolist() == [12, 1, 90, 6, 1]


def test_reduce_mean_of_ragged_embeddings_keeps_inner_dims():
    rt = tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(12.0), [6, 2]), [1, 2, 3])
    np.testing.assert_allclose(tf.reduce_mean(rt, axis=1).numpy(), [[0, 1], [3, 4], [8, 9]])


def test_concat_and_tile(digits):
    assert tf.concat([digits, [[5, 3]]], axis=0).to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], [], [5, 3]]
    x = tf.ragged.constant([["John"], ["a", "big"]])
    y = tf.ragged.constant([["fell"], ["dog"]])
    assert tf.concat([x, y], axis=1).to_list() == [[b"John", b"fell"], [b"a", b"big", b"dog"]]
    assert tf.tile(digits, [1, 2]).to_list() == [[3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]


def test_map_fn_over_rows(digits):
    out = tf.map_fn(tf.math.square, digits)
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[9, 1, 16, 1], [], [25, 81, 4], [36], []]


def test_dense_calls_do_not_change():
    assert tf.add(tf.constant([1, 2]), 3).numpy().tolist() == [4, 5]
    assert tf.add.__name__ == "add"


def test_slicing_inside_every_row(digits):
    assert digits[:, :2].to_list() == [[3, 1], [], [5, 9], [6], []]
    assert digits[:, -2:].to_list() == [[4, 1], [], [9, 2], [6], []]
    assert digits[1:3, 1:].to_list() == [[], [9, 2]]


def test_to_sparse_and_back():
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    st = x.to_sparse()
    assert st.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [1, 2], [2, 0], [2, 1]]
    assert st.dense_shape.numpy().tolist() == [3, 3]
    assert tf.RaggedTensor.from_sparse(st).to_list() == x.to_list()
    nested = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]]).to_sparse()
    assert nested.indices.numpy().tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]]
    assert nested.dense_shape.numpy().tolist() == [2, 2, 3]


def test_reverse_rows_and_inside_rows():
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert tf.reverse(rt, [1]).to_list() == [[2, 1], [3], [6, 5, 4]]
    assert tf.reverse(rt, [0]).to_list() == [[4, 5, 6], [3], [1, 2]]
    assert tf.concat([rt, tf.reverse(rt, [1])], 1).to_list() == [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]


def test_broadcasting_as_the_guide_shows():
    x = tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    assert (x + [[1000], [2000], [3000]]).to_list() == [[1010, 1087, 1012], [2019, 2053], [3012, 3032]]
    x3 = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert (x3 + tf.constant([[10]])).to_list() == [[[11, 12], [13, 14], [15, 16]], [[17, 18]]]
    with pytest.raises(tf.errors.InvalidArgumentError):  # a dense dim 4 against rows of lengths 2, 4, 1
        tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]]) + tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
