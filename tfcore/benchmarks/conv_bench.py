"""CPU convolution benchmark matrix: tfcore next to TensorFlow and PyTorch, each in its own process.

``tfcore bench --cpu`` (or ``python bench/bench_conv_cpu.py``) times Conv2D forward, input gradient
(``dgrad``) and filter gradient (``wgrad``) over kernel sizes 1x1, 3x3, 4x4 SAME (asymmetric padding),
5x5 and 7x7 stride 2, channels 1->8 up to 64->128, batches 32 to 256, a depthwise 3x3, and whole Keras
CNN training steps as ``tf.function`` (the 4x4 SAME CNN of issue 28 is the headline row). It prints a
markdown table: per row the median ms of each framework, tfcore's GFLOP/s, and the ratios tfcore/TF and
tfcore/PyTorch (below 1.0: tfcore is faster).

Each framework runs :mod:`tfcore.benchmarks.conv_bench_worker` in a process of its own with the same thread count
(``--threads``, default: this machine's cores), TensorFlow and PyTorch through the Python given by
``--tf-python``/``--torch-python`` or ``$TFCORE_BENCH_TF_PYTHON``/``$TFCORE_BENCH_TORCH_PYTHON`` (default:
this Python); a side whose framework does not import is shown as ``-``. The sides run interleaved,
``--rounds`` times, and each row keeps the minimum over rounds of the per-round medians: on a busy machine
that is the least disturbed figure. ``--quick`` keeps a few rows (seconds, for smoke tests).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

WORKER = Path(__file__).with_name("conv_bench_worker.py")

# (id, n, h, ci, co, k, stride, padding): square NHWC float32 inputs.
KERNEL_CASES = (
    ("1x1 32->64 b64 16x16", 64, 16, 32, 64, 1, 1, "SAME"),
    ("1x1 64->128 b32 16x16", 32, 16, 64, 128, 1, 1, "SAME"),
    ("3x3 1->8 b64 28x28", 64, 28, 1, 8, 3, 1, "SAME"),
    ("3x3 8->16 b64 28x28", 64, 28, 8, 16, 3, 1, "SAME"),
    ("3x3 8->16 b256 28x28", 256, 28, 8, 16, 3, 1, "SAME"),
    ("3x3 32->64 b32 16x16", 32, 16, 32, 64, 3, 1, "SAME"),
    ("3x3 64->128 b32 8x8", 32, 8, 64, 128, 3, 1, "SAME"),
    ("4x4 SAME 1->8 b64 28x28", 64, 28, 1, 8, 4, 1, "SAME"),
    ("4x4 SAME 8->16 b64 14x14", 64, 14, 8, 16, 4, 1, "SAME"),
    ("5x5 8->16 b64 28x28", 64, 28, 8, 16, 5, 1, "SAME"),
    ("5x5 VALID 32->64 b32 16x16", 32, 16, 32, 64, 5, 1, "VALID"),
    ("5x5 SAME 3->32 b32 32x32", 32, 32, 3, 32, 5, 1, "SAME"),  # the 5x5 training row's layers
    ("5x5 SAME 32->64 b32 16x16", 32, 16, 32, 64, 5, 1, "SAME"),
    ("7x7 s2 1->8 b64 28x28", 64, 28, 1, 8, 7, 2, "SAME"),
    ("7x7 s2 8->16 b32 56x56", 32, 56, 8, 16, 7, 2, "SAME"),
)
DEPTHWISE_CASES = (("depthwise 3x3 32ch b64 16x16", 64, 16, 32, 32, 3, 1, "SAME"),)
# (id, batch, h, channels, [(filters, kernel), ...]): conv(same, relu) + 2x2 max pool per entry, then Dense(10).
TRAIN_CASES = (
    ("train CNN 4x4 SAME 8,16 b64 (issue 28)", 64, 28, 1, [(8, 4), (16, 4)]),
    ("train CNN 3x3 32,64 b64", 64, 28, 1, [(32, 3), (64, 3)]),
    ("train CNN 3x3 16,32 b256", 256, 28, 1, [(16, 3), (32, 3)]),
    ("train CNN 5x5 32,64 b32 32x32x3", 32, 32, 3, [(32, 5), (64, 5)]),
)
QUICK_IDS = ("3x3 8->16 b64 28x28", "4x4 SAME 8->16 b64 14x14", "train CNN 4x4 SAME 8,16 b64 (issue 28)")


def cases(quick=False, rows=None):
    """The matrix's cases as the worker reads them (JSON-able dicts); ``rows``: keep only the rows whose
    name contains one of these strings."""
    out = [dict(id=c[0], kind="conv", n=c[1], h=c[2], ci=c[3], co=c[4], k=c[5], s=c[6], pad=c[7])
           for c in KERNEL_CASES]
    out += [dict(id=c[0], kind="depthwise", n=c[1], h=c[2], ci=c[3], co=c[4], k=c[5], s=c[6], pad=c[7])
            for c in DEPTHWISE_CASES]
    out += [dict(id=c[0], kind="train", n=c[1], h=c[2], c=c[3], convs=c[4]) for c in TRAIN_CASES]
    if rows:
        out = [c for c in out if any(r in c["id"] for r in rows)]
    return [c for c in out if c["id"] in QUICK_IDS] if quick else out


def conv_gflop(case):
    """GFLOP of one forward convolution (each gradient costs the same): 2 * outputs * terms per sum."""
    oh = -(-case["h"] // case["s"]) if case["pad"] == "SAME" else (case["h"] - case["k"]) // case["s"] + 1
    terms = case["k"] * case["k"] * (1 if case["kind"] == "depthwise" else case["ci"])
    return 2.0 * case["n"] * oh * oh * case["co"] * terms / 1e9


# Runs the worker by path without putting its folder (tfcore/, whose math.py, random.py, ... would shadow the
# standard library) on sys.path.
_LAUNCH = ("import runpy, sys; sys.path.pop(0); sys.argv = sys.argv[1:]; "
           "runpy.run_path(sys.argv[0], run_name='__main__')")


def run_side(python, framework, threads, repeat, case_list, timeout=600):
    """One worker run: ``(version, {row: [ms, ...]})``, or ``(None, reason)`` when the side cannot run."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), TF_CPP_MIN_LOG_LEVEL="3")
    if framework != "tfcore":
        env.pop("PYTHONPATH", None)
    try:
        argv = [python, "-c", _LAUNCH, str(WORKER), framework, str(threads), str(repeat), json.dumps(case_list)]
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{type(e).__name__}: {e}"
    lines = proc.stdout.strip().splitlines()
    try:
        doc = json.loads(lines[-1])
    except (IndexError, ValueError):
        return None, f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
    if "error" in doc:
        return None, doc["error"]
    return doc["version"], doc["ms"]


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def run_matrix(threads=None, repeat=5, rounds=2, quick=False, tf_python=None, torch_python=None, out=print,
               rows=None):
    """Run the matrix (the sides interleaved, ``rounds`` times; ``rows`` as in :func:`cases`); returns
    ``{framework: {row: ms}}`` and prints the markdown table."""
    threads = threads or os.cpu_count() or 1
    sides = {"tfcore": sys.executable,
             "tf": tf_python or os.environ.get("TFCORE_BENCH_TF_PYTHON") or sys.executable,
             "torch": torch_python or os.environ.get("TFCORE_BENCH_TORCH_PYTHON") or tf_python
             or os.environ.get("TFCORE_BENCH_TF_PYTHON") or sys.executable}
    case_list = cases(quick, rows)
    if not case_list:
        raise SystemExit(f"tfcore bench --cpu: no row of the matrix matches --rows {','.join(rows or ())!r}")
    best, versions, missing = {f: {} for f in sides}, {}, {}
    for _ in range(rounds):
        for framework, python in sides.items():
            if framework in missing:
                continue
            version, ms = run_side(python, framework, threads, repeat, case_list)
            if version is None:
                missing[framework] = ms
                continue
            versions[framework] = version
            for row, samples in ms.items():
                m = _median(samples)
                best[framework][row] = min(best[framework].get(row, m), m)
    out(format_table(case_list, best, versions, missing, threads, repeat, rounds))
    return best


