"""pytest-benchmark runs of the kernel families (tfcore/benchmarks/kernel_bench.py) against vendor routines.

On a real GPU: our kernels through the public ops on /GPU:0 vs cuBLAS / cuDNN (PyTorch, TF32 off)
or CuPy im2col+cuBLAS / CuPy reductions and softmax. Without one: the CPU backend vs NumPy at
smaller sizes (nothing is skipped). Each family is one benchmark; per case its shape, dtype,
median time and spread of the repeats, rate (TFLOP/s, GFLOP/s or GB/s), ratio to the vendor and
fraction of the device's peak go to ``extra_info`` (``KernelRow.to_json``) and are printed as a table.

    python -m pytest bench/bench_kernels.py --benchmark-enable -s
"""

import pytest

from tfcore.benchmarks import kernel_bench
from tfcore.benchmarks.kernel_bench import BenchContext


@pytest.fixture(scope="module")
def ctx():
    return BenchContext(repeat=5)


@pytest.mark.parametrize("family", kernel_bench.FAMILIES)
def test_kernel_family(benchmark, ctx, family):
    rows = benchmark.pedantic(kernel_bench.run, args=(family,), kwargs={"ctx": ctx}, rounds=1, iterations=1)
    assert rows, f"no benchmark rows for {family}"
    for r in rows:
        assert r.ours_ms > 0 and r.vendor_ms > 0
        benchmark.extra_info[r.case] = {**r.to_json(), "device": ctx.device_label}
    print("\n" + kernel_bench.format_rows(rows, ctx.device_label))
