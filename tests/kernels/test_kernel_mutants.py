"""Mutation tests: realistic bugs planted in a copy of kernels/ must be caught on the emulator.

Each bug removes one statement marked ``(mutant: <name>)`` in the source (tests/kernels/kernel_mutants.py:
keyed to the marker, not to the text around it). The bugs are the ones the tests used to be blind to:

* a dropped ``__syncthreads`` that only matters when one block loops over several rows, batches, taps or
  pixel tiles (``TFCORE_KERNEL_MAX_BLOCKS=1`` makes the grid that small): racecheck reports the race;
* a dropped ``cp.async.wait_group`` or ``commit_group`` in the tensor-core pipeline: the emulator lands a
  cp.async only at the wait that covers it, so racecheck reports the read of a copy still in flight and a
  plain emulated run computes with the stage's old contents (wrong numbers);
* a dropped barrier between the wait and the reads of a stage filled by other threads.

Bugs sharing code (common.cuh's tensor-core main loop) are planted in separate copies (``SETS``).
"""

import numpy as np
import pytest
from kernel_helpers import tol
from kernel_mutants import marker_sites, mutant_dir

from tfcore.backend.emulator.launcher import KernelFault, load_module
from tfcore.backend.kernel_library import EmulatorKernelLibrary
from tfcore.ops.cuda_kernels import conv, matmul
from tfcore.ops.cuda_kernels import reduce as red
from tfcore.ops.cuda_kernels import softmax as sm
from tfcore.selftest.references import matmul_ref

pytestmark = pytest.mark.emulator

# copy of kernels/ -> the markers whose statements it removes (at most one per code path a test runs)
SETS = {
    "barriers": ("rd-block-scratch-reuse", "sm-block-merge-publish", "gemm-simt-double-buffer",
                 "dw-filter-grad-partials", "dw-input-grad-tap-chunks", "dw-fwd-tap-chunks",
                 "mm-tc-batch-trailing"),
    "trailing": ("rd-arg-rows-trailing", "sm-block-merge-trailing", "dw-filter-grad-trailing", "tc-stage-barrier"),
    "tc-wait-group": ("tc-wait-group",),
    "tc-commit-group": ("tc-commit-group",),
}


class _Library(EmulatorKernelLibrary):
    """An emulator library over a mutant copy of kernels/."""

    def __init__(self, source_dir, racecheck):
        super().__init__(racecheck=racecheck)
        self.source_dir, self.rc = source_dir, racecheck

    def _load(self, family):
        mod = load_module(self.source_dir / f"{family}.cu", racecheck=self.rc)
        return mod, set(mod.signatures)


class _KB:
    kind = "cuda"
    xp = np

    def __init__(self, kernels):
        self.kernels = kernels


@pytest.fixture(scope="module")
def mutant(tmp_path_factory):
    """mutant(set name, racecheck=True) -> a kernel backend running that mutant copy of kernels/."""
    dirs, kbs = {}, {}

    def get(name, racecheck=True):
        if name not in dirs:
            dirs[name] = mutant_dir(tmp_path_factory.mktemp(f"mutant-{name}"), SETS[name])
        key = (name, racecheck)
        if key not in kbs:
            kbs[key] = _KB(_Library(dirs[name], racecheck))
        return kbs[key]

    return get


@pytest.fixture
def one_block(monkeypatch):
    """Grid-stride launches get one block: it loops over every row / batch / tap / pixel tile."""
    monkeypatch.setenv("TFCORE_KERNEL_MAX_BLOCKS", "1")


def _race(fn, kernel, variable=None, accesses=None):
    with pytest.raises(KernelFault, match="shared-memory race") as info:
        fn()
    e = info.value
    assert e.race and e.kernel == kernel, e
    if variable is None:
        assert e.shared_variable is None, e  # dynamic shared memory
    else:
        assert e.shared_variable is not None and variable in e.shared_variable, e
    if accesses is not None:
        assert e.accesses == accesses, e
    return e


def test_every_marker_is_planted_by_a_test():
    sites = marker_sites()
    assert {n: w for n, w in sites.items() if len(w) != 1} == {}, "a mutation marker must be unique"
    planted = [n for names in SETS.values() for n in names]
    assert sorted(planted) == sorted(sites), "every marker in kernels/ is planted by exactly one set"


