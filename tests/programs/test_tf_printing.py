"""Printed forms that real TF 2.21 gives, found by ``tests/tutorials/compare_with_tf.py`` (checked
against tensorflow-cpu 2.21.0 in a side environment)."""

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
