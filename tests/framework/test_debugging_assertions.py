"""The added tf.debugging assertions and the top-level assertion aliases."""

import numpy as np
import pytest

import tfcore as tf

D = tf.debugging


def test_value_and_dtype_assertions():
    assert D.assert_non_positive([-1, 0]) is None
    with pytest.raises(tf.errors.InvalidArgumentError):
        D.assert_non_positive([-1, 2])
    D.assert_integer(tf.constant([1]))
    with pytest.raises(TypeError, match="integer"):
        D.assert_integer(tf.constant([1.0]))
    assert D.assert_scalar(3.0).shape.rank == 0
    with pytest.raises(ValueError, match="scalar"):
        D.assert_scalar([1.0])
    assert D.assert_same_float_dtype([tf.ones([1]), tf.zeros([2])]) == tf.float32
    with pytest.raises(ValueError):
        D.assert_same_float_dtype([tf.ones([1]), tf.ones([1], tf.float64)])
    with pytest.raises(ValueError, match="floating"):
        D.assert_same_float_dtype([tf.constant([1])])
    assert D.is_numeric_tensor(tf.constant([1])) and not D.is_numeric_tensor(tf.constant([True]))
    assert not D.is_numeric_tensor(np.ones(2))
    D.assert_proper_iterable([1, 2])
    with pytest.raises(TypeError):
        D.assert_proper_iterable(np.ones(2))


def test_rank_and_shape_assertions():
    x = tf.ones([2, 3, 4])
    D.assert_rank_at_least(x, 2)
    D.assert_rank_in(x, [1, 3])
    with pytest.raises(ValueError, match="at least"):
        D.assert_rank_at_least(x, 4)
    with pytest.raises(ValueError):
        D.assert_rank_in(x, [1, 2])
    D.assert_shapes([(x, ("N", "T", 4)), (tf.ones([2, 4]), ("N", "D")), (tf.ones([5, 3, 4]), ("...", "T", "."))])
    with pytest.raises(ValueError, match="'N'"):
        D.assert_shapes([(x, ("N", "T", "D")), (tf.ones([3]), ("N",))])
    with pytest.raises(ValueError, match="rank"):
        D.assert_shapes([(x, ("N", "T"))])
    with pytest.raises(ValueError, match="expected 5"):
        D.assert_shapes([(x, ("N", "T", 5))])


def test_top_level_aliases():
    assert tf.assert_equal(1, 1) is None and tf.assert_less(1, 2) is None and tf.assert_greater(2, 1) is None
    tf.assert_rank(tf.ones([2, 2]), 2)
    tf.Assert(True, ["never shown"])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.assert_equal([1, 2], [1, 3])
