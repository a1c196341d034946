"""The bandwidth-bound kernels on the emulator against float64 references, on ragged shapes:
softmax / log-softmax / sparse cross-entropy (warp rows, block rows with the row in registers, the
long-row fallback; vector and element paths), single-launch split reductions (last-block combine,
tickets reused across launches), and the bucketed on-device all-reduce (SUM, fused MEAN, in place).
"""

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.backend import collectives
from tfcore.backend.emulator.backend import EmulatedGPUBackend
from tfcore.ops.cuda_kernels import reduce as red
from tfcore.ops.cuda_kernels import softmax as sm
from tfcore.selftest.references import reduce_ref, softmax_ref, sparse_xent_ref

pytestmark = pytest.mark.emulator

# Row lengths around every boundary: warp rows (<= 1024), block rows (<= 8192), the fallback beyond.
COLS = [1, 2, 31, 32, 33, 127, 128, 129, 1023, 1024, 1025, 2049, 4100, 8191, 8192, 8193, 20003]


def _unaligned(x):
    """A C-contiguous copy of ``x`` that starts one element past a 16-byte boundary (element paths)."""
    buf = np.empty(x.size + 8, x.dtype)
    off = 1 if buf.ctypes.data % 16 == 0 else 0
    while (buf.ctypes.data + off * x.itemsize) % 16 == 0:
        off += 1
    out = buf[off:off + x.size].reshape(x.shape)
    out[...] = x
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("cols", COLS)
def test_softmax_rows_every_variant(kb, rng, cols, dtype):
    rows = 3 if cols <= 8193 else 2
    x = (4 * rng.standard_normal((rows, cols))).astype(dtype)
    for log in (False, True):
        ref = softmax_ref(x, log).astype(np.float64)
        for xin in (x, _unaligned(x)):
            y = sm.softmax_last_axis(kb, xin, log)
            assert y.shape == x.shape and y.dtype == dtype
            np.testing.assert_allclose(y.astype(np.float64), ref, *tol(dtype))


def test_softmax_variant_choice():
    assert [sm._variant(c) for c in (1, 1024, 1025, 8192, 8193)] == ["warp", "warp", "block", "block", "long"]


