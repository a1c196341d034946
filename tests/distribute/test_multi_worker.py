"""MultiWorkerMirroredStrategy across real processes: pytest starts ``mpirun --oversubscribe -np N``.

Each job runs ``multi_worker/worker.py`` (a digits CNN, custom loop or Keras fit) and every rank
saves its weights; the same script run alone (a one-worker job) is the single-process reference
on the global batch. The jobs take a few seconds each; they run in the CPU pass of the suite (the
workers place their replicas on the CPU: this file does not exercise GPU paths).
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tfcore.backend import mpi

WORKER = os.path.join(os.path.dirname(__file__), "multi_worker", "worker.py")
MPIRUN = shutil.which("mpirun")

try:
    import mpi4py  # noqa: F401

    HAVE_MPI4PY = True
except ImportError:
    HAVE_MPI4PY = False

pytestmark = [
    pytest.mark.skipif(MPIRUN is None, reason="Open MPI is not installed (apt-get install openmpi-bin "
                                              "libopenmpi-dev; .ci/run installs it)"),
    pytest.mark.skipif(not HAVE_MPI4PY, reason="mpi4py is not installed (pip install tfcore[mpi])"),
    pytest.mark.skipif(bool(os.environ.get("TFCORE_EMULATED_GPUS")),
                       reason="the MPI jobs run CPU workers only; they run once, in the CPU pass"),
]

TIMEOUT_S = 240  # a job that hangs fails the test instead of blocking the suite


def _env(extra=None):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("OMPI_", "PMIX_", "PMI_")) or k == "TF_CONFIG":
            env.pop(k)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "CUDA_VISIBLE_DEVICES": "",
                "TFCORE_EMULATED_GPUS": "0", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
    env.update(extra or {})
    return mpi.local_launch_env(env)


def _mpirun(np_, scenario, out, env=None, per_rank_env=None):
    """Run ``worker.py scenario out`` on ``np_`` ranks; returns the CompletedProcess."""
    os.makedirs(out, exist_ok=True)
    cmd = [MPIRUN, "--oversubscribe", "--bind-to", "none"]
    if per_rank_env is None:
        cmd += ["-np", str(np_), sys.executable, WORKER, scenario, str(out)]
    else:  # MPMD: one program block per rank, each with its own environment (-x NAME=value)
        for i, extra in enumerate(per_rank_env):
            if i:
                cmd.append(":")
            cmd += ["-np", "1"] + [a for k, v in extra.items() for a in ("-x", f"{k}={v}")]
            cmd += [sys.executable, WORKER, scenario, str(out)]
    return subprocess.run(cmd, env=_env(env), capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """``reference(scenario)``: the scenario's result in one process (run once per module)."""
    cache = {}

    def get(scenario):
        if scenario not in cache:
            cache[scenario] = _alone(scenario, tmp_path_factory.mktemp(f"ref_{scenario}"))
        return cache[scenario]

    return get


def _alone(scenario, out):
    os.makedirs(out, exist_ok=True)
    proc = subprocess.run([sys.executable, WORKER, scenario, str(out)], env=_env(), capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dict(np.load(os.path.join(out, "rank0.npz")))


def _ranks(out, n):
    return [dict(np.load(os.path.join(out, f"rank{r}.npz"))) for r in range(n)]


def _check_same_training(ref, ranks, keys):
    for r, result in enumerate(ranks):
        assert int(result["num_replicas_in_sync"]) == len(ranks)
        assert bool(result["should_checkpoint"]) == (r == 0)  # the chief task, else worker 0
        for k in keys:
            np.testing.assert_allclose(result[k], ref[k], rtol=0, atol=1e-6, err_msg=f"rank {r}: {k}")
            np.testing.assert_array_equal(result[k], ranks[0][k], err_msg=f"rank {r} differs from rank 0: {k}")


def _weights(result):
    return sorted(k for k in result if k.startswith("w") and k[1:].isdigit())


def _tf_config(task_type, index):
    return json.dumps({"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222"]},
                       "task": {"type": task_type, "index": index}})


def test_custom_loop_on_two_workers_equals_one_process_on_the_global_batch(tmp_path, reference):
    """strategy.run + experimental_distribute_dataset + strategy.reduce with RING all-reduce; the two workers get
    their roles from TF_CONFIG (agreeing with MPI: the chief is rank 0); a pipeline reading 4 files is sharded
    by FILE (AUTO)."""
    ref = reference("custom")
    proc = _mpirun(2, "custom", tmp_path / "job", env={"TFCORE_TEST_COMMUNICATION": "RING"},
                   per_rank_env=[{"TF_CONFIG": _tf_config("chief", 0)}, {"TF_CONFIG": _tf_config("worker", 0)}])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    chief, worker = ranks = _ranks(tmp_path / "job", 2)
    _check_same_training(ref, ranks, _weights(ref) + ["losses"])
    assert (str(chief["task"]), str(worker["task"])) == ("chief:0", "worker:0")  # worker 0 is not the chief here
    # 4 files of 8 lines (file i holds i*100 + 0..7): worker 0 reads files 0 and 2, worker 1 files 1 and 3
    np.testing.assert_array_equal(chief["seen"], sorted(j for i in (0, 2) for j in range(i * 100, i * 100 + 8)))
    np.testing.assert_array_equal(worker["seen"], sorted(j for i in (1, 3) for j in range(i * 100, i * 100 + 8)))
    # distribute_datasets_from_function: one input pipeline per worker; gather concatenates every worker's values
    for r, result in enumerate(ranks):
        assert result["input_context"].tolist() == [2, r, 4]  # pipelines, this pipeline, per-replica batch of 8
        assert result["pipeline_firsts"].tolist() == [r, r + 4]  # range(8).shard(2, r).batch(2)
        assert result["gathered"].tolist() == [0.0, 0.0, 1.0, 1.0]


