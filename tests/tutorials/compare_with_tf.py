"""Run each converted TensorFlow tutorial under tfcore and under real TensorFlow, and compare.

Usage (from the repository root)::

    python tests/tutorials/compare_with_tf.py --tf-python /path/to/tf-venv/bin/python
    # or: TFCORE_TF_PYTHON=/path/to/python python tests/tutorials/compare_with_tf.py [names...]

Every ``tests/tutorials/tutorial_*.py`` and ``tests/tutorials/pending/*.py`` runs twice, each time in a
fresh empty folder with ``PYTHONPATH=tests/tutorials`` (for :mod:`generated_data`): under tfcore as a
user runs a TF script on it (``python -m tfcore run file``, the ``tensorflow`` alias), and under the
TensorFlow Python given by ``--tf-python`` / ``TFCORE_TF_PYTHON``. It writes a markdown table
(``docs/tutorials.md``, with the date, TF version and tfcore commit) and a JSON (``--json``).

What "matches TF" means (the normalisation, :func:`normalise`, applied to both stdouts):

* **Exit**: both exit 0, or both fail with the same exception type raised from the same line of the
  tutorial file (the last traceback frame in that file).
* **Dropped lines**: Keras progress bars and per-epoch lines (``Epoch 3/5``, ``━``, ``.../step``,
  ``loss: ...``/``accuracy: ...`` logs), lines that report timings (``... seconds``, ``1.2s``,
  ``ms``), TF's own log lines (``WARNING:``, ``I0000 ...``) and blank lines. Those depend on speed,
  terminal width and the random initialisation, not on what the API returns.
* **Masked text**: object addresses (``0x7f...``) and temporary paths become placeholders; the
  ``{{function_node __wrapped__Reshape_device_/job:localhost/...}}`` prefix of TF's eager error messages
  (the name of TF's internal kernel wrapper) is dropped, the message after it is compared; the PEP 440
  local label of tfcore's ``tf.__version__`` (``2.21.0+tfcore...``) is dropped, and so is a detail that a
  tfcore error message adds after TF's text, marked as such: ``... [Op:Reshape] (tfcore: input shape ...)``.
* **Structure**: each kept line is split into its text and its numbers; the texts ("skeletons", with
  every number replaced by ``#``, whitespace runs collapsed, NumPy's width padding after ``[`` and before ``]``
  and ``,`` dropped) must be equal line by line, which checks the printed form of
  tensors, variables, shapes, dtypes and error messages.
* **What TF itself varies**: when the structure differs, TF runs the tutorial again (up to four times, until
  it matches); lines that TF prints differently from its first run (an unseeded shuffle prints other rows
  each time: ``load_csv``) are compared with their quoted strings masked, or skipped where more than
  strings vary. Only when the TF runs and tfcore print the same number of lines; the masked lines are
  listed (``tf_varying_lines``).
* **Values**: the numbers are compared with ``rtol=1e-3, atol=1e-5``. Values that depend on random
  initialisation or random data differ between the two frameworks (their generators differ even with
  the same seed), so a value mismatch is counted and listed (``values``) but does not fail the
  structural match; a tutorial matches "exactly" when the values agree too.
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent

RTOL, ATOL = 1e-3, 1e-5
TF_RERUNS = 4  # extra TF runs of a tutorial that differs, to find the lines TF itself varies

_DROP = [
    re.compile(r"^\s*Epoch \d+/\d+\s*$"),
    re.compile(r"━|\x08|\r"),
    re.compile(r"\d+(\.\d+)?m?s/step"),
    re.compile(r"^\s*\d+/\d+\s*\[[=>.]*\]"),                        # Keras 2 style bars
    re.compile(r"\b(loss|accuracy|acc|val_loss|val_accuracy|mae|mse): +-?\d"),  # any padding of the value
    re.compile(r"\b\d+(\.\d+)?\s*(s|ms|sec|secs|seconds|µs|us)\b"),  # timings
    re.compile(r"\b(seconds|time taken|elapsed)\b", re.I),
    re.compile(r"^(WARNING|INFO|ERROR)[: ]"),
    re.compile(r"^[IWE]\d{4} \d\d:\d\d"),                           # absl/glog lines
]
_FUNCTION_NODE = re.compile(r"\{\{function_node [^}]*\}\}\s*")  # TF runtime's internal kernel name in errors
_LOCAL_VERSION = re.compile(r"\+tfcore[\w.]*")  # "2.21.0+tfcore.0.1.0" (tf.__version__)
_TFCORE_DETAIL = re.compile(r" \(tfcore: [^()]*\)$")  # what a tfcore error adds after TF's own message
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_TMPPATH = re.compile(r"/tmp/[^\s'\",)]+")
_MASKS = [(_TFCORE_DETAIL, ""), (_LOCAL_VERSION, ""), (_FUNCTION_NODE, ""), (_ADDRESS, "0x<addr>"),
          (_TMPPATH, "<tmp>")]
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_MAX_JOINED = 40


def _open_brackets(line: str) -> int:
    bare = _QUOTED.sub("", line)
    return bare.count("[") - bare.count("]")


def _logical_lines(lines):
    """Physical lines -> logical ones: an array NumPy wrapped over several lines (its ``[`` not yet closed)
    is one line, since where NumPy wraps depends on the printed values' widths (at most 40 lines joined)."""
    held, depth = [], 0
    for line in lines:
        held.append(line.strip() if held else line)
        depth += _open_brackets(line)
        if depth <= 0 or len(held) >= _MAX_JOINED:
            yield " ".join(held)
            held, depth = [], 0
    if held:
        yield " ".join(held)


def normalise(text: str) -> list[tuple[str, list[float]]]:
    """Stdout -> kept lines as ``(skeleton, numbers)``: progress/timing/log lines dropped, addresses and
    temp paths masked, a wrapped array joined into one line, whitespace runs collapsed, every number
    replaced by ``#`` in the skeleton."""
    out = []
    kept = [line for line in text.splitlines() if line.strip() and not any(p.search(line) for p in _DROP)]
    for line in _logical_lines(kept):
        for pattern, placeholder in _MASKS:
            line = pattern.sub(placeholder, line)
        numbers = [float(m) for m in _NUMBER.findall(line)]
        skeleton = (" ".join(_NUMBER.sub("#", line).split()).replace("[ ", "[").replace(" ]", "]")
                    .replace(" ,", ","))
        out.append((skeleton, numbers))
    return out


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= ATOL + RTOL * abs(b)


def _without_strings(skeleton: str) -> str:
    return _QUOTED.sub("''", skeleton)


def tf_varying_lines(first: str, second: str) -> dict[int, bool]:
    """Lines whose text differs between two TF runs of the same program (an unseeded shuffle, a random
    sample printed): ``{index: strings_only}``, ``strings_only`` when the lines agree once quoted strings are
    masked. Empty when the runs print different numbers of lines (nothing can be aligned)."""
    a, b = normalise(first), normalise(second)
    if len(a) != len(b):
        return {}
    return {i: _without_strings(x) == _without_strings(y) for i, ((x, _), (y, _)) in enumerate(zip(a, b)) if x != y}


def compare_stdout(ours: str, theirs: str, varying: dict[int, bool] | None = None) -> dict:
    """Compare two stdouts after :func:`normalise`: ``structure`` (skeletons equal line by line),
    ``values`` (numbers within tolerance), the line counts and the first differing lines. ``varying``
    (:func:`tf_varying_lines`): lines TF itself prints differently from run to run are compared with their
    quoted strings masked (or not at all where more than strings vary), when both sides print as many lines."""
    a, b = normalise(ours), normalise(theirs)
    if varying and len(a) == len(b):
        for i, strings_only in varying.items():
            theirs_line = _without_strings(b[i][0]) if strings_only else "<varies between TF runs>"
            ours_line = _without_strings(a[i][0]) if strings_only else "<varies between TF runs>"
            a[i], b[i] = (ours_line, []), (theirs_line, [])
    sk_a, sk_b = [s for s, _ in a], [s for s, _ in b]
    diff = [d for d in difflib.unified_diff(sk_b, sk_a, "tf", "tfcore", n=0, lineterm="")
            if not d.startswith(("---", "+++", "@@"))]
    structure = sk_a == sk_b
    value_diffs = []
    if structure:
        for i, ((s, na), (_, nb)) in enumerate(zip(a, b)):
            if len(na) != len(nb) or not all(_close(x, y) for x, y in zip(na, nb)):
                value_diffs.append(f"line {i + 1}: {s!r} tfcore {na[:6]} tf {nb[:6]}")
    return {"structure": structure, "values": structure and not value_diffs,
            "lines": len(b), "lines_tfcore": len(a), "diff": diff[:20], "value_diffs": value_diffs[:10]}


_LOG_LINE = re.compile(r"^(WARNING|INFO|ERROR|DEBUG)[: ]|^[IWE]\d{4} ")
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_EXC = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure)?)(?::|$)")


