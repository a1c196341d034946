"""The CPU convolution benchmark matrix (tfcore/benchmarks/conv_bench.py, ``tfcore bench --cpu``): its worker runs
tfcore's side in its own process, a side that cannot import is skipped with its reason, and the table
has one row per case and op with ratios."""

import sys

import pytest

from tfcore import cli
from tfcore.benchmarks import conv_bench

TINY = dict(id="tiny 3x3", kind="conv", n=2, h=6, ci=3, co=4, k=3, s=1, pad="SAME")
TINY_TRAIN = dict(id="tiny train", kind="train", n=4, h=8, c=1, convs=[(4, 4)])


def test_matrix_covers_the_issue_shapes():
    ids = [c["id"] for c in conv_bench.cases()]
    for needle in ("1x1", "3x3", "4x4 SAME", "5x5", "7x7 s2", "1->8", "8->16", "32->64", "64->128", "b32", "b64",
                   "b256", "depthwise", "train CNN 4x4 SAME 8,16 b64"):
        assert any(needle in i for i in ids), needle
    assert {c["id"] for c in conv_bench.cases(quick=True)} == set(conv_bench.QUICK_IDS)


def test_gflop_counts_asymmetric_same_and_strides():
    case = dict(kind="conv", n=1, h=5, ci=2, co=3, k=4, s=2, pad="SAME")
    assert conv_bench.conv_gflop(case) * 1e9 == 2 * 3 * 3 * 3 * 4 * 4 * 2  # out 3x3, 32 terms per sum
    assert conv_bench.conv_gflop(dict(case, pad="VALID")) * 1e9 == 2 * 1 * 3 * 32


def test_tfcore_side_runs_in_its_own_process():
    version, ms = conv_bench.run_side(sys.executable, "tfcore", 1, 2, [TINY, TINY_TRAIN])
    assert version is not None, ms
    assert set(ms) == {"tiny 3x3/fwd", "tiny 3x3/dgrad", "tiny 3x3/wgrad", "tiny train"}
    assert all(len(v) == 2 and min(v) > 0 for v in ms.values())


def test_missing_side_is_skipped_with_its_reason(tmp_path):
    version, why = conv_bench.run_side(str(tmp_path / "no-python"), "tf", 1, 1, [TINY])
    assert version is None and "no-python" in why
    best = {"tfcore": {"tiny 3x3/fwd": 2.0}, "tf": {"tiny 3x3/fwd": 4.0}, "torch": {}}
    table = conv_bench.format_table([TINY], best, {"tfcore": "x"}, {"torch": "ImportError: no torch"}, 1, 1, 1)
    assert "| tiny 3x3/fwd | 2.000 |" in table and "| 0.50 | - |" in table
    assert "| tiny 3x3/dgrad | - |" in table and "PyTorch skipped: ImportError: no torch" in table


def test_bench_cpu_flag_is_wired(monkeypatch):
    seen = {}
    monkeypatch.setattr(conv_bench, "run_matrix", lambda **kw: seen.update(kw) or {"tfcore": {"r": 1.0}})
    assert cli.main(["bench", "--cpu", "--quick", "--threads", "1", "--rounds", "1", "--repeat", "3",
                     "--tf-python", "/x/python", "--rows", "depthwise,3x3"]) == 0
    assert seen == dict(threads=1, repeat=3, rounds=1, quick=True, tf_python="/x/python", torch_python=None,
                        rows=["depthwise", "3x3"])


def test_bench_cpu_repeats_five_times_by_default(monkeypatch):
    seen = {}
    monkeypatch.setattr(conv_bench, "run_matrix", lambda **kw: seen.update(kw) or {"tfcore": {"r": 1.0}})
    assert cli.main(["bench", "--cpu"]) == 0
    assert seen["repeat"] == 5 and seen["rounds"] == 2 and seen["quick"] is False


def test_rows_keeps_the_rows_that_contain_a_part():
    ids = [c["id"] for c in conv_bench.cases(rows=["depthwise", "3x3 32->64"])]
    assert ids == ["3x3 32->64 b32 16x16", "depthwise 3x3 32ch b64 16x16"]
    with pytest.raises(SystemExit, match="no row of the matrix matches"):
        conv_bench.run_matrix(rows=["no such row"], out=lambda _: None)