def test_mutant_dir_removes_only_the_marked_statement(tmp_path):
    d = mutant_dir(tmp_path, ["rd-block-scratch-reuse"])
    from tfcore.backend.kernel_library import kernels_dir

    before = (kernels_dir() / "reduce.cu").read_text().split("\n")
    after = (d / "reduce.cu").read_text().split("\n")
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert len(before) == len(after) and len(changed) == 1
    assert "__syncthreads();" in before[changed[0]] and after[changed[0]].lstrip().startswith("// MUTATED:")
    with pytest.raises(AssertionError, match="found 0 times"):
        mutant_dir(tmp_path / "x", ["no-such-marker"])


# -- barriers that matter only when a block is reused ----------------------------------------------

def test_reduce_scratch_reuse(mutant, one_block):
    x = np.random.default_rng(0).standard_normal((3, 300)).astype(np.float32)
    _race(lambda: red.reduce_layout(mutant("barriers"), x, 3, 300, 1, "sum", splits=1), "reduce_rows_f32", "scratch")


def test_reduce_scratch_barrier_is_only_needed_when_a_block_is_reused(mutant):
    x = np.random.default_rng(0).standard_normal((3, 300)).astype(np.float32)
    y = red.reduce_layout(mutant("barriers"), x, 3, 300, 1, "sum", splits=1)  # a block per row: no race
    np.testing.assert_allclose(y, x.astype(np.float64).sum(1), *tol(np.float32, 300))


def test_argreduce_rows_trailing_barrier(mutant, one_block):
    x = np.random.default_rng(3).standard_normal((3, 300)).astype(np.float32)
    _race(lambda: red.argreduce_axis(mutant("trailing"), x, 1, False), "argreduce_rows_f32", "s")


def test_softmax_block_merge(mutant):
    """Rows longer than the register-cached kernels hold: the long kernel merges (max, sum) over the block."""
    x = np.random.default_rng(1).standard_normal((2, 8300)).astype(np.float32)
    _race(lambda: sm.softmax_last_axis(mutant("barriers"), x), "softmax_long_f32", "sm_")


def test_softmax_block_merge_trailing_barrier(mutant, one_block):
    x = np.random.default_rng(4).standard_normal((2, 8300)).astype(np.float32)
    _race(lambda: sm.softmax_last_axis(mutant("trailing"), x), "softmax_long_f32", "sm_")


def test_simt_gemm_double_buffer(mutant):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((20, 40)).astype(np.float32), rng.standard_normal((40, 12)).astype(np.float32)
    _race(lambda: matmul.launch_matmul(mutant("barriers"), a, b), "matmul_f32", "tfc_gemm_mainloop")


def test_tensor_core_batch_loop_trailing_barrier(mutant, one_block):
    """One block over two batches: the second batch's cp.async prologue overwrites stage 0 while other
    warps may still read it for the first batch."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 20, 16)).astype(np.float16)
    b = rng.standard_normal((2, 16, 16)).astype(np.float16)  # rows of 16 halves: cp.async loads
    _race(lambda: matmul.launch_matmul(mutant("barriers"), a, b, kernel="matmul_f16"), "matmul_f16",
          accesses=("read", "write"))


def test_depthwise_filter_grad_partials(mutant):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 5, 5, 2)).astype(np.float32)
    dy = rng.standard_normal((1, 5, 5, 4)).astype(np.float32)
    one = (1, 1, 1, 1)
    _race(lambda: conv.conv2d_filter_grad(mutant("barriers"), x, dy, (3, 3, 2, 2), one, one, "SAME",
                                          depthwise=True), "depthwise_filter_grad_f32", "red")


def test_depthwise_filter_grad_trailing_barrier(mutant, one_block):
    """One block loops over the taps: the next tap's partials overwrite `red` while row 0 sums it."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 5, 5, 2)).astype(np.float32)
    dy = rng.standard_normal((1, 5, 5, 4)).astype(np.float32)
    one = (1, 1, 1, 1)
    _race(lambda: conv.conv2d_filter_grad(mutant("trailing"), x, dy, (3, 3, 2, 2), one, one, "SAME",
                                          depthwise=True), "depthwise_filter_grad_f32", "red")


