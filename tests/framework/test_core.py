import numpy as np
import pytest

import tfcore as tf


def test_python_defaults_follow_tf():
    assert tf.constant(1.0).dtype == tf.float32
    assert tf.constant(1).dtype == tf.int32
    assert tf.constant(2**40).dtype == tf.int64
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant(np.float64(1)).dtype == tf.float64


def test_repr_and_str():
    t = tf.constant([1, 2, 3])
    assert str(t) == "tf.Tensor([1 2 3], shape=(3,), dtype=int32)"
    assert repr(t).startswith("<tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3]")


def test_device_full_name():
    with tf.device("/CPU:0"):
        assert tf.constant(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"
    default = "GPU:0" if tf.config.list_logical_devices("GPU") else "CPU:0"  # TF's default device
    assert tf.constant(1.0).device == f"/job:localhost/replica:0/task:0/device:{default}"


def test_binary_dtype_mismatch_names_op_shapes_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.constant([1.0, 2.0]) + tf.constant([1, 2])
    msg = str(e.value)
    assert "AddV2" in msg and "float32[2]" in msg and "int32[2]" in msg


def test_python_scalar_takes_tensor_dtype():
    assert (tf.constant([1.0]) + 1).dtype == tf.float32
    with pytest.raises(TypeError):
        tf.constant([1, 2]) + 1.5


def test_variable_assign_keeps_old_reads_and_rejects_bad_shape():
    v = tf.Variable([1.0, 2.0])
    old = v.read_value()
    v.assign_add([1.0, 1.0])
    np.testing.assert_allclose(old.numpy(), [1, 2])
    np.testing.assert_allclose(v.numpy(), [2, 3])
    with pytest.raises(ValueError, match="Shape mismatch"):  # as TF 2.21's ResourceVariable.assign
        v.assign([1.0, 2.0, 3.0])
    np.testing.assert_allclose(v.numpy(), [2, 3])


def test_tape_second_derivative():
    x = tf.Variable(3.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x ** 3
        g = t1.gradient(y, x)
    assert float(g) == pytest.approx(27.0)
    assert float(t2.gradient(g, x)) == pytest.approx(18.0)


def test_module_collects_variables_once_in_stable_order():
    class Block(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(1.0, name="w")
            self.frozen = tf.Variable(2.0, trainable=False, name="frozen")

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [Block(), Block()]
            self.alias = self.blocks[0]
            self.bias = tf.Variable(0.0, name="bias")

    net = Net()
    assert len(net.variables) == 5
    assert len(net.trainable_variables) == 3
    assert len(net.submodules) == 2
    assert net.variables[0].name == "bias:0"
    assert net.name == "net"


def test_numpy_of_rank0_is_a_numpy_scalar_and_strings_are_bytes():
    """As TF: ``tf.constant(2.5).numpy()`` is ``np.float32``; string tensors hold UTF-8 ``bytes``."""
    s = tf.constant(2.5).numpy()
    assert type(s) is np.float32 and s == 2.5
    assert type(tf.constant(3).numpy()) is np.int32
    a = tf.constant([1, 2]).numpy()
    assert isinstance(a, np.ndarray) and a.shape == (2,)
    assert tf.constant("héllo").numpy() == "héllo".encode()
    t = tf.constant(np.array(["ab", "c"]))  # a NumPy str_ array ('<U2') is a tf.string
    assert t.dtype == tf.string and t.numpy().tolist() == [b"ab", b"c"]
    assert tf.constant([[b"x", "y"]]).numpy().tolist() == [[b"x", b"y"]]
