"""Block-reuse paths: grids capped by ``TFCORE_KERNEL_MAX_BLOCKS`` so that every block loops over
several rows / elements (grid-stride loops, ``for (row = blockIdx.x; ...; row += gridDim.x)``),
which a full grid never does. Every launch is recorded to check that the cap applied and that the
work really exceeded the grid; results are compared with the float64 references.

The same launch shapes also run in racecheck mode (``test_block_reuse_under_racecheck``): the trailing
``__syncthreads`` of a loop iteration (reductions, softmax, the tensor-core batch loop, tap-chunked
depthwise kernels) only matters when a block goes round again."""

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.backend.kernel_library import EmulatorKernelLibrary, grid_cap
from tfcore.ops.cuda_kernels import conv, matmul, pool
from tfcore.ops.cuda_kernels import reduce as red
from tfcore.ops.cuda_kernels import softmax as sm
from tfcore.ops.cuda_kernels.bias_add import bias_add_act
from tfcore.selftest.references import (
    argreduce_ref,
    avg_pool_grad_ref,
    avg_pool_ref,
    bias_add_ref,
    conv2d_filter_grad_ref,
    conv2d_input_grad_ref,
    depthwise_filter_grad_ref,
    depthwise_forward_ref,
    depthwise_input_grad_ref,
    matmul_ref,
    max_pool_grad_ref,
    max_pool_ref,
    reduce_ref,
    softmax_ref,
    sparse_xent_ref,
    tf_pads_2d,
)

pytestmark = pytest.mark.emulator

CAP = 2


class _Recording(EmulatorKernelLibrary):
    def __init__(self, racecheck=False):
        super().__init__(racecheck=racecheck)
        self.launches = []

    def launch(self, name, grid, block, args, shared_mem=0):
        self.launches.append((name, tuple(grid), tuple(block)))
        return super().launch(name, grid, block, args, shared_mem)


class _KB:
    kind = "cuda"
    xp = np

    def __init__(self, racecheck=False):
        self.kernels = _Recording(racecheck)

    def grids(self, name):
        return [g for n, g, _ in self.kernels.launches if n == name]


@pytest.fixture
def kb(monkeypatch):
    monkeypatch.setenv("TFCORE_KERNEL_MAX_BLOCKS", str(CAP))
    return _KB()


def _reused(kb, name, dim, work_blocks):
    """Kernel ``name`` ran with at most CAP blocks along ``dim``, and with CAP blocks in a launch whose
    work needed ``work_blocks`` (a second pass over fewer rows may need fewer)."""
    grids = kb.grids(name)
    assert grids, f"{name} was not launched"
    assert work_blocks > CAP
    assert all(g[dim] <= CAP for g in grids) and any(g[dim] == CAP for g in grids), grids


def test_grid_cap():
    assert grid_cap(10, 65535) == 10 and grid_cap(10**6, 65535) == 65535 and grid_cap(0, 9) == 1


def test_cap_env(monkeypatch):
    monkeypatch.setenv("TFCORE_KERNEL_MAX_BLOCKS", "3")
    assert grid_cap(10, 65535) == 3 and grid_cap(2, 65535) == 2
    monkeypatch.delenv("TFCORE_KERNEL_MAX_BLOCKS")
    assert grid_cap(10, 65535) == 10


