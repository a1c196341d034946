"""Behaviours that real TF2 programs found silently wrong (issue 29, item 2): each test fails on the code
before the fix and states what TF 2.21 / Keras 3 do."""

import numpy as np

import tfcore as tf


# -- binary accuracy: one value per sample -----------------------------------------------------------------
def test_binary_accuracy_weighs_a_short_last_batch_by_its_size():
    """Labels (B,) against predictions (B, 1): Keras 3 brings them to one rank and counts one match per
    sample; averaging a mean per batch made the 3-sample last batch weigh as much as the 8-sample one."""
    y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1], np.float32)
    p = np.full((11, 1), 0.9, np.float32)
    m = tf.keras.metrics.BinaryAccuracy()
    m.update_state(y[:8], p[:8])
    m.update_state(y[8:], p[8:])
    assert float(m.result()) == np.float32(6 / 11)

    model = tf.keras.Sequential([tf.keras.Input((1,)),
                                 tf.keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")])
    model.compile(loss="binary_crossentropy", metrics=["accuracy"])
    _, accuracy = model.evaluate(np.ones((11, 1), np.float32), y, batch_size=8, verbose=0)
    assert accuracy == np.float32(6 / 11)


def test_binary_accuracy_function_is_element_wise_as_keras3():
    got = tf.keras.metrics.binary_accuracy(np.array([[1.0], [0.0]]), np.array([[0.9], [0.9]]))
    np.testing.assert_array_equal(got.numpy(), [[1.0], [0.0]])
    got = tf.keras.metrics.binary_accuracy(np.array([1.0, 0.0, 1.0]), np.array([[0.9], [0.9], [0.2]]))
    assert got.shape == (3, 1)
    np.testing.assert_array_equal(got.numpy()[:, 0], [1.0, 0.0, 0.0])


# -- a custom layer's compute_mask ----------------------------------------------------------------------------
class _PaddingMaskedEmbedding(tf.keras.layers.Layer):
    """A custom layer as TF's tutorials write it: compute_mask overridden, supports_masking not set."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.embedding = tf.keras.layers.Embedding(10, 4)

    def call(self, x):
        return self.embedding(x)

    def compute_mask(self, inputs, mask=None):
        return tf.not_equal(inputs, 0)


def test_custom_compute_mask_is_attached_to_the_outputs():
    out = _PaddingMaskedEmbedding()(tf.constant([[3, 4, 0, 0]]))
    np.testing.assert_array_equal(out._keras_mask.numpy(), [[True, True, False, False]])


def test_attention_after_a_custom_masking_layer_ignores_padding():
    """Keras 3 sets supports_masking for a layer that overrides compute_mask; attention then masks the
    padded keys, so the real positions' outputs equal those of the unpadded sequence."""
    tf.keras.utils.set_random_seed(1)
    inp = tf.keras.Input((None,), dtype="int64")
    h = _PaddingMaskedEmbedding()(inp)
    model = tf.keras.Model(inp, tf.keras.layers.MultiHeadAttention(1, 4)(h, h))
    padded = model(np.array([[3, 4, 0, 0]])).numpy()
    unpadded = model(np.array([[3, 4]])).numpy()
    np.testing.assert_allclose(padded[0, :2], unpadded[0], rtol=1e-5, atol=1e-6)


# -- Normalization statistics survive a .keras round trip ----------------------------------------------------
def test_reloaded_keras_model_keeps_normalization_adapt_statistics(tmp_path):
    norm = tf.keras.layers.Normalization()
    norm.adapt(np.array([[1.0], [2.0], [3.0]], np.float32))
    model = tf.keras.Sequential([tf.keras.Input((1,)), norm, tf.keras.layers.Dense(1)])
    model.save(tmp_path / "n.keras")
    loaded = tf.keras.models.load_model(tmp_path / "n.keras")
    x = np.array([[3.0]], np.float32)
    want = (3.0 - 2.0) / np.sqrt(2.0 / 3.0)
    np.testing.assert_allclose(loaded.layers[0](x).numpy(), [[want]], rtol=1e-5)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_normalization_follows_set_weights():
    norm = tf.keras.layers.Normalization()
    norm.adapt(np.array([[0.0], [2.0]], np.float32))
    norm.set_weights([np.array([10.0]), np.array([4.0]), np.array(5)])
    np.testing.assert_allclose(norm(np.array([[12.0]], np.float32)).numpy(), [[1.0]])


# -- tf.data: element_spec and structure after map --------------------------------------------------------------
def test_element_spec_after_map_keeps_an_unknown_batch_size():
    ds = tf.data.Dataset.from_tensor_slices((np.zeros((100, 3), np.float32), np.arange(100))).batch(32)
    mapped = ds.map(lambda x, y: (x * 2.0, tf.one_hot(y, 3), tf.zeros([5])))
    assert [s.shape.as_list() for s in mapped.element_spec] == [[None, 3], [None, 3], [5]]
    assert tf.data.Dataset.range(4).map(lambda x: x * 2).element_spec.shape.as_list() == []


def test_map_keeps_a_nested_tuple_result():
    ds = tf.data.Dataset.from_tensor_slices((np.zeros((4, 3), np.float32), np.arange(4.0), np.ones(4)))
    mapped = ds.map(lambda a, b, c: ((a, b), c))
    (a, b), c = next(iter(mapped))
    assert a.shape == (3,) and b.shape == () and float(c) == 1.0
    assert isinstance(mapped.element_spec[0], tuple) and len(mapped.element_spec) == 2
