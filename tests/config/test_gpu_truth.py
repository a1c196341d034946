"""What a machine with a real GPU needs from the runtime, checked without one.

- ``TFCORE_EMULATED_GPUS=N`` replaces real GPUs by N emulated ones (a mocked real-GPU probe here);
- a reset context gives its device memory back, so limits computed from the free memory of a real
  card do not shrink from one context to the next (the cascade of OOMs on 4-byte tensors seen on
  the H100);
- ``TF_FORCE_GPU_ALLOW_GROWTH`` as in TF;
- ``memory_limit`` checked where it is configured.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore import backend as _backend
from tfcore.backend import cuda as cuda_backend
from tfcore.backend.allocator import BFCAllocator, HostRegionProvider, retired_reserved_bytes
from tfcore.backend.base import PhysicalGPUInfo
from tfcore.framework.context import context

MiB = 1 << 20


def _host_memory_gpu_backend(allocator):
    """tests/config/conftest.py's host-memory GPU backend (a conftest is not importable by name)."""
    return context_fixtures().HostMemoryGPUBackend(allocator)


def context_fixtures():
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location("_config_conftest_for_gpu_truth",
                                                  pathlib.Path(__file__).parent / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- TFCORE_EMULATED_GPUS on a machine with real GPUs ----------------------------------------------

@pytest.fixture
def two_real_gpus(monkeypatch):
    """The CUDA probe reports two real GPUs (fakes); counts how often it was asked."""
    calls = []

    def probe():
        calls.append(1)
        return [PhysicalGPUInfo(i, "NVIDIA H100 80GB HBM3", (9, 0), 80 << 30, False, None) for i in range(2)]

    monkeypatch.setattr(cuda_backend, "list_physical_gpus", probe)
    return calls


@pytest.mark.parametrize("value", [None, "", "0"])
def test_without_emulated_gpus_the_real_ones_are_listed(monkeypatch, two_real_gpus, value):
    if value is None:
        monkeypatch.delenv("TFCORE_EMULATED_GPUS", raising=False)
    else:
        monkeypatch.setenv("TFCORE_EMULATED_GPUS", value)
    gpus = _backend.discover_gpus()
    assert [(g.index, g.emulated, g.device_name) for g in gpus] == [(0, False, "NVIDIA H100 80GB HBM3"),
                                                                   (1, False, "NVIDIA H100 80GB HBM3")]


@pytest.mark.parametrize("n", [1, 3])
def test_emulated_gpus_replace_real_ones(monkeypatch, two_real_gpus, n):
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", str(n))
    gpus = _backend.discover_gpus()
    assert [g.index for g in gpus] == list(range(n))
    assert all(g.emulated and g.device_name == "Emulated GPU" for g in gpus)
    assert not two_real_gpus, "real GPUs must not be probed when emulated ones are asked for"


def test_emulated_gpus_replace_real_ones_in_tf_config(monkeypatch, two_real_gpus):
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    try:
        assert len(tf.config.list_physical_devices("GPU")) == 1
        assert tf.config.experimental.get_device_details(tf.config.list_physical_devices("GPU")[0])[
            "device_name"] == "Emulated GPU"
    finally:
        monkeypatch.delenv("TFCORE_EMULATED_GPUS")
        context.reset_for_tests()


@pytest.mark.parametrize("value", ["-1", "two", "1.5"])
def test_a_bad_emulated_gpu_count_names_the_variable(monkeypatch, value):
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", value)
    with pytest.raises(ValueError, match="TFCORE_EMULATED_GPUS"):
        _backend.discover_gpus()


# -- a reset context gives its memory back ---------------------------------------------------------

class _Card:
    """A fake physical GPU of ``total`` bytes: its logical devices' regions come out of one pool, and
    a logical device without a limit takes 90% of the free memory, as CudaBackend does."""

    def __init__(self, total):
        self.total = total
        self.used = 0

    def info(self):
        card = self

        class Provider(HostRegionProvider):
            device_id = "fake card"

            def alloc(self, nbytes):
                if card.used + nbytes > card.total:
                    raise MemoryError(f"fake card: {nbytes} bytes asked, {card.total - card.used} free")
                ptr, owner = super().alloc(nbytes)
                card.used += nbytes
                return ptr, owner

            def free(self, owner):
                card.used -= owner.size
                super().free(owner)

        def make(memory_limit_bytes=None, memory_growth=False, logical_index=0):
            free = card.total - card.used + retired_reserved_bytes("fake card")  # as cuda.default_memory_limit
            limit = memory_limit_bytes if memory_limit_bytes is not None else int(free * 0.9)
            return _host_memory_gpu_backend(BFCAllocator(f"GPU_0_{logical_index}_bfc", Provider(), limit,
                                                         memory_growth))

        return PhysicalGPUInfo(0, "Fake Card", (9, 0), self.total, False, make)


def test_reset_gives_device_memory_back_and_limits_do_not_shrink(runtime, monkeypatch):
    card = _Card(64 * MiB)
    monkeypatch.setattr(_backend, "discover_gpus", lambda: [card.info()])
    limits, kept = [], []
    for _ in range(4):
        context.reset_for_tests()
        with tf.device("/GPU:0"):
            t = tf.constant(np.ones(4, np.float32))  # growth off: reserves the whole limit, as TF
        gpu = context.find("GPU", 0)
        limits.append(gpu.allocator.memory_limit)
        kept.append(t)  # a tensor that outlives its context (a test module's global, a cache)
        np.testing.assert_array_equal(t.numpy(), np.ones(4, np.float32))
    assert len(set(limits)) == 1, f"the limit shrank across resets: {limits}"
    del t, kept
    context.reset_for_tests()
    assert card.used == 0, "memory of tensors that outlived their context never went back"


def test_retired_allocator_returns_each_region_when_its_last_chunk_dies():
    alloc = BFCAllocator("x", HostRegionProvider(), 8 * MiB, allow_growth=True)
    a = alloc.allocate(3 * MiB)
    b = alloc.allocate(3 * MiB)  # a second region
    assert alloc.stats()["num_regions"] == 2
    alloc.free(b)
    alloc.retire()
    assert alloc.stats()["num_regions"] == 1  # the free one went back at once
    alloc.free(a)
    assert alloc.stats()["num_regions"] == 0 and alloc.stats()["bytes_reserved"] == 0


# -- TF_FORCE_GPU_ALLOW_GROWTH -------------------------------------------------------------------------

@pytest.mark.parametrize("env, configured, expected", [
    ("true", False, True), ("TRUE", None, True), ("false", True, False), (None, True, True), (None, None, False),
])
def test_force_gpu_allow_growth(runtime, monkeypatch, env, configured, expected):
    ctx = runtime(n_gpus=1)
    if env is not None:
        monkeypatch.setenv("TF_FORCE_GPU_ALLOW_GROWTH", env)
    gpu = tf.config.list_physical_devices("GPU")[0]
    if configured is not None:
        tf.config.experimental.set_memory_growth(gpu, configured)
    ctx.ensure_initialized()
    assert context.find("GPU", 0).memory_growth is expected
    assert context.find("GPU", 0).allocator.allow_growth is expected


def test_force_gpu_allow_growth_rejects_other_values(runtime, monkeypatch):
    ctx = runtime(n_gpus=1)
    monkeypatch.setenv("TF_FORCE_GPU_ALLOW_GROWTH", "yes")
    with pytest.raises(ValueError, match="TF_FORCE_GPU_ALLOW_GROWTH"):
        ctx.ensure_initialized()


# -- memory_limit checked where it is configured -----------------------------------------------------

@pytest.mark.parametrize("limits, error, match", [
    (["abc"], TypeError, "memory_limit must be a number.*'abc'"),
    ([True], TypeError, "memory_limit must be a number"),
    ([0], ValueError, "memory_limit must be a positive number.*got 0"),
    ([-5], ValueError, "memory_limit must be a positive"),
    ([float("nan")], ValueError, "memory_limit must be a positive"),
    ([100], ValueError, r"memory_limit=100 MB exceeds the memory of /physical_device:GPU:0 \(Fake Host GPU, 64 MB\)"),
    ([40, 40], ValueError, r"memory_limit values \[40, 40\] \(sum 80\) MB exceeds"),
])
def test_bad_memory_limits_are_refused_when_configured(runtime, limits, error, match):
    runtime(n_gpus=1, total_mb=64)
    gpu = tf.config.list_physical_devices("GPU")[0]
    with pytest.raises(error, match=match):
        tf.config.set_logical_device_configuration(
            gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=m) for m in limits])
    assert tf.config.get_logical_device_configuration(gpu) is None  # nothing half-configured
    tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=32)] * 2)
    assert len(tf.config.list_logical_devices("GPU")) == 2
