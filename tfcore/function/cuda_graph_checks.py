"""Self-checks of CUDA-graph safety on a device: small functions a command (``tfcore selftest``) or a
test can call to see, on this machine, that the mechanisms of :mod:`tfcore.backend.cuda_graphs` work.

Each returns ``{"ok": bool, "detail": str}`` and leaves the device usable whatever happens:

- :func:`forced_capture_failure`: a capture invalidated by a call CUDA forbids inside it (a host wait
  on the capturing stream) is aborted, and an eager op on the same logical GPU then gives the right
  values (a stream left in an invalidated capture would fail every later op with error 901).
- :func:`workspace_regrowth`: a ``tf.function`` whose captured reduction uses the split-reduction
  workspace replays correctly after a larger eager reduction replaced that workspace and other tensors
  took the freed memory (a graph that did not own its workspace would write into them).

They need a real GPU for a real capture; on other devices :func:`forced_capture_failure` reports that
it was not run, and :func:`workspace_regrowth` runs with whatever capture backend is selected
(``graph_capture.use(RecordingCapture())`` on an emulated GPU checks the runner's side only).
"""


import numpy as np

from ..config import experimental as _config
from ..framework.context import device as device_scope
from ..ops import array_ops, reduce_ops
from . import polymorphic_function


def _result(ok, detail):
    return {"ok": bool(ok), "detail": detail}


def forced_capture_failure(device):
    """Invalidate a capture on ``device`` (a ``context.Device`` of a real GPU), abort it, run an eager op."""
    b = device.backend
    if not hasattr(b, "begin_graph_capture"):
        return _result(True, f"not run: {device.name} has no CUDA-graph capture")
    xp = b.xp
    session = b.begin_graph_capture()
    error = None
    try:
        with b.activate():
            xp.ones(16, dtype=np.float32)   # captured work
            b.stream.synchronize()         # forbidden while capturing: invalidates the capture
    except Exception as e:  # noqa: BLE001 - the expected CUDA error
        error = e
    finally:
        session.abort()
    try:
        with b.activate():
            got = b.to_numpy(xp.arange(8, dtype=np.float32) * 2 + 1)
    except Exception as e:  # noqa: BLE001 - what a poisoned device shows
        return _result(False, f"eager op after the aborted capture failed: {type(e).__name__}: {e}")
    if not np.array_equal(got, np.arange(8, dtype=np.float32) * 2 + 1):
        return _result(False, f"eager op after the aborted capture gave {got}")
    if error is None:
        return _result(False, "the host wait inside the capture raised nothing (the capture was not private?)")
    return _result(True, f"capture invalidated ({type(error).__name__}), aborted; eager op correct")


def workspace_regrowth(device, rows=50176, cols=32, calls=5):
    """Capture a reduction, regrow the workspace eagerly, fill the freed memory, replay, compare."""

    rng = np.random.default_rng(0)
    host = rng.standard_normal((rows, cols)).astype(np.float32)
    expect = host.astype(np.float64).sum(0) * 2.0 + 1.0
    with _config.cuda_graphs_scope(True), device_scope(device.name):
        x = array_ops.constant(host)

        def h(t):
            return reduce_ops.reduce_sum(t, 0) * 2.0 + 1.0

        fn = polymorphic_function.function(h)
        for _ in range(calls):
            fn(x)
        big = reduce_ops.reduce_sum(array_ops.ones((4 * rows, 2 * cols)), 0)  # regrows the workspace
        held = [array_ops.fill((cols * 64,), 7.0) for _ in range(64)]
        results = [fn(x).numpy() for _ in range(3)]
        stats = fn.get_concrete_function(x).experimental_cuda_graph_stats()
        del big
    worst = max(float(np.max(np.abs(r - expect) / (np.abs(expect) + 1.0))) for r in results)
    clobbered = sum(1 for t in held if not np.all(t.numpy() == 7.0))
    ok = worst < 1e-4 and clobbered == 0
    return _result(ok, f"graph status {stats.get('status')!r}, max rel. error {worst:.2e}, "
                       f"{clobbered}/64 held tensors overwritten")
