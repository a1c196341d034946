"""keras.Model: compile/build configs, make_*_function, compiled containers, metrics_variables, jit_compile,
stateless_call, own-variable stores, and Layer's Keras 3 additions (add_variable, input_dtype, path,
supports_masking)."""

import numpy as np
import pytest

import tfcore as tf


def _model():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="dense"),
                                 tf.keras.layers.BatchNormalization(name="bn")])
    return model


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(8, 3)).astype(np.float32), rng.normal(size=(8, 2)).astype(np.float32)


def test_compile_config_round_trip_and_compiled_containers():
    model = _model()
    assert model.get_compile_config() is None and model.loss is None and model.compiled_loss is None
    assert model.compiled_metrics is None and model.jit_compile is False
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"], jit_compile=True)
    assert model.jit_compile is True and model.loss == "mse"
    config = model.get_compile_config()
    assert config["optimizer"]["class_name"] == "SGD" and config["loss"] == "mse" and config["metrics"] == ["mae"]
    other = _model()
    other.compile_from_config(config)
    assert isinstance(other.optimizer, tf.keras.optimizers.SGD)
    np.testing.assert_allclose(float(other.optimizer.learning_rate), 0.05)
    x, y = _data()
    other.set_weights(model.get_weights())
    a = model.evaluate(x, y, verbose=0, return_dict=True)
    b = other.evaluate(x, y, verbose=0, return_dict=True)
    assert a.keys() == b.keys() == {"loss", "mae"}
    np.testing.assert_allclose(a["loss"], b["loss"], rtol=1e-6)
    assert model.compiled_loss is not None and model.compiled_metrics is not None
    with pytest.raises(ValueError, match="jit_compile"):
        model.compile("sgd", "mse", jit_compile="yes")
    with pytest.raises(ValueError, match="jit_compile"):
        model.jit_compile = 1.5


def test_build_config_round_trip():
    model = _model()
    assert model.get_build_config() == {"input_shape": [None, 3]}
    dense = tf.keras.layers.Dense(4)
    assert dense.get_build_config() is None
    dense(np.zeros((1, 5), np.float32))
    config = dense.get_build_config()
    assert config == {"input_shape": [1, 5]}  # the shape it was first called on, as Keras 3 records it
    fresh = tf.keras.layers.Dense(4)
    fresh.build_from_config(config)
    assert fresh.built and fresh.kernel.shape == (5, 4)


def test_make_functions_run_one_step_each():
    model = _model()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    x, y = _data()
    before = model.get_layer("dense").kernel.numpy().copy()
    train = model.make_train_function()
    assert model.make_train_function() is train is model.train_function
    logs = train(iter([(x, y)]))
    assert set(logs) == {"loss"}
    assert not np.allclose(model.get_layer("dense").kernel.numpy(), before)  # one SGD step happened
    assert model.make_train_function(force=True) is not train
    model.reset_metrics()  # the loss tracker is a running mean, as in Keras
    test_logs = model.make_test_function()(iter([(x, y)]))
    want = model.evaluate(x, y, verbose=0, batch_size=8)
    np.testing.assert_allclose(float(test_logs["loss"]), want, rtol=1e-5)
    preds = model.make_predict_function()(iter([(x,)]))
    np.testing.assert_allclose(preds.numpy(), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_metrics_variables():
    model = _model()
    model.compile("sgd", "mse", metrics=["mae", tf.keras.metrics.AUC(num_thresholds=5)])
    x, y = _data()
    model.fit(x, (y > 0).astype(np.float32), verbose=0)
    variables = model.metrics_variables
    assert len(variables) == sum(len(m.variables) for m in model.metrics) > 4
    assert all(any(v is w for m in model.metrics for w in m.variables) for v in variables)


def test_stateless_call_leaves_variables_alone():
    model = _model()
    x, _ = _data()
    trainable = [np.full(v.shape, 0.5, np.float32) for v in model.trainable_variables]
    non_trainable = [v.numpy() for v in model.non_trainable_variables]
    original = [v.numpy().copy() for v in model.variables]
    out, new_nt = model.stateless_call(trainable, non_trainable, x, training=True)
    for v, o in zip(model.variables, original, strict=True):
        np.testing.assert_array_equal(v.numpy(), o)
    h = x @ np.full((3, 2), 0.5) + 0.5
    want = (h - h.mean(0)) / np.sqrt(h.var(0) + 1e-3) * 0.5 + 0.5  # BN in training, gamma/beta from `trainable`
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
    moving_mean = [t for t, v in zip(new_nt, model.non_trainable_variables, strict=True) if "moving_mean" in v.name]
    np.testing.assert_allclose(moving_mean[0].numpy(), 0.01 * h.mean(0), rtol=1e-4, atol=1e-6)  # momentum 0.99
    out2, _, losses = model.stateless_call(trainable, non_trainable, x, return_losses=True)
    assert losses == []
    with pytest.raises(ValueError, match="trainable_variables"):
        model.stateless_call(trainable[:1], non_trainable, x)


def test_own_variable_stores_round_trip():
    dense = tf.keras.layers.Dense(3)
    dense.build((None, 2))
    store = {}
    dense.save_own_variables(store)
    assert sorted(store) == ["0", "1"] and store["0"].shape == (2, 3)
    other = tf.keras.layers.Dense(3)
    other.build((None, 2))
    other.load_own_variables(store)
    np.testing.assert_array_equal(other.kernel.numpy(), dense.kernel.numpy())
    with pytest.raises(ValueError, match="expected 2 variables"):
        other.load_own_variables({"0": store["0"]})
    model = _model()
    model_store = {}
    model.save_own_variables(model_store)
    assert model_store == {}  # a model's variables belong to its layers
    with pytest.raises(ValueError, match="never built"):
        tf.keras.layers.Dense(2).load_own_variables({"0": np.zeros((1, 2))})


def test_layer_keras3_additions():
    layer = tf.keras.layers.Layer(name="holder")
    v = layer.add_variable((2, 3), "ones", name="w")
    assert v.shape == (2, 3) and np.all(v.numpy() == 1) and layer.trainable_weights[0] is v
    frozen = layer.add_variable((1,), "zeros", trainable=False, name="n")
    assert layer.non_trainable_weights == [frozen]
    assert layer.input_dtype == "float32" and layer.path == "holder"
    with tf.keras.mixed_precision.policy_scope("mixed_float16") if hasattr(
            tf.keras.mixed_precision, "policy_scope") else _nullcontext():
        pass
    half = tf.keras.layers.Dense(2, dtype="mixed_float16")
    assert half.input_dtype == "float16"
    assert tf.keras.Model.supports_masking is False
    assert tf.keras.layers.Masking().supports_masking is True
    model = _model()
    assert model.path == model.name


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
