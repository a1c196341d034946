"""Data-parallel training gives the same weights as one replica on the global batch (docs/architecture.md §6)."""

import numpy as np
import pytest

import tfcore as tf
from tfcore import distribute as dist


def _data(n=32, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 6, 6, 2)).astype(np.float32), rng.integers(0, 3, n).astype(np.int32)


def _model():
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(6, 6, 2)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(5, activation="tanh"),
        tf.keras.layers.Dense(3),
    ])


def _compile(model):
    model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.9),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])


def _fit_reference(x, y, batch, epochs):
    tf.random.set_seed(3)
    ref = _model()
    w0 = ref.get_weights()
    _compile(ref)
    hist = ref.fit(x, y, batch_size=batch, epochs=epochs, shuffle=False, verbose=0)
    return w0, ref, hist


def _fit_mirrored(devices, w0, x, y, batch, epochs):
    strategy = tf.distribute.MirroredStrategy(devices)
    with strategy.scope():
        model = _model()
        model.set_weights(w0)
        _compile(model)
    hist = model.fit(x, y, batch_size=batch, epochs=epochs, shuffle=False, verbose=0)
    return strategy, model, hist


@pytest.mark.parametrize("replicas", [2, 4])
def test_keras_fit_on_logical_cpus_matches_single_device(devices, replicas):
    devices(n_cpus=4)
    x, y = _data()
    w0, ref, ref_hist = _fit_reference(x, y, batch=16, epochs=2)
    strategy, model, hist = _fit_mirrored([f"/cpu:{i}" for i in range(replicas)], w0, x, y, 16, 2)
    for a, b in zip(ref.get_weights(), model.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hist.history["loss"], ref_hist.history["loss"], rtol=1e-5)
    assert hist.history["accuracy"] == ref_hist.history["accuracy"]
    for v in model.trainable_variables:  # every replica's copy identical and on its own device
        copies = strategy.experimental_local_results(v)
        assert len(copies) == replicas
        for c in copies[1:]:
            np.testing.assert_array_equal(c.numpy(), copies[0].numpy())
    assert int(model.optimizer.iterations.numpy()) == 4
    np.testing.assert_allclose(model.predict(x, verbose=0), ref.predict(x, verbose=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), ref.evaluate(x, y, verbose=0), rtol=1e-5)


@pytest.mark.emulator
def test_keras_fit_on_emulated_gpu_split_in_two_matches_single_device(devices):
    devices(emulated_gpus=1, gpu_split=2, gpu_memory_mb=64)
    x, y = _data(n=16)
    with tf.device("/CPU:0"):
        w0, ref, _ = _fit_reference(x, y, batch=8, epochs=1)
    strategy, model, _ = _fit_mirrored(None, w0, x, y, 8, 1)
    assert strategy.num_replicas_in_sync == 2
    assert [c.device[-5:] for c in model.trainable_variables[0].values] == ["GPU:0", "GPU:1"]
    for a, b in zip(ref.get_weights(), model.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("replicas", [2, 4])
def test_custom_loop_with_run_and_compute_average_loss(devices, replicas):
    devices(n_cpus=4)
    x, y = _data(n=16)
    global_batch = 8

    def make():
        tf.random.set_seed(7)
        return _model(), tf.keras.optimizers.Adam(0.01)

    def loss_fn(model, xb, yb):
        logits = model(xb, training=True)
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits)
        return tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)

    ref, ref_opt = make()
    w0 = ref.get_weights()
    for i in range(0, 16, global_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(ref, tf.constant(x[i:i + global_batch]), tf.constant(y[i:i + global_batch]))
        ref_opt.apply_gradients(zip(tape.gradient(loss, ref.trainable_variables), ref.trainable_variables))

    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(replicas)])
    with strategy.scope():
        model, opt = make()
        model.set_weights(w0)

    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_fn(model, xb, yb)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    batches = [(x[i:i + global_batch], y[i:i + global_batch]) for i in range(0, 16, global_batch)]
    losses = []
    for xb, yb in strategy.experimental_distribute_dataset(batches):
        per_replica = strategy.run(step, args=(xb, yb))
        losses.append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)))
    for a, b in zip(ref.get_weights(), model.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert int(opt.iterations.numpy()) == 2
    assert all(np.isfinite(losses))


def test_compute_average_loss_uses_global_batch_in_replica_context(devices):
    devices(n_cpus=2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    out = strategy.run(lambda: tf.nn.compute_average_loss(tf.constant([1.0, 3.0])))
    assert [float(v) for v in out.values] == [1.0, 1.0]  # sum 4 / (2 per replica * 2 replicas)


def test_replica_count_follows_the_scope_for_average_and_regularization_losses(devices):
    """In ``scope()`` (cross-replica) and in replica functions the count is the strategy's; outside it
    and after the scope it is 1 again (the count is scoped state, not a patched hook)."""
    devices(n_cpus=2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        assert float(tf.nn.compute_average_loss(tf.constant([1.0, 3.0]))) == 1.0
        assert float(tf.nn.scale_regularization_loss(tf.constant([2.0, 4.0]))) == 3.0
    out = strategy.run(lambda: tf.nn.scale_regularization_loss(tf.constant([2.0, 4.0])))
    assert [float(v) for v in out.values] == [3.0, 3.0]
    assert float(tf.nn.compute_average_loss(tf.constant([1.0, 3.0]))) == 2.0
    assert float(tf.nn.scale_regularization_loss(tf.constant([2.0, 4.0]))) == 6.0


def test_batch_norm_moving_statistics_average_over_replicas(devices):
    devices(n_cpus=2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        bn = tf.keras.layers.BatchNormalization(momentum=0.5)
        bn.build((None, 3))
    x = np.arange(24, dtype=np.float32).reshape(8, 3)
    shards = [x[:4], x[4:]]
    strategy.run(lambda xs: bn(xs, training=True), args=(dist.PerReplica([tf.constant(s) for s in shards]),))
    expected = np.mean([0.5 * 0 + 0.5 * s.mean(axis=0) for s in shards], axis=0)
    np.testing.assert_allclose(bn.moving_mean.numpy(), expected, rtol=1e-6)
