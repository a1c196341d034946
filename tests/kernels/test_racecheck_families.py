"""Every production kernel family on the emulator in racecheck mode, and races racecheck must find.

1. Each family's emulator tests (a representative subset with small shapes, reusing the test
   functions of test_<family>.py) run with a racecheck kernel library; each family's test also
   checks that every kernel entry of the family was launched in racecheck mode.
   ``TFCORE_EMULATOR_RACECHECK=1 pytest tests/kernels`` runs ALL kernel tests in racecheck mode.
2. Mutants of the production sources with one __syncthreads dropped (the mutation-testing bug that
   used to survive when it did not change the numbers) fail with a shared-memory race.
"""

import shutil

import numpy as np
import pytest
import test_bias_add
import test_conv2d
import test_matmul
import test_pool
import test_reduce
import test_softmax
from kernel_helpers import tol

from tfcore.backend.emulator.launcher import KernelFault, load_module
from tfcore.backend.kernel_library import EmulatorKernelLibrary, kernels_dir
from tfcore.ops.cuda_kernels import conv, matmul
from tfcore.ops.cuda_kernels import reduce as red
from tfcore.ops.cuda_kernels import softmax as sm

pytestmark = pytest.mark.emulator


class _Recording(EmulatorKernelLibrary):
    """A racecheck emulator library that remembers the kernels it launched."""

    def __init__(self, source_dir=None):
        super().__init__(racecheck=True)
        self.source_dir = source_dir
        self.launched = set()

    def _load(self, family):
        if self.source_dir is None:
            return super()._load(family)
        mod = load_module(self.source_dir / f"{family}.cu", racecheck=True)
        return mod, set(mod.signatures)

    def launch(self, name, grid, block, args, shared_mem=0):
        self.launched.add(name)
        return super().launch(name, grid, block, args, shared_mem)


class _KB:
    kind = "cuda"
    xp = np

    def __init__(self, kernels):
        self.kernels = kernels


def _allreduce(kb, rng):
    """All buckets of two dtypes in one on-device all-reduce each (MEAN), on three logical GPUs."""
    from tfcore.backend import collectives
    from tfcore.backend.emulator.backend import EmulatedGPUBackend

    backends = [EmulatedGPUBackend(0, "Emulated GPU", (8, 0), 64 << 20, memory_limit_bytes=16 << 20,
                                   logical_index=i) for i in range(3)]
    for b in backends:
        b.kernels = kb.kernels
    for dtype, rt in ((np.float32, 1e-6), (np.float16, 2e-3)):
        host = [[rng.standard_normal(n).astype(dtype) for n in (1500, 7)] for _ in backends]
        bufs = [[b.asarray(h) for h in hs] for b, hs in zip(backends, host)]
        out = collectives.all_reduce_buckets(bufs, backends, "on_device", divisor=3, inplace=True)
        for k in range(2):
            want = sum(hs[k].astype(np.float64) for hs in host) / 3
            for r in range(3):
                np.testing.assert_allclose(out[r][k].astype(np.float64), want, rtol=rt, atol=rt * 8)


