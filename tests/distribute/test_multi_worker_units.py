"""MultiWorkerMirroredStrategy pieces that need no MPI job: options, TF_CONFIG, roles, auto-sharding.

(The jobs themselves: test_multi_worker.py.) A process not started by mpirun is a one-worker job.
"""

import json
import os

import numpy as np
import pytest
from tfcore.distribute.input_lib import worker_batches, worker_rows

import tfcore as tf
from tfcore.data.auto_shard import auto_shard_dataset

AutoShardPolicy = tf.data.experimental.AutoShardPolicy


@pytest.fixture
def cpu_only(devices):
    """One CPU replica whatever the machine has (the strategy would take every visible GPU)."""
    return devices(n_cpus=1)


def test_communication_options_follow_tf():
    opts = tf.distribute.experimental.CommunicationOptions()
    assert opts.implementation == tf.distribute.experimental.CommunicationImplementation.AUTO
    assert opts.bytes_per_pack == 0 and opts.timeout_seconds is None
    ring = tf.distribute.experimental.CommunicationOptions(bytes_per_pack=1024, implementation="ring")
    assert ring.implementation == tf.distribute.experimental.CommunicationImplementation.RING
    assert tf.distribute.experimental.CollectiveCommunication.NCCL is \
        tf.distribute.experimental.CommunicationImplementation.NCCL
    with pytest.raises(ValueError, match="bytes_per_pack"):
        tf.distribute.experimental.CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(ValueError, match="implementation"):
        tf.distribute.experimental.CommunicationOptions(implementation="GLOO")


def _set_tf_config(monkeypatch, cluster, task_type, index, **extra):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": {"type": task_type, "index": index},
                                                **extra}))


