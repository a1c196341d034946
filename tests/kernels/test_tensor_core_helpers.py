"""common.cuh's tensor-core / async-copy helpers on the emulator, lane by lane, against a NumPy model of
the PTX ISA fragment layouts (mma.m16n8k16 f16, mma.m16n8k8 tf32, ldmatrix x2/x4 with and without
.trans, cp.async with zero-fill, cvt.rna.tf32.f32). The model is written from the ISA's tables, not
from the shim's code, so a layout slip in either shows up here.

Test kernels: tests/kernels/cu/tensor_core_tests.cu (also compiled by NVRTC in test_nvrtc.py).
"""

from pathlib import Path

import numpy as np
import pytest

from tfcore.backend.emulator.launcher import EmulatorError, KernelFault, load_module
from tfcore.backend.kernel_library import kernels_dir

pytestmark = pytest.mark.emulator

CU = Path(__file__).parent / "cu" / "tensor_core_tests.cu"
LANES = np.arange(32)
G, T = LANES // 4, LANES % 4


@pytest.fixture(scope="module")
def mod():
    return load_module(CU, include_dirs=[kernels_dir()])


def _pack_halves(lo, hi):
    """Words of two float16 arrays: ``lo`` in bits 0-15, ``hi`` in bits 16-31."""
    lo = np.asarray(lo, np.float16).view(np.uint16).astype(np.uint32)
    hi = np.asarray(hi, np.float16).view(np.uint16).astype(np.uint32)
    return lo | (hi << 16)


# -- the PTX ISA's fragment layouts (g = lane / 4, t = lane % 4) --------------------------------------------

def f16_a_fragments(a):
    """A 16x16 (row) -> (32, 4) words: a0a1 = A[g][2t..], a2a3 = A[g+8][2t..], a4a5 = A[g][2t+8..],
    a6a7 = A[g+8][2t+8..]."""
    rows = [G, G + 8, G, G + 8]
    cols = [2 * T, 2 * T, 2 * T + 8, 2 * T + 8]
    return np.stack([_pack_halves(a[r, c], a[r, c + 1]) for r, c in zip(rows, cols)], axis=1)


def f16_b_fragments(b):
    """B 16x8 (col) -> (32, 2) words: b0b1 = B[2t..2t+1][g], b2b3 = B[2t+8..2t+9][g]."""
    return np.stack([_pack_halves(b[k, G], b[k + 1, G]) for k in (2 * T, 2 * T + 8)], axis=1)


def cd_fragments(c):
    """C/D 16x8 -> (32, 4) floats: C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]."""
    return np.stack([c[G, 2 * T], c[G, 2 * T + 1], c[G + 8, 2 * T], c[G + 8, 2 * T + 1]], axis=1)


def tf32_a_fragments(a):
    """A 16x8 (row) -> (32, 4): A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]."""
    return np.stack([a[G, T], a[G + 8, T], a[G, T + 4], a[G + 8, T + 4]], axis=1)


def tf32_b_fragments(b):
    """B 8x8 (col) -> (32, 2): B[t][g], B[t+4][g]."""
    return np.stack([b[T, G], b[T + 4, G]], axis=1)


def tf32_round(x):
    """cvt.rna.tf32.f32 as bits: keep 10 mantissa bits, round half away from zero; inf/nan unchanged."""
    u = np.asarray(x, np.float32).view(np.uint32)
    special = (u & 0x7F800000) == 0x7F800000
    r = ((u.astype(np.uint64) + 0x1000) & 0xFFFFE000).astype(np.uint32)
    return np.where(special, u, r)


# -- mma ------------------------------------------------------------------------------------------------

def test_mma_m16n8k16_f16_fragment_layout(mod):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 8)).astype(np.float16)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = np.zeros((32, 4), np.float32)
    mod.launch("mma_f16_probe", 1, 32, (f16_a_fragments(a), f16_b_fragments(b), cd_fragments(c), d))
    want = a.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(d, cd_fragments(want), rtol=1e-6, atol=1e-6)


def test_mma_m16n8k16_each_position_reaches_its_output(mod):
    """One-hot operands: a wrong lane/word/half mapping moves the single product elsewhere."""
    d = np.zeros((32, 4), np.float32)
    zeros_c = np.zeros((32, 4), np.float32)
    for i, k, j in [(0, 0, 0), (15, 15, 7), (9, 3, 5), (4, 12, 2), (11, 8, 6), (3, 7, 1)]:
        a = np.zeros((16, 16), np.float16)
        b = np.zeros((16, 8), np.float16)
        a[i, k], b[k, j] = 3.0, 5.0
        mod.launch("mma_f16_probe", 1, 32, (f16_a_fragments(a), f16_b_fragments(b), zeros_c, d))
        want = np.zeros((16, 8))
        want[i, j] = 15.0
        np.testing.assert_array_equal(d, cd_fragments(want))


