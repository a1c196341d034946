"""Every .cu file in the repository compiles with NVRTC (no GPU needed): kernels/*.cu for sm_70
(where this NVRTC still supports it: CUDA 13 starts at sm_75), sm_80 and sm_90, and every CUDA
source the emulator runs in the tests (tests/**/*.cu), so the emulator never accepts what NVRTC
rejects. Plus a ptxas report of registers, shared memory and spills per kernel (matmul, conv2d,
depthwise, softmax / sparse cross-entropy, row and column reductions and all-reduce must not spill; conv2d's GEMM
kernels stay within 128 registers per thread). NVRTC comes from the pip wheel nvidia-cuda-nvrtc-cu12,
ptxas from nvidia-cuda-nvcc-cu12.
"""

import functools
import os
from pathlib import Path

import pytest

from tests.opinfo.kernel_families import NO_SPILL_PREFIXES
from tfcore.backend import nvrtc
from tfcore.backend.kernel_library import kernel_families, kernel_source, kernels_dir

ARCHS = tuple(a for a in (70, 80, 90) if a in nvrtc.supported_archs())
REPO = Path(__file__).resolve().parents[2]


def repository_cu_files():
    """Every .cu file under the repository root, hidden folders (.venv, .git) excluded."""
    return sorted(p for p in REPO.rglob("*.cu")
                  if not any(part.startswith(".") for part in p.relative_to(REPO).parts))
FAMILIES = kernel_families()
# conv2d.cu's GEMM kernels carry __launch_bounds__(CV_THREADS, CV_MIN_BLOCKS) (128x128 tile) or
# (CV_THREADS, CV_NARROW_MIN_BLOCKS) (128x64 tile, *_n64_*): 256 threads x 2 (3) blocks per SM must fit
# the 65536-register file, i.e. at most 128 (80: registers are allocated per warp in 256s) per thread.
# sm_70 builds the *_n64_* entries with the 2-block bound (128 registers).
CONV_GEMM_KERNELS = {f"{k}{t}_{s}": budget for s in ("f32", "f16")
                     for t, budget in (("", 128), ("_n64", 80))
                     for k in ("conv2d_fwd", "conv2d_input_grad", "conv2d_filter_grad")}
# The tensor-core entries (sm_80+ only: mma m16n8k16 / m16n8k8 tf32) carry __launch_bounds__(256,
# CV_TC_MIN_BLOCKS = 2): at most 128 registers.
CONV_TC_KERNELS = {f"{k}_tc_{s}": 128 for s in ("f16", "tf32")
                   for k in ("conv2d_fwd", "conv2d_input_grad", "conv2d_filter_grad")}


def conv_gemm_kernels(arch):
    """The conv2d.cu GEMM entries NVRTC builds for ``arch``, with their register budgets."""
    return {**CONV_GEMM_KERNELS, **(CONV_TC_KERNELS if arch >= 80 else {})}
CONV_ENTRIES = tuple(f"{k}_{s}" for s in ("f32", "f16") for k in (
    "conv2d_fwd", "conv2d_input_grad", "conv2d_filter_grad", "conv2d_filter_grad_sum",
    "conv2d_fwd_n64", "conv2d_input_grad_n64", "conv2d_filter_grad_n64",
    "depthwise_fwd", "depthwise_input_grad", "depthwise_filter_grad"))


@functools.cache
def ptx_for(family, arch):
    return nvrtc.compile_ptx(kernel_source(family), arch, filename=f"{family}.cu")


def test_kernel_files_exist():
    assert "common" not in FAMILIES
    assert FAMILIES, "kernels/ has no .cu files"


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("family", FAMILIES)
def test_nvrtc_compiles(family, arch):
    ptx = ptx_for(family, arch)
    entries = nvrtc.ptx_entries(ptx)
    assert entries, f"{family}.cu produced no kernel entry points for compute_{arch}"
    assert f".target sm_{arch}" in ptx


@pytest.mark.parametrize("arch", ARCHS)
def test_conv2d_entries_compile(arch):
    """Every conv2d.cu entry point (forward, the GEMM gradients on both tiles, the split-K partial sum,
    depthwise), and every GEMM entry has a register budget in the ptxas test."""
    entries = set(nvrtc.ptx_entries(ptx_for("conv2d", arch)))
    assert set(CONV_ENTRIES) <= entries
    assert {e for e in entries if e.startswith(("conv2d_fwd", "conv2d_input_grad", "conv2d_filter_grad"))
            and not e.startswith("conv2d_filter_grad_sum")} == set(conv_gemm_kernels(arch))


@pytest.mark.parametrize("arch", [a for a in ARCHS if a >= 80])
def test_conv2d_tensor_core_entries_use_mma_and_cp_async(arch):
    """The *_tc_f16 / *_tc_tf32 entries are real tensor-core code: mma.sync, ldmatrix (f16), cp.async, and
    cvt.rna.tf32 for the TF32 inputs."""
    ptx = ptx_for("conv2d", arch)
    for insn in ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32",
                 "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                 "cp.async.cg.shared.global", "cp.async.wait_group 2", "cvt.rna.tf32.f32"):
        assert insn in ptx, insn