def test_tf_config_cluster_resolver_reads_tf_config(monkeypatch):
    cluster = {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"]}
    _set_tf_config(monkeypatch, cluster, "worker", 1, rpc_layer="grpc")
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert r.cluster_spec().as_dict() == cluster
    assert (r.task_type, r.task_id, r.rpc_layer) == ("worker", 1, "grpc")
    assert r.master() == "grpc://w1:2222"
    assert r.master("chief", 0, rpc_layer="") == "c0:2222"
    assert tf.distribute.cluster_resolver.TFConfigClusterResolver(task_type="chief", task_id=0).task_type == "chief"


def test_tf_config_errors_name_the_problem(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        tf.distribute.cluster_resolver.TFConfigClusterResolver()
    _set_tf_config(monkeypatch, {"worker": ["a:1"]}, "ps", 0)
    with pytest.raises(ValueError, match="task type 'ps' is not a job"):
        tf.distribute.cluster_resolver.TFConfigClusterResolver()
    _set_tf_config(monkeypatch, {"worker": ["a:1"]}, "worker", 3)
    with pytest.raises(ValueError, match="task index 3 is out of range"):
        tf.distribute.cluster_resolver.TFConfigClusterResolver()


def test_roles_chief_task_else_worker_zero():
    from tfcore.distribute import cluster_resolver as cr

    with_chief = tf.train.ClusterSpec({"chief": ["c"], "worker": ["a", "b"]})
    assert cr.is_chief(with_chief, "chief", 0) and not cr.is_chief(with_chief, "worker", 0)
    assert [cr.task_position(with_chief, t, i) for t, i in [("chief", 0), ("worker", 0), ("worker", 1)]] == [0, 1, 2]
    assert cr.training_tasks(with_chief) == 3
    workers = tf.train.ClusterSpec({"worker": ["a", "b"]})
    assert cr.is_chief(workers, "worker", 0) and not cr.is_chief(workers, "worker", 1)


def test_one_process_is_a_one_worker_job(cpu_only, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.extended.should_checkpoint and not strategy.extended._in_multi_worker_mode()
    assert isinstance(strategy.cluster_resolver, tf.distribute.cluster_resolver.SimpleClusterResolver)
    assert strategy.cluster_resolver.task_type == "worker" and strategy.cluster_resolver.task_id == 0
    with strategy.scope():
        v = tf.Variable(2.0)
    out = strategy.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", v * 3.0))
    assert float(strategy.reduce("SUM", out, axis=None).numpy()) == 6.0


def test_tf_config_of_two_tasks_outside_mpirun_raises(cpu_only, monkeypatch):
    _set_tf_config(monkeypatch, {"worker": ["a:1", "b:1"]}, "worker", 0)
    with pytest.raises(ValueError, match=r"TF_CONFIG and MPI disagree: TF_CONFIG describes 2 training task\(s\)"
                                         r".*a single process \(not started by mpirun\).*mpirun -np 2"):
        tf.distribute.MultiWorkerMirroredStrategy()


def test_nccl_without_gpus_is_a_clear_error(cpu_only, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    opts = tf.distribute.experimental.CommunicationOptions(implementation="NCCL")
    with pytest.raises(ValueError, match="CommunicationImplementation.NCCL needs NCCL"):
        tf.distribute.MultiWorkerMirroredStrategy(communication_options=opts)
    with pytest.raises(ValueError, match="communication_options must be"):
        tf.distribute.MultiWorkerMirroredStrategy(communication_options="RING")


def _text_files(tmp_path, n):
    files = []
    for i in range(n):
        p = tmp_path / f"f{i}.txt"
        p.write_text("".join(f"{i}{j}\n" for j in range(3)))
        files.append(str(p))
    return files


def _lines(ds):
    return [t.numpy() for t in ds]


def test_auto_shard_by_file_reads_every_nth_file(tmp_path):
    files = _text_files(tmp_path, 4)
    ds = tf.data.TextLineDataset(files).map(lambda s: s)
    mine, policy = auto_shard_dataset(ds, 2, 1)
    assert policy == AutoShardPolicy.FILE
    assert _lines(mine) == [f"{i}{j}".encode() for i in (1, 3) for j in range(3)]
    assert len(_lines(ds)) == 12  # the user's pipeline is unchanged


def test_auto_shard_falls_back_to_data_and_obeys_options(tmp_path):
    ds = tf.data.Dataset.range(8).batch(4)
    assert auto_shard_dataset(ds, 2, 0)[1] == AutoShardPolicy.DATA
    few = tf.data.TextLineDataset(_text_files(tmp_path, 1))
    assert auto_shard_dataset(few, 2, 0)[1] == AutoShardPolicy.DATA  # AUTO: fewer files than workers
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = AutoShardPolicy.FILE
    with pytest.raises(tf.errors.InvalidArgumentError, match="AutoShardPolicy.FILE: the pipeline reads 1 file"):
        auto_shard_dataset(few.with_options(options), 2, 0)
    options.experimental_distribute.auto_shard_policy = AutoShardPolicy.OFF
    assert auto_shard_dataset(ds.with_options(options), 2, 0)[1] == AutoShardPolicy.OFF


def test_worker_batches_follow_the_policy():
    batches = [np.arange(8) + 10 * i for i in range(2)]
    data = list(worker_batches(iter(batches), 2, 1, AutoShardPolicy.DATA))
    assert [b.tolist() for b in data] == [[4, 5, 6, 7], [14, 15, 16, 17]]  # this worker's rows of each batch
    off = list(worker_batches(iter(batches), 2, 1, AutoShardPolicy.OFF))
    assert [b.tolist() for b in off] == [[0, 1, 2, 3], [4, 5, 6, 7], [10, 11, 12, 13], [14, 15, 16, 17]]
    ragged = worker_rows({"x": np.arange(5), "n": np.int64(3)}, 2, 1)
    assert ragged["x"].tolist() == [3, 4] and ragged["n"] == 3  # earlier workers larger; scalars kept whole


def test_backup_and_restore_validates_its_arguments(tmp_path):
    with pytest.raises(ValueError, match="Empty `backup_dir`"):
        tf.keras.callbacks.BackupAndRestore("")
    with pytest.raises(ValueError, match="save_freq=0"):
        tf.keras.callbacks.BackupAndRestore(tmp_path, save_freq=0)
    with pytest.raises(ValueError, match="save_freq='batch'"):
        tf.keras.callbacks.BackupAndRestore(tmp_path, save_freq="batch")


def test_backup_and_restore_resumes_fit_in_one_process(cpu_only, tmp_path):
    """An interrupted fit (an exception in epoch 1) started again continues from the epoch-0 backup."""
    x = np.random.RandomState(0).rand(32, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)

    def model():
        m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="zeros")])
        m.compile(tf.keras.optimizers.Adam(0.1), "mse")
        return m

    class Crash(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 1:
                raise RuntimeError("preempted")

    full = model()
    full.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    backup = tmp_path / "backup"
    first = model()
    with pytest.raises(RuntimeError, match="preempted"):
        first.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0,
                  callbacks=[tf.keras.callbacks.BackupAndRestore(backup), Crash()])
    assert (backup / "training_state.json").exists()
    again = model()
    hist = again.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0,
                     callbacks=[tf.keras.callbacks.BackupAndRestore(backup)])
    assert hist.epoch == [1, 2]
    for a, b in zip(again.weights, full.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not backup.exists()


def test_non_chief_workers_write_into_temporary_directories(tmp_path):
    from types import SimpleNamespace

    from tfcore.distribute import distributed_file_utils as dfu

    def strategy(chief, task_id, multi=True):
        extended = SimpleNamespace(_in_multi_worker_mode=lambda: multi, should_checkpoint=chief)
        return SimpleNamespace(extended=extended, cluster_resolver=SimpleNamespace(task_id=task_id))

    d = str(tmp_path / "out")
    assert dfu.write_dirpath(d, strategy(True, 0)) == d
    assert dfu.write_dirpath(d, strategy(False, 2, multi=False)) == d  # one worker: it is the chief
    temp = dfu.write_dirpath(d, strategy(False, 2))
    assert temp == str(tmp_path / "out" / "workertemp_2")
    assert dfu.write_filepath(d + "/w.h5", strategy(False, 2)) == temp + "/w.h5"
    os.makedirs(temp)
    dfu.remove_temp_dirpath(d, strategy(False, 2))
    assert not os.path.exists(temp) and os.path.exists(d)


def test_tfcore_train_workers_arguments():
    import argparse

    from tfcore.keras import train_command, train_workers

    parser = argparse.ArgumentParser()
    train_command._add_arguments(parser)
    args = parser.parse_args(["--workers", "4", "--epochs", "2", "--mixed-precision"])
    cmd = train_workers.mpirun_command(args)
    assert cmd[:6] == ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", "4"]
    child = cmd[cmd.index("tfcore.cli"):]
    assert child[:2] == ["tfcore.cli", "train"] and "--mixed-precision" in child
    assert child[child.index("--workers") + 1] == "4" and child[child.index("--epochs") + 1] == "2"
    with pytest.raises(SystemExit, match="--workers and --devices cannot be combined"):
        train_workers.launch(parser.parse_args(["--workers", "2", "--devices", "2"]))
    with pytest.raises(SystemExit):
        parser.parse_args(["--workers", "0"])


def test_cost_model_formulas():
    from tfcore.distribute import cost_model as cm

    link = cm.Link("test", latency_s=1e-5, bandwidth_Bps=1e9)
    # ring: 2 (p-1) alpha + 2 (p-1)/p n beta
    assert cm.ring_allreduce_time(1e6, 4, link) == pytest.approx(6e-5 + 1.5e-3)
    assert cm.ring_allreduce_time(1e6, 1, link) == 0.0
    # tree: 2 ceil(log2 p) alpha + 2 n beta
    assert cm.tree_allreduce_time(1e6, 8, link) == pytest.approx(6e-5 + 2e-3)
    assert cm.tree_allreduce_time(1e6, 9, link) == pytest.approx(8e-5 + 2e-3)
    fast = cm.Link("fast", 1e-6, 1e11)
    # hierarchical: one GPU per node is the ring over the network; one node is the ring over the fast link
    ring = cm.ring_allreduce_time
    assert cm.hierarchical_allreduce_time(1e6, 16, 1, fast, link) == pytest.approx(ring(1e6, 16, link))
    assert cm.hierarchical_allreduce_time(1e6, 8, 8, fast, link) == pytest.approx(ring(1e6, 8, fast))
    assert cm.hierarchical_allreduce_time(8e6, 16, 8, fast, link) == pytest.approx(
        cm.ring_allreduce_time(8e6, 8, fast) + cm.ring_allreduce_time(1e6, 2, link))
    best = cm.allreduce_time(1e8, 1024, link, "best")
    assert best == min(cm.allreduce_time(1e8, 1024, link, a) for a in ("ring", "tree", "hierarchical"))
    assert cm.step_time(0.1, 1e6, 4, link, "ring", overlap=0.0) == pytest.approx(0.1 + 1.56e-3)
    assert cm.step_time(0.1, 1e6, 4, link, "ring", overlap=1.0) == pytest.approx(0.1)  # hidden behind compute
    with pytest.raises(ValueError, match="algorithm must be"):
        cm.allreduce_time(1, 2, link, "butterfly")
    with pytest.raises(ValueError, match="multiple of gpus_per_node"):
        cm.hierarchical_allreduce_time(1, 12, 8, fast, link)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        cm.ring_allreduce_time(1, 0, link)


def test_cost_model_fit_recovers_alpha_and_beta():
    from tfcore.distribute import cost_model as cm

    link = cm.Link("x", 3e-6, 2e9)
    sizes = [2 ** k for k in range(3, 26, 2)]
    times = [cm.ring_allreduce_time(n, 4, link) for n in sizes]
    alpha, beta = cm.fit_ring(sizes, times, 4)
    assert alpha == pytest.approx(3e-6, rel=1e-6) and 1 / beta == pytest.approx(2e9, rel=1e-6)


def test_distributed_doc_tables_are_what_the_helper_computes():
    from tfcore.distribute import cost_model as cm

    with open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "distributed.md")) as f:
        doc = f.read()
    for bytes_per_element in (4, 2):
        for line in cm.markdown_rows(cm.prediction_table(0.1, bytes_per_element=bytes_per_element)):
            assert line in doc, line