@pytest.mark.parametrize("cols", [5, 300, 3000, 9000])
def test_softmax_infinities_in_every_variant(kb, rng, cols):
    x = rng.standard_normal((4, cols)).astype(np.float32)
    x[0, ::3] = -np.inf      # some -inf: they get probability 0
    x[1, :] = -np.inf        # all -inf: NaN (0 / 0), as the float64 reference
    x[2, cols // 2] = 1e30   # one huge logit takes everything
    x[3, :] += 1000.0        # large logits: no overflow
    for log in (False, True):
        y = sm.softmax_last_axis(kb, x, log)
        with np.errstate(invalid="ignore"):
            ref = softmax_ref(x, log)
        np.testing.assert_array_equal(np.isnan(y), np.isnan(ref))
        ok = ~np.isnan(ref)
        np.testing.assert_allclose(y[ok], ref[ok], rtol=2e-5, atol=2e-5)


def test_softmax_many_rows_grid_stride(kb, rng, monkeypatch):
    monkeypatch.setattr(sm, "MAX_GRID_Y", 3)  # few blocks: each walks many rows
    for cols in (7, 1500, 9000):
        x = rng.standard_normal((37, cols)).astype(np.float32)
        np.testing.assert_allclose(sm.softmax_last_axis(kb, x), softmax_ref(x), *tol(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("classes", [1, 31, 33, 1000, 1025, 8192, 8200])
def test_sparse_xent_every_variant(kb, rng, classes, dtype):
    rows = 4
    x = (3 * rng.standard_normal((rows, classes))).astype(dtype)
    labels = rng.integers(0, classes, size=rows).astype(np.int32)
    labels[-1] = classes - 1
    for xin in (x, _unaligned(x)):
        loss, grad = sm.sparse_softmax_xent(kb, xin, labels)
        ref_loss, ref_grad = sparse_xent_ref(x, labels)
        np.testing.assert_allclose(loss.astype(np.float64), ref_loss.astype(np.float64), *tol(dtype, classes))
        np.testing.assert_allclose(grad.astype(np.float64), ref_grad.astype(np.float64), *tol(dtype))
    bad = labels.copy()
    bad[1], bad[2] = -1, classes
    loss, grad = sm.sparse_softmax_xent(kb, x, bad)
    assert np.isnan(loss[1:3]).all() and np.isnan(grad[1:3]).all()
    assert not np.isnan(loss[[0, 3]]).any() and not np.isnan(grad[[0, 3]]).any()


# -- reductions ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n", [0, 1, 3, 4, 1023, 1025, 4 * 64 * 3, 4 * 64 * 3 + 8, 4 * 64 * 3 + 5, 70001])
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_full_reduction_single_launch_split(kb, rng, monkeypatch, n, op, dtype):
    monkeypatch.setattr(red, "SPLIT_CHUNK", 64)  # the split path at test sizes
    x = rng.standard_normal(n).astype(dtype)
    for xin in (x, _unaligned(x)):
        got = red.reduce_axes(kb, xin, (0,), False, op)
        if n == 0:
            assert np.isnan(got) if op == "mean" else got == {"sum": 0, "max": -np.inf, "min": np.inf}[op]
            continue
        np.testing.assert_allclose(np.float64(got), reduce_ref(x, (0,), op).astype(np.float64), *tol(dtype, n))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_split_rows_tickets_are_reused_across_launches(kb, rng, dtype):
    """Rows split over several blocks, launched again and again with other splits and row counts:
    the row tickets must be back at zero after every launch, and the workspace grows when needed."""
    for outer, r, splits in [(3, 1003, 2), (3, 1003, 5), (1, 4096, 7), (5, 4000, 3), (3, 1003, 5), (40, 512, 9)]:
        x = rng.standard_normal((outer, r)).astype(dtype)
        for op in ("sum", "prod" if dtype == np.float32 else "max"):
            xx = (1 + 0.01 * x).astype(dtype) if op == "prod" else x
            got = red.reduce_layout(kb, xx, outer, r, 1, op, splits=splits)
            np.testing.assert_allclose(got.astype(np.float64), reduce_ref(xx, (1,), op).astype(np.float64),
                                       *tol(dtype, r))
    part, tickets = red._split_workspace(kb, 1, 1)
    assert not tickets.any()


def test_split_rows_grid_stride(kb, rng, monkeypatch):
    monkeypatch.setattr(red, "MAX_GRID_Y", 4)  # fewer blocks than (row, split) pairs
    x = rng.standard_normal((6, 4000)).astype(np.float32)
    got = red.reduce_layout(kb, x, 6, 4000, 1, "sum", splits=5)
    np.testing.assert_allclose(got, x.astype(np.float64).sum(1), *tol(np.float32, 4000))


# -- on-device all-reduce ----------------------------------------------------------------------------

def _card(n):
    return [EmulatedGPUBackend(0, "Emulated GPU", (8, 0), 64 << 20, memory_limit_bytes=16 << 20, logical_index=i)
            for i in range(n)]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("replicas", [2, 3])
def test_bucketed_all_reduce_sum_mean_in_place(rng, dtype, replicas):
    backends = _card(replicas)
    sizes = [1, 3, 4, 1023, 1024, 1025, 0, 5000]
    for divisor in (1, replicas):
        for inplace in (False, True):
            host = [[(3 * rng.standard_normal(s)).astype(dtype) for s in sizes] for _ in backends]
            arrays = [[b.asarray(h) for h in hs] for b, hs in zip(backends, host)]
            out = collectives.all_reduce_buckets(arrays, backends, "on_device", divisor=divisor, inplace=inplace)
            for k, s in enumerate(sizes):
                if dtype == np.float32:   # float32 sums in replica order then divides: the host's result
                    want = host[0][k].copy()
                    for h in host[1:]:
                        want = want + h[k]
                    want = want / np.float32(divisor)
                else:
                    want = sum(h[k].astype(np.float64) for h in host) / divisor
                for r in range(replicas):
                    assert out[r][k].dtype == dtype and out[r][k].shape == (s,)
                    if dtype == np.float32:
                        np.testing.assert_array_equal(out[r][k], want)
                    else:
                        np.testing.assert_allclose(out[r][k].astype(np.float64), want, rtol=2e-3, atol=2e-3)
                    if inplace and s:
                        assert np.shares_memory(out[r][k], arrays[r][k])
                    elif not inplace:
                        np.testing.assert_array_equal(arrays[r][k], host[r][k])  # inputs untouched


def test_bucketed_all_reduce_unaligned_mixed_dtypes_and_host_transport(rng):
    backends = _card(2)
    h32 = [rng.standard_normal(203).astype(np.float32) for _ in backends]
    a32 = [b.asarray(h)[1:] for b, h in zip(backends, h32)]             # unaligned: element path
    hi = [np.arange(5, dtype=np.int32) * (r + 1) for r in range(2)]     # no kernel: array ops
    h16 = [rng.standard_normal(9).astype(np.float16) for _ in backends]
    buckets = [[a32[r], backends[r].asarray(hi[r]), backends[r].asarray(h16[r])] for r in range(2)]
    out = collectives.all_reduce_buckets(buckets, backends, "on_device")
    for r in range(2):
        np.testing.assert_allclose(out[r][0], h32[0][1:].astype(np.float64) + h32[1][1:], rtol=1e-6)
        np.testing.assert_array_equal(out[r][1], np.arange(5) * 3)
        np.testing.assert_allclose(out[r][2].astype(np.float64), h16[0].astype(np.float64) + h16[1], rtol=2e-3)
    host_out = collectives.all_reduce_buckets([[h32[r]] for r in range(2)], backends, "host", divisor=2)
    np.testing.assert_allclose(host_out[1][0], (h32[0] + h32[1]) / np.float32(2), rtol=1e-7)
    with pytest.raises(TypeError, match="floating"):
        collectives.all_reduce_buckets([[hi[r]] for r in range(2)], backends, "on_device", divisor=2)
    with pytest.raises(ValueError, match="same number of buckets"):
        collectives.all_reduce_buckets([[h32[0]], []], backends, "on_device")