def failure_point(stderr: str, script: str) -> tuple[str | None, int | None]:
    """``(exception type, line in the tutorial)`` of an uncaught exception in ``stderr``."""
    line = None
    for m in _FRAME.finditer(stderr):
        if pathlib.Path(m.group(1)).name == pathlib.Path(script).name:
            line = int(m.group(2))
    exc = None
    for row in reversed(stderr.strip().splitlines()):
        m = _EXC.match(row.strip())
        if m and not row.startswith((" ", "\t")) and not _LOG_LINE.match(row):
            exc = m.group(1).rsplit(".", 1)[-1]
            break
    return exc, line


def run_one(cmd: list[str], script: pathlib.Path, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(HERE), TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="",
               PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory(prefix="tfcompare-") as cwd:
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd + [str(script)], cwd=cwd, env=env, capture_output=True, text=True,
                               timeout=timeout)
            rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            partial = e.stdout or b""
            rc, out, err = "timeout", partial.decode() if isinstance(partial, bytes) else partial, ""
        seconds = time.perf_counter() - t0
    exc, line = failure_point(err, script.name) if rc != 0 else (None, None)
    return {"rc": rc, "seconds": round(seconds, 2), "exception": exc, "line": line,
            "stdout": out, "stderr_tail": err[-2000:]}