# -- reduce ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", ["sum", "max", "min", "prod", "mean"])
def test_reduce_rows_and_columns(kb, dtype, op):
    rng = np.random.default_rng(0)
    x = (1 + 0.05 * rng.standard_normal((7, 40, 5)) if op == "prod" else rng.standard_normal((7, 40, 5)))
    x = x.astype(dtype)
    rows = red.reduce_axes(kb, x, (1, 2), False, op)     # [7, 200] rows: 7 rows over 2 blocks
    cols = red.reduce_axes(kb, x, (1,), False, op)       # [7, 40, 5] columns: 7 outer over 2 y-blocks
    sfx = "f32" if dtype == np.float32 else "f16"
    _reused(kb, f"reduce_rows_{sfx}", 0, 7)
    _reused(kb, f"reduce_cols_{sfx}", 1, 7)
    for got, axes in ((rows, (1, 2)), (cols, (1,))):
        np.testing.assert_allclose(got.astype(np.float64), reduce_ref(x, axes, op).astype(np.float64),
                                   *tol(dtype, 200))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reduce_two_pass_splits(kb, dtype):
    x = np.random.default_rng(1).standard_normal((3, 1001)).astype(dtype)
    rows = red.reduce_layout(kb, x, 3, 1001, 1, "sum", splits=3)                 # 9 (row, split) blocks
    xt = np.ascontiguousarray(x.T)
    cols = red.reduce_layout(kb, xt, 1, 1001, 3, "sum", splits=5)                # 5 (outer, split) y-blocks
    x3 = np.random.default_rng(2).standard_normal((3, 300, 8)).astype(dtype)     # 4-wide loads, 15 y-blocks
    cols4 = red.reduce_layout(kb, x3, 3, 300, 8, "max", splits=5)
    sfx = "f32" if dtype == np.float32 else "f16"
    _reused(kb, f"reduce_rows_split_{sfx}", 0, 9)
    _reused(kb, f"reduce_cols_split_{sfx}", 1, 15)
    assert not kb.grids(f"reduce_cols_{sfx}")  # one launch: no second pass over the partials
    np.testing.assert_allclose(rows.astype(np.float64), reduce_ref(x, (1,), "sum").astype(np.float64),
                               *tol(dtype, 1001))
    np.testing.assert_allclose(cols.astype(np.float64), reduce_ref(xt, (0,), "sum").astype(np.float64),
                               *tol(dtype, 1001))
    np.testing.assert_allclose(cols4.astype(np.float64), reduce_ref(x3, (1,), "max").astype(np.float64).ravel(),
                               *tol(dtype, 300))
    assert not red._cols_workspace(kb, 1, 1)[1].any()


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_argreduce(kb, dtype):
    x = np.random.default_rng(2).integers(-3, 4, size=(6, 50, 5)).astype(dtype)  # ties: first index wins
    for is_min in (False, True):
        np.testing.assert_array_equal(red.argreduce_axis(kb, x.reshape(150, 10), 1, is_min),
                                      argreduce_ref(x.reshape(150, 10), 1, is_min))
        np.testing.assert_array_equal(red.argreduce_axis(kb, x, 1, is_min), argreduce_ref(x, 1, is_min))
    sfx = "f32" if dtype == np.float32 else "f16"
    _reused(kb, f"argreduce_rows_{sfx}", 0, 150)
    _reused(kb, f"argreduce_cols_{sfx}", 1, 6)


# -- softmax ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_softmax_rows(kb, dtype):
    rng = np.random.default_rng(3)
    warp_rows = (3 * rng.standard_normal((45, 37))).astype(dtype)    # 45 rows = 6 blocks of 8 warps
    block_rows = (3 * rng.standard_normal((5, 1100))).astype(dtype)  # block per row, 5 rows
    for log in (False, True):
        for x in (warp_rows, block_rows):
            np.testing.assert_allclose(sm.softmax_last_axis(kb, x, log).astype(np.float64),
                                       softmax_ref(x, log).astype(np.float64), *tol(dtype))
    sfx = "f32" if dtype == np.float32 else "f16"
    _reused(kb, f"softmax_warp_{sfx}", 0, 6)
    _reused(kb, f"softmax_block_{sfx}", 0, 5)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("classes, variant", [(70, "warp_"), (1100, "")])
