"""``tfcore selftest`` probes that need a fresh process: CUDA-graph capture and replay, a forced capture
failure followed by eager work, the reduction-workspace regrowth under a live graph, and an explicit
``NcclAllReduce`` on two logical GPUs of one card.

Each probe checks observable behaviour through the public API (``tf.function`` with
``TFCORE_CUDA_GRAPHS=1``, ``tf.distribute``), so it holds whatever the capture mechanism looks like.
A probe runs in its own process (``python -m tfcore.selftest.probes NAME``): a failed capture can leave
a device unusable, and logical devices are configured before first use. It prints one line
``SELFTEST-PROBE {json}`` with ``status``, ``detail`` and ``data``.

On an emulated GPU there are no CUDA graphs (tfcore captures on real GPUs only): the graph probes then
check the values and say so; the NCCL probe runs the same fallback with the on-device kernel.
"""

import json
import os
import sys

import numpy as np

from .. import config
from ..distribute import MirroredStrategy, NcclAllReduce, ReduceOp, get_replica_context
from ..framework.context import device
from ..function import function
from ..ops import array_ops, math_ops, nn_ops, reduce_ops

MARKER = "SELFTEST-PROBE "
PROBES = {}


def probe(fn):
    PROBES[fn.__name__] = fn
    return fn


def _gpu0():
    from ..framework.context import context

    dev = context.find("GPU", 0)
    if dev is None:
        raise RuntimeError("no GPU:0 (real or emulated) in this process")
    return dev


def _stats(fn, *args):
    try:
        return dict(fn.get_concrete_function(*args).experimental_cuda_graph_stats())
    except Exception as e:  # noqa: BLE001 - stats are descriptive
        return {"status": f"unknown ({type(e).__name__}: {e})"}


def _emulated(dev):
    return bool(getattr(dev.backend, "emulated", False))


def _graph_note(dev, stats):
    if _emulated(dev):
        return "emulator: no CUDA graphs, values checked"
    return f"graph status: {stats.get('status')}, replays {stats.get('replays')}"


def _close(got, want, rtol=1e-5, atol=1e-5):
    return bool(np.allclose(np.asarray(got, np.float64), want, rtol=rtol, atol=atol))


def _mlp_function():
    @function
    def step(x, w):
        h = nn_ops.relu(math_ops.matmul(x, w) * 2.0 + 1.0)
        return math_ops.matmul(h, w, transpose_b=True) - 0.5

    return step


def _mlp_reference(x, w):
    h = np.maximum(x.astype(np.float64) @ w * 2.0 + 1.0, 0)
    return h @ w.T - 0.5


@probe
def graph_replay():
    """A small tf.function (two matmuls, element-wise ops) called 5 times: every result equals the float64
    reference; on a real GPU the plan is captured and replayed (status "replaying", replays >= 1)."""

    dev = _gpu0()
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((64, 48)).astype(np.float32), rng.standard_normal((48, 32)).astype(np.float32) / 8
    step = _mlp_function()
    with device("/GPU:0"):
        tx, tw = array_ops.constant(x), array_ops.constant(w)
        results = [step(tx, tw).numpy() for _ in range(5)]
        stats = _stats(step, tx, tw)  # in the device scope: the calls' concrete function
    # The first call runs the plan normally: it must match float64 (loosely: TF32 may be on), and every
    # replay must give exactly its bits (the same kernels on the same inputs).
    if not _close(results[0], _mlp_reference(x, w), 1e-2, 1e-2):
        return {"status": "FAIL", "detail": f"the first call differs from the float64 reference; "
                                            f"{_graph_note(dev, stats)}", "data": stats}
    wrong = [i for i, r in enumerate(results) if not np.array_equal(r, results[0])]
    if wrong:
        return {"status": "FAIL", "detail": f"calls {wrong} differ from the first call; {_graph_note(dev, stats)}",
                "data": stats}
    if not _emulated(dev) and (stats.get("status") != "replaying" or not stats.get("replays")):
        return {"status": "FAIL", "detail": f"values right but no graph replay: {_graph_note(dev, stats)}",
                "data": stats}
    return {"status": "PASS", "detail": f"5 calls bit-equal, first one = float64 ref; {_graph_note(dev, stats)}",
            "data": stats}


@probe
def capture_failure():
    """A capture that a capture-unsafe CUDA call invalidates (a stream synchronize inside the captured
    region, injected into the first kernel launch of the capturing call): that call's result, later calls
    and an eager op on the same GPU must all be right (the plan falls back, the stream works again)."""

    dev = _gpu0()
    backend = dev.backend
    lib = backend.kernels
    previous = lib.__dict__.get("launch")
    real = lib.launch
    armed = [False]
    injected = [0]

    def launch(*args, **kwargs):
        if armed[0]:
            armed[0] = False
            injected[0] += 1
            cuda = getattr(backend.xp, "cuda", None)  # CuPy on a real GPU, NumPy on an emulated one
            if cuda is not None:  # the current stream is the one a capture records: syncing it is illegal
                cuda.get_current_stream().synchronize()  # (cudaErrorStreamCaptureUnsupported, capture invalidated)
            else:
                backend.synchronize()
        return real(*args, **kwargs)

    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((32, 40)).astype(np.float32), rng.standard_normal((40, 24)).astype(np.float32) / 8
    want = _mlp_reference(x, w)
    step = _mlp_function()
    results, errors = [], []
    lib.launch = launch
    try:
        with device("/GPU:0"):
            tx, tw = array_ops.constant(x), array_ops.constant(w)
            for call in range(4):
                armed[0] = call == 1  # the first call warms up, the second captures
                try:
                    results.append(step(tx, tw).numpy())
                except Exception as e:  # noqa: BLE001 - reported
                    errors.append(f"call {call}: {type(e).__name__}: {e}")
                    results.append(None)
            try:
                eager = (array_ops.ones((8,)) + 1.0).numpy()
            except Exception as e:  # noqa: BLE001 - reported
                eager = None
                errors.append(f"eager op after the failed capture: {type(e).__name__}: {e}")
            stats = _stats(step, tx, tw)
    finally:
        if previous is None:
            lib.__dict__.pop("launch", None)
        else:
            lib.launch = previous
    wrong = [i for i, r in enumerate(results) if r is None or not _close(r, want, 1e-2, 1e-2)]  # TF32 may be on
    data = {"stats": stats, "errors": errors, "injected": injected[0]}
    if errors or wrong or eager is None or not np.array_equal(eager, np.full(8, 2.0, np.float32)):
        return {"status": "FAIL", "detail": "; ".join(errors)[:240] or f"calls {wrong} wrong", "data": data}
    note = _graph_note(dev, stats)
    if not _emulated(dev) and not str(stats.get("status", "")).startswith("not capturable"):
        # the values are right, but the injected call did not break a capture: nothing was tested
        return {"status": "SKIP", "detail": f"no capture was broken (injected {injected[0]}x); {note}", "data": data}
    return {"status": "PASS", "detail": f"4 calls right, eager op after it right; {note}", "data": data}


