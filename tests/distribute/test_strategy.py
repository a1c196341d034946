import numpy as np
import pytest

import tfcore as tf
from tfcore import distribute as dist


def test_default_strategy_outside_scope(devices):
    devices()
    s = tf.distribute.get_strategy()
    assert s.num_replicas_in_sync == 1
    assert not tf.distribute.has_strategy()
    assert tf.distribute.get_replica_context() is not None


def test_scope_contexts_and_mirrored_variables(devices):
    devices(n_cpus=2)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    assert s.num_replicas_in_sync == 2
    with s.scope():
        assert tf.distribute.has_strategy()
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        v = tf.Variable([1.0, 2.0])
    assert isinstance(v, tf.Variable) and isinstance(v, dist.MirroredVariable)
    devs = [c.device for c in v.values]
    assert devs[0].endswith("CPU:0") and devs[1].endswith("CPU:1")
    v.assign_add([1.0, 1.0])  # cross-replica: every copy
    for c in s.experimental_local_results(v):
        np.testing.assert_allclose(c.numpy(), [2.0, 3.0])
    with pytest.raises(ValueError, match="Shape mismatch"):  # TF 2.21: assign's shape check is a ValueError
        v.assign([1.0, 2.0, 3.0])
    for c in v.values:  # a failed update leaves every copy as it was
        np.testing.assert_allclose(c.numpy(), [2.0, 3.0])


def test_run_gives_per_replica_values_on_each_device(devices):
    devices(n_cpus=3)
    s = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(3)])

    def fn():
        ctx = tf.distribute.get_replica_context()
        return tf.constant(float(ctx.replica_id_in_sync_group_int) + 1.0)

    out = s.run(fn)
    assert isinstance(out, dist.PerReplica)
    assert [float(v) for v in s.experimental_local_results(out)] == [1.0, 2.0, 3.0]
    assert [v.device[-5:] for v in out.values] == ["CPU:0", "CPU:1", "CPU:2"]
    assert float(s.reduce("SUM", out, axis=None)) == 6.0
    assert float(s.reduce(tf.distribute.ReduceOp.MEAN, out, axis=None)) == 2.0


def test_all_reduce_and_merge_call_inside_replicas(devices):
    devices(n_cpus=4)
    s = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(4)])

    def fn():
        ctx = tf.distribute.get_replica_context()
        x = tf.constant([1.0, 2.0]) * (ctx.replica_id_in_sync_group_int + 1)
        total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, {"a": x, "b": [x * 2]})
        merged = ctx.merge_call(lambda strategy, v: sum(float(t[0]) for t in v.values), args=(x,))
        return total["a"], total["b"][0], merged

    a, b, merged = s.run(fn)
    for t in a.values:
        np.testing.assert_allclose(t.numpy(), [10.0, 20.0])
    for t in b.values:
        np.testing.assert_allclose(t.numpy(), [20.0, 40.0])
    assert merged == 10.0


def test_error_in_one_replica_reaches_caller_without_hanging(devices):
    devices(n_cpus=2)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

    def fn():
        ctx = tf.distribute.get_replica_context()
        if ctx.replica_id_in_sync_group_int == 1:
            raise ValueError("boom in replica 1")
        return ctx.all_reduce("sum", tf.constant(1.0))

    with pytest.raises(ValueError, match="boom in replica 1"):
        s.run(fn)


def test_distribute_dataset_splits_global_batch(devices):
    devices(n_cpus=2)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    batches = [(np.arange(10, dtype=np.float32).reshape(5, 2), np.arange(5, dtype=np.int32))]
    x, y = next(iter(s.experimental_distribute_dataset(batches)))
    assert [v.shape[0] for v in x.values] == [3, 2]
    np.testing.assert_array_equal(y.values[1].numpy(), [3, 4])
    assert y.values[1].device.endswith("CPU:1")


def test_distribute_datasets_from_function_one_element_per_replica(devices):
    devices(n_cpus=2)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    seen = []

    def dataset_fn(ctx):
        seen.append(ctx.get_per_replica_batch_size(8))
        return [np.full((4,), i, np.float32) for i in range(4)]

    steps = list(s.distribute_datasets_from_function(dataset_fn))
    assert seen == [4] and len(steps) == 2
    assert [float(v.numpy()[0]) for v in steps[1].values] == [2.0, 3.0]


def test_gather_and_reduce_with_axis(devices):
    devices(n_cpus=2)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    pr = dist.PerReplica([tf.constant([[1.0], [2.0]]), tf.constant([[3.0]])])
    np.testing.assert_allclose(s.gather(pr, axis=0).numpy(), [[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(s.reduce("MEAN", pr, axis=0).numpy(), [2.0])
    np.testing.assert_allclose(s.reduce("SUM", pr, axis=0).numpy(), [6.0])


def test_one_device_strategy(devices):
    devices(n_cpus=2)
    s = tf.distribute.OneDeviceStrategy("/cpu:1")
    with s.scope():
        v = tf.Variable(1.0)
    assert s.num_replicas_in_sync == 1
    assert s.run(lambda: v * 2).device.endswith("CPU:1")


def test_duplicate_devices_rejected(devices):
    devices(n_cpus=2)
    with pytest.raises(ValueError):
        tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"])


def test_single_replica_mirrored_strategy_trains_with_keras(devices):
    devices()
    s = tf.distribute.MirroredStrategy()  # no GPU: one replica on the CPU
    assert s.num_replicas_in_sync == 1
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 4)).astype(np.float32), rng.integers(0, 2, 32)
    with s.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4,))])
        model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    before = model.get_weights()[0].copy()
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    assert not np.allclose(model.get_weights()[0], before)


def test_eager_replicas_take_turns_in_replica_order_as_tf(devices):
    # TF's eager MirroredStrategy runs replica 0's Python until a collective (or its end), then replica 1's:
    # side effects never interleave (guide_random_numbers prints from each replica). tfcore ran them at once.
    import time

    devices(n_cpus=2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    log = []

    def replica_fn():
        i = tf.distribute.get_replica_context().replica_id_in_sync_group_int
        log.append((i, "start"))
        time.sleep(0.02)  # long enough for the other thread to run, were it allowed to
        log.append((i, "before"))
        total = tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(float(i + 1)))
        log.append((i, "after"))
        return total

    for _ in range(3):
        log.clear()
        out = strategy.run(replica_fn)
        assert [float(v) for v in strategy.experimental_local_results(out)] == [3.0, 3.0]
        assert log == [(0, "start"), (0, "before"), (1, "start"), (1, "before"), (0, "after"), (1, "after")]


def test_a_failing_replica_cancels_the_others_waiting_for_their_turn(devices):
    devices(n_cpus=2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

    def replica_fn():
        if tf.distribute.get_replica_context().replica_id_in_sync_group_int == 0:
            raise ValueError("replica 0 failed")
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))

    with pytest.raises(ValueError, match="replica 0 failed"):
        strategy.run(replica_fn)
    assert float(strategy.experimental_local_results(strategy.run(lambda: tf.constant(2.0)))[1]) == 2.0
