"""tf.register_tensor_conversion_function: user types become tensors for convert_to_tensor and ops."""

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework import tensor_conversion_registry as registry


class Meters:
    def __init__(self, values):
        self.values = values


class Feet(Meters):
    pass


class Maybe:
    def __init__(self, value):
        self.value = value


def _meters_to_tensor(value, dtype=None, name=None, as_ref=False):
    return tf.constant(np.asarray(value.values, np.float32), dtype=dtype)


registry.register_tensor_conversion_function(Meters, _meters_to_tensor)
registry.register_tensor_conversion_function(
    Maybe, lambda v, dtype=None, name=None, as_ref=False: NotImplemented if v.value is None else tf.constant(v.value))
registry.register_tensor_conversion_function(
    Maybe, lambda v, dtype=None, name=None, as_ref=False: tf.constant(-1.0), priority=200)


def test_registered_types_convert_and_feed_ops():
    m = Meters([1.0, 2.5])
    t = tf.convert_to_tensor(m)
    assert isinstance(t, tf.Tensor) and t.dtype == tf.float32
    np.testing.assert_array_equal((tf.constant([1.0, 1.0]) + m).numpy(), [2.0, 3.5])  # ops accept it
    np.testing.assert_array_equal(tf.reduce_sum(Feet([1.0, 2.0])).numpy(), 3.0)     # subclasses too
    assert tf.is_tensor(m) and not tf.is_tensor([1.0])


def test_priority_order_and_not_implemented_fall_through():
    assert float(tf.convert_to_tensor(Maybe(4.0))) == 4.0   # priority 100 first
    assert float(tf.convert_to_tensor(Maybe(None))) == -1.0  # NotImplemented: the next function


def test_variables_convert_through_the_registry():
    v = tf.Variable([1.0, 2.0])
    assert registry.get(type(v))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.convert_to_tensor(v) * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [3.0, 3.0])  # the read was recorded
    with pytest.raises(tf.errors.InvalidArgumentError, match="requested as int32"):
        tf.convert_to_tensor(v, dtype=tf.int32)


def test_bad_registrations_raise_type_error():
    with pytest.raises(TypeError, match="Python numeric"):
        registry.register_tensor_conversion_function(float, _meters_to_tensor)
    with pytest.raises(TypeError, match="must be a type"):
        registry.register_tensor_conversion_function("Meters", _meters_to_tensor)