def test_mma_accumulates_in_float32_not_half(mod):
    # 16 products of 1 onto C = 2048: a half accumulator would stay at 2048 (spacing 2 there).
    a = np.zeros((16, 16), np.float16)
    a[0, :] = 1.0
    b = np.zeros((16, 8), np.float16)
    b[:, 0] = 1.0
    c = np.zeros((16, 8), np.float32)
    c[0, 0] = 2048.0
    d = np.zeros((32, 4), np.float32)
    mod.launch("mma_f16_probe", 1, 32, (f16_a_fragments(a), f16_b_fragments(b), cd_fragments(c), d))
    assert d[0, 0] == 2064.0


def test_mma_m16n8k8_tf32_fragment_layout_and_rounding(mod):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal((8, 8)).astype(np.float32)
    c = rng.standard_normal((16, 8)).astype(np.float32)
    d = np.zeros((32, 4), np.float32)
    mod.launch("mma_tf32_probe", 1, 32, (tf32_a_fragments(a), tf32_b_fragments(b), cd_fragments(c), d))
    ta = tf32_round(a).view(np.float32).astype(np.float64)
    tb = tf32_round(b).view(np.float32).astype(np.float64)
    np.testing.assert_allclose(d, cd_fragments(ta @ tb + c), rtol=1e-6, atol=1e-6)
    # and the rounding matters: the unrounded product differs by more than float32 noise
    assert np.max(np.abs(cd_fragments(a.astype(np.float64) @ b + c) - d)) > 1e-4


