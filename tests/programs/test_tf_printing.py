"""Printed forms that real TF 2.21 gives, found by ``tests/tutorials/compare_with_tf.py`` (checked
against tensorflow-cpu 2.21.0 in a side environment)."""

import pytest

import tfcore as tf


def test_multiline_tensor_repr_starts_the_array_on_its_own_line():
    # TF's _numpy_text: "numpy=\narray([[1, 2],\n       [3, 4]], dtype=int32)>" for a multi-line value
    assert repr(tf.constant([[1, 2], [3, 4]])) == (
        "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], dtype=int32)>")


def test_one_line_tensor_repr_stays_on_one_line():
    assert repr(tf.constant([1, 2])) == "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert repr(tf.constant(3)) == "<tf.Tensor: shape=(), dtype=int32, numpy=3>"


def test_multiline_variable_repr_starts_the_array_on_its_own_line():
    v = tf.Variable([[1., 2.], [3., 4.]])
    assert repr(v) == ("<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=\n"
                       "array([[1., 2.],\n       [3., 4.]], dtype=float32)>")
    assert str(v) == repr(v)


def test_sparse_tensor_prints_its_components_str_forms_as_tf():
    st = tf.SparseTensor(indices=[[0, 2], [2, 1]], values=[2, 11], dense_shape=[4, 5])
    expected = ("SparseTensor(indices=tf.Tensor(\n[[0 2]\n [2 1]], shape=(2, 2), dtype=int64), "
                "values=tf.Tensor([ 2 11], shape=(2,), dtype=int32), "
                "dense_shape=tf.Tensor([4 5], shape=(2,), dtype=int64))")
    assert str(st) == expected and repr(st) == expected


@pytest.mark.parametrize("value", [[[1, 2], [3]], [[1.0, 2.0], [3.0]]])
@pytest.mark.parametrize("dtype", [None, tf.float32])
def test_non_rectangular_list_raises_tfs_value_error(value, dtype):
    with pytest.raises(ValueError, match=r"^Can't convert non-rectangular Python sequence to Tensor\.$"):
        tf.constant(value, dtype=dtype)
    with pytest.raises(ValueError, match="non-rectangular"):
        tf.Variable(value)


@pytest.mark.parametrize("n, shape, message", [
    (6, [4, 2], "Input to reshape is a tensor with 6 values, but the requested shape has 8 [Op:Reshape]"),
    (24, [-1, 5], "Input to reshape is a tensor with 24 values, but the requested shape requires a multiple of 5 "
                  "[Op:Reshape]"),
    (6, [-1, -1], "Only one input size may be -1, not both 0 and 1 [Op:Reshape]"),
    (6, [-2, 3], "Size 0 must be non-negative, not -2 [Op:Reshape]"),
    (6, [0, -1], "Input to reshape is a tensor with 6 values, but the requested shape has 0 [Op:Reshape]"),
])
def test_reshape_errors_carry_tfs_messages(n, shape, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.reshape(tf.range(n), shape)
    assert e.value.message == f"{message} (tfcore: input shape [{n}], dtype int32, requested shape {shape})"


def test_reshape_of_an_empty_tensor_resolves_minus_one_as_tf():
    assert tf.reshape(tf.zeros([0]), [0, -1]).shape == (0, 1)
    assert tf.reshape(tf.zeros([2, 0]), [3, -1]).shape == (3, 0)
    assert tf.reshape(tf.range(24), [2, -1, 4]).shape == (2, 3, 4)