def test_keras_fit_digits_cnn_on_four_workers_equals_one_process(tmp_path, reference):
    """fit on arrays and on a tf.data pipeline (DATA sharding: each worker its rows of every global batch),
    metrics reduced across workers, evaluate too."""
    ref = reference("fit")
    proc = _mpirun(4, "fit", tmp_path / "job")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    metrics = ["loss", "accuracy", "eval_loss", "eval_accuracy"]
    _check_same_training(ref, _ranks(tmp_path / "job", 4),
                         _weights(ref) + metrics + [f"dataset_{k}" for k in _weights(ref) + metrics])
    # ModelCheckpoint and TensorBoard: the chief's files only (the others wrote into workertemp_<id>, removed)
    assert sorted(os.listdir(tmp_path / "job" / "ckpt")) == ["model.weights.h5"]
    assert sorted(os.listdir(tmp_path / "job" / "logs")) == ["train"]


def test_tf_config_that_disagrees_with_mpi_raises_naming_both(tmp_path):
    # both ranks claim the chief task: rank 1 is told it is position 0
    proc = _mpirun(2, "custom", tmp_path / "job", env={"TF_CONFIG": _tf_config("chief", 0)})
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "TF_CONFIG and MPI disagree" in out, out
    assert "MPI rank 1 of size 2" in out and "('chief', index 0) at position 0" in out, out


@pytest.mark.parametrize("scenario,message", [("raise", "RuntimeError: worker 1 failed on purpose"),
                                              ("exit", "worker 1 gave up on purpose"),
                                              ("stall", "timed out after 2.0 s on worker 0")])
def test_a_worker_that_fails_ends_the_job_with_its_error(tmp_path, scenario, message):
    """Rank 1 raises (or calls sys.exit with a message) before training while rank 0 waits in a collective:
    the job ends (MPI_Abort) with that message, no hang (the subprocess timeout would fail the test)."""
    # stall: rank 1 sleeps, alive; CommunicationOptions(timeout_seconds=2) makes rank 0's all-reduce give up
    env = {"TFCORE_TEST_TIMEOUT": "2", "TFCORE_TEST_COMMUNICATION": "RING"} if scenario == "stall" else None
    proc = _mpirun(2, scenario, tmp_path / "job", env=env)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert message in out, out
    assert not os.path.exists(tmp_path / "job" / "rank0.npz")


def test_backup_and_restore_resumes_a_killed_job_with_the_uninterrupted_weights(tmp_path, reference):
    """Worker 1 dies (os._exit) before batch 2 of epoch 1; the job ends as a whole. Started again, every worker
    restores the chief's mid-epoch backup (save_freq=2 batches), skips the 2 batches already trained on and ends
    with the weights (and Adam state) of a run that never stopped."""
    ref = reference("backup")
    died = _mpirun(2, "backup", tmp_path / "job", env={"TFCORE_TEST_DIE_AT": "1:1:2", "TFCORE_TEST_SAVE_FREQ": "2"})
    assert died.returncode != 0, died.stdout + died.stderr
    with open(tmp_path / "job" / "backup" / "training_state.json") as f:
        assert json.load(f) == {"epoch": 1, "batch": 2}
    assert not (tmp_path / "job" / "backup" / "workertemp_1").exists()  # only the chief's backup is kept
    resumed = _mpirun(2, "backup", tmp_path / "job", env={"TFCORE_TEST_SAVE_FREQ": "2"})
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    ranks = _ranks(tmp_path / "job", 2)
    _check_same_training(ref, ranks, _weights(ref))
    for result in ranks:
        assert result["epochs_run"].tolist() == [1, 2]  # resumed in epoch 1, not from the start
    assert not (tmp_path / "job" / "backup").exists()  # delete_checkpoint=True removes it after a finished fit


def test_tfcore_train_with_two_workers_runs_mpirun_for_the_user(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "tfcore.cli", "train", "--workers", "2", "--epochs", "1",
                           "--model", "mlp", "--verbose", "0"], env=_env(), capture_output=True, text=True,
                          timeout=TIMEOUT_S, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "--oversubscribe --bind-to none -np 2" in out
    assert "Strategy: MultiWorkerMirroredStrategy with 2 replicas in 2 workers" in out
    assert out.count("Test accuracy:") == 1  # only the chief reports
