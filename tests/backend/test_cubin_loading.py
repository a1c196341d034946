"""Kernels load as cubins for the device's architecture, not as PTX the driver must JIT (issue 21 item 6).

A driver JIT-compiles only PTX of an ISA version it knows: NVRTC 13.5 writes PTX 9.5 and a CUDA 13.0
driver refuses it (``CUDA_ERROR_UNSUPPORTED_PTX_VERSION``). CuPy compiles with ``-arch=sm_*`` to a
cubin for that reason (``cupy/cuda/compiler.py``); so does tfcore. Compiling needs NVRTC only (the pip
wheel), not a GPU; the loader is checked with the CuPy stand-in of ``fake_cupy``.
"""

import os

import pytest
from fake_cupy import install

from tfcore.backend import cuda_stack, kernel_library, nvrtc
from tfcore.backend.kernel_library import CupyKernelLibrary, kernel_families, kernel_source

ELF_MAGIC = b"\x7fELF"
ONE_PASS = pytest.mark.skipif(bool(os.environ.get("TFCORE_EMULATED_GPUS")),
                              reason="NVRTC output does not depend on the default device: CPU pass only")
CASES = [(f, 90) for f in kernel_families()] + [(f, 80) for f in ("bias_add", "matmul", "reduce")]


@ONE_PASS
@pytest.mark.parametrize("family,arch", CASES)
def test_every_family_compiles_to_a_cubin_without_spills(family, arch):
    if arch not in nvrtc.supported_archs():
        pytest.skip(f"this NVRTC does not support sm_{arch}")
    out = nvrtc.compile_cubin(kernel_source(family), arch, filename=f"{family}.cu")
    assert out.cubin[:4] == ELF_MAGIC
    entries = nvrtc.ptx_entries(out.ptx)
    assert entries and f".target sm_{arch}" in out.ptx
    report = nvrtc.parse_ptxas_log(out.log)
    assert set(report) == set(entries), "ptxas -v listed other kernels than the PTX entries"
    spills = {k: r for k, r in report.items() if r["spill_stores"] or r["spill_loads"]}
    assert not spills, f"{family} spills on sm_{arch}: {spills}"


class _RecordingRawModule:
    loaded = []

    def __init__(self, path=None, **kw):
        with open(path, "rb") as f:
            _RecordingRawModule.loaded.append((path, f.read(4)))

    def get_function(self, name):
        return name


@pytest.fixture
def fake_library(monkeypatch, tmp_path):
    nvrtc.load_nvrtc()  # bind the real NVRTC (and its lazily loaded entry points) before the CuPy stand-in
    nvrtc.supported_archs()  # replaces `cupy`
    nvrtc.nvrtc_version()
    fake = install(monkeypatch)
    fake.module.RawModule = _RecordingRawModule
    _RecordingRawModule.loaded = []
    monkeypatch.setenv("TFCORE_PTX_CACHE", str(tmp_path))
    return CupyKernelLibrary(0)  # the fake device reports compute capability 9.0


def test_the_loader_asks_for_a_cubin_of_the_device_arch(fake_library, tmp_path):
    fake_library.module("bias_add")
    (path, magic), = _RecordingRawModule.loaded
    assert path.endswith(".cubin") and "sm90" in os.path.basename(path) and magic == ELF_MAGIC
    assert fake_library.loaded_kind == {"bias_add": "cubin"}
    assert {"bias_add_f32", "bias_add_f16"} <= set(fake_library._where)  # parameter lists from the same compile
    k, converters = fake_library.plan("bias_add_f32")  # converters from the PTX of the cubin's compile
    assert k == "bias_add_f32" and len(converters) == len(nvrtc.ptx_entries(
        kernel_library.compile_family_cubin("bias_add", 90)[1])["bias_add_f32"])
    # a second library (another process) finds the cache and compiles nothing
    compiled = []
    real = nvrtc.compile_cubin
    import tfcore.backend.nvrtc as nv
    nv.compile_cubin = lambda *a, **k: compiled.append(a) or real(*a, **k)
    try:
        CupyKernelLibrary(0).module("bias_add")
    finally:
        nv.compile_cubin = real
    assert compiled == [] and _RecordingRawModule.loaded[-1][0] == path