def test_depthwise_input_grad_tap_chunks(mutant, one_block):
    """Taps staged in chunks, the barrier before a chunk's stores dropped: the stores race with the
    previous chunk's reads (once a block loops over pixel tiles, also with the last chunk of the tile)."""
    rng = np.random.default_rng(4)
    w = rng.standard_normal((5, 5, 33, 3)).astype(np.float32)   # 75 (tap, q) pairs x 32 > 2048: 2 chunks
    dy = rng.standard_normal((1, 4, 4, 99)).astype(np.float32)
    one = (1, 1, 1, 1)
    _race(lambda: conv.conv2d_input_grad(mutant("barriers"), w, dy, (1, 4, 4, 33), one, one, "SAME",
                                         depthwise=True), "depthwise_input_grad_f32", "ws")


def test_depthwise_forward_tap_chunks(mutant, one_block):
    """A 9x9 filter (81 taps > the 64 a 32-channel block stages at once) over pixel tiles of one block."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 5, 6, 32)).astype(np.float32)
    w = rng.standard_normal((9, 9, 32, 1)).astype(np.float32)
    one = (1, 1, 1, 1)
    _race(lambda: conv.depthwise_forward(mutant("barriers"), x, w, one, one, "SAME"), "depthwise_fwd_f32", "ws")


# -- the cp.async pipeline of the tensor-core main loop --------------------------------------------

def _tc_operands(k):
    rng = np.random.default_rng(8)
    # k and n multiples of 8 halves: every chunk is a cp.async (vec path)
    return rng.standard_normal((20, k)).astype(np.float16), rng.standard_normal((k, 16)).astype(np.float16)


def test_tensor_core_stage_barrier(mutant):
    """Without the barrier after wait_group, a warp reads the stage chunks other threads' copies fill."""
    a, b = _tc_operands(16)
    _race(lambda: matmul.launch_matmul(mutant("trailing"), a, b, kernel="matmul_f16"), "matmul_f16")


@pytest.mark.parametrize("name, k", [("tc-wait-group", 16), ("tc-commit-group", 64)])
def test_tensor_core_pipeline_reads_a_copy_in_flight(mutant, name, k):
    """No wait_group: k-tile 0 is read before it lands. No commit in the loop: the wait for k-tile 1
    counts one group too few (k = 64: two float16 k-tiles)."""
    a, b = _tc_operands(k)
    e = _race(lambda: matmul.launch_matmul(mutant(name), a, b, kernel="matmul_f16"), "matmul_f16",
              accesses=("cp.async", "read"))
    assert "still in flight" in str(e)


@pytest.mark.parametrize("name, k", [("tc-wait-group", 16), ("tc-commit-group", 64)])
def test_tensor_core_pipeline_mutant_computes_wrong_numbers(mutant, name, k):
    """Outside racecheck the stage still holds its old contents when it is read: wrong results (on
    today's kernels the same launch is exact to float16 rounding)."""
    a, b = _tc_operands(k)
    c = matmul.launch_matmul(mutant(name, racecheck=False), a, b, kernel="matmul_f16").astype(np.float64)
    ref = matmul_ref(a, b).astype(np.float64)
    assert not np.allclose(c, ref, *tol(np.float16, k), equal_nan=False)


def test_conv_tensor_core_mutant_without_wait_group_computes_wrong_numbers(mutant):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1, 6, 5, 16)).astype(np.float16)   # C % 8 == 0: cp.async gathers
    w = rng.standard_normal((3, 3, 16, 8)).astype(np.float16)
    one = (1, 1, 1, 1)
    good = conv.conv2d_forward(_KB(EmulatorKernelLibrary()), x, w, one, one, "SAME", tensor_cores=True)
    bad = conv.conv2d_forward(mutant("tc-wait-group", racecheck=False), x, w, one, one, "SAME", tensor_cores=True)
    assert np.isfinite(good).all() and not np.allclose(bad.astype(np.float64), good.astype(np.float64), 2e-2, 2e-2)
