"""``bench/gpu_run.sh`` (issue 22 item 1), the prepared GPU command, in smoke mode on this machine.

Parts of it, to stay short: the setup, ``tfcore info``, ``pytest tests/gpu`` and a kernel benchmark on an
emulated GPU with the results written as on the GPU machine (results.json, summary.md, the step logs in
logs.tar.gz, at most 8 files: what the device tool brings back); then a run whose steps fail, hang and
run out of the time budget, which must still go on to the end and report each. The selftest step has
its own test (tests/test_selftest.py). CPU pass only: the script sets up its own emulated GPU.
"""

import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "bench" / "gpu_run.sh"

pytestmark = pytest.mark.skipif(bool(os.environ.get("TFCORE_EMULATED_GPUS")),
                                reason="the script sets up its own emulated GPU: CPU pass only")


def _run(tmp_path, steps, python=sys.executable, **env):
    out, work = tmp_path / "out", tmp_path / "work"
    full = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TFCORE_"))}
    full.update(OUT=str(out), GPU_RUN_WORK=str(work), GPU_RUN_STEPS=",".join(steps), PYTHON=python,
                GPU_RUN_HELPER_PYTHON=sys.executable, TFCORE_EMULATED_GPUS="1", **env)
    proc = subprocess.run(["bash", str(SCRIPT), "--smoke"], capture_output=True, text=True, timeout=300, env=full)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    return proc, out


def test_smoke_steps_write_results_summary_and_logs(tmp_path):
    steps = ["00-setup", "01-info", "03-tests-gpu", "04-bench-kernels", "10-profile-ops"]
    proc, out = _run(tmp_path, steps)
    assert sorted(p.name for p in out.iterdir()) == ["gpu-run.log", "logs.tar.gz", "results.json", "summary.md"]
    doc = json.loads((out / "results.json").read_text())
    assert [s["name"] for s in doc["steps"]] == steps
    assert all(s["rc"] == 0 and s["verdict"] == "ok" for s in doc["steps"]), doc["steps"]
    assert doc["run"]["smoke"] is True
    assert any("tfcore.distribute" in ln or "distribute/__init__.py" in ln
               for ln in doc["steps"][0]["log_tail"])  # imported from this checkout's top-level folder
    assert any(ln.startswith("GPU found: yes") for ln in doc["run"]["info"])  # the emulated GPU
    summary = (out / "summary.md").read_text()
    for name in steps:
        assert f"| {name} | ok |" in summary
    assert re.search(r"reduce +sum", summary)  # the benchmark table itself
    assert "ops per step" in summary  # the op profile
    assert " skipped" in summary  # tests/gpu collected and skipped on the emulator
    with tarfile.open(out / "logs.tar.gz") as tar:
        assert sorted(tar.getnames()) == ["logs"] + [f"logs/{n}.log" for n in steps]
    assert "gpu_run.sh: done in" in proc.stdout


FAKE_PYTHON = """#!/usr/bin/env bash
case "$*" in
  *"tfcore info"*) echo "info broke" >&2; exit 3 ;;
  *pytest*) sleep 60 ;;
esac
exec {python} "$@"
"""


def test_failures_hangs_and_the_budget_never_stop_the_run(tmp_path):
    fake = tmp_path / "python"
    fake.write_text(FAKE_PYTHON.format(python=sys.executable))
    fake.chmod(0o755)
    steps = ["03-tests-gpu", "04-bench-kernels"]  # 01-info runs before them unasked (the native CPU build)
    _, out = _run(tmp_path, steps, python=str(fake), GPU_RUN_BUDGET_S="9", GPU_RUN_MIN_STEP_S="2")
    doc = json.loads((out / "results.json").read_text())
    verdicts = {s["name"]: s["verdict"] for s in doc["steps"]}
    assert list(verdicts) == ["01-info", *steps]
    assert verdicts["01-info"] == "FAILED (exit 3)"
    assert verdicts["03-tests-gpu"].startswith("TIMED OUT")  # its limit cut to what was left of the budget
    assert verdicts["04-bench-kernels"] == "skipped (budget spent)"
    summary = (out / "summary.md").read_text()
    assert "| 01-info | FAILED (exit 3) |" in summary and "info broke" in summary
