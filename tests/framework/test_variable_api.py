"""``tf.Variable``, ``tf.device`` scopes and ``tf.errors``: TF's documented behaviour."""

import numpy as np
import pytest

import tfcore as tf


def test_variable_metadata():
    v = tf.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.shape == tf.TensorShape([2]) and v.dtype == tf.float32
    assert v.trainable and v.device.endswith(("CPU:0", "GPU:0"))
    assert tf.Variable(1.0).name == "Variable:0"
    assert not tf.Variable(1.0, trainable=False).trainable
    assert tf.Variable([1, 2], dtype=tf.float64).dtype == tf.float64
    assert tf.Variable(lambda: tf.ones([3])).shape == (3,)          # callable initial value
    assert repr(v) == "<tf.Variable 'w:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert isinstance(v, tf.Variable) and not isinstance(v, tf.Tensor)


def test_name_scope_prefixes_variable_names():
    with tf.name_scope("block"), tf.name_scope("inner"):
        v = tf.Variable(1.0, name="k")
    assert v.name == "block/inner/k:0"


def test_assign_family_returns_new_value_and_updates():
    v = tf.Variable([1.0, 2.0])
    np.testing.assert_array_equal(v.assign([5.0, 6.0]).numpy(), [5, 6])
    np.testing.assert_array_equal(v.assign_add([1.0, 1.0]).numpy(), [6, 7])
    np.testing.assert_array_equal(v.assign_sub(tf.constant([2.0, 2.0])).numpy(), [4, 5])
    assert v.assign_add([1.0, 1.0], read_value=False) is None
    np.testing.assert_array_equal(v.numpy(), [5, 6])
    np.testing.assert_array_equal(v.read_value().numpy(), [5, 6])
    np.testing.assert_array_equal(v.value().numpy(), [5, 6])


def test_reads_are_snapshots():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    as_t = tf.convert_to_tensor(v)
    v.assign([9.0, 9.0])
    np.testing.assert_array_equal(before.numpy(), [1, 2])
    np.testing.assert_array_equal(as_t.numpy(), [1, 2])
    n = v.numpy()
    n[0] = -1
    np.testing.assert_array_equal(v.numpy(), [9, 9])


def test_failed_assign_changes_nothing():
    v = tf.Variable([1.0, 2.0], name="w")
    with pytest.raises(ValueError, match=r"shape \(3,\)"):  # TF 2.21: ValueError (a Python-side shape check)
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="float64"):
        v.assign(tf.constant([1.0, 1.0], tf.float64))
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError, ValueError)):
        tf.Variable(3).assign(2.5)
    np.testing.assert_array_equal(v.numpy(), [1, 2])


def test_variable_usable_wherever_a_tensor_is():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    np.testing.assert_allclose((v + 1).numpy(), m + 1)
    np.testing.assert_allclose((1 - v).numpy(), 1 - m)
    np.testing.assert_allclose((v @ v).numpy(), m @ m)
    np.testing.assert_allclose((-v).numpy(), -m)
    np.testing.assert_allclose((v ** 2).numpy(), m ** 2)
    np.testing.assert_array_equal((v > 2).numpy(), m > 2)
    np.testing.assert_allclose(tf.matmul(v, v).numpy(), m @ m)
    np.testing.assert_allclose(tf.reduce_sum(v).numpy(), 10.0)
    np.testing.assert_allclose(v[1, ::-1].numpy(), [4.0, 3.0])
    np.testing.assert_allclose(np.asarray(v), m)
    assert float(tf.Variable(2.0)) == 2.0 and len(v) == 2
    np.testing.assert_allclose(tf.convert_to_tensor(v).numpy(), m)


# -- tf.device ---------------------------------------------------------------------------------

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.mark.parametrize("spec", ["/CPU:0", "/device:CPU:0", "cpu:0", "CPU", CPU])
def test_device_scope_forms(spec):
    with tf.device(spec):
        t = tf.constant(1.0)
        u = t + 1.0
        v = tf.Variable(1.0)
    assert t.device == CPU and u.device == CPU and v.device == CPU


def test_innermost_device_scope_wins_and_unknown_devices_fall_back():
    gpus = tf.config.list_logical_devices("GPU")
    with tf.device("/GPU:0"):
        with tf.device("/CPU:0"):
            assert tf.constant(1.0).device == CPU
        on_gpu = tf.constant(1.0).device
    # soft placement (TF2 eager default): no GPU -> CPU
    assert on_gpu.endswith("GPU:0") if gpus else on_gpu == CPU


def test_bad_device_spec_raises():
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)), tf.device("/XYZ:0"):
        tf.constant(1.0)


# -- tf.errors -----------------------------------------------------------------------------------

CODES = {
    "CancelledError": 1, "UnknownError": 2, "InvalidArgumentError": 3, "DeadlineExceededError": 4,
    "NotFoundError": 5, "AlreadyExistsError": 6, "PermissionDeniedError": 7, "ResourceExhaustedError": 8,
    "FailedPreconditionError": 9, "AbortedError": 10, "OutOfRangeError": 11, "UnimplementedError": 12,
    "InternalError": 13, "UnavailableError": 14, "DataLossError": 15, "UnauthenticatedError": 16,
}


@pytest.mark.parametrize("name", sorted(CODES))
def test_error_classes(name):
    cls = getattr(tf.errors, name)
    assert issubclass(cls, tf.errors.OpError)
    e = cls(None, None, "boom")
    assert e.message == "boom" and str(e) == "boom" and e.error_code == CODES[name]
    assert e.node_def is None and e.op is None


def test_op_error_takes_tf_signature():
    e = tf.errors.OpError(None, None, "m", tf.errors.INVALID_ARGUMENT)
    assert e.error_code == 3 and e.message == "m"


def test_failed_op_raises_invalid_argument_error():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))
    assert isinstance(info.value, tf.errors.OpError)
