"""``tf.keras.Input(sparse=True)``: a functional model fed tf.SparseTensors (the sparse guide's Keras cells)."""

import numpy as np

import tfcore as tf


def _sparse():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def _model():
    x = tf.keras.Input(shape=(4,), sparse=True)
    assert x.sparse
    return tf.keras.Model(x, tf.keras.layers.Dense(4)(x))


def test_sparse_input_gives_the_dense_result():
    model = _model()
    sp = _sparse()
    dense = tf.sparse.to_dense(sp)
    np.testing.assert_allclose(model(sp).numpy(), model(tf.cast(dense, tf.float32)).numpy(), rtol=1e-6)


def test_predict_batches_a_sparse_tensor():
    model = _model()
    out = model.predict(_sparse(), batch_size=4, verbose=0)
    assert out.shape == (6, 4)
    np.testing.assert_allclose(out, model(tf.cast(tf.sparse.to_dense(_sparse()), tf.float32)).numpy(), rtol=1e-5)


def test_input_layer_config_says_sparse():
    model = _model()
    assert model.layers[0].get_config()["sparse"] is True
