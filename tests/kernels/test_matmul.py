"""kernels/matmul.cu on the emulator against matmul_ref: tile edges, transposes, batches, sizes 0/1."""

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.ops.cuda_kernels._util import ACT_NONE, ACT_RELU
from tfcore.ops.cuda_kernels.matmul import launch_matmul
from tfcore.selftest.references import matmul_ref

pytestmark = pytest.mark.emulator


def _operands(rng, batch_a, batch_b, m, k, n, ta, tb, dtype):
    a = rng.standard_normal(batch_a + ((k, m) if ta else (m, k))).astype(dtype)
    b = rng.standard_normal(batch_b + ((n, k) if tb else (k, n))).astype(dtype)
    return a, b


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (5, 7, 3), (130, 9, 131), (33, 16, 68)])
def test_matmul_f32(kb, rng, m, k, n, ta, tb):
    a, b = _operands(rng, (), (), m, k, n, ta, tb, np.float32)
    c = launch_matmul(kb, a, b, ta, tb)
    assert c.shape == (m, n) and c.dtype == np.float32
    np.testing.assert_allclose(c, matmul_ref(a, b, ta, tb), *tol(np.float32, k))


@pytest.mark.parametrize("kernel", ["matmul_f16", "matmul_f16_simt"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (131, 40, 17), (9, 33, 130)])
def test_matmul_f16_accumulates_in_f32(kb, rng, m, k, n, ta, tb, kernel):
    a, b = _operands(rng, (), (), m, k, n, ta, tb, np.float16)
    c = launch_matmul(kb, a, b, ta, tb, kernel=kernel)
    assert c.dtype == np.float16
    # float32 accumulation: only the final rounding to half is lost (a half accumulator would drift).
    np.testing.assert_allclose(c.astype(np.float64), matmul_ref(a, b, ta, tb).astype(np.float64), *tol(np.float16, k))


@pytest.mark.parametrize("batch_a,batch_b", [((3,), (3,)), ((2, 3), ()), ((), (4,)), ((2, 1), (1, 3)), ((1,), (2,))])
def test_matmul_batched_broadcast(kb, rng, batch_a, batch_b):
    a, b = _operands(rng, batch_a, batch_b, 6, 5, 7, False, True, np.float32)
    c = launch_matmul(kb, a, b, False, True)
    ref = matmul_ref(a, b, False, True)
    assert c.shape == ref.shape
    np.testing.assert_allclose(c, ref, *tol(np.float32, 5))


def test_matmul_vector_and_scalar_paths_agree(kb, rng):
    # k = 8, n = 12: every operand row is 16-byte aligned (float4 path); k = 7 forces the scalar path.
    for k in (8, 7):
        a, b = _operands(rng, (2,), (2,), 20, k, 12, False, False, np.float32)
        np.testing.assert_allclose(launch_matmul(kb, a, b), matmul_ref(a, b), *tol(np.float32, k))


def test_matmul_non_contiguous_inputs(kb, rng):
    a = rng.standard_normal((9, 14)).astype(np.float32)[:, ::2]  # strided view
    b = np.asfortranarray(rng.standard_normal((7, 5)).astype(np.float32))
    np.testing.assert_allclose(launch_matmul(kb, a, b), matmul_ref(a, b), *tol(np.float32, 7))


@pytest.mark.parametrize("shape_a,shape_b", [((0, 4), (4, 3)), ((3, 0), (0, 5)), ((3, 4), (4, 0)), ((0, 2, 3), (3, 2))])
def test_matmul_empty(kb, shape_a, shape_b):
    a, b = np.ones(shape_a, np.float32), np.ones(shape_b, np.float32)
    c = launch_matmul(kb, a, b)
    np.testing.assert_array_equal(c, np.matmul(a, b))



# -- the float16 tensor-core kernel (mma.sync/ldmatrix, emulated lane by lane by cuda_shim.h) ------------

@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", [(70, 1030, 45), (129, 1024, 8)])
def test_matmul_f16_tensor_cores_long_k(kb, rng, m, k, n, ta, tb):
    """K >= 1024 with positive inputs: sums reach ~K/4, where a half accumulator (spacing 0.25 at 256)
    drifts by ~1%; float32 accumulation loses only the final rounding to half (<= 2^-11 relative)."""
    a = rng.uniform(0, 1, (k, m) if ta else (m, k)).astype(np.float16)
    b = rng.uniform(0, 1, (n, k) if tb else (k, n)).astype(np.float16)
    c = launch_matmul(kb, a, b, ta, tb, kernel="matmul_f16")
    ref = matmul_ref(a, b, ta, tb).astype(np.float64)
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, True)])
def test_matmul_f16_tensor_cores_batched_ragged(kb, rng, ta, tb):
    a = rng.standard_normal((3, 2) + ((37, 19) if ta else (19, 37))).astype(np.float16)
    b = rng.standard_normal((1, 2) + ((21, 37) if tb else (37, 21))).astype(np.float16)
    c = launch_matmul(kb, a, b, ta, tb, kernel="matmul_f16")
    ref = matmul_ref(a, b, ta, tb).astype(np.float64)
    assert c.shape == (3, 2, 19, 21)
    np.testing.assert_allclose(c.astype(np.float64), ref, rtol=2e-3, atol=2e-3)


