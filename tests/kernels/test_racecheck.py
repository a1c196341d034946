"""The emulator's racecheck mode: shared-memory races between threads of a block are reported.

Kernels in tests/kernels/cu/race_tests.cu, each with and without the barrier that orders its
shared-memory accesses. A race raises KernelFault naming the kernel, the block, both threads and
the shared-memory offset; the barrier-ordered versions (block barriers, __syncwarp, shuffles,
partial-warp __syncwarp, shared-memory atomics, 2-byte cells) must pass without false positives.
The production kernel families run in racecheck mode in test_racecheck_families.py.
"""

from pathlib import Path

import numpy as np
import pytest

from tfcore.backend.emulator import build as emu_build
from tfcore.backend.emulator.launcher import KernelFault, load_module
from tfcore.backend.kernel_library import kernels_dir

pytestmark = pytest.mark.emulator

CU = Path(__file__).parent / "cu" / "race_tests.cu"


@pytest.fixture(scope="module")
def rc():
    return load_module(CU, include_dirs=[kernels_dir()], racecheck=True)


@pytest.fixture(scope="module")
def plain():
    return load_module(CU, include_dirs=[kernels_dir()], racecheck=False)


def test_racecheck_build_is_a_separate_instrumented_library(rc, plain):
    assert rc.racecheck and not plain.racecheck
    assert rc.built.key != plain.built.key
    assert rc.built.key == emu_build.source_hash(CU, [kernels_dir()], (), racecheck=True)


@pytest.mark.parametrize("shift, prev, cur", [(127, "write", "read"), (1, "read", "write")])
def test_missing_syncthreads_is_reported_with_both_threads(rc, plain, shift, prev, cur):
    x = np.arange(256, dtype=np.float32)
    y = np.zeros(256, np.float32)
    with pytest.raises(KernelFault, match="shared-memory race") as info:
        rc.launch("neighbour_read", 2, 128, [x, y, shift, 0])
    e = info.value
    assert e.race and e.kernel == "neighbour_read" and e.block == (0, 0, 0)
    assert e.accesses == (prev, cur)
    assert e.shared_variable is not None and e.shared_variable.endswith("neighbour_read::s")
    # the two threads are neighbours, the offset is the element of s they share
    t, o = e.thread[0], e.other_thread[0]
    assert t != o and e.thread[1:] == e.other_thread[1:] == (0, 0)
    reader = t if cur == "read" else o
    writer = o if cur == "read" else t
    assert (reader + shift) % 128 == writer
    assert e.shared_offset == 4 * writer
    for s in (f"thread ({t},0,0)", f"thread ({o},0,0)", "block (0,0,0)", f"byte offset {4 * writer}",
              "neighbour_read"):
        assert s in str(e)
    # the plain build does not look: the racy kernel runs to completion there
    plain.launch("neighbour_read", 2, 128, [x, y, shift, 0])


@pytest.mark.parametrize("shift", [1, 127])
def test_with_the_barrier_there_is_no_race(rc, shift):
    x = np.arange(256, dtype=np.float32)
    y = np.zeros(256, np.float32)
    rc.launch("neighbour_read", 2, 128, [x, y, shift, 1])
    expected = np.concatenate([np.roll(x[:128], -shift), np.roll(x[128:], -shift)])
    np.testing.assert_array_equal(y, expected)


def test_write_after_read_needs_a_second_barrier(rc):
    y = np.zeros(64, np.float32)
    rc.launch("overwrite_after_read", 1, 64, [y, 1])
    np.testing.assert_array_equal(y, 1.0)
    with pytest.raises(KernelFault, match="shared-memory race") as info:
        rc.launch("overwrite_after_read", 1, 64, [y, 0])
    e = info.value
    assert e.accesses == ("read", "write") and e.thread == (0, 0, 0) and e.other_thread != (0, 0, 0)
    assert e.shared_offset == 0


