"""The CUDA emulator on its own: barriers, warp primitives, atomics, shared memory, __half,
float4, math intrinsics, out-of-bounds reports, the build cache, and emulated GPUs as devices.

The test kernels live in tests/kernels/cu/emu_tests.cu; each result is compared with a
NumPy reference or a hand-derived value.
"""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tfcore.backend.emulator import build as emu_build
from tfcore.backend.emulator.launcher import EmulatorError, KernelFault, load_module
from tfcore.backend.kernel_library import EmulatorKernelLibrary, kernels_dir

pytestmark = pytest.mark.emulator

CU = Path(__file__).parent / "cu" / "emu_tests.cu"


@pytest.fixture(scope="module")
def mod():
    return load_module(CU, include_dirs=[kernels_dir()])


def rng(seed=0):
    return np.random.default_rng(seed)


# -- barriers and shared memory -------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 3])
def test_syncthreads_tree_reduction(mod, workers):
    x = rng().standard_normal((7, 1000)).astype(np.float32)
    out = np.zeros(7, np.float32)
    mod.launch("tree_sum", 7, 256, [x, out, 1000], workers=workers)
    np.testing.assert_allclose(out, x.sum(1), rtol=1e-4, atol=1e-4)


def test_block_reduce_helpers(mod):
    x = rng(1).standard_normal((5, 333)).astype(np.float32)
    out = np.zeros(15, np.float32)
    mod.launch("block_reduce3", 5, 96, [x, out, 333])
    got = out.reshape(5, 3)
    np.testing.assert_allclose(got[:, 0], x.sum(1), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got[:, 1], x.max(1))
    np.testing.assert_array_equal(got[:, 2], x.min(1))


def test_syncthreads_count(mod):
    x = rng(2).standard_normal(64 * 3).astype(np.float32)
    out = np.zeros(3, np.int32)
    # every block reads the first 64 values
    mod.launch("count_positive", 3, 64, [x, out])
    assert out.tolist() == [int((x[:64] > 0).sum())] * 3


