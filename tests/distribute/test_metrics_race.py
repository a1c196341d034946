"""Keras metrics under MirroredStrategy are right however the replica threads interleave.

On a real GPU split in two, kernels release the GIL, so the two replica threads really run at
the same time. Metrics compiled by name ("accuracy") are built on the first batch, inside the
replica threads; they used to be built there as plain variables, shared by both threads, whose
``assign_add`` (read, add, write) lost one replica's update whenever the threads interleaved
between the read and the write: fit/evaluate accuracy came out wrong and changed from run to run.

Here the interleaving is forced on the CPU: every variable update made in a replica thread reads
its value, waits for the other replica at a barrier, then writes. Replicas that share a variable
lose updates at every step; replicas that own their copies (sync-on-read variables, as in TF) do not.
"""

import threading

import numpy as np
import pytest
from tfcore.distribute import distribute_lib

import tfcore as tf
from tfcore.framework import recording
from tfcore.framework.variables import Variable

N_REPLICAS = 2


def _data(n=96, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 8)).astype(np.float32)
    y = (x[:, :3].argmax(1) + (rng.random(n) < 0.3)) % 3  # learnable, but not every label
    return x, y.astype(np.int32)


def _mirrored_model(w0=None, learning_rate=0.0, kind="cpu", run_eagerly=None):
    strategy = tf.distribute.MirroredStrategy([f"/{kind}:{i}" for i in range(N_REPLICAS)])
    with strategy.scope():
        tf.random.set_seed(7)
        model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", input_shape=(8,)),
                                     tf.keras.layers.Dense(3)])
        if w0 is not None:
            model.set_weights(w0)
        model.compile(tf.keras.optimizers.SGD(learning_rate),
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                      run_eagerly=run_eagerly)
    return strategy, model


def _accuracy_of_predict(model, x, y):
    return float(np.mean(model.predict(x, verbose=0).argmax(1) == y))


@pytest.fixture
def interleaved_updates(monkeypatch):
    """Variable.assign_add in a replica thread: read, wait for the other replica, write (a GIL-free kernel).
    Only where replica threads run at the same time (a tf.function step); eager replicas take turns, as TF's
    do (``distribute/strategy.py``'s ``_Turns``), and could not meet here."""
    barrier = threading.Barrier(N_REPLICAS)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        ctx = distribute_lib.get_replica_context()
        collective = getattr(ctx, "_collective", None) if ctx is not None else None
        if collective is None or collective.turns is not None:
            return original(self, delta, use_locking, name, read_value)
        delta = self._coerce(delta, "AssignAddVariableOp")
        with recording.stop_recording():
            new = self._value + delta
        try:
            barrier.wait(timeout=10)
        except threading.BrokenBarrierError:
            pass
        self._set(new, "AssignAddVariableOp")
        return self if read_value else None

    original = Variable.assign_add
    monkeypatch.setattr(Variable, "assign_add", assign_add)
    return barrier


@pytest.mark.parametrize("kind", ["cpu", "gpu"])
def test_compiled_metrics_are_right_when_replica_threads_interleave(devices, interleaved_updates, kind):
    """Two logical CPUs, and two logical GPUs of one (emulated) card: the H100 case."""
    if kind == "cpu":
        devices(n_cpus=N_REPLICAS)
    else:
        devices(emulated_gpus=1, gpu_split=N_REPLICAS, gpu_memory_mb=64)
    x, y = _data()
    # learning rate 0: the weights, hence predict's accuracy, stay fixed. Eager steps: the patched
    # assign_add is what runs (a compiled step replays the update kernels the trace recorded instead)
    _, model = _mirrored_model(kind=kind, run_eagerly=True)
    want = _accuracy_of_predict(model, x, y)
    hist = model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0)
    assert hist.history["accuracy"] == pytest.approx([want, want], abs=1e-6)
    loss, acc = model.evaluate(x, y, batch_size=32, verbose=0)
    assert acc == pytest.approx(want, abs=1e-6)
    assert not interleaved_updates.broken


def test_metrics_built_on_the_first_batch_are_per_replica(devices):
    """The accuracy built in the replica threads holds one copy per replica, like the loss tracker."""
    devices(n_cpus=N_REPLICAS)
    x, y = _data(32)
    strategy, model = _mirrored_model()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    for metric in model.metrics:
        for v in metric.variables:
            assert len(strategy.experimental_local_results(v)) == N_REPLICAS, (metric.name, v.name)


def test_two_replica_fit_and_evaluate_accuracy_equal_the_accuracy_of_predict(devices):
    """Training for real: each epoch's accuracy equals predict's on that epoch's (changing) weights."""
    devices(n_cpus=N_REPLICAS)
    x, y = _data()
    _, model = _mirrored_model(learning_rate=0.5)
    first = _accuracy_of_predict(model, x, y)
    for _ in range(6):
        # one batch per epoch: the history's accuracy is the accuracy of the weights before the step
        before = _accuracy_of_predict(model, x, y)
        hist = model.fit(x, y, batch_size=len(x), epochs=1, verbose=0)
        assert hist.history["accuracy"][0] == pytest.approx(before, abs=1e-6)
    _, acc = model.evaluate(x, y, batch_size=32, verbose=0)
    assert acc == pytest.approx(_accuracy_of_predict(model, x, y), abs=1e-6)
    assert acc > first + 0.1  # it did learn


def test_compile_refuses_a_metric_created_outside_the_strategy_scope(devices):
    """As TF: its plain variables would be updated by every replica thread at once."""
    devices(n_cpus=N_REPLICAS)
    outside = tf.keras.metrics.SparseCategoricalAccuracy()
    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(N_REPLICAS)])
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(8,))])
        with pytest.raises(ValueError, match=r"Metric \(sparse_categorical_accuracy\) passed to `model.compile` "
                                             r"was created inside a different distribution strategy scope"):
            model.compile("sgd", "sparse_categorical_crossentropy", metrics=[outside])
        inside = tf.keras.metrics.SparseCategoricalAccuracy()
        model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=[inside])
    x, y = _data(32)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert len(strategy.experimental_local_results(inside.total)) == N_REPLICAS
    assert float(inside.count.numpy()) == 32  # every sample of the epoch, summed over the replicas