def test_sparse_xent_rows(kb, dtype, classes, variant):
    """Warp rows (8 per block) and block rows, with a bad label in a reused block."""
    rng = np.random.default_rng(4)
    rows = 8 * CAP + 3 if variant else 7
    x = (2 * rng.standard_normal((rows, classes))).astype(dtype)
    labels = rng.integers(0, classes, rows).astype(np.int64)
    labels[4] = classes                                    # a bad label: NaN row
    loss, grad = sm.sparse_softmax_xent(kb, x, labels)
    blocks = -(-rows // 8) if variant else rows
    _reused(kb, f"sparse_xent_{variant}{'f32' if dtype == np.float32 else 'f16'}", 0, blocks)
    good = np.arange(rows) != 4
    ref_loss, ref_grad = sparse_xent_ref(x, np.where(good, labels, 0))
    np.testing.assert_allclose(loss[good].astype(np.float64), ref_loss[good].astype(np.float64), *tol(dtype))
    np.testing.assert_allclose(grad[good].astype(np.float64), ref_grad[good].astype(np.float64), *tol(dtype))
    assert np.isnan(loss[4]) and np.isnan(grad[4]).all()


# -- pool ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool(kb, dtype, padding):
    rng = np.random.default_rng(5)
    shape, k, s = (2, 15, 14, 8), (3, 2), (2, 2)
    ksize, strides = (1, *k, 1), (1, *s, 1)
    (oh, ow), pads = tf_pads_2d(shape, k, s, padding)
    x = rng.standard_normal(shape).astype(dtype)
    dy = rng.standard_normal((2, oh, ow, 8)).astype(dtype)
    rt = tol(dtype, 6)
    np.testing.assert_array_equal(pool.pool_forward(kb, x, "max", ksize, strides, padding), max_pool_ref(x, k, s, pads))
    np.testing.assert_allclose(pool.pool_forward(kb, x, "avg", ksize, strides, padding).astype(np.float64),
                               avg_pool_ref(x, k, s, pads).astype(np.float64), *rt)
    np.testing.assert_allclose(pool.max_pool_backward(kb, x, dy, ksize, strides, padding).astype(np.float64),
                               max_pool_grad_ref(x, dy, k, s, pads).astype(np.float64), *rt)
    np.testing.assert_allclose(pool.avg_pool_backward(kb, dy, shape, ksize, strides, padding).astype(np.float64),
                               avg_pool_grad_ref(dy, shape, k, s, pads).astype(np.float64), *rt)
    sfx = "f32" if dtype == np.float32 else "f16"
    out_blocks = -(-2 * oh * ow * 8 // 256)
    _reused(kb, f"max_pool_fwd_{sfx}", 0, out_blocks)
    _reused(kb, f"avg_pool_fwd_{sfx}", 0, out_blocks)
    _reused(kb, f"max_pool_bwd_{sfx}", 0, -(-x.size // 256))
    _reused(kb, f"avg_pool_bwd_{sfx}", 0, -(-x.size // 256))


# -- bias_add --------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, data_format, dtype", [
    ((40, 64), "NHWC", np.float32),         # float4 path: 640 float4s over 2 blocks of 256
    ((30, 33), "NHWC", np.float32),         # scalar path (C % 4 != 0)
    ((3, 5, 8, 9), "NCHW", np.float16),
])
def test_bias_add(kb, shape, data_format, dtype):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape).astype(dtype)
    bias = rng.standard_normal(shape[1] if data_format == "NCHW" else shape[-1]).astype(dtype)
    for act in (None, "relu", "gelu_tanh"):
        y = bias_add_act(kb, x, bias, act, data_format)
        np.testing.assert_allclose(y.astype(np.float64), bias_add_ref(x, bias, act, data_format).astype(np.float64),
                                   *tol(dtype))
    vec = dtype == np.float32 and shape[-1] % 4 == 0 and data_format == "NHWC"
    _reused(kb, f"bias_add_{'f32' if dtype == np.float32 else 'f16'}", 0, -(-x.size // (4 if vec else 1) // 256))


# -- conv: the one-thread-per-element kernels and the filter gradient's tap loop --------------------

@pytest.mark.parametrize("padding, strides, dilations", [("SAME", (1, 1), (1, 1)), ("VALID", (2, 1), (1, 2))])
def test_conv_direct_kernels(kb, padding, strides, dilations):
    rng = np.random.default_rng(7)
    x_shape, (kh, kw), co, q = (2, 13, 12, 4), (3, 2), 5, 2
    st, dl = (1, *strides, 1), (1, *dilations, 1)
    (oh, ow), pads = tf_pads_2d(x_shape, (kh, kw), strides, padding, dilations)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((kh, kw, 4, co)).astype(np.float32)
    wd = rng.standard_normal((kh, kw, 4, q)).astype(np.float32)
    dy = rng.standard_normal((2, oh, ow, co)).astype(np.float32)
    dyd = rng.standard_normal((2, oh, ow, 4 * q)).astype(np.float32)
    np.testing.assert_allclose(conv.conv2d_input_grad(kb, w, dy, x_shape, st, dl, padding),
                               conv2d_input_grad_ref(w, dy, x_shape, strides, dilations, pads), *tol(np.float32, 30))
    np.testing.assert_allclose(conv.conv2d_filter_grad(kb, x, dy, w.shape, st, dl, padding),
                               conv2d_filter_grad_ref(x, dy, w.shape, strides, dilations, pads),
                               *tol(np.float32, 2 * oh * ow))
    np.testing.assert_allclose(conv.depthwise_forward(kb, x, wd, st, dl, padding),
                               depthwise_forward_ref(x, wd, strides, dilations, pads), *tol(np.float32, 6))
    np.testing.assert_allclose(conv.conv2d_input_grad(kb, wd, dyd, x_shape, st, dl, padding, depthwise=True),
                               depthwise_input_grad_ref(wd, dyd, x_shape, strides, dilations, pads),
                               *tol(np.float32, 12))
    np.testing.assert_allclose(conv.conv2d_filter_grad(kb, x, dyd, wd.shape, st, dl, padding, depthwise=True),
                               depthwise_filter_grad_ref(x, dyd, wd.shape, strides, dilations, pads),
                               *tol(np.float32, 2 * oh * ow))
    # The dense gradients are tiled GEMMs (no grid-stride loop); the depthwise kernels loop: forward and
    # input gradient over pixel tiles in grid.y (bx channels x by = 256 / bx pixels per block).
    _reused(kb, "depthwise_input_grad_f32", 1, -(-2 * 13 * 12 // (256 // 4)))
    _reused(kb, "depthwise_fwd_f32", 1, -(-2 * oh * ow // (256 // (4 * q))))
    _reused(kb, "depthwise_filter_grad_f32", 1, kh * kw)           # taps over grid.y


def test_conv_direct_kernels_f16(kb):
    rng = np.random.default_rng(8)
    x_shape, (kh, kw), q = (2, 9, 8, 4), (3, 3), 2
    one = (1, 1, 1, 1)
    (oh, ow), pads = tf_pads_2d(x_shape, (kh, kw), (1, 1), "SAME")
    x = rng.standard_normal(x_shape).astype(np.float16)
    w = rng.standard_normal((kh, kw, 4, q)).astype(np.float16)
    dy = rng.standard_normal((2, oh, ow, 4 * q)).astype(np.float16)
    np.testing.assert_allclose(conv.depthwise_forward(kb, x, w, one, one, "SAME").astype(np.float64),
                               depthwise_forward_ref(x, w, (1, 1), (1, 1), pads).astype(np.float64),
                               *tol(np.float16, kh * kw))
    np.testing.assert_allclose(conv.conv2d_input_grad(kb, w, dy, x_shape, one, one, "SAME", depthwise=True)
                               .astype(np.float64),
                               depthwise_input_grad_ref(w, dy, x_shape, (1, 1), (1, 1), pads).astype(np.float64),
                               *tol(np.float16, kh * kw * q))
    np.testing.assert_allclose(conv.conv2d_filter_grad(kb, x, dy, w.shape, one, one, "SAME", depthwise=True)
                               .astype(np.float64),
                               depthwise_filter_grad_ref(x, dy, w.shape, (1, 1), (1, 1), pads).astype(np.float64),
                               *tol(np.float16, 2 * oh * ow))
    _reused(kb, "depthwise_fwd_f16", 1, -(-2 * oh * ow // (256 // (4 * q))))
    _reused(kb, "depthwise_input_grad_f16", 1, -(-2 * 9 * 8 // (256 // 4)))
    _reused(kb, "depthwise_filter_grad_f16", 1, kh * kw)


def test_depthwise_tap_chunks_with_reused_blocks(kb):
    """Taps staged in chunks (5x5 taps x q 3 x 32 channels > the shared buffer) while each block loops over
    several pixel tiles: the chunk barriers must keep one tile's readers and the next chunk's stores apart."""
    rng = np.random.default_rng(10)
    x_shape, (kh, kw), q = (1, 7, 9, 34), (5, 5), 3
    one = (1, 1, 1, 1)
    (oh, ow), pads = tf_pads_2d(x_shape, (kh, kw), (1, 1), "SAME")
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((kh, kw, 34, q)).astype(np.float32)
    dy = rng.standard_normal((1, oh, ow, 34 * q)).astype(np.float32)
    np.testing.assert_allclose(conv.depthwise_forward(kb, x, w, one, one, "SAME"),
                               depthwise_forward_ref(x, w, (1, 1), (1, 1), pads), *tol(np.float32, kh * kw))
    np.testing.assert_allclose(conv.conv2d_input_grad(kb, w, dy, x_shape, one, one, "SAME", depthwise=True),
                               depthwise_input_grad_ref(w, dy, x_shape, (1, 1), (1, 1), pads),
                               *tol(np.float32, kh * kw * q))
    _reused(kb, "depthwise_input_grad_f32", 1, -(-7 * 9 // 8))
    _reused(kb, "depthwise_fwd_f32", 1, -(-oh * ow // 8))


# -- matmul batch loop (grid.z) --------------------------------------------------------------------

def test_matmul_batch_loop(kb):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((5, 9, 7)).astype(np.float32)
    b = rng.standard_normal((5, 7, 6)).astype(np.float32)
    np.testing.assert_allclose(matmul.launch_matmul(kb, a, b), matmul_ref(a, b), *tol(np.float32, 7))
    _reused(kb, "matmul_f32", 2, 5)


@pytest.mark.parametrize("kernel, dtype, k", [("matmul_f16", np.float16, 40), ("matmul_f32_tf32", np.float32, 20)])
def test_tensor_core_matmul_batch_loop(kb, kernel, dtype, k):
    """Three batches over two z-blocks, two k-tiles each: a block runs the cp.async pipeline again
    after its first batch (the stages must be free before the next prologue refills them)."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 18, k)).astype(dtype)
    b = rng.standard_normal((3, k, 10)).astype(dtype)
    got = matmul.launch_matmul(kb, a, b, kernel=kernel).astype(np.float64)
    rt = tol(np.float16, k) if dtype == np.float16 else (5e-3, 5e-3 * np.sqrt(k))  # TF32 inputs: 10-bit mantissa
    np.testing.assert_allclose(got, matmul_ref(a, b).astype(np.float64), *rt)
    _reused(kb, kernel, 2, 3)


# -- allreduce -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, rt", [(np.float32, 1e-6), (np.float16, 2e-3)])
def test_allreduce_buckets(kb, dtype, rt):
    from tfcore.backend import collectives
    from tfcore.backend.emulator.backend import EmulatedGPUBackend

    backends = [EmulatedGPUBackend(0, "Emulated GPU", (8, 0), 64 << 20, memory_limit_bytes=16 << 20,
                                   logical_index=i) for i in range(3)]
    for b in backends:
        b.kernels = kb.kernels
    rng = np.random.default_rng(10)
    host = [(rng.standard_normal(5000) * 4).astype(dtype) for _ in backends]  # 5 tiles
    out = collectives.all_reduce([b.asarray(h) for b, h in zip(backends, host)], backends, "on_device")
    want = sum(h.astype(np.float64) for h in host)
    for a in out:
        np.testing.assert_allclose(a.astype(np.float64), want, rtol=rt, atol=rt * 8)
    _reused(kb, f"allreduce_buckets_{'f32' if dtype == np.float32 else 'f16'}", 0,
            -(-5000 // collectives.ALLREDUCE_TILE))


# -- the same block-reuse launch shapes under racecheck --------------------------------------------

F32, F16 = np.float32, np.float16
RACE_CASES = [  # the smallest shapes of the tests above that make a block loop, one dtype each
    (test_reduce_rows_and_columns, dict(dtype=F32, op="sum")),
    (test_reduce_two_pass_splits, dict(dtype=F16)),
    (test_argreduce, dict(dtype=F32)),
    (test_softmax_rows, dict(dtype=F16)),
    (test_sparse_xent_rows, dict(dtype=F32, classes=1100, variant="")),
    (test_conv_direct_kernels, dict(padding="VALID", strides=(2, 1), dilations=(1, 2))),
    (test_depthwise_tap_chunks_with_reused_blocks, {}),
    (test_matmul_batch_loop, {}),
    (test_tensor_core_matmul_batch_loop, dict(kernel="matmul_f16", dtype=F16, k=40)),
    (test_tensor_core_matmul_batch_loop, dict(kernel="matmul_f32_tf32", dtype=F32, k=20)),
]


@pytest.fixture
def race_kb(monkeypatch):
    monkeypatch.setenv("TFCORE_KERNEL_MAX_BLOCKS", str(CAP))
    return _KB(racecheck=True)


@pytest.mark.parametrize("fn, kwargs", RACE_CASES,
                         ids=[f"{fn.__name__[5:]}-" + "-".join(getattr(v, "__name__", str(v)) for v in kw.values())
                              for fn, kw in RACE_CASES])
def test_block_reuse_under_racecheck(race_kb, fn, kwargs):
    """No shared-memory race (nor a cp.async read in flight) when blocks loop; also the numbers."""
    assert race_kb.kernels.racecheck
    fn(race_kb, **kwargs)