F32, F16 = np.float32, np.float16
FAMILIES = {
    "matmul": [
        (test_matmul.test_matmul_f32, dict(m=33, k=16, n=68, ta=False, tb=True)),
        (test_matmul.test_matmul_f32, dict(m=130, k=9, n=131, ta=True, tb=False)),
        (test_matmul.test_matmul_f16_accumulates_in_f32, dict(m=9, k=33, n=130, ta=False, tb=False,
                                                              kernel="matmul_f16")),
        (test_matmul.test_matmul_f16_accumulates_in_f32, dict(m=9, k=33, n=130, ta=True, tb=True,
                                                              kernel="matmul_f16_simt")),
        (test_matmul.test_matmul_batched_broadcast, dict(batch_a=(2, 1), batch_b=(1, 3))),
        (test_matmul.test_matmul_tf32_tensor_cores, dict(m=33, k=40, n=20, ta=False, tb=True)),
        # the fused bias + ReLU epilogue of every entry (SIMT store with per-row bias reads, tensor-core pre-pass)
        (test_matmul.test_matmul_fused_epilogue, dict(kernel="matmul_f32", dtype=F32, with_bias=True, act=1,
                                                      m=37, k=19, n=131, ta=False, tb=False)),
        (test_matmul.test_matmul_fused_epilogue, dict(kernel="matmul_f16_simt", dtype=F16, with_bias=True, act=1,
                                                      m=130, k=40, n=7, ta=True, tb=True)),
        (test_matmul.test_matmul_fused_epilogue, dict(kernel="matmul_f16", dtype=F16, with_bias=True, act=1,
                                                      m=5, k=9, n=66, ta=False, tb=True)),
        (test_matmul.test_matmul_fused_epilogue, dict(kernel="matmul_f32_tf32", dtype=F32, with_bias=True, act=0,
                                                      m=37, k=19, n=131, ta=False, tb=False)),
    ],
    "conv2d": [
        (test_conv2d.test_conv2d_forward, dict(case=test_conv2d.CASES[0], dtype=F32, tile=64)),
        (test_conv2d.test_conv2d_forward, dict(case=test_conv2d.CASES[1], dtype=F32, tile=128)),
        (test_conv2d.test_conv2d_forward, dict(case=test_conv2d.CASES[2], dtype=F16, tile=128)),
        (test_conv2d.test_conv2d_forward, dict(case=test_conv2d.CASES[2], dtype=F16, tile=64)),
        (test_conv2d.test_conv2d_input_grad, dict(case=test_conv2d.CASES[2], dtype=F32, tile=64)),
        (test_conv2d.test_conv2d_input_grad, dict(case=test_conv2d.CASES[6], dtype=F32, tile=128)),
        (test_conv2d.test_conv2d_input_grad, dict(case=test_conv2d.CASES[1], dtype=F16, tile=64)),
        (test_conv2d.test_conv2d_input_grad, dict(case=test_conv2d.CASES[1], dtype=F16, tile=128)),
        (test_conv2d.test_conv2d_filter_grad, dict(case=test_conv2d.CASES[2], dtype=F32, tile=64)),
        (test_conv2d.test_conv2d_filter_grad, dict(case=test_conv2d.CASES[2], dtype=F32, tile=128)),
        (test_conv2d.test_conv2d_filter_grad, dict(case=test_conv2d.CASES[2], dtype=F16, tile=64)),
        (test_conv2d.test_conv2d_filter_grad, dict(case=test_conv2d.CASES[2], dtype=F16, tile=128)),
        (test_conv2d.test_conv2d_filter_grad_split_k, dict(case=test_conv2d.SPLIT_CASES[1], splits=3, dtype=F16)),
        (test_conv2d.test_depthwise, dict(case=test_conv2d.DW_CASES[0], dtype=F32)),
        (test_conv2d.test_depthwise, dict(case=test_conv2d.DW_CASES[3], dtype=F16)),
        (test_conv2d.test_depthwise, dict(case=test_conv2d.DW_CASES[6], dtype=F16)),  # taps in 2 chunks
        (test_conv2d.test_depthwise_tiles_and_tap_chunks, dict(dtype=F32)),
        # tensor cores: cp.async gathers (C, CO % 8 == 0) and element-wise ones, both dtypes, split-K wgrad
        (test_conv2d.test_conv2d_tensor_cores, dict(case=test_conv2d.TC_CASES[14], dtype=F16, direction="fwd")),
        (test_conv2d.test_conv2d_tensor_cores, dict(case=test_conv2d.TC_CASES[2], dtype=F32, direction="fwd")),
        (test_conv2d.test_conv2d_tensor_cores, dict(case=test_conv2d.TC_CASES[6], dtype=F16, direction="dgrad")),
        (test_conv2d.test_conv2d_tensor_cores, dict(case=test_conv2d.TC_CASES[15], dtype=F32, direction="dgrad")),
        (test_conv2d.test_conv2d_tensor_core_filter_grad_split_k, dict(case=test_conv2d.SPLIT_CASES[1], splits=2,
                                                                       dtype=F16)),
        (test_conv2d.test_conv2d_tensor_core_filter_grad_split_k, dict(case=test_conv2d.SPLIT_CASES[0], splits=2,
                                                                       dtype=F32)),
        # the fused bias + ReLU epilogue of the forward entries (both SIMT tiles, tensor cores)
        *[(test_conv2d.test_conv2d_forward_fused_epilogue, dict(case=test_conv2d.EPILOGUE_CASES[i], dtype=dt,
                                                                variant=v, with_bias=True, act=1))
          for i, dt, v in ((0, F32, "simt64"), (1, F16, "simt128"), (6, F16, "tc"), (3, F32, "tc"))],
    ],
    "pool": [
        (test_pool.test_pool_forward_backward, dict(case=test_pool.CASES[0], dtype=F32)),
        (test_pool.test_pool_forward_backward, dict(case=test_pool.CASES[5], dtype=F16)),
    ],
    "reduce": [
        (test_reduce.test_reduce_axes_f32, dict(op="sum", axes=(0, 2))),
        (test_reduce.test_reduce_axes_f32, dict(op="max", axes=(2,))),
        (test_reduce.test_reduce_axes_f32, dict(op="mean", axes=(1,))),  # columns, inner 6: an 8-wide block
        (test_reduce.test_reduce_f16_accumulates_in_f32, dict(op="prod")),
        (test_reduce.test_two_pass_rows_and_columns, dict(op="sum", dtype=F16)),
        (test_reduce.test_two_pass_rows_and_columns, dict(op="max", dtype=F32)),
        (test_reduce.test_column_tickets_are_reused_across_launches, dict(dtype=F16)),  # 4-wide and scalar
        (test_reduce.test_column_tickets_are_reused_across_launches, dict(dtype=F32)),
        (test_reduce.test_argmax_argmin, dict(axis=1, dtype=F32)),
        (test_reduce.test_argmax_argmin, dict(axis=2, dtype=F16)),
        (test_reduce.test_argmax_argmin, dict(axis=2, dtype=F32)),
        (test_reduce.test_argmax_argmin, dict(axis=1, dtype=F16)),
    ],
    "softmax": [
        (test_softmax.test_softmax_and_log_softmax, dict(shape=(2, 1500), dtype=F32)),
        (test_softmax.test_softmax_and_log_softmax, dict(shape=(2, 3, 33), dtype=F16)),
        (test_softmax.test_softmax_and_log_softmax, dict(shape=(2, 1500), dtype=F16)),
        (test_softmax.test_softmax_and_log_softmax, dict(shape=(3, 5), dtype=F32)),
        (test_softmax.test_sparse_xent, dict(rows=3, classes=300, dtype=F32)),
        (test_softmax.test_sparse_xent, dict(rows=5, classes=7, dtype=F16)),
        (test_softmax.test_sparse_xent, dict(rows=2, classes=1100, dtype=F32)),
        (test_softmax.test_sparse_xent, dict(rows=2, classes=1100, dtype=F16)),
        (test_softmax.test_sparse_xent, dict(rows=1, classes=8300, dtype=F32)),
        (test_softmax.test_sparse_xent, dict(rows=1, classes=8300, dtype=F16)),
        (test_softmax.test_softmax_and_log_softmax, dict(shape=(1, 8300), dtype=F32)),
        (test_softmax.test_softmax_and_log_softmax, dict(shape=(1, 8300), dtype=F16)),
    ],
    "bias_add": [
        (test_bias_add.test_bias_add, dict(shape=(2, 3, 8), data_format="NHWC", activation="gelu", dtype=F32)),
        (test_bias_add.test_bias_add, dict(shape=(2, 3, 4, 5), data_format="NCHW", activation="relu", dtype=F16)),
    ],
    "allreduce": [(_allreduce, {})],
}