def test_tf32_rounding_is_nearest_ties_away(mod):
    one = np.float32(1.0).view(np.uint32)
    bits = np.array([one, one + 0x0FFF, one + 0x1000, one + 0x1001, one + 0x3000, one + 0x2FFF,
                     0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00001, 0x00000001, 0x80001000],
                    np.uint32)
    x = np.concatenate([bits.view(np.float32), -bits.view(np.float32),
                        np.random.default_rng(2).standard_normal(1000).astype(np.float32)])
    y = np.zeros(x.shape, np.uint32)
    mod.launch("tf32_round_probe", (x.size + 127) // 128, 128, (x, y, x.size))
    np.testing.assert_array_equal(y, tf32_round(x))
    assert y[2] == one + 0x2000 and y[1] == one and y[4] == one + 0x4000  # ties go away from zero
    assert y[6] == 0x7F800000  # the largest float rounds up to infinity


# -- ldmatrix -------------------------------------------------------------------------------------------

def _ldmatrix_model(src, perm, num, trans):
    """Words lane l receives: matrix i's rows are at the rows lanes 8i..8i+7 point to."""
    out = np.zeros((32, 4), np.uint32)
    for i in range(num):
        m = src[perm[8 * i: 8 * i + 8]]  # (8, 8) matrix i, row r from lane 8i + r
        if trans:
            m = m.T
        lo, hi = m[G, 2 * T], m[G, 2 * T + 1]
        out[:, i] = lo.astype(np.uint32) | (hi.astype(np.uint32) << 16)
    return out


@pytest.mark.parametrize("mode,num,trans", [(0, 4, False), (1, 2, False), (2, 4, True), (3, 2, True)])
def test_ldmatrix_layout(mod, mode, num, trans):
    src = np.arange(32 * 8, dtype=np.uint16).reshape(32, 8) * 3 + 7
    perm = np.random.default_rng(mode).permutation(32).astype(np.int32)
    out = np.zeros((32, 4), np.uint32)
    mod.launch("ldmatrix_probe", 1, 32, (src, perm, out, mode))
    np.testing.assert_array_equal(out, _ldmatrix_model(src, perm, num, trans))


def test_ldmatrix_feeds_mma_like_the_matmul_kernel(mod):
    """x4 of a row-major 16x16 A gives the mma A fragment; x2.trans of a k-major B the B fragment."""
    a = np.arange(256, dtype=np.uint16).reshape(16, 16)
    # x4 on A: lane l points at row (l % 16), column 8 * (l // 16): matrices (rows 0-7|8-15) x (cols 0-7|8-15)
    rows = a.reshape(16, 2, 8).transpose(1, 0, 2).reshape(32, 8)  # row q = (half h, m): a[m, 8h: 8h + 8]
    perm = np.array([(l // 16) * 16 + l % 16 for l in range(32)], np.int32)
    out = np.zeros((32, 4), np.uint32)
    mod.launch("ldmatrix_probe", 1, 32, (rows, perm, out, 0))
    np.testing.assert_array_equal(out, f16_a_fragments(a.view(np.float16)))


# -- cp.async -------------------------------------------------------------------------------------------

def test_cp_async_copies_and_zero_fills(mod):
    src = np.arange(1, 32 * 4 + 4 + 1, dtype=np.float32)  # lane l copies src[4l: 4l + cp_size/4]
    size = np.array([4, 8, 16, 16] * 8)
    nbytes = np.array([(l * 4) % (size[l] + 4) for l in range(32)], np.int32)
    nbytes = np.minimum(nbytes - nbytes % 4, size).astype(np.int32)
    out = np.zeros((32, 4), np.float32)
    mod.launch("cp_async_probe", 1, 32, (src, nbytes, out))
    want = np.full((32, 4), -1.0, np.float32)
    for l in range(32):
        n = size[l] // 4
        want[l, :n] = 0.0
        want[l, : nbytes[l] // 4] = src[4 * l: 4 * l + nbytes[l] // 4]
    np.testing.assert_array_equal(out, want)
    assert (nbytes == 0).any() and (nbytes == size).any() and ((nbytes > 0) & (nbytes < size)).any()


def _groups_probe(mod, mode):
    src = np.arange(1, 3 * 128 + 1, dtype=np.float32)
    out = np.zeros((3, 32, 4), np.float32)
    mod.launch("cp_async_groups_probe", 1, 32, (src, out, mode))
    return src.reshape(3, 32, 4), out


@pytest.mark.parametrize("mode, landed", [(0, (True, False, False)),   # wait_group 1: the older group only
                                          (1, (True, True, False)),    # wait_group 0: not the uncommitted copy
                                          (2, (True, True, True)),     # wait_all: every copy
                                          (3, (False, False, False))])  # no wait: nothing has landed
def test_cp_async_lands_only_at_its_wait_group(mod, mode, landed):
    """A copy reads as the OLD shared contents until a wait covers its commit group, so a kernel missing
    its wait_group or commit_group computes with stale data on the emulator as it may on hardware."""
    src, out = _groups_probe(mod, mode)
    for stage in range(3):
        want = src[stage] if landed[stage] else np.full((32, 4), -1.0, np.float32)
        np.testing.assert_array_equal(out[stage], want, err_msg=f"stage {stage}")


def test_cp_async_other_lanes_see_it_after_wait_and_barrier(mod):
    src, out = _groups_probe(mod, 5)
    np.testing.assert_array_equal(out[0], np.roll(src[0], -1, axis=0))
    src, out = _groups_probe(mod, 4)  # a barrier alone does not complete a cp.async: stale reads
    assert (out[0] == -1.0).all(axis=1).sum() >= 16  # (a lane that has exited has landed its copies)


@pytest.fixture(scope="module")
def race_mod():
    return load_module(CU, include_dirs=[kernels_dir()], racecheck=True)


@pytest.mark.parametrize("mode", [0, 1, 3, 4])
def test_racecheck_reports_reading_a_copy_in_flight(race_mod, mode):
    with pytest.raises(KernelFault, match="cp.async into it by thread .* is still in flight") as info:
        _groups_probe(race_mod, mode)
    e = info.value
    assert e.race and e.accesses == ("cp.async", "read") and e.shared_variable and "s" in e.shared_variable
    if mode == 4:  # the next lane's copy
        assert e.other_thread == ((e.thread[0] + 1) % 32, 0, 0)


@pytest.mark.parametrize("mode", [2, 5])
def test_racecheck_accepts_reads_after_the_wait(race_mod, mode):
    _groups_probe(race_mod, mode)


# -- misuse is reported ----------------------------------------------------------------------------------

def test_ldmatrix_misaligned_row_is_reported(mod):
    with pytest.raises(EmulatorError, match="ldmatrix: row address not 16-byte aligned"):
        mod.launch("ldmatrix_misaligned", 1, 32, (np.zeros(256, np.uint16), np.zeros(32, np.uint32)))


def test_cp_async_misaligned_is_reported(mod):
    with pytest.raises(EmulatorError, match="cp.async: address not aligned"):
        mod.launch("cp_async_misaligned", 1, 16, (np.zeros(64, np.float32), np.zeros(16, np.float32)))


def test_mma_in_a_partial_warp_is_reported(mod):
    with pytest.raises(EmulatorError, match="needs all 32 lanes"):
        mod.launch("mma_partial_warp", 1, 16, (np.zeros(16, np.float32),))
