"""The report of ``bench/gpu_run.sh``: ``results.json`` and ``summary.md`` from the steps run so far.

Called after every step (so a run cut short still leaves a report): reads ``<work>/steps.jsonl`` (one
line per step: name, command, exit status, seconds, limit), each step's log ``<work>/logs/NN-name.log``
and the selftest's JSON, and writes into ``<results>``:

- ``results.json``: the run (date, commit, the GPU line of nvidia-smi, ``tfcore info``), every step
  with its log tail, and the selftest document;
- ``summary.md``: a table of the steps, then each step's figures (the benchmark tables as printed,
  the pytest summary, the selftest's failures and counts).

Standard library only: it must run even where tfcore cannot be imported.
"""

import argparse
import datetime
import json
import re
import subprocess
from pathlib import Path

FIGURE_LINES = 80  # per step in summary.md


def _read(path):
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def _commit(repo):
    """The checkout's commit, ``-dirty`` when its files differ from it (a copy of a working tree whose ``.git``
    is older than its files: on 11-27 a run of 62e162c's files reported the commit before it)."""
    try:
        out = subprocess.run(["git", "-C", str(repo), "describe", "--always", "--dirty", "--abbrev=7"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _verdict(step):
    if step.get("skipped"):
        return "skipped (budget spent)"
    if step.get("timed_out"):
        return f"TIMED OUT ({step['limit']} s)"
    return "ok" if step["rc"] == 0 else f"FAILED (exit {step['rc']})"


def _body(log):
    """The log without its first line (the command) and blank lines at the ends."""
    lines = log.splitlines()[1:]
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _figures(name, log, selftest):
    lines = _body(log)
    if name == "02-selftest" and selftest:
        c = selftest.get("counts", {})
        out = [f"{c.get('pass', 0)} passed, {c.get('fail', 0)} failed, {c.get('skip', 0)} skipped "
               f"in {selftest.get('seconds')} s"]
        out += [f"FAIL {ch['section']}: {ch['name']}: {ch['detail']}" for ch in selftest.get("checks", [])
                if ch["status"] == "FAIL"]
        out += [f"{ch['name']}: {ch['detail']}" for ch in selftest.get("checks", []) if ch["section"] == "graphs"]
        return out
    if name == "03-tests-gpu":
        keep = [ln for ln in lines if re.search(r"^(FAILED|ERROR)|passed|failed|skipped|error|slowest|^\d+\.\d+s ", ln)]
        return keep[-FIGURE_LINES:]
    if name in ("00-setup", "01-info"):
        return lines[:FIGURE_LINES]
    return [ln for ln in lines if ln.strip()][-FIGURE_LINES:]


def build(work, results, smoke):
    work, results = Path(work), Path(results)
    steps = [json.loads(ln) for ln in _read(work / "steps.jsonl").splitlines() if ln.strip()]
    logs = {s["name"]: _read(work / "logs" / f"{s['name']}.log") for s in steps}
    try:
        selftest = json.loads(_read(results / "selftest.json") or "null")
    except json.JSONDecodeError:
        selftest = None
    repo = Path(__file__).resolve().parents[1]
    gpu = next((ln[5:] for ln in _body(logs.get("00-setup", "")) if ln.startswith("GPU: ")), None)
    run = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"), "commit": _commit(repo),
           "smoke": bool(int(smoke)), "gpu": gpu, "info": _body(logs.get("01-info", ""))[:40],
           "total_seconds": round(sum(s["seconds"] for s in steps), 1)}
    doc = {"run": run, "steps": [{**s, "verdict": _verdict(s), "log_tail": _body(logs[s["name"]])[-40:]}
                                 for s in steps], "selftest": selftest}
    (results / "results.json").write_text(json.dumps(doc, indent=1))
    md = [f"# tfcore GPU run {run['date']}", "",
          f"commit {run['commit'] or 'unknown'}; GPU {gpu or 'unknown'}; {'smoke run; ' if run['smoke'] else ''}"
          f"{run['total_seconds']} s of steps", "", "| step | result | seconds | limit |", "|---|---|---|---|"]
    md += [f"| {s['name']} | {_verdict(s)} | {s['seconds']:.1f} | {s['limit']} |" for s in steps]
    for s in steps:
        md += ["", f"## {s['name']}: {_verdict(s)}", "", f"`{s['command'][:300]}`", "", "```"]
        md += _figures(s["name"], logs[s["name"]], selftest) or ["(no output)"]
        md += ["```"]
    (results / "summary.md").write_text("\n".join(md) + "\n")
    return doc


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--smoke", default="0")
    args = p.parse_args(argv)
    build(args.work, args.results, args.smoke)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
