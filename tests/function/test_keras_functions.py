"""Keras runs train/test/predict steps as tf.functions by default (compile(run_eagerly=False))."""

import numpy as np
import pytest

import tfcore as tf


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((96, 6)).astype(np.float32)
    return x, (x[:, 0] + x[:, 1] > 0).astype(np.int64)


def _fit(run_eagerly, steps_per_execution=None):
    x, y = _data()
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(6,)),
                                 tf.keras.layers.Dense(2)])
    model.set_weights([np.random.default_rng(i).standard_normal(w.shape).astype(np.float32) * 0.3
                       for i, w in enumerate(model.weights)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  run_eagerly=run_eagerly, steps_per_execution=steps_per_execution)
    h = model.fit(x, y, batch_size=20, epochs=3, shuffle=False, verbose=0, validation_split=0.25)
    ev = model.evaluate(x, y, batch_size=32, verbose=0)
    pred = model.predict(x[:7], verbose=0)
    return model, h.history, ev, pred


def test_function_steps_equal_eager_steps_and_trace_per_generalised_shape():
    eager_model, h_e, ev_e, p_e = _fit(True)
    model, h_f, ev_f, p_f = _fit(False)
    assert eager_model.run_eagerly and not model.run_eagerly
    for k in h_e:
        np.testing.assert_allclose(h_f[k], h_e[k], rtol=1e-5)
    np.testing.assert_allclose(ev_f, ev_e, rtol=1e-5)
    np.testing.assert_allclose(p_f, p_e, rtol=1e-5)
    counts = {k: fn.experimental_get_tracing_count() for k, (_, fn) in model._training_state["functions"].items()}
    # the last, smaller batch retraces once with the batch dimension generalised (reduce_retracing)
    assert counts == {"train_step": 2, "test_step": 2, "predict_step": 1}


def test_steps_per_execution_gives_the_same_training():
    _, h1, _, _ = _fit(False)
    model, h4, _, _ = _fit(False, steps_per_execution=4)
    np.testing.assert_allclose(h4["loss"], h1["loss"], rtol=1e-5)
    assert "multi_train_step" in model._training_state["functions"]
    with pytest.raises(ValueError, match="steps_per_execution"):
        model.compile("sgd", "mse", steps_per_execution=0)


def test_run_functions_eagerly_switches_keras_to_eager():
    tf.config.run_functions_eagerly(True)
    try:
        model, _, _, _ = _fit(None)
        assert model.run_eagerly
    finally:
        tf.config.run_functions_eagerly(False)
    assert not model.run_eagerly


def test_jit_compile_gives_the_keras_steps_fused_plans_with_the_same_training():
    """compile(jit_compile=True) reaches the step functions: their plans fuse element-wise chains."""
    x, labels = _data()
    y = np.stack([labels, 1 - labels], 1).astype(np.float32)  # mean squared error: Sub, Square... fuse
    results = []
    for jit in (False, True):
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(6,)),
                                     tf.keras.layers.Dense(2)])
        model.set_weights([np.random.default_rng(i).standard_normal(w.shape).astype(np.float32) * 0.3
                           for i, w in enumerate(model.weights)])
        model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.9), "mse", jit_compile=jit)
        h = model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
        results.append((h.history["loss"], model.get_weights()))
        fn = model._training_state["functions"]["train_step"][1]
        plans = [cf._fused_plan for cf in fn._cache.values()]
        assert all((p is not None and p.stats["fused"] > 0) if jit else p is None for p in plans)
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def test_steps_per_execution_batch_hooks_get_the_first_and_last_step_of_each_group():
    """As Keras 3 (TF 2.21 prints [('b', 0), ('e', 3), ('b', 4), ('e', 7), ('b', 8), ('e', 11)] here): the
    end hook gets begin + steps_per_execution - 1, for the last, shorter group too."""
    events = []

    class Hooks(tf.keras.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            events.append(("b", batch))

        def on_train_batch_end(self, batch, logs=None):
            events.append(("e", batch))

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse", steps_per_execution=4)
    model.fit(np.ones((10, 3), np.float32), np.ones((10, 1), np.float32), batch_size=1, epochs=1, verbose=0,
              callbacks=[Hooks()])
    assert events == [("b", 0), ("e", 3), ("b", 4), ("e", 7), ("b", 8), ("e", 11)]
