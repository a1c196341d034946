"""What the autodiff guide prints on TF 2.21: the type names of variables and eager tensors, and the
eager LookupError of an op without a gradient (read from TF 2.21's output of the same code)."""

import pickle

import pytest

import tfcore as tf


def test_a_plain_variable_is_a_resource_variable():
    v = tf.Variable(2.0)
    assert type(v).__name__ == "ResourceVariable"
    assert isinstance(v, tf.Variable) and tf.Variable.__name__ == "Variable"
    with tf.GradientTape() as tape:
        y = v * v
    assert float(tape.gradient(y, v)) == 4.0
    with tf.variable_creator_scope(lambda next_creator, **kw: next_creator(**kw)):
        assert type(tf.Variable(1.0)).__name__ == "ResourceVariable"
    assert type(pickle.loads(pickle.dumps(v))).__name__ == "ResourceVariable"


def test_an_eager_tensor_is_named_eager_tensor():
    x = tf.constant(3.0)
    assert type(x).__name__ == "EagerTensor" and isinstance(x, tf.Tensor)
    assert type(x + 1).__name__ == "EagerTensor"
    assert float(pickle.loads(pickle.dumps(x))) == 3.0


def test_adjust_contrast_lookup_error_is_tfs_one_line_message():
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError) as info:
        tape.gradient(new_image, [image, delta])
    assert str(info.value) == "gradient registry has no entry for: AdjustContrastv2"
