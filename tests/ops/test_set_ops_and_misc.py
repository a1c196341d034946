"""tf.sets, tf.edit_distance (TF's documented example), tf.inside_function, tf.make_tensor_proto/make_ndarray."""

import numpy as np
import pytest

import tfcore as tf

SP = tf.sparse.SparseTensor


def _np(sp):
    return sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist()


def test_set_ops_dense():
    a = tf.constant([[1, 2, 3], [4, 5, 6]])
    b = tf.constant([[3, 2, 9], [1, 1, 1]])
    assert _np(tf.sets.intersection(a, b)) == ([[0, 0], [0, 1]], [2, 3], [2, 2])
    assert _np(tf.sets.union(a, b)) == ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]],
                                        [1, 2, 3, 9, 1, 4, 5, 6], [2, 4])
    assert _np(tf.sets.difference(a, b)) == ([[0, 0], [1, 0], [1, 1], [1, 2]], [1, 4, 5, 6], [2, 3])
    assert _np(tf.sets.difference(a, b, aminusb=False)) == ([[0, 0], [1, 0]], [9, 1], [2, 1])
    np.testing.assert_array_equal(tf.sets.size(b).numpy(), [3, 1])
    assert tf.sets.size(b).dtype == tf.int32


def test_set_ops_sparse_and_strings():
    a = SP([[0, 0, 0], [0, 0, 1], [1, 0, 0]], ["x", "y", "x"], [2, 1, 2])
    b = SP([[0, 0, 0], [1, 0, 0], [1, 0, 1]], ["y", "z", "x"], [2, 1, 2])
    out = tf.sets.intersection(a, b)
    assert _np(out) == ([[0, 0, 0], [1, 0, 0]], [b"y", b"x"], [2, 1, 1])
    np.testing.assert_array_equal(tf.sets.size(a).numpy(), [[2], [1]])
    with pytest.raises(TypeError):
        tf.sets.union(tf.constant([[1.0]]), tf.constant([[2.0]]))


def test_edit_distance_docs_example():
    hyp = SP([[0, 0, 0], [1, 0, 0]], ["a", "b"], (2, 1, 1))
    truth = SP([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], ["a", "b", "c", "a"], (2, 2, 2))
    out = tf.edit_distance(hyp, truth)
    assert out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), [[np.inf, 1.0], [0.5, 1.0]])
    np.testing.assert_array_equal(tf.edit_distance(hyp, truth, normalize=False).numpy(), [[1, 1], [1, 1]])
    k = SP([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5]], list("kitten"), [1, 6])
    s = SP([[0, i] for i in range(7)], list("sitting"), [1, 7])
    assert tf.edit_distance(k, s, normalize=False).numpy().tolist() == [3.0]


def test_inside_function():
    assert tf.inside_function() is False
    seen = []

    @tf.function
    def f():
        seen.append(tf.inside_function())
        return tf.constant(1)

    f()
    assert seen == [True]


def test_make_tensor_proto_and_make_ndarray():
    pytest.importorskip("tensorboard")
    p = tf.make_tensor_proto([[1, 2], [3, 4]])
    assert p.dtype == 3 and [d.size for d in p.tensor_shape.dim] == [2, 2]
    assert p.tensor_content == np.array([1, 2, 3, 4], "<i4").tobytes()
    s = tf.make_tensor_proto(1.5)
    assert list(s.float_val) == [1.5] and not s.tensor_content and len(s.tensor_shape.dim) == 0
    filled = tf.make_tensor_proto(2.0, shape=[2, 3])
    np.testing.assert_array_equal(tf.make_ndarray(filled), np.full((2, 3), 2.0, np.float32))
    np.testing.assert_array_equal(tf.make_ndarray(tf.make_tensor_proto(np.arange(6.0).reshape(3, 2))),
                                  np.arange(6.0).reshape(3, 2))
    assert tf.make_ndarray(tf.make_tensor_proto(["a", "bc"])).tolist() == [b"a", b"bc"]
    assert tf.make_ndarray(tf.make_tensor_proto([1, 2], dtype=tf.int64)).dtype == np.int64
    with pytest.raises(ValueError, match="Too many elements"):
        tf.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError):
        tf.make_ndarray(np.zeros(2))


def _volume_patches_ref(x, k, s, padding):
    b, p, r, c, d = x.shape
    if padding == "SAME":
        outs = [-(-n // st) for n, st in zip((p, r, c), s)]
        pads = [max((o - 1) * st + kk - n, 0) for o, st, kk, n in zip(outs, s, k, (p, r, c))]
        x = np.pad(x, [(0, 0)] + [(q // 2, q - q // 2) for q in pads] + [(0, 0)])
    else:
        outs = [(n - kk) // st + 1 for n, kk, st in zip((p, r, c), k, s)]
    out = np.zeros([b] + outs + [k[0] * k[1] * k[2] * d])
    for i in range(outs[0]):
        for j in range(outs[1]):
            for m in range(outs[2]):
                blk = x[:, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1], m * s[2]:m * s[2] + k[2], :]
                out[:, i, j, m] = blk.reshape(b, -1)
    return out


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_volume_patches(padding):
    from tests.conftest import check_gradients

    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5, 2))
    out = tf.extract_volume_patches(x, [1, 2, 2, 3, 1], [1, 1, 2, 2, 1], padding)
    np.testing.assert_allclose(out.numpy(), _volume_patches_ref(x, (2, 2, 3), (1, 2, 2), padding))
    check_gradients(lambda v: tf.extract_volume_patches(v, [1, 2, 1, 2, 1], [1, 1, 2, 2, 1], padding), x[:1, :, :3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="ExtractVolumePatches"):
        tf.extract_volume_patches(x[0], [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], padding)