def test_dynamic_shared_memory_race_across_warps(rc):
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    rc.launch("dyn_reverse_race", 1, 64, [x, y, 1], shared_mem=256)
    np.testing.assert_array_equal(y, x[::-1])
    with pytest.raises(KernelFault, match="dynamic shared memory byte offset") as info:
        rc.launch("dyn_reverse_race", 1, 64, [x, y, 0], shared_mem=256)
    e = info.value
    assert e.shared_variable is None
    assert e.thread[0] + e.other_thread[0] == 63  # t reads s[63 - t]
    assert e.shared_offset == 4 * max(e.thread[0], e.other_thread[0]) or \
        e.shared_offset == 4 * min(e.thread[0], e.other_thread[0])


def test_warp_synchronous_code_ordered_by_syncwarp_is_not_a_race(rc):
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    y = np.zeros(1, np.float32)
    rc.launch("warp_tree_sum", 1, 32, [x, y, 1])
    np.testing.assert_allclose(y[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)
    with pytest.raises(KernelFault, match="shared-memory race"):
        rc.launch("warp_tree_sum", 1, 32, [x, y, 0])


def test_warp_shuffle_reduction_is_not_a_race(rc):
    x = np.random.default_rng(1).standard_normal(3 * 256).astype(np.float32)
    y = np.zeros(3, np.float32)
    rc.launch("shuffle_reduce", 3, 256, [x, y])
    np.testing.assert_allclose(y, x.reshape(3, 256).astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)


def test_a_shuffle_is_a_warp_barrier(rc):
    x = np.arange(32, dtype=np.int32) * 3
    y = np.zeros(32, np.int32)
    rc.launch("shuffle_orders_shared", 1, 32, [x, y, 1])
    np.testing.assert_array_equal(y, np.roll(x, -1))
    with pytest.raises(KernelFault, match="shared-memory race"):
        rc.launch("shuffle_orders_shared", 1, 32, [x, y, 0])


def test_partial_warp_syncwarp_orders_only_its_lanes(rc):
    x = np.arange(32, dtype=np.int32)
    y = np.zeros(32, np.int32)
    rc.launch("half_warp_sync", 1, 32, [x, y, 0])
    np.testing.assert_array_equal(y, np.concatenate([x[15::-1], x[31:15:-1]]))
    with pytest.raises(KernelFault, match="shared-memory race") as info:
        rc.launch("half_warp_sync", 1, 32, [x, y, 1])
    assert {info.value.thread[0], info.value.other_thread[0]} == {0, 16}


def test_shared_memory_atomics_do_not_race_with_each_other(rc):
    keys = np.random.default_rng(2).integers(0, 1000, 500).astype(np.int32)
    hist = np.zeros(16, np.int32)
    fsum = np.zeros(1, np.float32)
    rc.launch("shared_histogram", 1, 128, [keys, 500, hist, fsum])
    np.testing.assert_array_equal(hist, np.bincount(keys & 15, minlength=16))
    assert fsum[0] == 500.0


def test_atomics_race_with_an_unordered_plain_write(rc):
    out = np.zeros(1, np.int32)
    with pytest.raises(KernelFault, match="shared-memory race") as info:
        rc.launch("atomic_after_unsynced_init", 1, 64, [out])
    assert "atomic" in info.value.accesses


def test_two_byte_cells_half_precision_neighbours(rc):
    x = np.arange(64).astype(np.float16)
    y = np.zeros(64, np.float16)
    rc.launch("half_cells", 1, 64, [x, y])
    np.testing.assert_array_equal(y, x[::-1])


def test_env_var_selects_racecheck_builds(monkeypatch):
    from tfcore.backend.kernel_library import EmulatorKernelLibrary

    monkeypatch.setenv("TFCORE_EMULATOR_RACECHECK", "1")
    assert load_module(CU, include_dirs=[kernels_dir()]).racecheck
    lib = EmulatorKernelLibrary()
    assert lib.module("allreduce").racecheck
    monkeypatch.setenv("TFCORE_EMULATOR_RACECHECK", "0")
    assert not load_module(CU, include_dirs=[kernels_dir()]).racecheck
    assert EmulatorKernelLibrary(racecheck=True).module("allreduce").racecheck