@pytest.fixture(scope="module")
def race_lib():
    return _Recording()


def test_every_family_is_listed():
    from tfcore.backend.kernel_library import kernel_families

    assert sorted(FAMILIES) == kernel_families()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_passes_racecheck(race_lib, family):
    kb = _KB(race_lib)
    assert race_lib.module(family).racecheck
    for fn, kwargs in FAMILIES[family]:
        fn(kb=kb, rng=np.random.default_rng(1234), **kwargs)
    entries = {n for n, f in race_lib._where.items() if f == family}
    assert entries and entries <= race_lib.launched, f"not run in racecheck mode: {sorted(entries - race_lib.launched)}"


# -- mutants: one barrier dropped -----------------------------------------------------------------

MUTANTS = {  # file -> (text, replacement) or a list of them; each text occurs once in the file
    "reduce.cu": ("  __syncthreads();  // scratch may be reused right away\n", "\n"),
    "softmax.cu": ("  if (lane == 0) { sm_m[warp] = p.m; sm_s[warp] = p.s; }\n  __syncthreads();\n",
                   "  if (lane == 0) { sm_m[warp] = p.m; sm_s[warp] = p.s; }\n"),
    "common.cuh": ("    if (more) stash(As[cur ^ 1], Bs[cur ^ 1]);\n    __syncthreads();\n",
                   "    if (more) stash(As[cur ^ 1], Bs[cur ^ 1]);\n"),
    "conv2d.cu": [("    red[ty][tx] = s;\n    __syncthreads();\n", "    red[ty][tx] = s;\n"),
                  ("        __syncthreads();  // the previous (tap, q) chunk's readers are done\n", "\n")],
}


