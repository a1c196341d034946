"""RaggedTensors through tf.function (the ragged guide's tf.function cells; expected values are TF 2.21's)."""

import pytest

import tfcore as tf


def test_traced_function_takes_and_returns_ragged():
    @tf.function
    def make_palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)

    out = make_palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]


def test_concrete_function_of_a_ragged_argument():
    @tf.function
    def increment(x):
        return x + 1

    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert increment.get_concrete_function(rt)(rt).to_list() == [[2, 3], [4], [5, 6, 7]]
    assert increment(tf.ragged.constant([[1], [3, 4]])).to_list() == [[2], [4, 5]]  # another partition


def test_input_signature_with_ragged_tensor_spec():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def max_and_min(rt):
        return tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1)

    hi, lo = max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    assert hi.numpy().tolist() == [2, 3, 6] and lo.numpy().tolist() == [1, 3, 4]
    with pytest.raises(TypeError, match="max_and_min"):
        max_and_min(tf.ragged.constant([[1.0]]))