def test_dynamic_shared_memory(mod):
    n, block = 300, 128
    x = np.arange(n, dtype=np.float32)
    y = np.zeros(n, np.float32)
    mod.launch("dyn_reverse", -(-n // block), block, [x, y, n], shared_mem=block * 4)
    expected = np.concatenate([x[i:i + block][::-1] for i in range(0, n, block)])
    np.testing.assert_array_equal(y, expected)


def test_dynamic_shared_memory_overflow_is_reported(mod):
    y = np.zeros(32, np.float32)
    with pytest.raises(KernelFault, match="dynamic shared memory"):
        mod.launch("dyn_oob", 1, 32, [y, 64], shared_mem=64 * 4)


def test_indices_3d(mod):
    grid, block = (2, 3, 2), (4, 3, 2)
    nb, nt = 12, 24
    out = np.full(nb * nt, -1, np.int32)
    mod.launch("indices3d", grid, block, [out])
    expected = [b * 1000 + (z * 100 + y * 10 + x) for b in range(nb)
                for z in range(2) for y in range(3) for x in range(4)]
    assert out.tolist() == expected


# -- warp primitives -----------------------------------------------------------------------------

def test_warp_shuffles_and_votes(mod):
    x = rng(3).integers(0, 100, 64).astype(np.int32)
    out = np.zeros((64, 8), np.int32)
    mod.launch("warp_ops", 1, 64, [x, out])
    for w in range(2):
        v = x[w * 32:(w + 1) * 32]
        o = out[w * 32:(w + 1) * 32]
        lanes = np.arange(32)
        np.testing.assert_array_equal(o[:, 0], v[lanes ^ 5])
        np.testing.assert_array_equal(o[:, 1], np.where(lanes + 3 < 32, v[np.minimum(lanes + 3, 31)], v))
        np.testing.assert_array_equal(o[:, 2], np.where(lanes >= 2, v[np.maximum(lanes - 2, 0)], v))
        np.testing.assert_array_equal(o[:, 3], v[(lanes & ~7) + 3])
        ballot = sum(1 << i for i in range(32) if v[i] & 1)
        np.testing.assert_array_equal(o[:, 4].astype(np.uint32), np.uint32(ballot))
        assert (o[:, 5] == int((v > 90).any())).all()
        assert (o[:, 6] == 1).all()
        assert (o[:, 7] == v.sum()).all()


def test_partial_warp_shuffle(mod):
    x = np.arange(20, dtype=np.float32)
    out = np.zeros(20, np.float32)
    mod.launch("partial_warp_down", 1, 20, [x, out])
    expected = np.where(np.arange(20) + 4 < 20, x[np.minimum(np.arange(20) + 4, 19)], x)
    np.testing.assert_array_equal(out, expected)


# -- atomics --------------------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 4])
def test_atomics(mod, workers):
    n = 1000
    keys = rng(4).integers(0, 10, n).astype(np.int32)
    hist = np.zeros(10, np.int32)
    fsum = np.zeros(1, np.float32)
    imax = np.array([-(2**31)], np.int32)
    imin = np.array([2**31 - 1], np.int32)
    cas = np.zeros(1, np.uint32)
    fmax = np.array([-1.0], np.float32)
    mod.launch("atomics", -(-n // 128), 128, [keys, n, hist, fsum, imax, imin, cas, fmax], workers=workers)
    np.testing.assert_array_equal(hist, np.bincount(keys, minlength=10))
    assert fsum[0] == pytest.approx(0.5 * n)
    assert imax[0] == keys.max() * 3 - 7 and imin[0] == keys.min() * 3 - 7
    assert cas[0] == 2 * n
    assert fmax[0] == keys.max() * 0.25


# -- types ----------------------------------------------------------------------------------------

def test_half_conversions_match_numpy(mod):
    specials = [0.0, -0.0, 1.0, -2.5, 65504.0, 65519.0, 65520.0, 1e6, -1e6, 6e-8, 2.98e-8, 1e-5, 6.1e-5,
                1.0 + 2**-11, 1.0 + 3 * 2**-11, np.inf, -np.inf, np.nan]
    x = np.concatenate([np.array(specials, np.float32),
                        rng(5).standard_normal(500) * 10.0 ** rng(6).integers(-7, 5, 500)]).astype(np.float32)
    h = np.zeros(x.size, np.float16)
    back = np.zeros(x.size, np.float32)
    mod.launch("half_convert", -(-x.size // 128), 128, [x, h, back, x.size])
    with np.errstate(over="ignore"):
        ref = x.astype(np.float16)
    np.testing.assert_array_equal(h.view(np.uint16)[~np.isnan(x)], ref.view(np.uint16)[~np.isnan(x)])
    assert np.isnan(h[np.isnan(x)]).all()
    np.testing.assert_array_equal(back, h.astype(np.float32))


def test_half_arithmetic(mod):
    x = rng(7).standard_normal(100).astype(np.float16)
    y = rng(8).standard_normal(100).astype(np.float16)
    out = np.zeros(100, np.float16)
    mod.launch("half_axpy", 1, 128, [x, y, out, 1.5, 100])
    expected = (np.float16(1.5) * x).astype(np.float16) + y  # __half ops round after each step
    np.testing.assert_array_equal(out, expected.astype(np.float16))


def test_float4(mod):
    x = rng(9).standard_normal(40).astype(np.float32)
    y = np.zeros(40, np.float32)
    mod.launch("float4_scale", 1, 32, [x, y, 3.0, 10])
    np.testing.assert_allclose(y, x * 3.0, rtol=1e-6)


def test_math_intrinsics(mod):
    x = np.linspace(-4, 4, 37).astype(np.float32)
    y = np.zeros((37, 8), np.float32)
    mod.launch("math_ops", 1, 64, [x, y, 37])
    from math import erf

    np.testing.assert_allclose(y[:, 0], np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(y[:, 1], x / 3, rtol=1e-6)
    np.testing.assert_allclose(y[:, 2], 1 / np.sqrt(np.abs(x) + 1), rtol=1e-6)
    np.testing.assert_allclose(y[:, 3], 2 * x + 1, rtol=1e-6)
    np.testing.assert_allclose(y[:, 4], np.tanh(x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(y[:, 5], [erf(v) for v in x], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(y[:, 6], 1 / (x + 10), rtol=1e-6)
    np.testing.assert_array_equal(y[:, 7], np.clip(x.astype(np.int32), -2, 2))


def test_scalar_and_dtype_checks(mod):
    x = np.zeros(10, np.float64)
    with pytest.raises(TypeError, match="float32"):
        mod.launch("oob_write", 1, 1, [x, 10])
    with pytest.raises(TypeError, match="takes 2 arguments"):
        mod.launch("oob_write", 1, 1, [np.zeros(4, np.float32)])
    with pytest.raises(EmulatorError, match="invalid launch configuration"):
        mod.launch("oob_write", 1, 2048, [np.zeros(4096, np.float32), 1])


def test_aliased_arguments_share_one_buffer(mod):
    x = np.arange(50, dtype=np.float32)
    mod.launch("in_place_scale", 1, 64, [x, x, 50])
    np.testing.assert_array_equal(x, np.arange(50, dtype=np.float32) * 2)


def test_empty_grid_is_a_no_op(mod):
    y = np.zeros(4, np.float32)
    mod.launch("oob_write", (0, 1, 1), 32, [y, 4])
    assert (y == 0).all()


# -- out-of-bounds detection ----------------------------------------------------------------------

def test_oob_write_past_the_end_is_reported(mod):
    y = np.zeros(100, np.float32)
    with pytest.raises(KernelFault) as info:
        mod.launch("oob_write", 1, 128, [y, 100])
    e = info.value
    assert e.kernel == "oob_write" and e.arg == "y" and e.write is True
    assert "past the end" in str(e) and "float32[100]" in str(e)
    assert (y == 0).all()  # nothing copied back from a failed launch


def test_oob_write_into_slack_is_reported(mod):
    # 10 floats end 8 bytes before the guard page: element 10 lands in the canary slack.
    y = np.zeros(10, np.float32)
    with pytest.raises(KernelFault, match="past the end"):
        mod.launch("oob_write", 1, 11, [y, 10])


def test_oob_read_is_reported(mod):
    x = np.zeros(100, np.float32)
    y = np.zeros(1, np.float32)
    with pytest.raises(KernelFault, match=r"read past the end of argument 0 \(x") as info:
        mod.launch("oob_read", 1, 1, [x, y, 100])
    assert info.value.write is False


def test_write_before_start_is_reported(mod):
    y = np.zeros(2000, np.float32)
    with pytest.raises(KernelFault, match="before the start"):
        mod.launch("underflow_write", 1, 4, [y, 2000])


def test_write_to_const_argument_is_reported(mod):
    x = np.zeros(4, np.float32)
    y = np.zeros(1, np.float32)
    with pytest.raises(KernelFault, match="read-only"):
        mod.launch("write_const", 1, 1, [x, y])
    assert x[0] == 0


def test_divergent_barrier_is_reported(mod):
    with pytest.raises(EmulatorError, match="deadlock"):
        mod.launch("divergent_sync", 1, 32, [np.zeros(32, np.float32)])


def test_process_survives_and_launches_after_a_fault(mod):
    with pytest.raises(KernelFault):
        mod.launch("oob_write", 1, 128, [np.zeros(8, np.float32), 8])
    x = rng(10).standard_normal((2, 50)).astype(np.float32)
    out = np.zeros(2, np.float32)
    mod.launch("tree_sum", 2, 64, [x, out, 50])
    np.testing.assert_allclose(out, x.sum(1), rtol=1e-5, atol=1e-5)


# -- build cache -------------------------------------------------------------------------------

@pytest.mark.parametrize("body, nvrtc_error", [
    ("atomicMax(y, 1.0f);", "no instance of overloaded function \"atomicMax\""),
    ("atomicMin(y, 1.0f);", "no instance of overloaded function \"atomicMin\""),
    ("h[0] = h[0] * h[1];", "no operator \"*\""),
    ("h[0] = h[0] + h[1];", "no operator \"+\""),
])
def test_emulator_refuses_what_nvrtc_refuses(tmp_path, monkeypatch, body, nvrtc_error):
    """CUDA has no float atomicMax/atomicMin, and __half (header-free under NVRTC) has no operators:
    the emulator's shim must not accept such kernels either, or emulator-tested code breaks on a GPU."""
    monkeypatch.setenv("TFCORE_EMULATOR_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "bad.cu"
    src.write_text('#include "common.cuh"\nTFC_KERNEL void bad(float* y, __half* h) { ' + body + ' }\n')
    with pytest.raises(emu_build.EmulatorBuildError):
        emu_build.build(src, include_dirs=[kernels_dir()])
    from tfcore.backend import nvrtc

    with pytest.raises(nvrtc.NVRTCError, match=re.escape(nvrtc_error)):
        nvrtc.compile_ptx(src.read_text(), 80, filename="bad.cu",
                          options=("-std=c++17", f"--include-path={kernels_dir()}"))


def test_build_is_cached_by_source_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("TFCORE_EMULATOR_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "k.cu"
    src.write_text('extern "C" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n')
    first = emu_build.build(src)
    again = emu_build.build(src)
    assert first.compiled and not again.compiled and first.key == again.key
    assert first.library.parent == tmp_path / "cache" / first.key and first.library.exists()
    src.write_text('extern "C" __global__ void k(float* y) { y[threadIdx.x] = 2.0f; }\n')
    changed = emu_build.build(src)
    assert changed.compiled and changed.key != first.key
    y = np.zeros(4, np.float32)
    load_module(src).launch("k", 1, 4, [y])
    assert (y == 2.0).all()


def test_macro_generated_kernel_signatures(tmp_path, monkeypatch):
    monkeypatch.setenv("TFCORE_EMULATOR_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "m.cu"
    src.write_text(textwrap.dedent('''
        #define ENTRY(SUF, T) extern "C" __global__ void __launch_bounds__(64) \\
            scale_##SUF(const T* __restrict__ x, T* y, long long n, float s) { \\
          long long i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = (T)(x[i] * s); }
        ENTRY(f32, float)
        ENTRY(f64, double)
    '''))
    m = load_module(src)
    sig = m.signatures["scale_f64"]
    assert [p.ctype for p in sig.params] == ["const double*", "double*", "long long", "float"]
    assert [p.const for p in sig.params] == [True, False, False, False]
    x = np.arange(5, dtype=np.float64)
    y = np.zeros(5)
    m.launch("scale_f64", 1, 64, [x, y, 5, 0.5])
    np.testing.assert_array_equal(y, x * 0.5)


# -- the kernel library and emulated GPUs ----------------------------------------------------------

def test_kernel_library_finds_kernels_by_name():
    lib = EmulatorKernelLibrary()
    names = lib.kernel_names()
    assert names, "no kernels found in kernels/"
    name = names[0]
    assert lib.family_of(name) in {p.stem for p in kernels_dir().glob("*.cu")}
    with pytest.raises(KeyError):
        lib.family_of("no_such_kernel_f32")


def test_emulated_gpus_are_devices():
    code = textwrap.dedent('''
        import numpy as np, tfcore as tf
        tf.config.experimental.enable_tensor_float_32_execution(False)  # float32 tolerance below (sm_80: TF32)
        names = [d.name for d in tf.config.list_physical_devices("GPU")]
        print(names)
        assert names == ["/physical_device:GPU:0", "/physical_device:GPU:1"], names
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        b = np.arange(20, dtype=np.float32).reshape(4, 5) / 7
        with tf.device("/GPU:1"):
            c = tf.matmul(tf.constant(a), tf.constant(b))
        assert c.device.endswith("device:GPU:1"), c.device
        np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5)
        assert tf.config.experimental.get_memory_info("GPU:1")["current"] > 0
        print("OK")
    ''')
    env = dict(os.environ, TFCORE_EMULATED_GPUS="2")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout


def test_no_real_gpu_lists_quietly():
    from tfcore.backend import cuda

    gpus = cuda.list_physical_gpus()
    assert isinstance(gpus, list)
    assert all(not g.emulated for g in gpus)
