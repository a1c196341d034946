"""CUDA graphs on a real GPU: a captured training step replays like the same step with graphs off."""

import numpy as np
import pytest

import tfcore as tf
from tfcore.function import cuda_graph


def _train(graphs, keras_opt, monkeypatch, steps=7):
    monkeypatch.setenv(cuda_graph.ENV_SWITCH, "1" if graphs else "0")
    with tf.device("/GPU:0"):
        model = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu", input_shape=(16,)),
                                     tf.keras.layers.Dense(4)])
        model.set_weights([np.random.default_rng(i).standard_normal(w.shape).astype(np.float32) * 0.3
                           for i, w in enumerate(model.weights)])
        vs = model.trainable_variables
        opt = tf.keras.optimizers.Adam(0.01) if keras_opt else None
        m = [tf.Variable(tf.zeros_like(v)) for v in vs]
        t = tf.Variable(0.0)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, vs)
        if opt is not None:
            opt.apply_gradients(zip(grads, vs))
        else:  # momentum SGD written with ops: the whole step is one graph
            t.assign_add(1.0)
            for v, g, mi in zip(vs, grads, m):
                mi.assign(0.9 * mi + g)
                v.assign_sub(0.01 * mi)
        return loss

    rng = np.random.default_rng(5)
    losses = []
    for _ in range(steps):  # trace, warm-up, capture, then 4 replays: 5 calls through the graph
        x = tf.constant(rng.standard_normal((8, 16)).astype(np.float32))
        y = tf.constant(rng.standard_normal((8, 4)).astype(np.float32))
        losses.append(float(step(x, y)))
    stats = list(step._cache.values())[0].experimental_cuda_graph_stats()
    return losses, [w.copy() for w in model.get_weights()], stats


@pytest.mark.parametrize("keras_opt", [False, True], ids=["ops_sgd", "keras_adam"])
def test_captured_training_step_matches_graphs_off(keras_opt, monkeypatch):
    on, w_on, stats = _train(True, keras_opt, monkeypatch)
    off, w_off, stats_off = _train(False, keras_opt, monkeypatch)
    assert stats["status"] == "replaying", stats
    assert stats["replays"] == 5
    assert stats_off["status"] == "off"
    np.testing.assert_allclose(on, off, rtol=1e-5, atol=1e-6)
    for a, b in zip(w_on, w_off):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