def test_deprecated_experimental_strategy_takes_communication(cpu_only, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    ring = tf.distribute.experimental.CollectiveCommunication.RING
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(communication=ring)
    assert isinstance(strategy, tf.distribute.MultiWorkerMirroredStrategy)
    assert strategy._communication_options.implementation == ring


class _TwinWorld:
    """A world of two workers whose other worker holds the same values as this one (sums double)."""

    uses_mpi, size, rank = True, 2, 0

    def __init__(self):
        self.calls = []

    def all_reduce(self, arrays, timeout=None):
        self.calls.append([a.size for a in arrays])
        return [a * 2 for a in arrays]


def test_two_level_reduction_local_replicas_first_then_workers(devices):
    """Two local replicas (logical CPUs) reduce on the host, then one bucket per dtype crosses the workers."""
    from tfcore.distribute import cross_device_ops as cdo
    from tfcore.distribute.collective_all_reduce_strategy import MultiWorkerAllReduce

    devices(n_cpus=2)
    world = _TwinWorld()
    ops = MultiWorkerAllReduce(cdo.ReductionToOneDevice(), world, "ring", bytes_per_pack=0, num_replicas=4)
    per_replica = []
    for r in range(2):
        with tf.device(f"/cpu:{r}"):
            per_replica.append([tf.constant([1.0, 2.0]) * (r + 1), tf.constant([[3.0]]) * (r + 1),
                                tf.constant([5, 6], tf.int32) * (r + 1)])
    total = ops.batch_all_reduce(tf.distribute.ReduceOp.SUM, per_replica)
    mean = ops.batch_all_reduce(tf.distribute.ReduceOp.MEAN, per_replica)
    assert world.calls == [[3, 2], [3, 2]]  # float32 bucket (2 + 1 values) and int32 bucket, per call
    for r in range(2):
        np.testing.assert_array_equal(total[r][0].numpy(), [6.0, 12.0])  # (1 + 2) * 2 workers
        np.testing.assert_array_equal(total[r][1].numpy(), [[18.0]])
        np.testing.assert_array_equal(total[r][2].numpy(), [30, 36])
        np.testing.assert_allclose(mean[r][0].numpy(), [1.5, 3.0])  # / 4 replicas in the job
        np.testing.assert_allclose(mean[r][2].numpy(), [7.5, 9.0])
        assert total[r][0].device.endswith(f"CPU:{r}")


def test_each_worker_takes_the_gpu_of_its_local_rank(devices):
    from types import SimpleNamespace

    from tfcore.distribute.collective_all_reduce_strategy import _local_devices

    devices(emulated_gpus=1, gpu_split=2)  # two logical GPUs
    names = lambda ds: [d.name.rpartition("device:")[2] for d in ds]  # noqa: E731
    assert names(_local_devices(SimpleNamespace(local_size=2, local_rank=1))) == ["GPU:1"]
    assert names(_local_devices(SimpleNamespace(local_size=3, local_rank=2))) == ["GPU:0"]  # more workers than GPUs
    assert names(_local_devices(SimpleNamespace(local_size=1, local_rank=0))) == ["GPU:0", "GPU:1"]  # alone: all


def test_keras_data_handler_reads_this_workers_share(cpu_only):
    from tfcore.keras.engine.data_adapter import DataHandler

    def batches(handler):
        steps = next(handler.enumerate_epochs())[1]
        return [(b[0] if isinstance(b, tuple) else b).numpy().tolist() for _, b in steps]

    x = np.arange(8, dtype=np.float32)
    arrays = DataHandler(x, x, batch_size=4, worker=(2, 1))
    assert batches(arrays) == [[2.0, 3.0], [6.0, 7.0]]  # DATA: worker 1's rows of each global batch
    ds = tf.data.Dataset.from_tensor_slices(x).batch(4)
    data = DataHandler(ds, worker=(2, 1))
    assert data.inferred_steps == 2 and batches(data) == [[2.0, 3.0], [6.0, 7.0]]
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = AutoShardPolicy.OFF
    off = DataHandler(ds.with_options(options), worker=(2, 1))
    assert off.inferred_steps == 4  # every batch cut into one piece per worker, taken in turn
    assert batches(off) == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]


def test_a_collective_that_waits_too_long_raises_deadline_exceeded():
    from tfcore.backend import mpi

    class NeverDone:
        def Test(self):  # noqa: N802 - mpi4py's name
            return False

    with pytest.raises(tf.errors.DeadlineExceededError, match=r"all-reduce of 3 values timed out after 0.05 s "
                                                               r"on worker 1"):
        mpi._wait(NeverDone(), 0.05, 1, "all-reduce of 3 values")
    alone = mpi.World(None)  # outside mpirun: every collective is local
    np.testing.assert_array_equal(alone.all_reduce([np.arange(3)], timeout=1)[0], [0, 1, 2])
    assert alone.broadcast_array(np.float32(2.5)).shape == () and alone.all_gather("x") == ["x"]