def test_the_repository_cu_files_are_kernels_and_test_kernels():
    files = {p.relative_to(REPO).as_posix() for p in repository_cu_files()}
    assert {f"kernels/{f}.cu" for f in FAMILIES} <= files
    assert "tests/kernels/cu/emu_tests.cu" in files


@pytest.mark.parametrize("path", repository_cu_files(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_cu_file_in_the_repository_compiles_with_nvrtc(path):
    """Test kernels too: the emulator runs them, so they must be valid CUDA (see cuda_shim.h)."""
    ptx = nvrtc.compile_ptx(path.read_text(), 80, filename=path.name,
                            options=("-std=c++17", f"--include-path={kernels_dir()}"))
    assert nvrtc.ptx_entries(ptx), f"{path.name} produced no kernel entry points"


@pytest.mark.parametrize("arch", [a for a in ARCHS if a >= 80])
def test_tensor_core_helper_probes_compile_for_sm80_and_up(arch):
    """common.cuh's mma / ldmatrix / cp.async / tf32 helpers as PTX for each tensor-core arch."""
    path = REPO / "tests" / "kernels" / "cu" / "tensor_core_tests.cu"
    ptx = nvrtc.compile_ptx(path.read_text(), arch, filename=path.name,
                            options=("-std=c++17", f"--include-path={kernels_dir()}"))
    for insn in ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32",
                 "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
                 "cp.async.cg.shared.global", "cp.async.ca.shared.global", "cp.async.wait_group 1",
                 "cp.async.wait_all", "cvt.rna.tf32.f32"):
        assert insn in ptx, insn


@pytest.mark.parametrize("family", FAMILIES)
def test_same_kernel_names_on_gpu_and_emulator(family):
    """Every entry point the emulator builds also exists in the NVRTC module (names are the contract)."""
    from tfcore.backend.emulator.build import preprocess_signatures
    from tfcore.backend.kernel_library import kernel_path

    emulated = set(preprocess_signatures(kernel_path(family)))
    gpu = set(nvrtc.ptx_entries(ptx_for(family, 80)))
    assert emulated <= gpu, f"kernels only under the emulator: {sorted(emulated - gpu)}"


def test_common_header_compiles_under_nvrtc():
    src = kernel_source_with_common()
    for arch in ARCHS:
        entries = nvrtc.ptx_entries(nvrtc.compile_ptx(src, arch, filename="common_probe.cu"))
        assert set(entries) == {"probe_f32", "probe_f16"}


def kernel_source_with_common():
    from tfcore.backend.kernel_library import kernels_dir

    common = (kernels_dir() / "common.cuh").read_text()
    return common + r'''
TFC_KERNEL void probe_f32(const float* x, float* y, int n) {
  TFC_DYNAMIC_SHARED(float, smem);
  const tfc_index_t i = tfc_global_thread_id();
  float v = i < n ? x[i] : 0.0f;
  smem[threadIdx.x] = v;
  v = tfc_block_reduce_sum(v) + tfc_block_reduce_max(v) + tfc_warp_reduce_min(v);
  if (i < n) y[i] = v + smem[tfc_lane_id()];
}
TFC_KERNEL void probe_f16(const __half* x, __half* y, int n) {
  const tfc_index_t i = tfc_global_thread_id();
  if (i < n) y[i] = tfc_from_float<__half>(tfc_to_float(x[i]) * 2.0f);
}
'''


@pytest.mark.skipif(nvrtc.ptxas_path() is None, reason="ptxas not installed (pip nvidia-cuda-nvcc-cu12)")
@pytest.mark.parametrize("arch", ARCHS)
def test_ptxas_report_no_spills(arch, capsys):
    rows, failures = [], []
    for family in FAMILIES:
        report = nvrtc.ptxas_report(ptx_for(family, arch), arch)
        for kernel, r in sorted(report.items()):
            rows.append((family, kernel, r))
            if kernel.startswith(NO_SPILL_PREFIXES) and (r["spill_stores"] or r["spill_loads"]):
                failures.append(f"{kernel}: {r['spill_stores']} bytes spill stores, {r['spill_loads']} spill loads")
            budget = conv_gemm_kernels(arch).get(kernel)
            if budget is not None and arch < 75:  # Volta: CV_NARROW_BOUNDS_BLOCKS is 2 (see conv2d.cu)
                budget = 128
            if budget is not None and r["registers"] > budget:
                failures.append(f"{kernel}: {r['registers']} registers, over its {budget}-register budget")
    lines = [f"ptxas -v report for sm_{arch}",
             f"{'family':<12} {'kernel':<34} {'regs':>5} {'smem B':>7} {'stack B':>8} {'spill st':>9} {'spill ld':>9}"]
    lines += [f"{f:<12} {k:<34} {r['registers']:>5} {r['smem']:>7} {r['stack']:>8} {r['spill_stores']:>9} "
              f"{r['spill_loads']:>9}" for f, k, r in rows]
    table = "\n".join(lines)
    with capsys.disabled():
        print("\n" + table)
    out = os.environ.get("TFCORE_PTXAS_REPORT")
    if out:
        with open(out, "a") as f:
            f.write(table + "\n\n")
    assert rows, "ptxas reported no kernels"
    assert not failures, "register spills or register budget overruns:\n" + "\n".join(failures)
