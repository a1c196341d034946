"""``tfcore selftest`` timing rows: our kernels next to the vendor routines on the same card, taken from
the kernel benchmarks (``tfcore.benchmarks.kernel_bench``: cuBLAS through PyTorch when importable, else
``cupy.matmul``; cuDNN through PyTorch, else CuPy im2col + cuBLAS; CuPy reductions and softmax),
TF32 and strict float32 stated per row. Real GPUs only: an emulator's timings mean nothing."""

from .report import FAIL, SKIP, TIME, Check

FAMILIES = ("matmul", "conv", "reduce", "softmax")


def run_timing_rows(rec, backend, repeat=5):
    if backend is None or getattr(backend, "emulated", False):
        rec.run("timing", "kernels vs cuBLAS/cuDNN/CuPy/PyTorch", lambda: (SKIP, "emulated or no GPU: no timings"))
        return
    from ..benchmarks import kernel_bench

    ctx = kernel_bench.BenchContext(repeat=repeat)
    for family in FAMILIES:
        try:
            rows = kernel_bench.run(family, ctx=ctx)
        except Exception as e:  # noqa: BLE001 - a failed benchmark is reported, the rest still runs
            rec.add(Check("timing", f"{family} benchmarks", FAIL, f"{type(e).__name__}: {e}"[:200]))
            continue
        for r in rows:
            ratio = r.vendor_ms / r.ours_ms if r.ours_ms else float("nan")
            rec.add(Check("timing", f"{r.family} {r.case}", TIME,
                          f"ours {r.ours_ms:.3f} ms ({r.ours_rate:.1f} {r.unit}), {r.vendor} {r.vendor_ms:.3f} ms: "
                          f"speed ours/vendor {ratio:.2f}", r.ours_ms / 1e3 * repeat,
                          data={"ours_ms": r.ours_ms, "vendor_ms": r.vendor_ms, "unit": r.unit,
                                "ours_rate": r.ours_rate, "vendor_rate": r.vendor_rate, "vendor": r.vendor,
                                "speed_ratio": ratio}))
