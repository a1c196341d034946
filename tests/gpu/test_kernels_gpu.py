"""The emulator's test kernels and the kernel library on a real GPU: the same kernels, the
same NumPy references, so the emulator's semantics are checked against hardware."""

from pathlib import Path

import numpy as np
import pytest

CU = Path(__file__).parent.parent / "kernels" / "cu" / "emu_tests.cu"


@pytest.fixture(scope="module")
def cp():
    import cupy

    return cupy


@pytest.fixture(scope="module")
def module(cp, tmp_path_factory):
    from tfcore.backend import nvrtc
    from tfcore.backend.kernel_library import kernels_dir

    src = CU.read_text().replace('#include "common.cuh"', (kernels_dir() / "common.cuh").read_text())
    arch = int(cp.cuda.Device(0).compute_capability)
    # a cubin for the device (as the kernel library loads): PTX from an NVRTC newer than the driver would not load
    path = tmp_path_factory.mktemp("cubin") / "emu_tests.cubin"
    path.write_bytes(nvrtc.compile_cubin(src, arch, filename="emu_tests.cu").cubin)
    return cp.RawModule(path=str(path))


def test_tree_sum(cp, module):
    x = np.random.default_rng(0).standard_normal((7, 1000)).astype(np.float32)
    out = cp.zeros(7, cp.float32)
    module.get_function("tree_sum")((7,), (256,), (cp.asarray(x), out, np.int32(1000)))
    np.testing.assert_allclose(out.get(), x.sum(1), rtol=1e-4, atol=1e-4)


def test_warp_ops_match_emulator(cp, module):
    from tfcore.backend.emulator.launcher import load_module
    from tfcore.backend.kernel_library import kernels_dir

    x = np.random.default_rng(3).integers(0, 100, 64).astype(np.int32)
    gpu = cp.zeros((64, 8), cp.int32)
    module.get_function("warp_ops")((1,), (64,), (cp.asarray(x), gpu))
    emu = np.zeros((64, 8), np.int32)
    load_module(CU, include_dirs=[kernels_dir()]).launch("warp_ops", 1, 64, [x, emu])
    np.testing.assert_array_equal(gpu.get(), emu)


def test_half_conversion_matches_numpy(cp, module):
    x = (np.random.default_rng(5).standard_normal(1000) * 100).astype(np.float32)
    h = cp.zeros(1000, cp.float16)
    back = cp.zeros(1000, cp.float32)
    module.get_function("half_convert")((8,), (128,), (cp.asarray(x), h, back, np.int32(1000)))
    np.testing.assert_array_equal(h.get(), x.astype(np.float16))


def test_kernel_library_loads_every_family():
    from tfcore.backend.kernel_library import CupyKernelLibrary, EmulatorKernelLibrary

    gpu = set(CupyKernelLibrary(0).kernel_names())
    emu = set(EmulatorKernelLibrary().kernel_names())
    assert emu <= gpu


def test_matmul_on_gpu():
    import tfcore as tf

    a = np.random.default_rng(1).standard_normal((130, 70)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((70, 45)).astype(np.float32)
    with tf.device("/GPU:0"):
        c = tf.matmul(tf.constant(a), tf.constant(b))
    assert c.device.endswith("GPU:0")
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)
