"""tf.nn cross-entropies, l2_loss and compute_average_loss against NumPy references, with gradients."""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

RNG = np.random.default_rng(11)


def np_log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def test_softmax_cross_entropy():
    logits = RNG.standard_normal((4, 5))
    labels = RNG.dirichlet(np.ones(5), size=4)
    got = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_allclose(got.numpy(), -(labels * np_log_softmax(logits)).sum(-1), rtol=1e-12)
    got = tf.nn.softmax_cross_entropy_with_logits(labels.T, logits.T, axis=0)
    np.testing.assert_allclose(got.numpy(), -(labels * np_log_softmax(logits)).sum(-1), rtol=1e-12)
    l3, y3 = RNG.standard_normal((2, 3, 4)), RNG.dirichlet(np.ones(4), size=(2, 3))
    got = tf.nn.softmax_cross_entropy_with_logits(y3, l3)
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got.numpy(), -(y3 * np_log_softmax(l3)).sum(-1), rtol=1e-12)


def test_softmax_cross_entropy_gradients_to_logits_and_labels():
    logits = RNG.standard_normal((3, 4))
    labels = RNG.dirichlet(np.ones(4), size=3)
    check_gradients(lambda y, x: tf.nn.softmax_cross_entropy_with_logits(y, x), labels, logits)
    labels0 = RNG.dirichlet(np.ones(3), size=4).T   # distributions along axis 0 (TF's backprop assumes it)
    check_gradients(lambda y, x: tf.nn.softmax_cross_entropy_with_logits(y, x, axis=0), labels0, logits)


def test_sparse_softmax_cross_entropy():
    logits = RNG.standard_normal((6, 4))
    labels = np.array([0, 3, 1, 2, 3, 0])
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    ref = -np_log_softmax(logits)[np.arange(6), labels]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    check_gradients(lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x), logits)
    # higher rank labels, int64
    l3 = RNG.standard_normal((2, 3, 5))
    y3 = RNG.integers(0, 5, (2, 3)).astype(np.int64)
    got = tf.nn.sparse_softmax_cross_entropy_with_logits(y3, l3)
    ref = -np.take_along_axis(np_log_softmax(l3), y3[..., None], -1)[..., 0]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    check_gradients(lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(y3, x), l3)


def test_sparse_softmax_gradient_is_softmax_minus_onehot():
    logits = RNG.standard_normal((3, 4)).astype(np.float32)
    labels = np.array([2, 0, 3], np.int32)
    x = tf.constant(logits)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x)
    g = tape.gradient(loss, x).numpy()
    sm = np.exp(np_log_softmax(logits.astype(np.float64)))
    np.testing.assert_allclose(g, sm - np.eye(4)[labels], rtol=1e-5, atol=1e-6)
    assert loss.dtype == tf.float32


@pytest.mark.usefixtures("on_cpu")  # TF checks label ranges on the CPU only (a GPU gives NaN rows)
def test_sparse_softmax_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"SparseSoftmaxCrossEntropyWithLogits.*label value of 4.*\[0, 4\).*float64\[2, 4\].*int"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(np.array([1, 4]), RNG.standard_normal((2, 4)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(np.array([-1, 0]), RNG.standard_normal((2, 4)))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"SparseSoftmaxCrossEntropyWithLogits.*rank.*int32\[2, 1\].*float32\[2, 4\]"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros([2, 1], tf.int32), tf.zeros([2, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"SparseSoftmaxCrossEntropyWithLogits.*float32"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(tf.zeros([2]), tf.zeros([2, 4]))


def test_softmax_cross_entropy_shape_error():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"SoftmaxCrossEntropyWithLogits.*float32\[2, 4\].*float32\[2, 3\]"):
        tf.nn.softmax_cross_entropy_with_logits(tf.zeros([2, 3]), tf.zeros([2, 4]))


def test_sigmoid_cross_entropy_is_stable_and_correct():
    x = RNG.standard_normal((3, 4)) * 4
    z = RNG.uniform(0, 1, (3, 4))
    got = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    p = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(got.numpy(), -(z * np.log(p) + (1 - z) * np.log(1 - p)), rtol=1e-10)
    big = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant([0.0, 1.0]), logits=tf.constant([500.0, -500.0]))
    np.testing.assert_allclose(big.numpy(), [500.0, 500.0])
    check_gradients(lambda a, b: tf.nn.sigmoid_cross_entropy_with_logits(labels=a, logits=b), z, x)
    with pytest.raises(ValueError, match="same shape"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([2]), logits=tf.zeros([3]))


def test_weighted_cross_entropy():
    x = RNG.standard_normal((3, 4)) * 3
    z = RNG.uniform(0, 1, (3, 4))
    q = 2.5
    got = tf.nn.weighted_cross_entropy_with_logits(z, x, q)
    p = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(got.numpy(), -(q * z * np.log(p) + (1 - z) * np.log(1 - p)), rtol=1e-10)
    check_gradients(lambda a, b: tf.nn.weighted_cross_entropy_with_logits(a, b, q), z, x)


def test_l2_loss():
    x = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(tf.nn.l2_loss(x).numpy(), np.sum(x ** 2) / 2)
    assert tf.nn.l2_loss(tf.constant([3.0, 4.0])).numpy() == 12.5
    check_gradients(tf.nn.l2_loss, x)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"L2Loss.*int32"):
        tf.nn.l2_loss(tf.constant([1, 2]))


def test_compute_average_loss():
    per = np.array([1.0, 2.0, 3.0, 6.0], np.float32)
    assert tf.nn.compute_average_loss(per).numpy() == 3.0
    assert tf.nn.compute_average_loss(per, global_batch_size=8).numpy() == 1.5
    w = np.array([1.0, 0.0, 1.0, 0.5], np.float32)
    np.testing.assert_allclose(tf.nn.compute_average_loss(per, sample_weight=w).numpy(), (1 + 3 + 3) / 4)
    np.testing.assert_allclose(tf.nn.compute_average_loss(per, sample_weight=2.0, global_batch_size=6).numpy(),
                               24 / 6)
    got = tf.nn.compute_average_loss(per, global_batch_size=tf.constant(8))
    assert got.dtype == tf.float32 and got.numpy() == 1.5
    with pytest.raises(tf.errors.InvalidArgumentError, match="global_batch_size"):
        tf.nn.compute_average_loss(per, global_batch_size=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="global_batch_size"):
        tf.nn.compute_average_loss(per, global_batch_size=tf.constant(2.0))
    np.testing.assert_allclose(tf.nn.scale_regularization_loss(tf.constant([1.0, 2.0])).numpy(), 3.0)
