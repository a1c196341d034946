"""The op-info table's kernel-family facts: what every CUDA kernel family (``kernels/<family>.cu``) is
checked for beyond its ops' entries in ``tests/opinfo/table.py``.

- ``RACECHECK``: per family, the emulator tests (a representative subset with small shapes, reusing the test
  functions of ``tests/kernels/test_<family>.py``) that run in racecheck mode; every entry point of the
  family must be launched by them (``tests/kernels/test_racecheck_families.py``);
- ``NO_SPILL_PREFIXES``: kernel name prefixes whose ptxas report must show no register spills
  (``tests/kernels/test_nvrtc.py``);
- ``TILE_CONSTANTS``: ``(launcher module, attribute, #define)``: the launchers' tile and block constants
  equal the kernels' ``#define``s (``tests/kernels/test_tile_constants.py``).

Adding a kernel family: its rows here (a test fails while ``RACECHECK`` misses a family of ``kernels/``).
"""

import os
import sys

import numpy as np

from tfcore.backend import collectives
from tfcore.ops.cuda_kernels import batch_norm, bias_add, conv, matmul, pool, reduce, segment, softmax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "kernels"))
import test_batch_norm  # noqa: E402
import test_bias_add  # noqa: E402
import test_conv2d  # noqa: E402
import test_matmul  # noqa: E402
import test_pool  # noqa: E402
import test_reduce  # noqa: E402
import test_segment  # noqa: E402
import test_softmax  # noqa: E402


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
RACECHECK = {
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
    # rows (one and several splits) and planes, training and inference, both dtypes: every entry
    "batch_norm": [
        (test_batch_norm.test_forward_training, dict(shape=(600, 40), data_format="NHWC", dtype=F32, factor=0.3)),
        (test_batch_norm.test_forward_training, dict(shape=(2, 5, 3, 4), data_format="NCHW", dtype=F16, factor=1.0)),
        (test_batch_norm.test_forward_training, dict(shape=(5, 7, 3), data_format="NHWC", dtype=F16, factor=1.0)),
        (test_batch_norm.test_forward_training, dict(shape=(2, 5, 3, 4), data_format="NCHW", dtype=F32, factor=1.0)),
        (test_batch_norm.test_forward_inference, dict(shape=(2, 3, 4, 8), data_format="NHWC", dtype=F32)),
        (test_batch_norm.test_gradient, dict(shape=(600, 40), data_format="NHWC", dtype=F32, training=True)),
        (test_batch_norm.test_gradient, dict(shape=(5, 7, 3), data_format="NHWC", dtype=F16, training=False)),
        (test_batch_norm.test_gradient, dict(shape=(2, 5, 3, 4), data_format="NCHW", dtype=F32, training=True)),
        (test_batch_norm.test_gradient, dict(shape=(2, 5, 3, 4), data_format="NCHW", dtype=F16, training=True)),
    ],
    # every dtype entry of both kernels: no shared memory, so racecheck proves the launches run clean
    "segment": [
        *[(test_segment.test_unsorted_segment_prod, dict(shape=(300, 3), ids_rank=1, segments=6, dtype=dt))
          for dt in test_segment.DTYPES],
        *[(test_segment.test_segment_prod, dict(shape=(9, 2, 5), segments=4, dtype=dt)) for dt in test_segment.DTYPES],
    ],
}

NO_SPILL_PREFIXES = ("matmul", "conv2d", "depthwise", "softmax", "sparse_xent", "reduce_rows", "reduce_cols",
                     "allreduce", "segment_prod", "unsorted_segment_prod", "bn_")

TILE_CONSTANTS = [
    (matmul, "BM", "MM_BM"), (matmul, "BN", "MM_BN"), (matmul, "THREADS", "MM_THREADS"),
    (matmul, "TC_SMEM_BYTES", "TC_SMEM_BYTES"),
    (conv, "BM", "CV_BM"), (conv, "BN", "CV_BN"), (conv, "BK", "CV_BK"), (conv, "THREADS", "CV_THREADS"),
    (conv, "MIN_BLOCKS", "CV_MIN_BLOCKS"), (conv, "BN_NARROW", "CV_BN_NARROW"),
    (conv, "NARROW_MIN_BLOCKS", "CV_NARROW_MIN_BLOCKS"), (conv, "GRAD_X", "CV_GRAD_X"), (conv, "GRAD_Y", "CV_GRAD_Y"),
    (conv, "SUM_THREADS", "CV_SUM_THREADS"), (conv, "DW_THREADS", "CV_DW_THREADS"),
    (conv, "DW_SMEM_FLOATS", "CV_DW_SMEM_FLOATS"),
    (conv, "TC_BK_F16", "CV_TC_BK_F16"), (conv, "TC_BK_F32", "CV_TC_BK_F32"), (conv, "TC_STAGES", "CV_TC_STAGES"),
    (conv, "TC_SMEM_BYTES", "CV_TC_SMEM_BYTES"), (conv, "TC_MIN_BLOCKS", "CV_TC_MIN_BLOCKS"),
    (bias_add, "THREADS", "BA_THREADS"), (pool, "THREADS", "PL_THREADS"),
    (reduce, "THREADS", "RD_THREADS"), (reduce, "COLS_X", "RD_COLS_X"), (reduce, "COLS_Y", "RD_COLS_Y"),
    (reduce, "UNROLL", "RD_UNROLL"), (reduce, "VEC", "RD_VEC"),
    (softmax, "THREADS", "SM_THREADS"), (softmax, "WARP_COLS_MAX", "SM_WARP_COLS_MAX"),
    (softmax, "VEC", "SM_VEC"), (softmax, "CACHE_VECS", "SM_CACHE_VECS"),
    (softmax, "BLOCK_COLS_MAX", "SM_BLOCK_COLS_MAX"), (segment, "THREADS", "SG_THREADS"),
    (batch_norm, "THREADS", "BN_THREADS"), (batch_norm, "ROWS_X", "BN_ROWS_X"), (batch_norm, "ROWS_Y", "BN_ROWS_Y"),
    (batch_norm, "FIN_THREADS", "BN_FIN_THREADS"),
    (collectives, "ALLREDUCE_THREADS", "AR_THREADS"), (collectives, "ALLREDUCE_VEC", "AR_VEC"),
    (collectives, "ALLREDUCE_TILE", "AR_TILE"),
]
