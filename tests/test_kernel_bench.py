"""`tfcore bench` kernel micro-benchmarks (tfcore/benchmarks/kernel_bench.py): statistics of the repeats, --shapes,
--dtype, --json, the device's peak, and bad arguments. Tiny shapes: these check what is reported, not speed.
On the CPU pass they run the CPU backend; with TFCORE_EMULATED_GPUS=1 the emulated GPU's CUDA kernels."""

import json
import types

import numpy as np
import pytest

from tfcore.benchmarks import kernel_bench
from tfcore.cli import main


def test_timing_reports_median_and_spread_of_the_repeats():
    t = kernel_bench.Timing([4.0, 1.0, 2.0, 3.0, 100.0])
    assert float(t) == 3.0 and t.min_ms == 1.0 and t.max_ms == 100.0
    assert t.iqr_ms == pytest.approx(4.0 - 2.0)
    assert t.to_json()["samples_ms"] == [4.0, 1.0, 2.0, 3.0, 100.0] and t.to_json()["repeats"] == 5


def test_parse_shapes():
    assert kernel_bench.parse_shapes("512x256x128, 4x8X8x8") == [(512, 256, 128), (4, 8, 8, 8)]
    for bad in ("", "0x4", "4x", "ax4", "4,,4"):
        with pytest.raises(ValueError, match="--shapes"):
            kernel_bench.parse_shapes(bad)


def test_json_row_has_shape_dtype_times_rate_and_vendor():
    rows = kernel_bench.run_all(("matmul",), repeat=3, out=lambda s: None, shapes=[(2, 16, 8, 4)], dtype="float64")
    (row,) = rows
    doc = row.to_json()
    assert doc["shape"] == "2x16x4@4x8" and doc["dtype"] == "float64" and doc["unit"] == "GFLOP/s"
    assert doc["work"] == 2.0 * 2 * 16 * 8 * 4
    assert doc["ours"]["repeats"] == 3 and len(doc["ours"]["samples_ms"]) == 3
    assert doc["ours"]["median_ms"] == pytest.approx(float(np.median(doc["ours"]["samples_ms"])))
    assert doc["ours"]["rate"] == pytest.approx(doc["work"] / (doc["ours"]["median_ms"] * 1e-3) / 1e9)
    assert doc["vendor"]["name"] == "NumPy matmul" and doc["vendor"]["median_ms"] > 0
    assert doc["peak"] is None and doc["peak_fraction"] is None  # no known peak off a real GPU