@probe
def workspace_regrowth():
    """A captured column reduction, then a larger eager reduction that regrows the reduction workspace,
    then new tensors that may reuse freed memory; later replays must still equal the reference (a graph
    owns every buffer it writes)."""

    dev = _gpu0()
    small = _emulated(dev)
    rows, big = (8192, (60000, 64)) if small else (50176, (200000, 64))
    x = np.random.default_rng(2).standard_normal((rows, 32)).astype(np.float32)
    want = x.astype(np.float64).sum(0) * 2.0 + 1.0

    @function
    def h(t):
        return reduce_ops.reduce_sum(t, 0) * 2.0 + 1.0

    with device("/GPU:0"):
        tx = array_ops.constant(x)
        before = [h(tx).numpy() for _ in range(5)]
        regrow = reduce_ops.reduce_sum(array_ops.ones(big), 0).numpy()
        held = [array_ops.fill((rows // 8, 32), 7.0) for _ in range(64)]
        after = [h(tx).numpy() for _ in range(3)]
        held_ok = all(float(t.numpy()[0, 0]) == 7.0 for t in held[:4])
        stats = _stats(h, tx)
    tol = dict(rtol=1e-4, atol=1e-4 * np.sqrt(rows))
    bad = [f"before[{i}]" for i, r in enumerate(before) if not _close(r, want, **tol)]
    bad += [f"after[{i}]" for i, r in enumerate(after) if not _close(r, want, **tol)]
    if not np.array_equal(regrow, np.full(big[1], float(big[0]), np.float32)):
        bad.append("the regrowing reduction")
    if not held_ok:
        bad.append("tensors allocated after the regrowth")
    note = _graph_note(dev, stats)
    if bad:
        return {"status": "FAIL", "detail": f"wrong: {', '.join(bad)}; {note}", "data": stats}
    if not _emulated(dev) and (stats.get("status") != "replaying" or not stats.get("replays")):
        return {"status": "SKIP", "detail": f"values right, but no graph was replayed; {note}", "data": stats}
    return {"status": "PASS", "detail": f"5 + 3 calls around a workspace regrowth equal the reference; {note}",
            "data": stats}


@probe
def split_card_nccl():
    """Two logical GPUs carved from GPU:0 and ``MirroredStrategy(cross_device_ops=NcclAllReduce())``: NCCL
    refuses two ranks on one GPU, so tfcore warns and reduces on the device; the sum must be right."""
    import logging


    gpus = config.list_physical_devices("GPU")
    if not gpus:
        raise RuntimeError("no GPU")
    limit = 256 if os.environ.get("TFCORE_EMULATED_GPUS", "0") not in ("", "0") else 2048
    config.set_logical_device_configuration(gpus[0], [config.LogicalDeviceConfiguration(memory_limit=limit)] * 2)
    messages = []

    class _Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    logging.getLogger("tfcore.distribute").addHandler(_Keep())
    strategy = MirroredStrategy(["/GPU:0", "/GPU:1"], cross_device_ops=NcclAllReduce())

    def replica_value():
        rid = get_replica_context().replica_id_in_sync_group
        return array_ops.ones((1000,)) * math_ops.cast(rid + 1, "float32")

    total = strategy.reduce(ReduceOp.SUM, strategy.run(replica_value), axis=None).numpy()
    fallback = [m for m in messages if "NCCL is not supported" in m]
    data = {"log": messages[-3:]}
    if not np.array_equal(total, np.full(1000, 3.0, np.float32)):
        return {"status": "FAIL", "detail": f"sum {total[:3]}... != 3.0", "data": data}
    how = "warned, fell back to the on-device reduction" if fallback else "no fallback warning"
    return {"status": "PASS", "detail": f"sum right; {how}", "data": data}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] not in PROBES:
        print(f"usage: python -m tfcore.selftest.probes {{{','.join(PROBES)}}}", file=sys.stderr)
        return 2
    os.environ.setdefault("TFCORE_CUDA_GRAPHS", "1")
    try:
        result = PROBES[argv[0]]()
    except Exception as e:  # noqa: BLE001 - reported as the probe's result
        result = {"status": "FAIL", "detail": f"{type(e).__name__}: {e}"[:300], "data": {}}
    print(MARKER + json.dumps(result, default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
