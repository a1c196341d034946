"""``format(tensor, spec)`` / f-strings follow TF's ``EagerTensor.__format__``: the NumPy value's format."""

import pytest

import tfcore as tf


def test_format_of_a_tensor_is_its_numpy_format():
    assert f"{tf.constant([[1.5, 2.0], [3.0, 4.0]])}" == "[[1.5 2. ]\n [3.  4. ]]"
    assert f"{tf.constant([b'red', b'blue'])}" == "[b'red' b'blue']"
    assert f"{tf.constant(3):>14}|" == "             3|"
    assert f"{tf.constant(3.14159):.2f}" == "3.14"
    assert str(tf.constant([1, 2])).startswith("tf.Tensor(")  # str and repr keep TF's tensor text
    with pytest.raises(TypeError):
        f"{tf.constant([1.0, 2.0]):.2f}"  # NumPy arrays take no format spec (TF's TypeError too)


def test_sparse_tensor_text_keeps_the_tensor_text_of_its_components():
    st = tf.SparseTensor(indices=[[0, 0]], values=[1], dense_shape=[1, 1])
    assert str(st).startswith("SparseTensor(indices=tf.Tensor(")
