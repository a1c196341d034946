"""Smoke test of the training-step benchmark (bench/bench_gpu_training.py, ``tfcore bench train``):
it runs on a machine without a GPU, with tiny sizes. No timing assertions."""

import pytest

from tfcore.benchmarks import training_bench


def test_training_bench_runs_tiny_on_any_machine():
    lines = []
    rows = training_bench.run(training_bench.config(_args("--tiny", "--no-torch")), out=lines.append)
    assert [r["case"].split()[0] for r in rows] == ["MLP", "MLP", "CNN"]
    assert all(r["tfcore_ms"] > 0 and r["torch_ms"] is None for r in rows)
    assert "speed tfcore/torch" in lines[1]


def test_training_bench_skips_gpu_sized_cases_without_a_gpu(monkeypatch):
    monkeypatch.setattr(training_bench, "_tfcore_gpu", lambda tf: False)
    cases = training_bench.cases(training_bench.config(_args("--quick")), gpu=False)
    skipped = {c[0] for c in cases if c[4]}
    big = training_bench.CPU_MAX_CNN_BATCH
    assert skipped == {c[0] for c in cases if c[1] == "resnet50" or (c[1] == "cnn" and c[2] > big)}
    assert not [c for c in training_bench.cases(training_bench.config(_args("--quick")), gpu=True) if c[4]]


def test_tfcore_bench_train_is_a_cli_subcommand(capsys):
    pytest.importorskip("tfcore.benchmarks.kernel_bench")
    from tfcore.cli import main

    assert main(["bench", "train", "--tiny", "--no-torch"]) == 0
    assert "MLP 784-512-512-10 train b=8" in capsys.readouterr().out


@pytest.mark.parametrize("flag,expected", [((), False), (("--tf32",), True)])
def test_both_frameworks_run_in_the_same_math_mode(monkeypatch, flag, expected):
    """Strict float32 rows turn tfcore's TF32 off (TF's default is on); the 11-27 H200 run compared tfcore in TF32
    with PyTorch in strict float32 before this. The user's setting comes back afterwards."""
    import tfcore as tf

    seen = []
    monkeypatch.setattr(training_bench, "time_tfcore", lambda *a: seen.append(
        tf.config.experimental.tensor_float_32_execution_enabled()) or 1.0)
    assert tf.config.experimental.tensor_float_32_execution_enabled()
    training_bench.run(training_bench.config(_args("--tiny", "--no-torch", *flag)), out=lambda s: None)
    assert seen and set(seen) == {expected}
    assert tf.config.experimental.tensor_float_32_execution_enabled()


def _args(*argv):
    import argparse

    p = argparse.ArgumentParser()
    training_bench.add_arguments(p)
    return p.parse_args(list(argv))
