"""tests/gpu: the kernel checks on a real CUDA GPU (marker ``gpu``); skipped without one."""

import functools

import pytest


@functools.cache
def real_gpus():
    from tfcore.backend import cuda

    return cuda.list_physical_gpus()


def pytest_collection_modifyitems(config, items):
    from tfcore.backend import emulated_gpu_count

    if emulated_gpu_count():  # CI's second pass: emulated GPUs replace the real ones (README "Testing")
        skip = pytest.mark.skip(reason="TFCORE_EMULATED_GPUS is set: emulated GPUs replace the real ones")
    else:
        skip = pytest.mark.skip(reason="needs a real CUDA GPU (none found by CuPy)")
    runs_here = not emulated_gpu_count() and bool(real_gpus())
    gpu_items = [item for item in items if "tests/gpu/" in str(item.fspath).replace("\\", "/")]
    for item in gpu_items:
        item.add_marker(pytest.mark.gpu)
        if not runs_here:
            item.add_marker(skip)
    if runs_here and gpu_items:
        _build_native_cpu_library()


def _build_native_cpu_library():
    """Build (or load) the native CPU library before the first test: on a fresh machine its compile takes about
    a minute (H200 machine, 11-27), which the first test needing a CPU reference would otherwise spend inside
    its 60 s time limit (three tests failed so on 11-27 when ``tfcore info`` had not built it first)."""
    from tfcore.backend import native_cpu

    native_cpu.library()


@pytest.fixture(scope="module")
def real_gpu0():
    """GPU:0, skipping the module unless it is a real CUDA GPU in this process (modules use it autouse)."""
    from tfcore.framework.context import context

    gpu = context.find("GPU", 0)
    if gpu is None or getattr(gpu.backend, "emulated", True):
        pytest.skip("GPU:0 is not a real CUDA GPU in this process")
    return gpu