def test_cli_json_to_stdout_table_to_stderr(capsys):
    assert main(["bench", "softmax", "--shapes", "8x32", "--repeat", "2", "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["kind"] in ("cpu", "emulated") and report["shapes"] == ["8x32"] and report["repeat"] == 2
    assert [r["case"] for r in report["rows"]] == ["softmax [8, 32] float32", "log_softmax [8, 32] float32"]
    assert report["errors"] == []
    assert "tfcore kernel benchmarks on" in captured.err and "spread" in captured.err


def test_cli_json_to_a_file(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["bench", "reduce", "--shapes", "4x64", "--repeat", "2", "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    cases = [r["case"] for r in report["rows"]]
    assert "sum [4, 64] axis=1 float32" in cases and "sum [64, 4] axis=0 float32" in cases
    assert "tfcore kernel benchmarks on" in capsys.readouterr().out


def test_shapes_of_the_wrong_rank_fail_the_family_and_the_command(capsys):
    assert main(["bench", "conv", "--shapes", "2x8", "--repeat", "1"]) == 1
    out = capsys.readouterr().out
    assert "FAILED conv" in out and "NxHxC" in out


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit, match="name one family"):
        main(["bench", "--shapes", "8x8"])
    with pytest.raises(SystemExit, match="--repeat must be >= 1"):
        main(["bench", "matmul", "--repeat", "0"])
    with pytest.raises(SystemExit):
        main(["bench", "matmul", "--dtype", "int8"])
    assert "invalid choice: 'int8'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "matmul", "--shapes", "8xq"])
    assert "'8xq' is not a shape like 256x256x256" in capsys.readouterr().err


def test_help_lists_the_micro_benchmark_options(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = capsys.readouterr().out
    for text in ("--shapes", "--dtype", "--repeat", "--json", "MxNxK", "RxC", "spread"):
        assert text in out, text


def _fake_gpu_ctx(cc, sms, clock_khz, mem_clock_khz=2_619_000, bus_bits=5120):
    rt = types.SimpleNamespace(
        cudaDevAttrComputeCapabilityMajor="ccmaj", cudaDevAttrComputeCapabilityMinor="ccmin",
        cudaDevAttrMultiProcessorCount="sms", cudaDevAttrClockRate="clock",
        cudaDevAttrMemoryClockRate="memclock", cudaDevAttrGlobalMemoryBusWidth="bus")
    values = {"ccmaj": cc[0], "ccmin": cc[1], "sms": sms, "clock": clock_khz, "memclock": mem_clock_khz,
              "bus": bus_bits}
    rt.deviceGetAttribute = lambda attr, dev: values[attr]
    cuda = types.SimpleNamespace(runtime=rt, Device=lambda: types.SimpleNamespace(id=0))
    return types.SimpleNamespace(gpu=True, xp=types.SimpleNamespace(cuda=cuda))


def test_peak_of_an_h100_from_its_attributes():
    ctx = _fake_gpu_ctx((9, 0), sms=132, clock_khz=1_980_000)
    assert kernel_bench.peak_tflops(ctx, "float32") == pytest.approx(66.9, rel=0.01)    # NVIDIA: 67 TFLOP/s
    assert kernel_bench.peak_tflops(ctx, "float16") == pytest.approx(1070.5, rel=0.01)  # dense, at 1.98 GHz
    assert kernel_bench.peak_bandwidth_gbs(ctx) == pytest.approx(3352, rel=0.01)        # HBM3: 3.35 TB/s
    assert kernel_bench.peak_tflops(_fake_gpu_ctx((12, 0), 10, 1), "float32") == 0.0    # unlisted: unknown
    row = kernel_bench.KernelRow("matmul", "c", "TFLOP/s", 1.0, 1.0, 33.45e9, "v", 66.9)
    assert row.peak_frac == pytest.approx(0.5)


def test_pytorch_on_the_cpu_is_timed_in_the_same_run_when_importable(monkeypatch):
    """A stand-in torch (NumPy underneath) shows where PyTorch's CPU time goes: an extra vendor column."""
    calls = []

    def matmul(a, b):
        calls.append((a.shape, b.shape))
        return np.matmul(a, b)

    fake = types.SimpleNamespace(from_numpy=np.asarray, matmul=matmul)
    monkeypatch.setattr(kernel_bench, "_torch_cpu", lambda: fake)
    (row,) = kernel_bench.run_all(("matmul",), repeat=2, out=lambda s: None, shapes=[(8, 4, 2)])
    assert calls and calls[0] == ((8, 2), (2, 4))
    doc = row.to_json()
    assert doc["others"]["PyTorch (CPU)"]["repeats"] == 2 and doc["others"]["PyTorch (CPU)"]["rate"] > 0
    assert "PyTorch (CPU)" in kernel_bench.format_rows([row], "x")


def _numpy_as_cupy():
    """NumPy dressed as CuPy (``xp.cuda``) so the GPU branches run on the CPU."""
    xp = types.ModuleType("fake_cupy")
    xp.__dict__.update({k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    xp.cuda = _fake_gpu_ctx((9, 0), sms=132, clock_khz=1_980_000).xp.cuda
    xp.cuda.Device = lambda: types.SimpleNamespace(id=0, synchronize=lambda: None)
    return xp


@pytest.mark.parametrize("family,shapes", [("matmul", [(16, 8, 4)]), ("conv", [(1, 6, 4)]), ("pool", [(1, 8, 2)]),
                                           ("batch_norm", [(1, 8, 2)]),
                                           ("reduce", [(4, 32)]), ("softmax", [(4, 16)])])
def test_gpu_branches_run_with_a_stand_in_cupy(family, shapes):
    """The real-GPU code of every family (labels, TF32 pair, peaks) on small shapes, with NumPy as CuPy and the
    tensors on the CPU: what can break without a GPU (names, arguments, the row's fields) does here."""
    import tfcore as tf

    ctx = kernel_bench.BenchContext(repeat=2, shapes=shapes)
    ctx.gpu, ctx.kind, ctx.device, ctx.flop_unit = True, "gpu", "/CPU:0", "TFLOP/s"
    ctx.backend, ctx.xp = types.SimpleNamespace(synchronize=lambda: None), _numpy_as_cupy()
    with tf.device("/CPU:0"):
        rows = kernel_bench.run(family, ctx=ctx)
    assert rows
    for r in rows:
        doc = r.to_json()
        assert doc["peak"] and doc["peak_fraction"] > 0, doc  # H100 peaks from the stand-in's attributes
        assert doc["ours"]["repeats"] == 2 and doc["vendor"]["name"]
    if family == "matmul":
        assert [r.case for r in rows] == ["16x4@4x8 float32 TF32", "16x4@4x8 float32 FP32"]
        assert rows[0].vendor.startswith("no TF32 vendor run") and rows[1].vendor == "cuBLAS (cupy.matmul, no TF32)"
        missing = json.loads(json.dumps(rows[0].to_json(), allow_nan=False))  # strict JSON: no NaN
        assert missing["vendor"]["median_ms"] is None and missing["ours_over_vendor"] is None
        assert rows[0].peak == pytest.approx(2 * rows[1].peak * 4)  # TF32 tensor cores: 8x the FP32 rate on sm_90


def test_default_cases_of_this_device_and_one_dtype_for_all(capsys):
    """No --shapes: the family's cases for this kind of device (CPU, or the emulator's small ones)."""
    assert main(["bench", "matmul", "--repeat", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    small = report["kind"] == "emulated"
    assert [r["case"] for r in report["rows"]] == (
        ["64x64@64x64 float32", "2x32x32@32x32^T float32"] if small else
        ["384x384@384x384 float32", "4x128x128@128x128^T float32"])
    assert main(["bench", "matmul", "--repeat", "1", "--dtype", "float64", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {r["dtype"] for r in report["rows"]} == {"float64"} and len(report["rows"]) == 2


def _stand_in_gpu_ctx(shapes=None):
    ctx = kernel_bench.BenchContext(repeat=2, shapes=shapes)
    ctx.gpu, ctx.kind, ctx.device, ctx.flop_unit = True, "gpu", "/CPU:0", "TFLOP/s"
    ctx.backend, ctx.xp = types.SimpleNamespace(synchronize=lambda: None), _numpy_as_cupy()
    return ctx


def test_eager_family_times_one_op_per_call_next_to_the_vendor(capsys):
    rows = kernel_bench.run_all(("eager",), repeat=2, out=print)
    assert [r.case for r in rows] == ["add [4] float32 (per call)", "matmul [4, 4] float32 (per call)",
                                      "reduce_sum [4] float32 (per call)", "relu [4] float32 (per call)"]
    for r in rows:
        assert 0 < float(r.ours_ms) < 5 and r.unit == "kcall/s"  # one call, not the batch of EAGER_CALLS
        assert r.ours_rate == pytest.approx(1.0 / float(r.ours_ms))  # thousands of calls per second
        assert r.vendor in ("NumPy", "PyTorch eager (CPU)") and r.to_json()["ours"]["repeats"] == 2
    table = capsys.readouterr().out
    assert f"{float(rows[0].ours_ms):.5f}" in table  # sub-0.1 ms times keep their digits


def test_eager_family_on_a_stand_in_gpu_uses_the_device_arrays():
    import tfcore as tf

    with tf.device("/CPU:0"):
        rows = kernel_bench.run("eager", ctx=_stand_in_gpu_ctx(shapes=[(3,)]))
    assert [r.case.split()[1] for r in rows] == ["[3]", "[3,", "[3]", "[3]"]
    assert {r.vendor for r in rows} == {"CuPy"}  # no PyTorch here: CuPy's own eager ops


def test_softmax_vendor_is_pytorch_on_a_gpu_when_installed(monkeypatch):
    """The softmax floor is against PyTorch: its fused kernel is the vendor, the CuPy-ops formula a column."""
    import tfcore as tf

    def softmax(t, dim):
        e = np.exp(t - t.max(axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)

    fake_torch = types.SimpleNamespace(from_dlpack=lambda a: np.asarray(a), softmax=softmax,
                                       log_softmax=lambda t, dim: np.log(softmax(t, dim)))
    monkeypatch.setattr(kernel_bench, "_torch_cuda", lambda: fake_torch)
    with tf.device("/CPU:0"):
        rows = kernel_bench.run("softmax", ctx=_stand_in_gpu_ctx(shapes=[(4, 16)]))
    assert [r.vendor for r in rows] == ["PyTorch torch.softmax", "PyTorch torch.log_softmax"]
    assert all(set(r.others) == {"CuPy ops"} and r.to_json()["others"]["CuPy ops"]["repeats"] == 2 for r in rows)


def test_conv_rows_on_a_gpu_run_tf32_and_strict_fp32_on_both_sides(monkeypatch):
    """Our TF32 tensor-core convolution against cuDNN in TF32, strict FP32 against strict FP32 (the 11-27 H200
    run timed ours in TF32, TF's default, against cuDNN with TF32 off before this)."""
    import tfcore as tf

    modes = []
    real_conv2d = tf.nn.conv2d
    monkeypatch.setattr(tf.nn, "conv2d", lambda *a, **k: modes.append(
        tf.config.experimental.tensor_float_32_execution_enabled()) or real_conv2d(*a, **k))
    with tf.device("/CPU:0"):
        rows = kernel_bench.run("conv", ctx=_stand_in_gpu_ctx(shapes=[(1, 6, 4)]))
    assert [r.case.rsplit(" ", 1)[1] for r in rows] == ["TF32", "FP32"]
    assert rows[0].vendor == "no TF32 vendor run (PyTorch missing)" and rows[1].vendor == "CuPy im2col + cuBLAS"
    assert True in modes and False in modes and modes.index(False) > modes.index(True)
    assert tf.config.experimental.tensor_float_32_execution_enabled()
