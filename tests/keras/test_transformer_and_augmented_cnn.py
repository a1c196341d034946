"""The two models of issue #17's must-show, trained to a stated accuracy on the CPU and on an emulated GPU
(``TFCORE_EMULATED_GPUS=1``: our CUDA kernels run by the CPU emulator):

- a transformer text classifier: TextVectorization -> Embedding(mask_zero) -> MultiHeadAttention block ->
  GlobalAveragePooling1D (masked) -> Dense, on synthetic sentiment sentences;
- an augmented CNN: Rescaling -> RandomTranslation/RandomRotation -> Conv2D -> MaxPooling2D -> Dense, on the
  bundled ``tf.keras.datasets.digits``.

The emulator runs kernels slowly, so the emulated-GPU runs use smaller data; each asserts its accuracy and
that the GPU run's loss history equals the CPU run of the same configuration.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework.context import context

L = tf.keras.layers
GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"


@pytest.fixture(scope="module")
def emulated_gpu():
    """One emulated GPU for this module's GPU tests; the previous configuration after."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    gpu = context.find("GPU", 0)
    assert gpu is not None and gpu.backend.emulated
    yield "/GPU:0"
    mp.undo()
    context.reset_for_tests()


# -- the transformer text classifier ---------------------------------------------------------------------

POSITIVE = ["great", "good", "fun", "loved", "superb", "enjoyable"]
NEGATIVE = ["bad", "boring", "awful", "hated", "dull", "poor"]
FILLER = ["the", "movie", "was", "a", "film", "plot", "story", "actors", "and", "it", "very", "really", "this"]


def sentiment_data(n, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    texts = []
    for label in labels:
        words = list(rng.choice(FILLER, rng.integers(3, 9)))
        for _ in range(rng.integers(1, 3)):
            words.insert(rng.integers(0, len(words) + 1), rng.choice(POSITIVE if label else NEGATIVE))
        texts.append(" ".join(words))
    return np.array(texts)[:, None], labels


class TransformerBlock(L.Layer):
    """Post-norm encoder block: self-attention (padding masked) and a feed-forward net, each residual."""

    def __init__(self, d_model, num_heads, ff_dim, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.att = L.MultiHeadAttention(num_heads=num_heads, key_dim=d_model // num_heads)
        self.ffn = tf.keras.Sequential([L.Dense(ff_dim, activation="relu"), L.Dense(d_model)])
        self.norm1 = L.LayerNormalization(epsilon=1e-6)
        self.norm2 = L.LayerNormalization(epsilon=1e-6)
        self.drop1 = L.Dropout(rate)
        self.drop2 = L.Dropout(rate)
        self.supports_masking = True

    def call(self, x, training=None, mask=None):
        h = self.norm1(x + self.drop1(self.att(x, x), training=training))  # x's mask reaches attention
        return self.norm2(h + self.drop2(self.ffn(h), training=training))


def train_text_classifier(n_train, epochs, device, n_test=200):
    tf.keras.utils.set_random_seed(0)
    x, y = sentiment_data(n_train + n_test)
    with tf.device(device):
        vectorize = L.TextVectorization(max_tokens=64, output_sequence_length=12)
        vectorize.adapt(x[:n_train, 0])
        inputs = tf.keras.Input(shape=(1,), dtype="string")
        h = L.Embedding(64, 16, mask_zero=True)(vectorize(inputs))
        h = TransformerBlock(16, num_heads=2, ff_dim=32)(h)
        outputs = L.Dense(2, activation="softmax")(L.GlobalAveragePooling1D()(h))
        model = tf.keras.Model(inputs, outputs)
        model.compile(optimizer=tf.keras.optimizers.Adam(3e-3), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
        history = model.fit(x[:n_train], y[:n_train], batch_size=32, epochs=epochs, verbose=0)
        _, accuracy = model.evaluate(x[n_train:], y[n_train:], batch_size=256, verbose=0)
        probs = model.predict(np.array([["a really great film"], ["boring and awful"]]), verbose=0)
    return model, history.history["loss"], accuracy, probs


def test_transformer_text_classifier_reaches_97_percent_on_cpu():
    model, losses, accuracy, probs = train_text_classifier(480, 4, "/CPU:0")
    assert accuracy >= 0.97, accuracy
    assert probs[0].argmax() == 1 and probs[1].argmax() == 0
    assert losses[-1] < 0.25 * losses[0]
    mha = next(layer for layer in model.layers if isinstance(layer, TransformerBlock)).att
    assert [tuple(w.shape) for w in mha.get_weights()][::2] == [(16, 2, 8)] * 3 + [(2, 8, 16)]


def test_transformer_text_classifier_on_emulated_gpu_matches_cpu(emulated_gpu):
    model, losses, accuracy, _ = train_text_classifier(64, 4, emulated_gpu, n_test=100)
    assert model.trainable_weights[0].device == GPU0
    assert accuracy >= 0.85, accuracy
    _, cpu_losses, cpu_accuracy, _ = train_text_classifier(64, 4, "/CPU:0", n_test=100)
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-4)
    assert accuracy == cpu_accuracy


# -- the augmented CNN ---------------------------------------------------------------------------------

def train_augmented_cnn(n_train, epochs, batch_size, learning_rate, device):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.digits.load_data()
    tf.keras.utils.set_random_seed(0)
    with tf.device(device):
        model = tf.keras.Sequential([
            tf.keras.Input(shape=(8, 8, 1)),
            L.Rescaling(1.0 / 16),
            L.RandomTranslation(0.1, 0.1, fill_mode="constant", seed=1),
            L.RandomRotation(0.04, fill_mode="constant", seed=2),
            L.Conv2D(16, 3, padding="same", activation="relu"),
            L.MaxPooling2D(),
            L.Flatten(),
            L.Dense(10, activation="softmax"),
        ])
        model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
        history = model.fit(x_train[:n_train, ..., None], y_train[:n_train], batch_size=batch_size, epochs=epochs,
                            verbose=0)
        _, accuracy = model.evaluate(x_test[..., None], y_test, batch_size=360, verbose=0)
    return model, history.history["loss"], accuracy


def test_augmented_cnn_on_digits_reaches_88_percent_on_cpu():
    model, losses, accuracy = train_augmented_cnn(1437, 3, 128, 2e-2, "/CPU:0")
    assert accuracy >= 0.88, accuracy
    assert losses[-1] < 0.5 * losses[0]
    x = np.ones((2, 8, 8, 1), np.float32)
    np.testing.assert_array_equal(model.layers[1](x, training=False).numpy(), x)  # off at inference
    np.testing.assert_allclose(model.predict(x, verbose=0), model(x, training=False).numpy(), rtol=1e-6)


def test_augmented_cnn_on_emulated_gpu_matches_cpu(emulated_gpu):
    model, losses, accuracy = train_augmented_cnn(384, 4, 128, 3e-2, emulated_gpu)
    assert model.trainable_weights[0].device == GPU0
    assert accuracy >= 0.75, accuracy
    _, cpu_losses, cpu_accuracy = train_augmented_cnn(384, 4, 128, 3e-2, "/CPU:0")
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-4)
    assert abs(accuracy - cpu_accuracy) < 0.01
