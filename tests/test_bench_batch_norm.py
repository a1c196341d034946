"""bench/bench_batch_norm.py: its tfcore side runs in its own process and counts the ops of a BatchNormalization
training step (6: FusedBatchNormV3, the tape's OnesLike, FusedBatchNormGradV3 and the moving variance's
Keras 3 blend: Sub, Mul, Sub); a side that cannot run (no such
interpreter, or its framework does not import) gives None, which the table prints as not installed."""

import importlib.util
import pathlib
import sys

_PATH = pathlib.Path(__file__).resolve().parents[1] / "bench" / "bench_batch_norm.py"
_spec = importlib.util.spec_from_file_location("bench_batch_norm", _PATH)
bench_batch_norm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_batch_norm)


def test_tfcore_side_counts_six_ops_per_step():
    r = bench_batch_norm.run_side(sys.executable, "tfcore", [2, 4, 4, 3], 2)
    assert r is not None and r["ops"] == 6 and r["min"] > 0


def test_side_that_cannot_run_is_skipped():
    assert bench_batch_norm.run_side(sys.executable + "-missing", "tfcore", [2, 4, 4, 3], 1) is None
