"""``tfcore train --devices N``: the main job, data-parallel, in a fresh process (devices initialise once)."""

import subprocess
import sys


def _train(*args, env_gpus="0"):
    import os

    env = dict(os.environ, TFCORE_EMULATED_GPUS=env_gpus)
    if env_gpus == "0":
        env["CUDA_VISIBLE_DEVICES"] = ""  # no GPU at all, even on a machine that has one (as in TF)
    out = subprocess.run([sys.executable, "-m", "tfcore", "train", "--model", "mlp", "--epochs", "8",
                          "--verbose", "0", *args], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_train_on_two_logical_cpus_reports_strategy_reduction_and_accuracy():
    text = _train("--devices", "2")
    assert "MirroredStrategy with 2 replicas" in text
    assert "CPU:0" in text and "CPU:1" in text
    assert "Reduction: ReductionToOneDevice" in text
    accuracy = float(text.split("Test accuracy:")[1].split()[0])
    assert accuracy >= 0.95


def test_train_splits_the_gpu_when_there_is_only_one():
    text = _train("--devices", "2", "--memory-limit", "64", "--epochs", "1", env_gpus="1")
    assert "MirroredStrategy with 2 replicas" in text
    assert "GPU:0" in text and "GPU:1" in text
