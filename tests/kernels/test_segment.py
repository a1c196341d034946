"""kernels/segment.cu on the emulator against the float64 reference (tfcore/selftest/references.py): the
atomicCAS unsorted product and the sorted per-segment product, every dtype entry, ragged shapes (ids of rank
1 and 2, inner sizes 1 and odd, empty segments, negative ids, more rows than one block, empty data)."""

import numpy as np
import pytest

from tfcore.errors import InvalidArgumentError
from tfcore.ops.cuda_kernels.segment import SUFFIX, segment_prod, unsorted_segment_prod
from tfcore.selftest.references import segment_prod_ref

pytestmark = pytest.mark.emulator

DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64]
# (data shape, ids rank, num_segments)
UNSORTED_CASES = [((7,), 1, 4), ((300, 3), 1, 6), ((5, 4, 3), 2, 5), ((6, 1, 2), 1, 9), ((0, 3), 1, 2),
                  ((4, 0), 1, 3), ((3,), 1, 0)]
SORTED_CASES = [((7,), 5), ((300, 3), 6), ((9, 2, 5), 4), ((1, 1), 1)]


def _data(rng, shape, dtype):
    if np.dtype(dtype).kind == "i":
        return rng.integers(-4, 5, shape).astype(dtype)  # zeros and signs; int32 products of 50 factors wrap
    return rng.uniform(0.5, 1.5, shape).astype(dtype) * rng.choice([-1.0, 1.0], shape).astype(dtype)


def _tol(dtype, k):
    """Integers exact; floats: one rounding per factor (k factors at most per segment)."""
    if np.dtype(dtype).kind == "i":
        return 0, 0
    return {np.float16: 6e-4, np.float32: 7e-8, np.float64: 1.2e-16}[dtype] * max(k, 1), 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, ids_rank, segments", UNSORTED_CASES)
def test_unsorted_segment_prod(kb, rng, shape, ids_rank, segments, dtype):
    data = _data(rng, shape, dtype)
    ids = rng.integers(-1, segments, shape[:ids_rank]).astype(np.int32)  # num_segments 0: every id dropped
    got = unsorted_segment_prod(kb, data, ids, num_segments=segments)
    want = segment_prod_ref(data, ids, segments)
    assert got.dtype == data.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, *_tol(dtype, max(shape[0], 1)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, segments", SORTED_CASES)
def test_segment_prod(kb, rng, shape, segments, dtype):
    """Sorted ids with a gap (an empty segment in the middle); the in-order product is exact for integers and
    matches a sequential float64-rounded product closely for floats."""
    data = _data(rng, shape, dtype)
    ids = np.sort(rng.integers(0, segments, shape[0])).astype(np.int64)
    n = int(ids[-1]) + 1
    got = segment_prod(kb, data, ids)
    np.testing.assert_allclose(got, segment_prod_ref(data, ids, n), *_tol(dtype, shape[0]))


def test_unsorted_out_of_range_id_raises_before_launching(kb):
    """TF's CPU error for an id >= num_segments (the GPU kernel would skip it; we raise on every device)."""
    with pytest.raises(InvalidArgumentError, match=r"segment_ids\[2\] = 3 is out of range \[0, 3\)"):
        unsorted_segment_prod(kb, np.ones(4, np.float32), np.array([0, 1, 3, -1], np.int32), num_segments=3)


@pytest.mark.parametrize("ids, message", [([0, 2, 1], "segment ids are not increasing"),
                                          ([-1, 0, 0], r"Segment id -1 out of range \[0, 1\)")])
def test_sorted_ids_are_checked_before_launching(kb, ids, message):
    with pytest.raises(InvalidArgumentError, match=message):
        segment_prod(kb, np.ones(3, np.float32), np.array(ids, np.int64))


def test_entry_per_dtype():
    assert sorted(SUFFIX.values()) == ["f16", "f32", "f64", "i32", "i64"]


def test_half_sorted_product_matches_numpy_bit_for_bit(kb, rng):
    """Each factor rounded to half in row order: NumPy's float16 multiply.at, the CPU kernel, does the same."""
    data = rng.uniform(0.5, 2.0, (40, 3)).astype(np.float16)
    ids = np.repeat(np.arange(8), 5)
    want = np.ones((8, 3), np.float16)
    np.multiply.at(want, ids, data)
    np.testing.assert_array_equal(segment_prod(kb, data, ids), want)
