"""guide/function: the tracing protocol and a ConcreteFunction's argument checks, as TF 2.21.

- ``tf.types.experimental.TraceType`` / ``__tf_tracing_type__``: objects with equal trace types share a
  concrete function (no ``tf.types`` before).
- calling a ConcreteFunction with another dtype raises InvalidArgumentError (was TypeError), with another
  Python value than it was traced with raises TypeError (was silently ignored).
- ``ConcreteFunction.inference_fn`` calls the graph with flat tensors.
"""

import pytest

import tfcore as tf


class FruitTraceType(tf.types.experimental.TraceType):
    def __init__(self, fruit):
        self.fruit_type = type(fruit)

    def is_subtype_of(self, other):
        return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def placeholder_value(self, placeholder_context=None):
        return None

    def __eq__(self, other):
        return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

    def __hash__(self):
        return hash(self.fruit_type)


class Fruit:
    def __tf_tracing_type__(self, context):
        return FruitTraceType(self)


class Apple(Fruit):
    flavor = tf.constant([1, 2])


class Mango(Fruit):
    flavor = tf.constant([3, 4])


def test_objects_with_equal_trace_types_reuse_one_trace():
    traces = []

    @tf.function
    def mixed(a, b):
        traces.append(1)
        return a.flavor + b.flavor

    assert mixed(Apple(), Mango()).numpy().tolist() == [4, 6]
    assert mixed(Apple(), Mango()).numpy().tolist() == [4, 6]
    assert len(traces) == 1
    mixed(Mango(), Apple())
    assert len(traces) == 2


def test_trace_type_is_abstract_and_the_protocol_must_return_one():
    with pytest.raises(TypeError):
        tf.types.experimental.TraceType()

    class Bad:
        def __tf_tracing_type__(self, context):
            return 42

    with pytest.raises(TypeError, match="must return a tf.types.experimental.TraceType"):
        tf.function(lambda o: tf.constant(1))(Bad())


def test_calling_a_concrete_function_with_another_dtype_is_an_invalid_argument():
    double = tf.function(lambda a: a + a)
    double_strings = double.get_concrete_function(tf.constant("a"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a string tensor but is a int32"):
        double_strings(tf.constant(1))
    assert double_strings.inference_fn(tf.constant("a")).numpy() == b"aa"


def test_calling_a_concrete_function_with_another_python_value_is_a_type_error():
    @tf.function
    def pow(a, b):
        return a ** b

    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert float(square(tf.constant(10.0))) == 100.0
    assert float(square(tf.constant(10.0), b=2)) == 100.0
    with pytest.raises(TypeError, match="traced with b=2"):
        square(tf.constant(10.0), b=3)
