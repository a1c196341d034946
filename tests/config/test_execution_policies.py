"""tf.config: device policy (enforced on implicit copies), synchronous execution, the experimental_* aliases
of run_functions_eagerly."""

import pytest

import tfcore as tf
from tfcore.framework.context import context


@pytest.fixture
def one_gpu():
    """One emulated GPU beside the CPU (the previous configuration and policy restored after)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    try:
        yield
    finally:
        tf.config.experimental.set_device_policy(None)
        mp.undo()
        context.reset_for_tests()


def test_device_policy_values():
    assert tf.config.experimental.get_device_policy() == "silent"
    try:
        for p in ("warn", "explicit", "silent_for_int32", "silent"):
            tf.config.experimental.set_device_policy(p)
            assert tf.config.experimental.get_device_policy() == p
        tf.config.experimental.set_device_policy(None)
        assert tf.config.experimental.get_device_policy() == "silent"
        with pytest.raises(ValueError, match="device policy"):
            tf.config.experimental.set_device_policy("loud")
    finally:
        tf.config.experimental.set_device_policy(None)


def test_explicit_policy_refuses_implicit_copies(one_gpu):
    with tf.device("/CPU:0"):
        x = tf.constant([1.0, 2.0])
        i = tf.constant([1, 2])
    with tf.device("/GPU:0"):
        assert (tf.add(x, x).numpy() == [2.0, 4.0]).all()  # silent: copied
    tf.config.experimental.set_device_policy("explicit")
    with tf.device("/GPU:0"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="explicit"):
            tf.add(x, x)
        y = tf.identity(tf.constant([1.0, 1.0]))  # created on the GPU: no copy
        assert (tf.add(y, y).numpy() == [2.0, 2.0]).all()
    tf.config.experimental.set_device_policy("warn")
    with tf.device("/GPU:0"), pytest.warns(RuntimeWarning, match="warn"):
        tf.add(x, x)
    tf.config.experimental.set_device_policy("silent_for_int32")
    with tf.device("/GPU:0"), pytest.warns(RuntimeWarning, match="silent_for_int32"):
        tf.add(x, x)
    import warnings

    with tf.device("/GPU:0"), warnings.catch_warnings():
        warnings.simplefilter("error")
        tf.add(i, i)


def test_synchronous_execution_setting():
    assert tf.config.experimental.get_synchronous_execution() is True
    try:
        tf.config.experimental.set_synchronous_execution(False)
        assert tf.config.experimental.get_synchronous_execution() is False
        assert tf.reduce_sum(tf.constant([1, 2, 3])).numpy() == 6
        with pytest.raises(ValueError):
            tf.config.experimental.set_synchronous_execution("yes")
    finally:
        tf.config.experimental.set_synchronous_execution(None)
    assert tf.config.experimental.get_synchronous_execution() is True


def test_experimental_run_functions_eagerly_aliases():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x + 1

    assert tf.config.experimental_functions_run_eagerly() is False
    try:
        tf.config.experimental_run_functions_eagerly(True)
        assert tf.config.functions_run_eagerly() is True
        f(tf.constant(1))
        f(tf.constant(2))
        assert len(calls) == 2  # the Python function ran each time
    finally:
        tf.config.experimental_run_functions_eagerly(False)
    assert tf.config.experimental_functions_run_eagerly() is False


def test_tf32_and_determinism_switches():
    exp = tf.config.experimental
    assert exp.tensor_float_32_execution_enabled() is True
    try:
        exp.enable_tensor_float_32_execution(False)
        assert exp.tensor_float_32_execution_enabled() is False
    finally:
        exp.enable_tensor_float_32_execution(True)
    try:
        exp.enable_op_determinism()
        assert context.op_determinism is True
    finally:
        exp.disable_op_determinism()
    assert context.op_determinism is False
