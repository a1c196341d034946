"""Smoke test of the tf.function benchmark (bench/bench_function.py): it runs without TensorFlow and
prints one row per workload with the ratio of eager tfcore to tfcore's tf.function. No timing assertions."""

import importlib.util
import pathlib

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench" / "bench_function.py"


@pytest.fixture
def bench():
    spec = importlib.util.spec_from_file_location("bench_function", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.usefixtures("on_cpu")
def test_bench_function_runs_without_tensorflow(bench, capsys):
    bench.main(["--no-tensorflow", "--rounds", "1", "--steps", "1", "--repeats", "2"])
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.startswith(("MLP step", "CNN step"))]
    assert len(rows) == 2 and all("tfcore eager/fn=" in r and "TF function" not in r for r in rows)
