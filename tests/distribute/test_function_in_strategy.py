"""``strategy.run`` with tf.functions: per-replica traces, collectives and optimizer updates as graph nodes."""

import numpy as np
import pytest

import tfcore as tf


def test_run_accepts_a_tf_function_with_all_reduce(devices):
    devices(n_cpus=2)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        w = tf.Variable(2.0)

    @tf.function
    def step(x):
        y = x * w
        total = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, y)
        return y, total

    for k in range(3):  # the first call traces (one trace per replica device), then graphs replay
        y, total = s.run(step, args=(tf.constant(float(k)),))
        assert [float(v) for v in s.experimental_local_results(y)] == [2.0 * k] * 2
        assert [float(v) for v in s.experimental_local_results(total)] == [4.0 * k] * 2
        assert [v.device[-5:] for v in y.values] == ["CPU:0", "CPU:1"]
    # the replicas' concurrent traces of one run count as one trace (TF traces them into one graph)
    assert step.experimental_get_tracing_count() == 1


def test_training_step_as_tf_function_matches_eager(devices):
    devices(n_cpus=2)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 4)).astype(np.float32), rng.standard_normal((4, 1)).astype(np.float32)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    weights = []
    for use_function in (False, True):
        with s.scope():
            model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
            model.set_weights([np.full((4, 1), 0.1, np.float32), np.zeros(1, np.float32)])
            opt = tf.keras.optimizers.Adam(0.1)

        step = _make_step(model, opt)
        fn = tf.function(step) if use_function else step
        for _ in range(3):
            s.run(fn, args=(tf.constant(x), tf.constant(y)))
        weights.append([w.numpy() for w in model.weights])
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def _make_step(model, opt):
    def step(a, b):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(a) - b)) / 8.0
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return step


def test_cross_device_assign_inside_a_function_uses_each_call_value(devices):
    """A value computed in the graph and assigned to a variable on another device is copied implicitly;
    the copy is a graph node (a traced graph that kept the trace's copy updated metrics only once)."""
    devices(n_cpus=2)
    with tf.device("/CPU:1"):
        total = tf.Variable(0.0)

    @tf.function
    def accumulate(x):
        with tf.device("/CPU:0"):
            y = x * 2.0
        total.assign_add(y)
        return y

    for v in (1.0, 2.0, 3.0):
        accumulate(tf.constant(v))
    assert accumulate.experimental_get_tracing_count() == 1
    assert float(total.numpy()) == 12.0
    assert total.device.endswith("CPU:1")


def test_next_of_a_distributed_iterator_inside_a_function_advances_every_call(devices):
    # TF's custom-loop pattern: train_step(iterator) with strategy.run(step_fn, args=(next(iterator),)).
    # TF 2.21 gives the batches [0 1], [2 3], [4 5] per call; tfcore replayed the first one every time.
    devices(n_cpus=2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    dataset = tf.data.Dataset.range(12).map(lambda x: (x, 10 * x)).batch(4)
    iterator = iter(strategy.experimental_distribute_dataset(dataset))

    @tf.function
    def step(iterator):
        a, b = next(iterator)
        per_replica = strategy.run(lambda a, b: tf.reduce_sum(a + b), args=(a, b))
        return strategy.reduce("SUM", per_replica, axis=None)

    got = [int(step(iterator)) for _ in range(3)]
    assert got == [11 * sum(range(k, k + 4)) for k in (0, 4, 8)]
    with pytest.raises(tf.errors.OutOfRangeError):
        step(iterator)
