"""A checkpoint of a model trained under MirroredStrategy restores into every replica's copy, deferred
slots included, so training continues identically."""

import numpy as np

import tfcore as tf


def test_mirrored_checkpoint_deferred_slots_fill_every_replica(devices, tmp_path):
    devices(n_cpus=2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

    def make():
        with strategy.scope():
            m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            m.compile(tf.keras.optimizers.Adam(0.1), "mse")
        return m

    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    model = make()
    model.fit(x, x[:, :2], epochs=1, verbose=0, shuffle=False)
    path = tf.train.Checkpoint(model=model, optimizer=model.optimizer).save(str(tmp_path / "c"))
    restored = make()
    status = tf.train.Checkpoint(model=restored, optimizer=restored.optimizer).restore(path)
    model.fit(x, x[:, :2], epochs=2, verbose=0, shuffle=False)
    restored.fit(x, x[:, :2], epochs=2, verbose=0, shuffle=False)  # slots are created (and filled) here
    status.assert_consumed()
    for a, b in zip(model.layers[0].kernel.values, restored.layers[0].kernel.values):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    slot = restored.optimizer.get_slot(restored.layers[0].kernel, "m")
    np.testing.assert_array_equal(slot.values[0].numpy(), slot.values[1].numpy())
