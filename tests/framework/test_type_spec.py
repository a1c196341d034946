"""tf.TypeSpec (the base every spec registers with) and tf.type_spec_from_value."""

import numpy as np
import pytest

import tfcore as tf


def test_type_spec_from_value():
    assert tf.type_spec_from_value(tf.constant([1.0, 2.0])) == tf.TensorSpec([2], tf.float32)
    assert tf.type_spec_from_value(np.zeros((2, 3), np.int64)) == tf.TensorSpec([2, 3], tf.int64)
    assert tf.type_spec_from_value(tf.Variable([1])) == tf.TensorSpec([1], tf.int32)
    assert tf.type_spec_from_value([[1.0], [2.0]]) == tf.TensorSpec([2, 1], tf.float32)
    sp = tf.type_spec_from_value(tf.sparse.SparseTensor([[0]], [1.0], [3]))
    assert sp == tf.SparseTensorSpec([3], tf.float32)
    rt = tf.type_spec_from_value(tf.ragged.constant([[1], [2, 3]]))
    assert isinstance(rt, tf.RaggedTensorSpec) and rt.dtype == tf.int32 and rt.ragged_rank == 1
    with pytest.raises(TypeError, match="TypeSpec"):
        tf.type_spec_from_value(object())


def test_every_spec_is_a_type_spec():
    for spec in (tf.TensorSpec([1]), tf.SparseTensorSpec([2, 2]), tf.RaggedTensorSpec([None, None])):
        assert isinstance(spec, tf.TypeSpec)
    assert not isinstance(tf.constant(1), tf.TypeSpec)
    assert tf.TensorSpec([2], tf.float32).is_compatible_with(tf.constant([1.0, 2.0]))


def test_sparse_tensor_prints_its_components_as_tf_does():
    """TF 2.21 prints a SparseTensor's components with ``str`` (``tf.Tensor(...)``), for ``str`` and ``repr``."""
    s = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    want = ("SparseTensor(indices=tf.Tensor(\n[[0 0]\n [1 2]], shape=(2, 2), dtype=int64), "
            "values=tf.Tensor([1 2], shape=(2,), dtype=int32), "
            "dense_shape=tf.Tensor([3 4], shape=(2,), dtype=int64))")
    assert str(s) == want and repr(s) == want
