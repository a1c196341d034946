"""Runs the ``tfcore selftest`` sections (see the package docstring) and prints the table."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .report import FAIL, SKIP, Check, Recorder, format_table, to_json

PROBE_TIMEOUT_S = 60  # per probe on a real GPU (each takes ~10 s: a process start, cached kernels)
PROBE_SECTIONS = (("graphs", "CUDA graph capture and replay", "graph_replay"),
                  ("graphs", "forced capture failure, then eager ops", "capture_failure"),
                  ("graphs", "workspace regrowth under a live graph", "workspace_regrowth"),
                  ("nccl", "NcclAllReduce on 2 logical GPUs of one card", "split_card_nccl"))


def _gpu0_backend():
    from ..framework.context import context

    context.ensure_initialized()
    dev = context.find("GPU", 0)
    return None if dev is None else dev.backend


def run_probe(name, timeout):
    """Run probe ``name`` in a fresh process (this interpreter, this tfcore); returns its result dict."""
    from .probes import MARKER

    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # the folder holding this tfcore package
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["TFCORE_CUDA_GRAPHS"] = "1"  # graphs are opt-in: the probes turn them on
    try:
        proc = subprocess.run([sys.executable, "-m", "tfcore.selftest.probes", name], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": FAIL, "detail": f"timed out after {timeout} s", "data": {}}
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"status": FAIL, "detail": f"probe exited {proc.returncode}: {tail[0][:200]}", "data": {}}


def run_selftest(json_path=None, timings=True, probes=True, out=print, progress=None):
    """Run every section; print the table with ``out``; write ``json_path``; returns the exit status
    (0 when nothing failed). ``progress``: a callable for one line per finished check (stderr)."""
    from .kernel_checks import run_kernel_checks
    from .stack_checks import run_stack_checks, stack_meta
    from .timing_rows import run_timing_rows

    t0 = time.perf_counter()
    rec = Recorder(out=progress)
    meta = stack_meta()
    # Memory growth (unless the user chose): with growth off the first allocation reserves the whole card,
    # and the probe processes below need memory on the same GPU while this process is alive.
    os.environ.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")
    backend = None
    try:
        backend = _gpu0_backend()
    except Exception as e:  # noqa: BLE001 - reported in the table
        rec.add(Check("stack", "device initialisation", FAIL, f"{type(e).__name__}: {e}"[:300]))
    emulated = backend is not None and getattr(backend, "emulated", False)
    meta["device"] = None if backend is None else {
        "name": backend.device_name, "compute_capability": list(backend.compute_capability), "emulated": emulated}

    def save(complete):  # after every section, so a run cut short still leaves its rows
        if json_path:
            Path(json_path).parent.mkdir(parents=True, exist_ok=True)
            doc = to_json({**meta, "complete": complete}, rec.checks, time.perf_counter() - t0)
            Path(json_path).write_text(doc)

    run_stack_checks(rec, meta, backend)
    if backend is not None:
        run_kernel_checks(rec, backend, small=emulated)
    save(False)
    for section, name, probe in PROBE_SECTIONS:
        if backend is None or not probes:
            rec.run(section, name, lambda: (SKIP, "no GPU" if backend is None else "--no-probes"))
            continue
        started = time.perf_counter()
        result = run_probe(probe, timeout=240 if emulated else PROBE_TIMEOUT_S)
        rec.add(Check(section, name, result["status"], result["detail"], time.perf_counter() - started,
                      data=result.get("data") or {}))
        save(False)
    if timings:
        run_timing_rows(rec, backend)
    total = time.perf_counter() - t0
    label = "no GPU" if backend is None else f"GPU:0 {'(emulated) ' if emulated else ''}{backend.device_name}"
    out(format_table(f"tfcore selftest {meta['tfcore']} on {label}", rec.checks, total))
    save(True)
    return 1 if any(c.status == FAIL for c in rec.checks) else 0
