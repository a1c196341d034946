"""kernels/matmul.cu on the emulator against matmul_ref: tile edges, transposes, batches, sizes 0/1."""

import numpy as np
import pytest
from kernel_helpers import tol

from tests.kernel_refs import matmul_ref
from tfcore.ops.cuda_kernels.matmul import launch_matmul

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