def format_table(case_list, best, versions, missing, threads, repeat, rounds):
    """The markdown table of :func:`run_matrix`."""
    names = {"tfcore": "tfcore", "tf": "TF", "torch": "PyTorch"}
    head = ["row", "tfcore ms", "GFLOP/s", "TF ms", "PyTorch ms", "tfcore/TF", "tfcore/PyTorch"]
    lines = [f"CPU convolution matrix: {threads} threads, float32 NHWC, min over {rounds} interleaved rounds of the "
             f"median of {repeat} repeats; versions: "
             + ", ".join(f"{names[f]} {v}" for f, v in versions.items()),
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def ms(f, row):
        v = best.get(f, {}).get(row)
        return "-" if v is None else f"{v:.3f}"

    def ratio(row, other):
        a, b = best["tfcore"].get(row), best.get(other, {}).get(row)
        return "-" if a is None or b is None else f"{a / b:.2f}"

    for case in case_list:
        rows = [case["id"]] if case["kind"] == "train" else [f"{case['id']}/{op}" for op in ("fwd", "dgrad", "wgrad")]
        for row in rows:
            ours = best["tfcore"].get(row)
            rate = "-" if case["kind"] == "train" or not ours else f"{conv_gflop(case) / ours * 1e3:.1f}"
            lines.append(f"| {row} | {ms('tfcore', row)} | {rate} | {ms('tf', row)} | {ms('torch', row)} | "
                         f"{ratio(row, 'tf')} | {ratio(row, 'torch')} |")
    for f, why in missing.items():
        lines.append(f"\n{names[f]} skipped: {why}")
    lines.append("\nratios below 1.0: tfcore is faster. Timings on a shared machine are noisy; rerun on a quiet one.")
    return "\n".join(lines)


def add_arguments(group, quick=True):
    """``tfcore bench --cpu`` options (also those of bench/bench_conv_cpu.py); ``quick=False`` where the
    parser already has a ``--quick`` (``tfcore bench``'s, which then means the same here)."""
    group.add_argument("--threads", type=int, default=None, help="intra-op threads of every side (default: all "
                       "cores)")
    group.add_argument("--rounds", type=int, default=2, help="interleaved rounds per side (default 2)")
    if quick:
        group.add_argument("--quick", action="store_true", help="a few rows only (smoke test)")
    group.add_argument("--rows", default=None, type=lambda v: [r for r in v.split(",") if r],
                       help="comma-separated parts of row names: run only the rows that contain one")
    group.add_argument("--tf-python", default=None, help="the Python that has TensorFlow (default: "
                       "$TFCORE_BENCH_TF_PYTHON, else this one)")
    group.add_argument("--torch-python", default=None, help="the Python that has PyTorch (default: "
                       "$TFCORE_BENCH_TORCH_PYTHON, else the TF one)")


def run_from_args(args):
    if args.repeat < 1 or args.rounds < 1:
        raise SystemExit("tfcore bench --cpu: --repeat and --rounds must be >= 1")
    best = run_matrix(threads=args.threads, repeat=args.repeat, rounds=args.rounds, quick=args.quick,
                      tf_python=args.tf_python, torch_python=args.torch_python, rows=args.rows)
    return 0 if best["tfcore"] else 1