def compare_tutorial(script: pathlib.Path, tf_python: str, timeout: float = 300) -> dict:
    """Run ``script`` under tfcore and TF and compare exits and stdouts."""
    ours = run_one([sys.executable, "-m", "tfcore", "run"], script, timeout)
    theirs = run_one([tf_python], script, timeout)
    same_exit = (ours["rc"] == 0 and theirs["rc"] == 0) or (
        ours["rc"] != 0 and theirs["rc"] != 0 and ours["exception"] == theirs["exception"]
        and ours["line"] == theirs["line"])
    cmp = compare_stdout(ours["stdout"], theirs["stdout"])
    varying = {}
    for _ in range(TF_RERUNS if theirs["rc"] == 0 else 0):  # does TF print the same when run again?
        if cmp["structure"]:
            break
        again = tf_varying_lines(theirs["stdout"], run_one([tf_python], script, timeout)["stdout"])
        for i, strings_only in again.items():
            varying[i] = varying.get(i, True) and strings_only
        if varying:
            cmp = compare_stdout(ours["stdout"], theirs["stdout"], varying)
    cmp["tf_varying_lines"] = sorted(varying)
    return {"tutorial": script.stem.removeprefix("tutorial_"), "file": str(script.relative_to(ROOT)),
            "runs": ours["rc"] == 0, "tf_runs": theirs["rc"] == 0, "same_exit": same_exit,
            "matches": same_exit and cmp["structure"], "values_match": same_exit and cmp["values"],
            "tfcore": {k: v for k, v in ours.items() if k != "stdout"},
            "tf": {k: v for k, v in theirs.items() if k != "stdout"}, **cmp}


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _tf_version(tf_python: str) -> str:
    r = subprocess.run([tf_python, "-c", "import tensorflow as tf, keras; print(tf.__version__, keras.__version__)"],
                       capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    parts = r.stdout.split()
    return f"TensorFlow {parts[0]}, Keras {parts[1]}" if len(parts) == 2 else "unknown"


def _exit_text(side: dict) -> str:
    if side["rc"] == 0:
        return "ok"
    if side["rc"] == "timeout":
        return "timeout"
    return f"{side['exception']} at line {side['line']}"


def markdown(results: list[dict], header: dict) -> str:
    n = len(results)
    runs = sum(r["runs"] for r in results)
    match = sum(r["matches"] for r in results)
    exact = sum(r["values_match"] for r in results)
    rows = [
        "# TensorFlow tutorials: tfcore compared with real TensorFlow",
        "",
        f"Generated by `python tests/tutorials/compare_with_tf.py` on {header['date']} "
        f"against {header['tf_version']}, tfcore commit `{header['commit']}`.",
        "How output is normalised and what \"matches\" means: the docstring of `tests/tutorials/compare_with_tf.py`",
        "(same exit, or same exception at the same line; the printed lines equal once progress bars, timings and logs",
        "are dropped, with numbers compared separately: *values* differ where they come from random initialisation).",
        "",
        f"**{runs}/{n} run on tfcore, {match}/{n} match TF ({exact}/{n} with equal values).** "
        f"TF side: {header['tf_seconds']:.0f} s in total, tfcore side: {header['tfcore_seconds']:.0f} s.",
        "",
        "| tutorial | runs on tfcore | runs on TF | matches TF | values equal | lines compared | tfcore s | TF s "
        "| first difference |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        first = ""
        if not r["same_exit"]:
            first = f"exit: tfcore {_exit_text(r['tfcore'])}, TF {_exit_text(r['tf'])}"
        elif r["diff"]:
            first = " / ".join(r["diff"][:2])
        elif r["value_diffs"]:
            first = r["value_diffs"][0]
        elif r.get("tf_varying_lines"):
            first = f"{len(r['tf_varying_lines'])} lines vary between two TF runs (masked)"
        first = first.replace("|", "\\|")[:160]
        yes = {True: "yes", False: "**no**"}
        pending = " (pending)" if "/pending/" in r["file"] else ""
        rows.append(f"| {r['tutorial']}{pending} | {yes[r['runs']]} | {'yes' if r['tf_runs'] else 'no'} | "
                    f"{yes[r['matches']]} | {'yes' if r['values_match'] else 'no'} | "
                    f"{r['lines']} | {r['tfcore']['seconds']} | {r['tf']['seconds']} | `{first}` |"
                    .replace("``", ""))
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="tutorial names or files (default: all, pending included)")
    ap.add_argument("--tf-python", default=os.environ.get("TFCORE_TF_PYTHON"),
                    help="Python with tensorflow installed (env TFCORE_TF_PYTHON)")
    ap.add_argument("--markdown", default=str(ROOT / "docs" / "tutorials.md"))
    ap.add_argument("--json", default=str(ROOT / "docs" / "tutorials.json"))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--no-pending", action="store_true", help="only the collected tutorial_*.py")
    ap.add_argument("--update", action="store_true",
                    help="keep the other tutorials' rows of the existing --json, replace those run now")
    args = ap.parse_args(argv)
    if not args.tf_python:
        ap.error("no TensorFlow Python: pass --tf-python or set TFCORE_TF_PYTHON")
    scripts = sorted(HERE.glob("tutorial_*.py"))
    if not args.no_pending:
        scripts += sorted((HERE / "pending").glob("*.py"))
    if args.names:
        scripts = [s for s in scripts if s.stem.removeprefix("tutorial_") in args.names or s.name in args.names]
    results = []
    for s in scripts:
        r = compare_tutorial(s, args.tf_python, args.timeout)
        print(f"{r['tutorial']:32s} runs={r['runs']!s:5} tf_runs={r['tf_runs']!s:5} matches={r['matches']!s:5} "
              f"values={r['values_match']!s:5} tfcore {r['tfcore']['seconds']:6.1f}s tf {r['tf']['seconds']:6.1f}s",
              flush=True)
        for d in (r["diff"][:4] if not r["matches"] else []):
            print("     ", d[:200])
        results.append(r)
    if args.update and pathlib.Path(args.json).exists():
        done = {r["tutorial"] for r in results}
        kept = [r for r in json.loads(pathlib.Path(args.json).read_text())["results"] if r["tutorial"] not in done]
        results = sorted(kept + results, key=lambda r: ("/pending/" in r["file"], r["tutorial"]))
    header = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "tf_version": _tf_version(args.tf_python), "commit": _git_commit(),
              "tf_seconds": sum(r["tf"]["seconds"] for r in results),
              "tfcore_seconds": sum(r["tfcore"]["seconds"] for r in results)}
    if args.markdown:
        pathlib.Path(args.markdown).write_text(markdown(results, header))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({**header, "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