def test_the_cache_key_holds_the_arch_and_the_nvrtc_version(monkeypatch, tmp_path):
    monkeypatch.setenv("TFCORE_PTX_CACHE", str(tmp_path))
    a, _ = kernel_library.compile_family_cubin("bias_add", 90)
    b, _ = kernel_library.compile_family_cubin("bias_add", 80)
    monkeypatch.setattr(nvrtc, "nvrtc_version", lambda: (99, 1))
    c, _ = kernel_library.compile_family_cubin("bias_add", 90)
    assert len({a, b, c}) == 3 and all(p.read_bytes()[:4] == ELF_MAGIC for p in (a, b, c))


def test_a_device_newer_than_nvrtc_gets_ptx_of_the_newest_older_arch(fake_library, monkeypatch):
    monkeypatch.setattr(nvrtc, "supported_archs", lambda: (75, 80, 86, 89))
    fake_library.module("bias_add")
    (path, magic), = _RecordingRawModule.loaded
    assert path.endswith(".ptx") and "compute89" in os.path.basename(path)
    assert fake_library.loaded_kind == {"bias_add": "ptx"}


@pytest.mark.parametrize("driver,nvrtc_version,expect", [
    ("13.0", "13.0", None),
    ("13.0", "13.5", "note: NVRTC 13.5 is newer than the driver's CUDA 13.0: fine"),
    ("12.8", "13.0", "WARNING: NVRTC 13.0 is newer than the driver's CUDA 12.8: its cubins will not load"),
    ("12.9", "12.4", None),
])
def test_info_warns_on_a_driver_nvrtc_mismatch(monkeypatch, driver, nvrtc_version, expect):
    monkeypatch.setattr(cuda_stack, "cuda_runtime", lambda: {"runtime": "12.9" if driver < "13" else "13.0",
                                                             "major": 12, "driver": driver})
    monkeypatch.setattr(cuda_stack, "nvrtc", lambda: {"version": nvrtc_version, "library": None})
    monkeypatch.setattr(cuda_stack, "nccl", lambda: None)
    lines = cuda_stack.report_lines()
    extra = lines[3:]
    if expect is None:
        assert extra == []
    else:
        assert len(extra) == 1 and extra[0].startswith(expect), lines


class _RecordingKernel:
    """A kernel function of the CuPy stand-in: records each launch's grid, block and packed arguments."""
    max_dynamic_shared_size_bytes = 48 * 1024

    def __init__(self, name):
        self.name, self.launches = name, []

    def __call__(self, grid, block, args, shared_mem=0):
        self.launches.append((grid, block, args))


class _KernelRawModule(_RecordingRawModule):
    def get_function(self, name):
        return _RecordingKernel(name)


def test_a_generated_elementwise_kernel_compiles_to_a_cubin_and_launches_on_the_real_gpu_path(fake_library):
    """tf.function's fused chains on a real GPU: ``compile_elementwise`` compiles the generated source with
    NVRTC to a cubin of the device's arch (once per source), and the launcher packs scalars from its PTX
    parameter list."""
    import numpy as np

    from tfcore.backend.kernel_library import KernelNotFoundError
    from tfcore.function.fusion import cuda_source
    from tfcore.ops.registry import get_op

    source = cuda_source("tfc_fused_mul_relu_float", [get_op("Mul").cuda_expr, get_op("Relu").cuda_expr],
                         [(0, 1), (-1,)], 2, "float")
    fake_library.cupy.RawModule = _KernelRawModule
    launch = fake_library.compile_source(source, "tfc_fused_mul_relu_float")
    again = fake_library.compile_source(source, "tfc_fused_mul_relu_float")
    (path, magic), = _RecordingRawModule.loaded  # one compile and one load for one source
    assert path.endswith(".cubin") and "sm90" in os.path.basename(path) and magic == ELF_MAGIC
    x = fake_library.cupy.empty((1000,), dtype=np.float32)  # arrays pass as they are; ints typed from the PTX
    launch((4, 1, 1), (256, 1, 1), [x, x, x, 1000, 0, 1])
    k = fake_library._generated[next(iter(fake_library._generated))][2]["tfc_fused_mul_relu_float"][0]
    grid, block, args = k.launches[0]
    assert grid == (4, 1, 1) and block == (256, 1, 1)
    assert [type(a) for a in args[3:]] == [np.int64, np.int32, np.int32]
    assert again is not launch and len(k.launches) == 1
    with pytest.raises(KernelNotFoundError, match="no kernel named 'nope'"):
        fake_library.compile_source(source, "nope")
    with pytest.raises(TypeError, match="takes 6 arguments, got 2"):
        launch((1,), (1,), [x, x])
