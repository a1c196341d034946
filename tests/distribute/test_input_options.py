"""tf.distribute.InputOptions / InputReplicationMode / RunOptions, the DistributedDataset and
DistributedIterator types, StrategyExtended and experimental_set_strategy."""

import numpy as np
import pytest

import tfcore as tf


def _strategy(devices):
    devices(n_cpus=2)
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def test_input_options_defaults_and_validation():
    o = tf.distribute.InputOptions()
    assert o.experimental_fetch_to_device is True
    assert o.experimental_replication_mode == tf.distribute.InputReplicationMode.PER_WORKER
    assert o.experimental_place_dataset_on_device is False and o.experimental_per_replica_buffer_size == 1
    assert o == tf.distribute.InputOptions(experimental_fetch_to_device=True)
    assert tf.distribute.InputReplicationMode.PER_REPLICA == "PER_REPLICA"
    with pytest.raises(ValueError):
        tf.distribute.InputOptions(experimental_replication_mode="bogus")


def test_distributed_dataset_and_iterator_types(devices):
    s = _strategy(devices)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(8.0)).batch(4)
    dist = s.experimental_distribute_dataset(ds, options=tf.distribute.InputOptions())
    assert isinstance(dist, tf.distribute.DistributedDataset)
    it = iter(dist)
    assert isinstance(it, tf.distribute.DistributedIterator)
    first = it.get_next()
    parts = s.experimental_local_results(first)
    np.testing.assert_allclose(parts[0].numpy(), [0.0, 1.0])
    assert parts[1].device.endswith("CPU:1")
    opt = it.get_next_as_optional()
    assert bool(opt.has_value())
    assert not bool(it.get_next_as_optional().has_value())
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    total = dist.reduce(0.0, lambda acc, x: acc + float(s.reduce("SUM", x, axis=0)))
    assert float(total) == pytest.approx(np.arange(8.0).sum())


def test_fetch_to_device_false_keeps_elements_on_host(devices):
    s = _strategy(devices)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(4.0)).batch(4)
    dist = s.experimental_distribute_dataset(ds, tf.distribute.InputOptions(experimental_fetch_to_device=False))
    parts = s.experimental_local_results(next(iter(dist)))
    assert all(p.device.endswith("CPU:0") for p in parts)


def test_input_options_errors_as_tf(devices):
    s = _strategy(devices)
    ds = tf.data.Dataset.range(4).batch(2)
    mode = tf.distribute.InputReplicationMode.PER_REPLICA
    per_replica = tf.distribute.InputOptions(experimental_replication_mode=mode)
    with pytest.raises(NotImplementedError):
        s.experimental_distribute_dataset(ds, per_replica)
    with pytest.raises(NotImplementedError):
        s.experimental_distribute_dataset(ds, tf.distribute.InputOptions(experimental_place_dataset_on_device=True))
    with pytest.raises(ValueError):
        s.distribute_datasets_from_function(lambda ctx: ds, tf.distribute.InputOptions(
            experimental_place_dataset_on_device=True, experimental_fetch_to_device=True))
    with pytest.raises(TypeError):
        s.experimental_distribute_dataset(ds, options={"fetch": True})
    fn_ds = s.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(4).batch(1), per_replica)
    assert isinstance(fn_ds, tf.distribute.DistributedDataset)
    steps = list(fn_ds)
    assert len(steps) == 2 and [v.numpy().tolist() for v in s.experimental_local_results(steps[1])] == [[2], [3]]


def test_run_options(devices):
    s = _strategy(devices)
    ro = tf.distribute.RunOptions(experimental_enable_dynamic_batch_size=False)
    assert ro.experimental_enable_dynamic_batch_size is False and ro.experimental_bucketizing_dynamic_shape is False
    out = s.run(lambda: tf.constant(2.0), options=ro)
    assert [float(v) for v in s.experimental_local_results(out)] == [2.0, 2.0]
    assert float(tf.distribute.get_strategy().run(lambda: tf.constant(1.0), options=tf.distribute.RunOptions())) == 1.0
    with pytest.raises(TypeError):
        s.run(lambda: 1, options="fast")


def test_strategy_extended(devices):
    s = _strategy(devices)
    assert isinstance(s.extended, tf.distribute.StrategyExtended)
    assert [d.split("/")[-1] for d in s.extended.worker_devices] == ["device:CPU:0", "device:CPU:1"]


def test_experimental_set_strategy(devices):
    s = _strategy(devices)
    try:
        tf.distribute.experimental_set_strategy(s)
        assert tf.distribute.get_strategy() is s and tf.distribute.has_strategy()
        v = tf.Variable(1.0)
        assert len(s.experimental_local_results(v)) == 2
        tf.distribute.experimental_set_strategy(s)  # replacing is allowed
        assert tf.distribute.get_strategy() is s
    finally:
        tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    with s.scope(), pytest.raises(RuntimeError):
        tf.distribute.experimental_set_strategy(s)
