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
    for item in items:
        if "tests/gpu/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.gpu)
            if emulated_gpu_count() or not real_gpus():
                item.add_marker(skip)


@pytest.fixture(scope="module")
def real_gpu0():
    """GPU:0, skipping the module unless it is a real CUDA GPU in this process (modules use it autouse)."""
    from tfcore.framework.context import context

    gpu = context.find("GPU", 0)
    if gpu is None or getattr(gpu.backend, "emulated", True):
        pytest.skip("GPU:0 is not a real CUDA GPU in this process")
    return gpu
