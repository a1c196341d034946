"""``tfcore selftest`` (issue 21 item 10): the command on an emulated GPU, its table and JSON, its exit
status, and that its checks catch a wrong kernel result.

The end-to-end run starts ``python -m tfcore selftest`` with ``TFCORE_EMULATED_GPUS=1`` in a fresh
process (small shapes, no timings; about 15 s with the emulator's kernel builds cached), so it runs in
the CPU pass of CI only.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tfcore.backend.emulator.backend import EmulatedGPUBackend
from tfcore.selftest import kernel_checks, report, runner, stack_checks

REPO = Path(__file__).resolve().parents[1]
SECTIONS = ("stack", "kernels", "graphs", "nccl", "timing")


@pytest.mark.skipif(bool(os.environ.get("TFCORE_EMULATED_GPUS")), reason="runs its own emulated GPU: CPU pass only")
def test_selftest_on_the_emulator_prints_one_table_and_writes_json(tmp_path):
    out = tmp_path / "selftest.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(TFCORE_EMULATED_GPUS="1", PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "tfcore", "selftest", "--json", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[0].startswith("tfcore selftest ") and "(emulated)" in lines[0]
    assert lines[1].split()[:4] == ["section", "check", "result", "seconds"]
    rows = lines[3:-2]
    assert {r.split()[0] for r in rows} == set(SECTIONS)
    assert all(r.split()[-1] != "FAIL" for r in rows)
    assert " 0 failed" in lines[-1]
    doc = json.loads(out.read_text())
    assert doc["ok"] is True and doc["counts"]["fail"] == 0 and doc["device"]["emulated"] is True
    names = {c["name"]: c for c in doc["checks"]}
    for variant in ("TC f16", "TC TF32", "SIMT f32"):
        for case in ("odd channels", "misaligned", "split-K"):
            row = next(c for n, c in names.items() if n.startswith(f"conv {variant}:") and case in n)
            assert row["status"] == "PASS" and row["max_error"] <= 1.0
            assert all(k in row["detail"] for k in ("fwd", "dgrad", "wgrad"))
    for probe in ("CUDA graph capture and replay", "forced capture failure, then eager ops",
                  "workspace regrowth under a live graph", "NcclAllReduce on 2 logical GPUs of one card"):
        assert names[probe]["status"] == "PASS", names[probe]
    assert "fell back to the on-device reduction" in names["NcclAllReduce on 2 logical GPUs of one card"]["detail"]
    assert [c["status"] for c in doc["checks"] if c["section"] == "timing"] == ["SKIP"]
    assert len(doc["checks"]) == len(rows)
    assert "PASS kernels:" in proc.stderr  # progress lines go to stderr, the table alone to stdout


@pytest.fixture
def emulated_backend():
    return EmulatedGPUBackend(0, "Emulated GPU", (8, 0), 256 << 20, memory_limit_bytes=128 << 20)


@pytest.mark.emulator
@pytest.mark.parametrize("broken", ["conv2d_filter_grad", "conv2d_input_grad"])
def test_a_wrong_tensor_core_gradient_fails_its_check(emulated_backend, monkeypatch, broken):
    from tfcore.ops.cuda_kernels import conv

    h = kernel_checks.KernelHarness(emulated_backend)
    case = kernel_checks.conv_cases(small=True)[0]
    assert kernel_checks.check_conv(h, case, np.float16, "f16", True)[0] == report.PASS
    real = getattr(conv, broken)

    def off_by_a_bit(b, *args, **kwargs):
        out = real(b, *args, **kwargs)
        out.reshape(-1)[0] += 0.5  # one wrong element
        return out

    monkeypatch.setattr(conv, broken, off_by_a_bit)
    status, detail, worst = kernel_checks.check_conv(h, case, np.float16, "f16", True)
    assert status == report.FAIL and worst > 1.0
    words = detail.split()
    direction = {"conv2d_filter_grad": "wgrad", "conv2d_input_grad": "dgrad"}[broken]
    assert float(words[words.index(direction) + 1]) > 1.0


def test_error_ratio_flags_nan_and_shape_mismatches():
    assert kernel_checks.error_ratio([1.0, 2.0], [1.0, 2.0], 1e-5, 1e-5) == 0.0
    assert kernel_checks.error_ratio([1.0, 2.1], [1.0, 2.0], 0, 0.05) == pytest.approx(2.0)
    assert kernel_checks.error_ratio([np.nan], [1.0], 1, 1) == float("inf")
    with pytest.raises(ValueError, match="shape"):
        kernel_checks.error_ratio(np.zeros(3), np.zeros(4), 1, 1)


def test_a_failing_check_makes_the_exit_status_one_and_is_named(monkeypatch, tmp_path):
    def broken_stack(rec, meta, backend):
        rec.run("stack", "a check that raises", lambda: 1 / 0)

    monkeypatch.setattr(stack_checks, "run_stack_checks", broken_stack)
    monkeypatch.setenv("TF_FORCE_GPU_ALLOW_GROWTH", os.environ.get("TF_FORCE_GPU_ALLOW_GROWTH", "true"))  # restored
    printed = []
    status = runner.run_selftest(json_path=tmp_path / "r.json", timings=False, probes=False, out=printed.append)
    assert status == 1
    table = printed[0]
    assert "a check that raises" in table and "FAIL" in table and "ZeroDivisionError" in table
    assert "FAILED: stack: a check that raises" in table.splitlines()[-1]
    assert json.loads((tmp_path / "r.json").read_text())["ok"] is False