@pytest.fixture(scope="module")
def mutant_kb(tmp_path_factory):
    d = tmp_path_factory.mktemp("mutant_kernels")
    for p in kernels_dir().iterdir():
        if p.suffix in (".cu", ".cuh"):
            shutil.copy(p, d / p.name)
    for name, edits in MUTANTS.items():
        text = (d / name).read_text()
        for old, new in edits if isinstance(edits, list) else [edits]:
            assert text.count(old) == 1, f"mutation site in {name} changed"
            text = text.replace(old, new)
        (d / name).write_text(text)
    return _KB(_Recording(d))


def _race(fn, kernel):
    with pytest.raises(KernelFault, match="shared-memory race") as info:
        fn()
    e = info.value
    assert e.race and e.kernel == kernel and e.thread != e.other_thread
    assert e.shared_variable is not None
    return e


def test_mutant_reduce_without_the_scratch_reuse_barrier(mutant_kb, monkeypatch):
    monkeypatch.setenv("TFCORE_KERNEL_MAX_BLOCKS", "1")  # one block loops over the rows: scratch is reused
    x = np.random.default_rng(0).standard_normal((3, 300)).astype(np.float32)
    e = _race(lambda: red.reduce_layout(mutant_kb, x, 3, 300, 1, "sum", splits=1), "reduce_rows_f32")
    assert "scratch" in e.shared_variable


def test_mutant_reduce_barrier_is_only_needed_when_a_block_is_reused(mutant_kb):
    x = np.random.default_rng(0).standard_normal((3, 300)).astype(np.float32)
    y = red.reduce_layout(mutant_kb, x, 3, 300, 1, "sum", splits=1)  # one block per row: no reuse, no race
    np.testing.assert_allclose(y, x.astype(np.float64).sum(1), *tol(np.float32, 300))


def test_mutant_softmax_block_merge(mutant_kb):
    """Rows longer than the register-cached kernels hold: the long kernel merges (max, sum) over the block."""
    x = np.random.default_rng(1).standard_normal((2, 8300)).astype(np.float32)
    e = _race(lambda: sm.softmax_last_axis(mutant_kb, x), "softmax_long_f32")
    assert "sm_" in e.shared_variable


def test_mutant_gemm_mainloop_double_buffer(mutant_kb):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((20, 40)).astype(np.float32), rng.standard_normal((40, 12)).astype(np.float32)
    e = _race(lambda: matmul.launch_matmul(mutant_kb, a, b), "matmul_f32")
    assert "tfc_gemm_mainloop" in e.shared_variable


def test_mutant_depthwise_filter_grad_partials(mutant_kb):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 5, 5, 2)).astype(np.float32)
    dy = rng.standard_normal((1, 5, 5, 4)).astype(np.float32)
    one = (1, 1, 1, 1)
    e = _race(lambda: conv.conv2d_filter_grad(mutant_kb, x, dy, (3, 3, 2, 2), one, one, "SAME", depthwise=True),
              "depthwise_filter_grad_f32")
    assert "red" in e.shared_variable


def test_mutant_depthwise_input_grad_tap_chunks(mutant_kb, monkeypatch):
    """Taps staged in chunks, the barrier before a chunk's stores dropped: the stores race with the
    previous chunk's reads (once a block loops over pixel tiles, also with the last chunk of the tile)."""
    monkeypatch.setenv("TFCORE_KERNEL_MAX_BLOCKS", "1")
    rng = np.random.default_rng(4)
    w = rng.standard_normal((5, 5, 33, 3)).astype(np.float32)   # 75 (tap, q) pairs x 32 > 2048: 2 chunks
    dy = rng.standard_normal((1, 4, 4, 99)).astype(np.float32)
    one = (1, 1, 1, 1)
    e = _race(lambda: conv.conv2d_input_grad(mutant_kb, w, dy, (1, 4, 4, 33), one, one, "SAME", depthwise=True),
              "depthwise_input_grad_f32")
    assert "ws" in e.shared_variable
