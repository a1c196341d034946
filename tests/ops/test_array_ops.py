"""Array ops against NumPy references, TF's documented edge cases, and finite-difference gradients."""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


# -- shape manipulation ---------------------------------------------------------------------

def test_expand_dims_and_squeeze():
    x = tf.constant(np.zeros((2, 1, 3)))
    assert tf.expand_dims(x, 0).shape == (1, 2, 1, 3)
    assert tf.expand_dims(x, -1).shape == (2, 1, 3, 1)
    assert tf.squeeze(x).shape == (2, 3)
    assert tf.squeeze(tf.zeros([1, 2, 1]), axis=[-1]).shape == (1, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Can not squeeze dim\\[0\\]"):
        tf.squeeze(x, axis=0)


def test_concat_stack_unstack_split():
    a, b = r(2, 3), r(2, 2)
    np.testing.assert_array_equal(tf.concat([a, b], axis=1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(tf.concat([a, a], -2).numpy(), np.concatenate([a, a], 0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="ConcatV2"):
        tf.concat([a, b], axis=0)
    parts = tf.unstack(tf.constant(a), axis=1)
    assert len(parts) == 3 and np.allclose(parts[2].numpy(), a[:, 2])
    s = tf.split(tf.constant(np.arange(10)), [2, -1, 3])
    assert [p.numpy().tolist() for p in s] == [[0, 1], [2, 3, 4, 5, 6], [7, 8, 9]]
    s = tf.split(tf.constant(a), 3, axis=1)
    assert [p.shape for p in s] == [(2, 1)] * 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divide"):
        tf.split(tf.constant(a), 2, axis=1)


def test_concat_split_gradients():
    check_gradients(lambda x, y: tf.concat([x, y * 2.0], axis=0), r(2, 3), r(1, 3))
    check_gradients(lambda x: tf.split(x, [1, 2], axis=1)[1] * 3.0, r(2, 3))
    check_gradients(lambda x: tf.stack(tf.unstack(x, axis=1)[::-1], axis=0), r(2, 3))


def test_tile_and_gradient():
    x = r(2, 3)
    np.testing.assert_array_equal(tf.tile(x, [2, 3]).numpy(), np.tile(x, (2, 3)))
    check_gradients(lambda t: tf.tile(t, [3, 2]), x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tile"):
        tf.tile(x, [2])


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_pad_modes_and_gradients(mode):
    x = r(3, 4)
    pads = [[1, 2], [2, 1]]
    got = tf.pad(x, pads, mode=mode).numpy()
    np.testing.assert_allclose(got, np.pad(x, pads, mode=mode.lower()))
    check_gradients(lambda t: tf.pad(t, pads, mode=mode), x)


def test_pad_constant_value_and_errors():
    assert tf.pad(tf.constant([1, 2]), [[1, 1]], constant_values=9).numpy().tolist() == [9, 1, 2, 9]
    with pytest.raises(tf.errors.InvalidArgumentError, match="MirrorPad"):
        tf.pad(tf.constant([1.0, 2.0]), [[2, 0]], mode="REFLECT")


def test_mirror_pad_second_derivative_is_mirror_pad():
    x = tf.constant(r(4))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.pad(x, [[2, 1]], mode="SYMMETRIC") ** 2)
        g = inner.gradient(y, x)
        z = tf.reduce_sum(g)
    gg = outer.gradient(z, x)
    # y = sum(c_i x_i^2) with c the multiplicity of each x_i in the padded tensor: d2/dx = 2c
    np.testing.assert_allclose(gg.numpy(), [4.0, 4.0, 2.0, 4.0])  # padded: [b a | a b c d | d]


# -- gather / scatter ------------------------------------------------------------------------------

def test_gather_axis_and_batch_dims():
    p = r(3, 4, 5)
    idx = np.array([[2, 0], [1, 1]])
    np.testing.assert_array_equal(tf.gather(p, idx).numpy(), p[idx])
    np.testing.assert_array_equal(tf.gather(p, idx, axis=2).numpy(), np.take(p, idx, axis=2))
    bidx = np.array([[0, 3], [1, 1], [2, 0]])
    got = tf.gather(p, bidx, axis=1, batch_dims=1).numpy()
    want = np.stack([p[i][bidx[i]] for i in range(3)])
    np.testing.assert_array_equal(got, want)
    got = tf.gather(p, bidx[:, :1], axis=2, batch_dims=1).numpy()
    want = np.stack([np.take(p[i], bidx[i, :1], axis=1) for i in range(3)])
    np.testing.assert_array_equal(got, want)


def test_gather_out_of_range_raises_tf_message():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 3\)"):
        tf.gather(tf.constant([1, 2, 3]), [0, 5])
    # TF 2.21's texts (guide/intro_to_graphs prints one): the position, then [Op:GatherV2]
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.gather(tf.constant([1, 2]), [[0, 5]])
    assert e.value.message == "indices[0,1] = 5 is not in [0, 2) [Op:GatherV2]"
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.gather(tf.constant([1]), 1)
    assert e.value.message == "indices = 1 is not in [0, 1) [Op:GatherV2]"


def test_gather_gradient_is_indexed_slices_on_axis_0_and_dense_elsewhere():
    """TF 2.21: along axis 0 the gradient is a tf.IndexedSlices (repeated indices kept as separate slices,
    summed when made dense); along other axes or with batch_dims it is a dense tensor."""
    check_gradients(lambda p: tf.gather(p, [2, 0, 2], axis=1), r(2, 3))
    check_gradients(lambda p: tf.gather(p, [[0, 2], [1, 1]], axis=1, batch_dims=1), r(2, 3, 2))
    p = tf.Variable(np.ones((3, 2), np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(p, [0, 0, 2]))
    g = tape.gradient(y, p)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 0, 2])
    np.testing.assert_array_equal(g.dense_shape.numpy(), [3, 2])
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [[2, 2], [0, 0], [1, 1]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(p, [1, 0], axis=1))
    assert isinstance(tape.gradient(y, p), tf.Tensor)


def test_gather_nd_and_scatter_nd():
    p = r(3, 4)
    idx = np.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(tf.gather_nd(p, idx).numpy(), p[idx[:, 0], idx[:, 1]])
    np.testing.assert_array_equal(tf.gather_nd(p, [[1]]).numpy(), p[[1]])
    check_gradients(lambda t: tf.gather_nd(t, [[0, 1], [0, 1], [2, 0]]), p)
    out = tf.scatter_nd([[1], [3], [1]], tf.constant([1.0, 2.0, 3.0]), [5]).numpy()
    np.testing.assert_array_equal(out, [0, 4, 0, 2, 0])
    check_gradients(lambda u: tf.scatter_nd([[1], [0]], u, [3, 2]), r(2, 2))
    b = r(2, 3, 4)
    bi = np.array([[[1]], [[2]]])
    got = tf.gather_nd(b, bi, batch_dims=1).numpy()
    np.testing.assert_array_equal(got, np.stack([b[0][[1]], b[1][[2]]]))


def test_tensor_scatter_nd_update_and_add():
    t = tf.constant([1.0, 2.0, 3.0, 4.0])
    assert tf.tensor_scatter_nd_update(t, [[1], [3]], [9.0, 8.0]).numpy().tolist() == [1, 9, 3, 8]
    assert tf.tensor_scatter_nd_add(t, [[1], [1]], [1.0, 1.0]).numpy().tolist() == [1, 4, 3, 4]
    check_gradients(lambda a, u: tf.tensor_scatter_nd_update(a, [[0], [2]], u), r(4, 2), r(2, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="updates must have shape"):
        tf.tensor_scatter_nd_update(t, [[1]], [1.0, 2.0])


def test_boolean_mask():
    x = r(3, 2)
    m = np.array([True, False, True])
    np.testing.assert_array_equal(tf.boolean_mask(x, m).numpy(), x[m])
    m2 = np.array([[True, False], [False, False], [True, True]])
    np.testing.assert_array_equal(tf.boolean_mask(x, m2).numpy(), x[m2])
    np.testing.assert_array_equal(tf.boolean_mask(x, [True, False], axis=1).numpy(), x[:, [0]])
    check_gradients(lambda t: tf.boolean_mask(t, m), x)


def test_one_hot():
    got = tf.one_hot([0, 2, -1, 5], 3)
    assert got.dtype == tf.float32
    np.testing.assert_array_equal(got.numpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    got = tf.one_hot([1, 0], 2, on_value=5, off_value=-1, axis=0)
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(got.numpy(), [[-1, 5], [5, -1]])


# -- reverse, sort, unique ------------------------------------------------------------------------

def test_reverse_sort_argsort():
    x = r(3, 4)
    np.testing.assert_array_equal(tf.reverse(x, [1]).numpy(), x[:, ::-1])
    np.testing.assert_array_equal(tf.reverse(x, [0, -1]).numpy(), x[::-1, ::-1])
    np.testing.assert_array_equal(tf.sort(x).numpy(), np.sort(x, -1))
    np.testing.assert_array_equal(tf.sort(x, axis=0, direction="DESCENDING").numpy(), -np.sort(-x, 0))
    v = tf.constant([3, 1, 3, 2])
    assert tf.argsort(v).numpy().tolist() == [1, 3, 0, 2]
    assert tf.argsort(v, direction="DESCENDING").numpy().tolist() == [0, 2, 3, 1]  # ties keep order
    assert tf.argsort(v).dtype == tf.int32
    check_gradients(lambda t: tf.sort(t, axis=0) * tf.constant(np.arange(4.0)[:, None]), r(4, 2))
    check_gradients(lambda t: tf.reverse(t, [0]), x)


def test_unique():
    y, idx = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    assert y.numpy().tolist() == [1, 2, 4, 7, 8]
    assert idx.numpy().tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    y, idx = tf.unique(tf.constant([5.0, 3.0, 5.0, 1.0]))
    assert y.numpy().tolist() == [5, 3, 1] and idx.numpy().tolist() == [0, 1, 0, 2]
    y, idx, count = tf.unique_with_counts(tf.constant([2, 1, 2]))
    assert count.numpy().tolist() == [2, 1]


# -- creation ------------------------------------------------------------------------------------------

def test_range_linspace_eye_fill():
    assert tf.range(5).dtype == tf.int32
    assert tf.range(3, 18, 3).numpy().tolist() == [3, 6, 9, 12, 15]
    assert tf.range(1.0, 2.0, 0.25).dtype == tf.float32
    assert tf.range(5, 0, -2).numpy().tolist() == [5, 3, 1]
    assert tf.range(4, dtype=tf.float64).dtype == tf.float64
    np.testing.assert_allclose(tf.linspace(10.0, 12.0, 3).numpy(), [10, 11, 12])
    np.testing.assert_array_equal(tf.eye(2, 3).numpy(), np.eye(2, 3))
    assert tf.eye(2, batch_shape=[3]).shape == (3, 2, 2)
    assert tf.fill([2, 2], 7).numpy().tolist() == [[7, 7], [7, 7]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Range"):
        tf.range(0, 5, -1)


def test_meshgrid_repeat_roll_sequence_mask():
    x, y = tf.meshgrid([1, 2, 3], [4, 5])
    nx, ny = np.meshgrid([1, 2, 3], [4, 5])
    np.testing.assert_array_equal(x.numpy(), nx)
    np.testing.assert_array_equal(y.numpy(), ny)
    x, y = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert x.shape == (3, 2)
    np.testing.assert_array_equal(tf.repeat([[1, 2], [3, 4]], repeats=[1, 2], axis=0).numpy(), [[1, 2], [3, 4],
                                                                                                 [3, 4]])
    np.testing.assert_array_equal(tf.repeat([[1, 2]], 2).numpy(), [1, 1, 2, 2])
    np.testing.assert_array_equal(tf.roll([0, 1, 2, 3, 4], 2, 0).numpy(), [3, 4, 0, 1, 2])
    np.testing.assert_array_equal(tf.sequence_mask([1, 3], 4).numpy(),
                                  [[True, False, False, False], [True, True, True, False]])
    check_gradients(lambda t: tf.repeat(t, [2, 0, 1], axis=1), r(2, 3))


def test_stop_gradient_and_identity():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x * x) + tf.identity(x)
    assert tape.gradient(y, x).numpy() == pytest.approx(5.0)


def test_shape_size_rank():
    x = tf.zeros([2, 3])
    assert tf.shape(x).numpy().tolist() == [2, 3] and tf.shape(x).dtype == tf.int32
    assert int(tf.size(x)) == 6 and int(tf.rank(x)) == 2


# -- slicing --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [
    1, -1, slice(None, None, -1), (slice(1, None), 0), (Ellipsis, 1), (None, 0), (0, None, slice(None, None, 2)),
    (slice(-2, None, -1), Ellipsis, None), (slice(5, -5, -2),), (Ellipsis,), (slice(1, 1),),
])
def test_getitem_matches_numpy(key):
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(tf.constant(x)[key].numpy(), x[key])


def test_getitem_scalar_tensor_index_newaxis_and_variable():
    x = tf.constant(np.arange(12).reshape(3, 4))
    assert x[tf.constant(1), 2].numpy() == 6
    assert x[tf.newaxis, :, 1].shape == (1, 3)
    assert x[1:tf.constant(3)].shape == (2, 4)
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert v[1, 0].numpy() == 3.0
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[[0, 1]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        x[3]


def test_getitem_gradient_scatters_into_zeros_and_second_order():
    check_gradients(lambda t: t[::-2, 1:] * 2.0, r(5, 3))
    check_gradients(lambda t: t[..., None, 0], r(2, 3))
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        y = v[1] * 5.0
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [0, 5, 0])
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x[1:] ** 3
        g = inner.gradient(y, x)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [0, 12, 18])


def test_slice_and_strided_slice():
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(tf.slice(x, [0, 1, 1], [2, -1, 2]).numpy(), x[0:2, 1:, 1:3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Slice"):
        tf.slice(x, [0, 0, 0], [3, 1, 1])
    np.testing.assert_array_equal(tf.strided_slice(x, [1, 0, 3], [2, 3, 0], [1, 2, -1]).numpy(), x[1:2, 0:3:2, 3:0:-1])
    np.testing.assert_array_equal(
        tf.strided_slice(x, [0, 0], [0, 2], begin_mask=1, end_mask=1, shrink_axis_mask=2).numpy(), x[:, 0])
    np.testing.assert_array_equal(tf.strided_slice(x, [0, 1], [0, 2], ellipsis_mask=1).numpy(), x[..., 1:2])
    np.testing.assert_array_equal(tf.strided_slice(x, [0, 0], [1, 1], new_axis_mask=1).numpy(), x[None, 0:1])
    check_gradients(lambda t: tf.slice(t, [1, 0], [1, 2]), r(3, 2))


def test_string_tensors_through_array_ops():
    """tf.string tensors keep their dtype through concat/stack/unstack/indexing (seed 004's filename lists)."""
    a, b = tf.constant(["a", "bb"]), tf.constant(["c"])
    joined = tf.concat([a, b], axis=-1)
    assert joined.dtype == tf.string and joined.numpy().tolist() == [b"a", b"bb", b"c"]
    assert tf.stack([a, a]).shape == (2, 2)
    first, second = tf.unstack(a)
    assert first.dtype == tf.string and first.shape == () and second.numpy() == b"bb"
    assert a[1].numpy() == b"bb" and a[1].dtype == tf.string
    assert tf.equal(joined, "bb").numpy().tolist() == [False, True, False]
    # the numeric paths of the same kernels are unchanged
    assert [t.numpy().tolist() for t in tf.unstack(tf.constant([[1, 2], [3, 4]]), axis=1)] == [[1, 3], [2, 4]]
    assert tf.unstack(tf.zeros((0, 3))) == []