def test_matmul_f16_tensor_cores_unaligned_rows(kb, rng):
    # lda = 35, ldb = 13 halves: rows are not 16-byte aligned, so the kernel takes its element-wise loads.
    a = rng.standard_normal((40, 35)).astype(np.float16)
    b = rng.standard_normal((35, 13)).astype(np.float16)
    c = launch_matmul(kb, a, b, kernel="matmul_f16")
    np.testing.assert_allclose(c.astype(np.float64), matmul_ref(a, b).astype(np.float64), rtol=2e-3, atol=2e-3)


# -- float32 as TF32 on tensor cores (matmul_f32_tf32) ----------------------------------------------------

def _tf32(x):
    """x rounded to TF32 like cvt.rna.tf32.f32 (10 mantissa bits, ties away from zero), as float64."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return (((u + 0x1000) & 0xFFFFE000).astype(np.uint32)).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (67, 256, 45), (130, 37, 9)])
def test_matmul_tf32_tensor_cores(kb, rng, m, k, n, ta, tb):
    a, b = _operands(rng, (), (), m, k, n, ta, tb, np.float32)
    c = launch_matmul(kb, a, b, ta, tb, kernel="matmul_f32_tf32")
    assert c.dtype == np.float32
    ref = matmul_ref(a, b, ta, tb)
    scale = np.sqrt(k)  # |sum| of k products of unit normals
    # TF32's tolerance: inputs keep 10 mantissa bits (relative error <= 2^-11 each) -> ~1e-3 of the scale
    np.testing.assert_allclose(c, ref, rtol=0, atol=2e-3 * scale)
    # ...and it is the TF32 product: exact products of the rounded inputs, float32 accumulation
    ref32 = matmul_ref(_tf32(a), _tf32(b), ta, tb)
    np.testing.assert_allclose(c, ref32, rtol=0, atol=2e-5 * scale)
    if k >= 37:
        assert np.max(np.abs(c - ref)) > 1e-5 * scale  # not float32 math: the rounding shows


def test_matmul_tf32_batched_unaligned(kb, rng):
    # lda = 37 floats: rows not 16-byte aligned (element-wise loads); batch broadcast of b.
    a = rng.standard_normal((3, 29, 37)).astype(np.float32)
    b = rng.standard_normal((37, 10)).astype(np.float32)
    c = launch_matmul(kb, a, b, kernel="matmul_f32_tf32")
    np.testing.assert_allclose(c, matmul_ref(_tf32(a), _tf32(b)), rtol=0, atol=2e-5 * np.sqrt(37))


def test_matmul_strict_f32_stays_float32_accurate(kb, rng):
    a, b = _operands(rng, (), (), 67, 256, 45, False, False, np.float32)
    c = launch_matmul(kb, a, b, kernel="matmul_f32")
    np.testing.assert_allclose(c, matmul_ref(a, b), rtol=0, atol=2e-5 * np.sqrt(256) / 4)


class _CopyCountingXP:
    """NumPy, recording every array copy a launcher asks for (ascontiguousarray / broadcast copies)."""

    def __init__(self):
        self.copies = []

    def __getattr__(self, name):
        fn = getattr(np, name)
        if name not in ("ascontiguousarray", "asfortranarray", "array", "copy", "concatenate"):
            return fn

        def call(a, *args, **kwargs):
            out = fn(a, *args, **kwargs)
            if not (isinstance(a, np.ndarray) and np.shares_memory(out, a)):
                self.copies.append((name, getattr(a, "shape", None)))
            return out

        return call


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("batch", [(), (3,)])
def test_matmul_reads_transposed_views_in_place(kb, rng, ta, tb, batch):
    """A transposed view of a C-contiguous array (``y.T``, ``swapaxes(-1, -2)``) is read through the
    kernel's transpose flag, not copied; the result matches float64 in every flag combination."""
    import types

    m, k, n = 37, 70, 29
    a0, b0 = _operands(rng, batch, batch, m, k, n, not ta, not tb, np.float32)   # the other layout ...
    a, b = a0.swapaxes(-1, -2), b0.swapaxes(-1, -2)                               # ... viewed as (ta, tb)
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    xp = _CopyCountingXP()
    kc = types.SimpleNamespace(kind="cuda", xp=xp, kernels=kb.kernels)
    c = launch_matmul(kc, a, b, ta, tb)
    assert xp.copies == []
    ref = matmul_ref(a.astype(np.float64), b.astype(np.float64), ta, tb)
    np.testing.assert_allclose(c, ref, *tol(np.float32, k))


