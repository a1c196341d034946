"""Every production kernel family on the emulator in racecheck mode, and races racecheck must find.

1. Each family's emulator tests (a representative subset with small shapes, reusing the test
   functions of test_<family>.py) run with a racecheck kernel library; each family's test also
   checks that every kernel entry of the family was launched in racecheck mode.
   ``TFCORE_EMULATOR_RACECHECK=1 pytest tests/kernels`` runs ALL kernel tests in racecheck mode.
2. Bugs planted in copies of the sources (a dropped __syncthreads, cp.async wait_group or commit_group)
   are caught: test_kernel_mutants.py.
"""

import numpy as np
import pytest
import test_bias_add
import test_conv2d
import test_matmul
import test_pool
import test_reduce
import test_softmax

from tfcore.backend.kernel_library import EmulatorKernelLibrary

pytestmark = pytest.mark.emulator


class _Recording(EmulatorKernelLibrary):
    """A racecheck emulator library that remembers the kernels it launched."""

    def __init__(self):
        super().__init__(racecheck=True)
        self.launched = set()

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
