"""Argument validation at the user's boundary: the error names the argument (Keras 3's message where Keras has
one) and nothing changed (no variable created or updated, no training step run)."""

import numpy as np
import pytest

import tfcore as tf


@pytest.mark.parametrize("lr", ["fast", None, [0.1], True])
def test_optimizer_learning_rate_that_is_not_a_number_is_refused(lr):
    with pytest.raises(ValueError, match=r"Argument `learning_rate` should be float.*Received instead: learning_rate="):
        tf.keras.optimizers.Adam(learning_rate=lr)


@pytest.mark.parametrize("lr", [0.5, 1, np.float32(0.25)])
def test_optimizer_numeric_learning_rates_still_work(lr):
    assert float(tf.keras.optimizers.Adam(learning_rate=lr).learning_rate.numpy()) == pytest.approx(float(lr))


def _model():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    return model


X, Y = np.ones((8, 3), np.float32), np.ones((8, 1), np.float32)


@pytest.mark.parametrize("split", [1.5, 1.0, -0.1, "0.2", True])
def test_fit_validation_split_outside_0_1_is_refused_and_nothing_trains(split):
    model = _model()
    before = [w.numpy() for w in model.weights]
    with pytest.raises(ValueError, match=r"`validation_split` must be a float in the range \[0, 1\).*split="):
        model.fit(X, Y, validation_split=split, verbose=0)
    for w, b in zip(model.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)
    assert int(model.optimizer.iterations.numpy()) == 0


def test_fit_validation_split_zero_means_no_validation_as_in_keras():
    history = _model().fit(X, Y, validation_split=0, verbose=0)
    assert "val_loss" not in history.history
    history = _model().fit(X, Y, validation_split=0.25, verbose=0)
    assert "val_loss" in history.history


def test_scatter_with_dense_delta_is_tfs_type_error_and_changes_nothing():
    v = tf.Variable(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
        v.scatter_add(np.ones(3, np.float32))
    with pytest.raises(tf.errors.InvalidArgumentError):
        v.scatter_nd_add([[5]], [1.0])  # index out of range
    np.testing.assert_array_equal(v.numpy(), [0, 0, 0])


def test_variable_scatter_methods_match_tf_semantics():
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    v.scatter_update(tf.IndexedSlices(tf.constant([9.0, 8.0]), tf.constant([0, 2])))
    v.scatter_sub(tf.IndexedSlices(tf.constant([1.0]), tf.constant([3])))
    v.scatter_max(tf.IndexedSlices(tf.constant([5.0]), tf.constant([1])))
    v.scatter_min(tf.IndexedSlices(tf.constant([0.0]), tf.constant([0])))
    v.scatter_nd_add([[1], [1]], [1.0, 1.0])  # duplicates accumulate, as tensor_scatter_nd_add
    np.testing.assert_array_equal(v.numpy(), [0.0, 7.0, 8.0, 3.0])