def test_matmul_copies_only_layouts_the_kernel_cannot_read(kb, rng):
    xp = _CopyCountingXP()
    import types

    kc = types.SimpleNamespace(kind="cuda", xp=xp, kernels=kb.kernels)
    a = rng.standard_normal((9, 14)).astype(np.float32)[:, ::2]          # strided: must be copied
    b = rng.standard_normal((5, 7)).astype(np.float32).T                 # transposed view: read in place
    c = launch_matmul(kc, a, b)
    assert [name for name, _ in xp.copies] == ["ascontiguousarray"]
    np.testing.assert_allclose(c, matmul_ref(a.astype(np.float64), b.astype(np.float64)), *tol(np.float32, 7))


# -- the fused bias + activation epilogue (common.cuh's tfc_epilogue; _FusedMatMul's kernels) ---------------

EPILOGUE_KERNELS = [("matmul_f32", np.float32), ("matmul_f16_simt", np.float16), ("matmul_f16", np.float16),
                    ("matmul_f32_tf32", np.float32)]


def epilogue_ref(product, bias, act):
    """act(product + bias) in float64 (product: the float64 reference of the kernel's product)."""
    y = product + (bias.astype(np.float64) if bias is not None else 0.0)
    return np.maximum(y, 0.0) if act == ACT_RELU else y


def _check_epilogue(kernel, c, a, b, ta, tb, bias, act, k):
    if kernel == "matmul_f32_tf32":  # the TF32 product (rounded inputs, float32 accumulation), then the epilogue
        want = epilogue_ref(matmul_ref(_tf32(a), _tf32(b), ta, tb), bias, act)
        np.testing.assert_allclose(c, want, rtol=0, atol=2e-5 * np.sqrt(k))
        return
    want = epilogue_ref(matmul_ref(a, b, ta, tb).astype(np.float64), bias, act)
    np.testing.assert_allclose(c.astype(np.float64), want, *tol(c.dtype, k))


@pytest.mark.parametrize("act", [ACT_NONE, ACT_RELU])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("kernel,dtype", EPILOGUE_KERNELS, ids=[k for k, _ in EPILOGUE_KERNELS])
@pytest.mark.parametrize("m,k,n,ta,tb", [(37, 19, 131, False, False),  # N % 4 == 3: 2 column tiles, ragged
                                         (130, 40, 7, True, True),     # 2 row tiles, N < 8
                                         (5, 9, 66, False, True)])     # N % 4 == 2 (f16 tensor cores: pairs)
def test_matmul_fused_epilogue(kb, rng, kernel, dtype, with_bias, act, m, k, n, ta, tb):
    a, b = _operands(rng, (), (), m, k, n, ta, tb, dtype)
    bias = rng.standard_normal(n).astype(dtype) if with_bias else None
    c = launch_matmul(kb, a, b, ta, tb, kernel=kernel, bias=bias, act=act)
    assert c.shape == (m, n) and c.dtype == dtype
    _check_epilogue(kernel, c, a, b, ta, tb, bias, act, k)
    if act == ACT_RELU:
        assert (c >= 0).all() and (c == 0).any()
    if not with_bias and act == ACT_NONE:  # null bias, no activation: the plain product, bit for bit
        np.testing.assert_array_equal(c, launch_matmul(kb, a, b, ta, tb, kernel=kernel))


@pytest.mark.parametrize("kernel,dtype", EPILOGUE_KERNELS, ids=[k for k, _ in EPILOGUE_KERNELS])
def test_matmul_fused_epilogue_batched_unaligned_and_nan(kb, rng, kernel, dtype):
    """Batches share the bias; unaligned rows (element-wise loads, no paired stores); the ReLU keeps NaN as
    NumPy's maximum does (the CPU op's ReLU)."""
    a = rng.standard_normal((2, 21, 13)).astype(dtype)
    b = rng.standard_normal((13, 11)).astype(dtype)
    a[1, 3, 5] = np.nan
    bias = rng.standard_normal(11).astype(dtype)
    c = launch_matmul(kb, a, b, kernel=kernel, bias=bias, act=ACT_RELU)
    assert np.isnan(c[1, 3]).all() and not np.isnan(np.delete(c[1], 3, axis=0)).any() and not np.isnan(c[0]).any()
    ok = ~np.isnan(c)
    prod = matmul_ref(_tf32(a), _tf32(b)) if kernel == "matmul_f32_tf32" else matmul_ref(a, b).astype(np.float64)
    want = epilogue_ref(prod, bias, ACT_RELU)
    rtol, atol = (0, 2e-5 * np.sqrt(13)) if kernel == "matmul_f32_tf32" else tol(dtype, 13)
    np.testing.assert_allclose(c[ok].astype(np.float64), want[ok], rtol=rtol, atol=atol)


@pytest.mark.parametrize("act", [ACT_NONE, ACT_RELU])
def test_matmul_fused_epilogue_empty_reduction(kb, rng, act):
    """K == 0: no launch; every output is act(0 + bias), as the separate ops give."""
    bias = rng.standard_normal(5).astype(np.float32)
    c = launch_matmul(kb, np.ones((3, 0), np.float32), np.ones((0, 5), np.float32), bias=bias, act=act)
    np.testing.assert_array_equal(c, epilogue_ref(np.zeros((3, 5)), bias, act).astype(np.float32))
