"""tf.saved_model constants, tf.train.load_variable / checkpoints_iterator / ExponentialMovingAverage."""

import numpy as np
import pytest

import tfcore as tf


def test_saved_model_constants_have_tensorflows_values():
    sm = tf.saved_model
    assert sm.ASSETS_KEY == "saved_model_assets"
    classify = (sm.CLASSIFY_INPUTS, sm.CLASSIFY_OUTPUT_CLASSES, sm.CLASSIFY_OUTPUT_SCORES)
    assert classify == ("inputs", "classes", "scores")
    assert sm.CLASSIFY_METHOD_NAME == "tensorflow/serving/classify"
    assert sm.REGRESS_METHOD_NAME == "tensorflow/serving/regress"
    assert (sm.REGRESS_INPUTS, sm.REGRESS_OUTPUTS) == ("inputs", "outputs")
    assert (sm.PREDICT_INPUTS, sm.PREDICT_OUTPUTS) == ("inputs", "outputs")
    assert (sm.DEBUG_DIRECTORY, sm.DEBUG_INFO_FILENAME_PB) == ("debug", "saved_model_debug_info.pb")
    assert (sm.GPU, sm.TPU, sm.TRAINING, sm.SERVING) == ("gpu", "tpu", "train", "serve")
    assert sm.SAVED_MODEL_FILENAME_PBTXT == "saved_model.pbtxt" and sm.SAVED_MODEL_SCHEMA_VERSION == 1


def test_load_variable_and_checkpoints_iterator(tmp_path):
    v = tf.Variable([1.0, 2.0, 3.0])
    ckpt = tf.train.Checkpoint(v=v)
    first = ckpt.save(str(tmp_path / "ckpt"))
    key = [k for k, _ in tf.train.list_variables(str(tmp_path)) if k.startswith("v/")][0]
    np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path), key), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tf.train.load_variable(first, key + ":0"), [1.0, 2.0, 3.0])
    it = tf.train.checkpoints_iterator(str(tmp_path), timeout=0.5)
    assert next(it) == first
    assert list(it) == []  # no newer checkpoint within the timeout
    calls = []

    def timeout_fn():
        calls.append(1)
        if len(calls) == 1:
            v.assign([4.0, 5.0, 6.0])
            ckpt.save(str(tmp_path / "ckpt"))
            return False  # keep waiting: the new checkpoint is picked up
        return True

    seen = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.5, timeout_fn=timeout_fn))
    assert seen[0] == first and len(seen) == 2 and seen[1] != first
    np.testing.assert_array_equal(tf.train.load_variable(seen[1], key), [4.0, 5.0, 6.0])


def test_exponential_moving_average():
    v = tf.Variable(10.0, name="w")
    ema = tf.train.ExponentialMovingAverage(decay=0.9)
    ema.apply([v])
    shadow = ema.average(v)
    assert float(shadow.numpy()) == 10.0  # initialised to the variable's value (and then updated with itself)
    v.assign(20.0)
    ema.apply([v])
    np.testing.assert_allclose(shadow.numpy(), 10.0 - 0.1 * (10.0 - 20.0))
    assert ema.average_name(v) == "w/ExponentialMovingAverage"
    assert ema.variables_to_restore([v]) == {"w/ExponentialMovingAverage": v}

    step = tf.Variable(0.0)
    ema2 = tf.train.ExponentialMovingAverage(decay=0.999, num_updates=step)
    u = tf.Variable(0.0)
    ema2.apply([u])
    u.assign(1.0)
    ema2.apply([u])  # decay = min(0.999, (1 + 0) / (10 + 0)) = 0.1
    np.testing.assert_allclose(ema2.average(u).numpy(), 0.9, rtol=1e-6)
    step.assign(90.0)
    u.assign(2.0)
    ema2.apply([u])  # decay = min(0.999, 91 / 100) = 0.91
    np.testing.assert_allclose(ema2.average(u).numpy(), 0.9 - 0.09 * (0.9 - 2.0), rtol=1e-6)

    z = tf.Variable(5.0)
    debiased = tf.train.ExponentialMovingAverage(decay=0.5, zero_debias=True)
    debiased.apply([z])
    np.testing.assert_allclose(debiased.average(z).numpy(), 5.0)  # biased 2.5 / (1 - 0.5)
    z.assign(1.0)
    debiased.apply([z])  # biased = 2.5 - 0.5 * (2.5 - 1) = 1.75; / (1 - 0.25) = 2.3333
    np.testing.assert_allclose(debiased.average(z).numpy(), 1.75 / 0.75, rtol=1e-6)
    with pytest.raises(TypeError, match="half, float, or double"):
        debiased.apply([tf.Variable(1)])
    assert debiased.average(tf.Variable(1.0)) is None
