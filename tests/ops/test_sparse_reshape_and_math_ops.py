"""tf.sparse beyond the basics: values and index order as TF documents them, float64 gradients, errors."""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

SP = tf.sparse.SparseTensor


def _np(sp):
    return sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist()


def _dense(sp):
    return tf.sparse.to_dense(sp, validate_indices=False).numpy()


def test_concat_sorts_row_major_and_expands():
    a = SP([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
    b = SP([[0, 0], [1, 1]], [3.0, 4.0], [2, 2])
    out = tf.sparse.concat(1, [a, b])
    assert _np(out) == ([[0, 1], [0, 3], [1, 0], [1, 4]], [1.0, 3.0, 2.0, 4.0], [2, 5])
    np.testing.assert_array_equal(_dense(out), np.concatenate([_dense(a), _dense(b)], axis=1))
    c = SP([[2, 0]], [5.0], [3, 1])
    out = tf.sparse.concat(-1, [a, c], expand_nonconcat_dims=True)
    assert _np(out)[2] == [3, 4] and _np(out)[0] == [[0, 1], [1, 0], [2, 3]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseConcat"):
        tf.sparse.concat(1, [a, c])


def test_reshape_keeps_order_and_infers_minus_one():
    sp = SP([[0, 0, 1], [1, 1, 0]], [1, 2], [2, 2, 2])
    out = tf.sparse.reshape(sp, [-1, 4])
    assert _np(out) == ([[0, 1], [1, 2]], [1, 2], [2, 4])
    np.testing.assert_array_equal(_dense(out), _dense(sp).reshape(2, 4))
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseReshape"):
        tf.sparse.reshape(sp, [3, 3])


def test_slice_split_and_transpose():
    sp = SP([[0, 0], [0, 3], [1, 1], [2, 4], [3, 2]], [1.0, 2.0, 3.0, 4.0, 5.0], [4, 5])
    d = _dense(sp)
    s = tf.sparse.slice(sp, [1, 1], [3, 10])
    assert _np(s) == ([[0, 0], [1, 3], [2, 1]], [3.0, 4.0, 5.0], [3, 4])
    np.testing.assert_array_equal(_dense(s), d[1:, 1:])
    parts = tf.sparse.split(sp_input=sp, num_split=2, axis=1)
    assert [p.dense_shape.numpy().tolist() for p in parts] == [[4, 3], [4, 2]]
    np.testing.assert_array_equal(np.concatenate([_dense(p) for p in parts], axis=1), d)
    t = tf.sparse.transpose(sp)
    assert _np(t)[0] == [[0, 0], [1, 1], [2, 3], [3, 0], [4, 2]]
    np.testing.assert_array_equal(_dense(t), d.T)
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseSplit"):
        tf.sparse.split(sp_input=sp, num_split=6, axis=1)


def test_retain_expand_dims_reset_shape_eye():
    sp = SP([[0, 1], [2, 0], [3, 3]], [1, 2, 3], [5, 6])
    r = tf.sparse.retain(sp, [True, False, True])
    assert _np(r) == ([[0, 1], [3, 3]], [1, 3], [5, 6])
    e = tf.sparse.expand_dims(sp, 1)
    assert _np(e)[0][1] == [2, 0, 0] and _np(e)[2] == [5, 1, 6]
    assert tf.sparse.reset_shape(sp).dense_shape.numpy().tolist() == [4, 4]
    assert tf.sparse.reset_shape(sp, [7, 7]).dense_shape.numpy().tolist() == [7, 7]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sparse.reset_shape(sp, [2, 9])
    np.testing.assert_array_equal(_dense(tf.sparse.eye(2, 3, dtype=tf.int32)), np.eye(2, 3, dtype=np.int32))


def test_fill_empty_rows_and_to_indicator():
    sp = SP([[0, 1], [0, 3], [2, 0], [3, 1]], [1.0, 2.0, 3.0, 4.0], [5, 4])
    out, empty = tf.sparse.fill_empty_rows(sp, -1.0)
    assert _np(out)[0] == [[0, 1], [0, 3], [1, 0], [2, 0], [3, 1], [4, 0]]
    assert _np(out)[1] == [1.0, 2.0, -1.0, 3.0, 4.0, -1.0]
    assert empty.numpy().tolist() == [False, True, False, False, True]
    ids = SP([[0, 0], [0, 1], [2, 0]], [0, 3, 2], [3, 2])
    ind = tf.sparse.to_indicator(ids, 4)
    assert ind.dtype == tf.bool
    np.testing.assert_array_equal(ind.numpy(), [[1, 0, 0, 1], [0, 0, 0, 0], [0, 0, 1, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sparse.to_indicator(ids, 3)


def test_fill_empty_rows_gradient_reaches_values_and_default():
    def f(v, dflt):
        out, _ = tf.sparse.fill_empty_rows(SP([[0, 1], [2, 0]], v, [4, 3]), dflt)
        return out.values * tf.constant([1.0, 2.0, 3.0, 4.0], tf.float64)

    check_gradients(f, np.array([0.5, -1.0]), np.array(2.0))


def test_maximum_minimum_over_union():
    a = SP([[0, 0], [1, 1]], [-1.0, 5.0], [2, 3])
    b = SP([[0, 0], [1, 2]], [-3.0, -2.0], [2, 3])
    mx, mn = tf.sparse.maximum(a, b), tf.sparse.minimum(a, b)
    assert _np(mx) == ([[0, 0], [1, 1], [1, 2]], [-1.0, 5.0, 0.0], [2, 3])
    assert _np(mn) == ([[0, 0], [1, 1], [1, 2]], [-3.0, 0.0, -2.0], [2, 3])
    np.testing.assert_array_equal(_dense(mx), np.maximum(_dense(a), _dense(b)))
    check_gradients(lambda va, vb: tf.sparse.maximum(SP([[0, 0], [1, 1]], va, [2, 3]),
                                                     SP([[0, 0], [1, 2]], vb, [2, 3])).values,
                    np.array([-1.0, 5.0]), np.array([-3.0, 2.0]))


def test_reduce_max_ignores_implicit_zeros():
    x = SP([[0, 0], [0, 2], [1, 1]], [-1.0, -4.0, 5.0], [2, 3])
    assert tf.sparse.reduce_max(x).numpy() == 5.0
    np.testing.assert_array_equal(tf.sparse.reduce_max(x, 1).numpy(), [-1.0, 5.0])
    np.testing.assert_array_equal(tf.sparse.reduce_max(x, 0).numpy(),
                                  [-1.0, 5.0, -4.0])
    assert tf.sparse.reduce_max(x, 1, keepdims=True).shape == [2, 1]
    s = tf.sparse.reduce_max(SP([[0, 0], [2, 1]], [3, 4], [3, 2]), 1, output_is_sparse=True)
    assert _np(s) == ([[0], [2]], [3, 4], [3])
    empty_row = tf.sparse.reduce_max(SP([[0, 0]], [1.0], [2, 2]), 1).numpy()
    assert empty_row[1] == np.finfo(np.float32).min


def test_softmax_over_present_values_and_gradient():
    idx = [[0, 0], [0, 2], [1, 1], [2, 0], [2, 1]]
    v = np.array([1.0, 2.0, 3.0, 0.5, -0.5])
    out = tf.sparse.softmax(SP(idx, v, [3, 3]))
    e = np.exp(v)
    want = np.concatenate([e[:2] / e[:2].sum(), [1.0], e[3:] / e[3:].sum()])
    np.testing.assert_allclose(out.values.numpy(), want)
    check_gradients(lambda x: tf.sparse.softmax(SP(idx, x, [3, 3])).values, v)


def test_sparse_segment_sum_mean_sqrt_n():
    data = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    s = tf.sparse.segment_sum(data, [0, 2, 1], [0, 0, 2])
    np.testing.assert_allclose(s.numpy(), [[6.0, 8.0], [0, 0], [3.0, 4.0]])
    m = tf.sparse.segment_mean(data, [0, 2, 1], [0, 0, 2], num_segments=4)
    np.testing.assert_allclose(m.numpy(), [[3.0, 4.0], [0, 0], [3.0, 4.0], [0, 0]])
    q = tf.sparse.segment_sqrt_n(data, [0, 2], [0, 0])
    np.testing.assert_allclose(q.numpy(), [[6 / np.sqrt(2), 8 / np.sqrt(2)]])
    check_gradients(lambda d: tf.sparse.segment_mean(d, [0, 2, 1, 1], [0, 0, 1, 1]), data)
    with pytest.raises(tf.errors.InvalidArgumentError, match="SparseSegmentSum"):
        tf.sparse.segment_sum(data, [0, 1], [1, 0])


def test_bincount_docs_example_and_weights():
    data = np.array([[10, 20, 30, 20], [11, 101, 11, 10001]], np.int64)
    out = tf.sparse.bincount(data, axis=-1)
    assert _np(out) == ([[0, 10], [0, 20], [0, 30], [1, 11], [1, 101], [1, 10001]], [1, 2, 1, 2, 1, 1], [2, 10002])
    assert out.values.dtype == tf.int64
    w = tf.sparse.bincount(np.array([1, 3, 1], np.int32), weights=np.array([0.5, 1.0, 2.0], np.float32),
                           minlength=6)
    assert _np(w) == ([[1], [3]], [2.5, 1.0], [6]) and w.values.dtype == tf.float32
    b = tf.sparse.bincount(SP([[0, 0], [0, 1], [1, 0]], np.array([2, 2, 7], np.int64), [2, 2]), axis=-1,
                           binary_output=True, maxlength=5)
    assert _np(b) == ([[0, 2]], [1], [2, 5])


def test_cross_docs_example():
    out = tf.sparse.cross([SP([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2]), tf.constant([["d"], ["e"]]),
                           SP([[0, 0], [1, 0]], ["f", "g"], [2, 1])])
    assert _np(out) == ([[0, 0], [1, 0], [1, 1]], [b"a_X_d_X_f", b"b_X_e_X_g", b"c_X_e_X_g"], [2, 2])
    two = tf.sparse.cross([tf.constant([["a", "b"]]), tf.constant([[1, 2]], tf.int64)], separator="-")
    assert two.values.numpy().tolist() == [b"a-1", b"a-2", b"b-1", b"b-2"]


def test_map_values_and_mask():
    sp = SP([[0, 1], [1, 0]], [1.0, 4.0], [2, 2])
    out = tf.sparse.map_values(tf.math.sqrt, sp)
    assert _np(out)[1] == [1.0, 2.0]
    added = tf.sparse.map_values(tf.add, sp, 10.0)
    assert _np(added)[1] == [11.0, 14.0]
    sl = tf.IndexedSlices(tf.constant([[1.0], [2.0], [3.0]]), tf.constant([4, 7, 9]), [12, 1])
    m = tf.sparse.mask(sl, [7])
    assert m.indices.numpy().tolist() == [4, 9] and m.values.numpy().tolist() == [[1.0], [3.0]]


def test_indexed_slices_convert_to_tensor():
    sl = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [1.0, 1.0]]), tf.constant([2, 0, 2]), [3, 2])
    assert sl.shape == [3, 2] and sl.dtype == tf.float32
    np.testing.assert_array_equal(tf.convert_to_tensor(sl).numpy(), [[3, 4], [0, 0], [2, 3]])
    assert tf.is_tensor(tf.add(sl, 1.0))
    with pytest.raises(ValueError, match="dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0])))
