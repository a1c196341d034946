"""The attention, normalization, masking and preprocessing layers run on a GPU device: an emulated GPU in strict
CuPy mode (tests/ops/cupy_strict.py), which refuses what CuPy refuses (host arrays mixed with device arrays,
NumPy-only functions), and they give the CPU's numbers and gradients there."""

import os
import sys

import numpy as np
import pytest

import tfcore as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "ops"))
import cupy_strict  # noqa: E402

L = tf.keras.layers
GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"


@pytest.fixture(scope="module", autouse=True)
def strict_gpu():
    with cupy_strict.strict_emulated_gpu():
        yield


def run(make, device, inputs, call):
    """Build a fresh layer (seeded weights) on ``device``; ``call(layer, *inputs)`` and the gradients of
    sum(output**2) with respect to the layer's weights."""
    tf.keras.utils.set_random_seed(0)
    with tf.device(device):
        layer = make()
        xs = [tf.constant(x) for x in inputs]
        with tf.GradientTape() as tape:
            out = call(layer, *xs)
            loss = tf.reduce_sum(out * out)
        grads = tape.gradient(loss, layer.trainable_weights)
    return out, grads


rng = np.random.default_rng(0)
Q = rng.standard_normal((2, 4, 8)).astype(np.float32)
MASK = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], bool)


@pytest.mark.parametrize("name,make,inputs,call", [
    ("mha", lambda: L.MultiHeadAttention(2, 4), (Q, Q),
     lambda layer, q, v: layer(q, v, attention_mask=MASK[:, None, :], use_causal_mask=True)),
    ("einsum_dense", lambda: L.EinsumDense("abc,cde->abde", (None, 2, 3), bias_axes="de"), (Q,), None),
    ("attention", lambda: L.Attention(use_scale=True), (Q, Q), lambda layer, q, v: layer([q, v], mask=[None, MASK])),
    ("group_norm", lambda: L.GroupNormalization(2), (Q,), None),
    ("rms_norm", lambda: L.RMSNormalization(), (Q,), None),
])
def test_layer_on_strict_gpu_matches_cpu(name, make, inputs, call):
    call = call or (lambda layer, x: layer(x))
    want, want_grads = run(make, "/CPU:0", inputs, call)
    got, grads = run(make, "/GPU:0", inputs, call)
    assert got.device == GPU0 and all(g.device == GPU0 for g in grads)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-3, atol=1e-4)


def test_masks_and_preprocessing_layers_on_strict_gpu():
    x = rng.random((2, 6, 6, 3)).astype(np.float32)
    with tf.device("/GPU:0"):
        images = tf.constant(x)
        for layer in (L.RandomFlip(seed=1), L.RandomRotation(0.2, seed=1), L.RandomZoom(0.2, seed=1),
                      L.RandomTranslation(0.1, 0.1, seed=1, fill_mode="constant", fill_value=0.5),
                      L.RandomContrast(0.3, seed=1), L.RandomBrightness(0.2, seed=1), L.RandomCrop(4, 4, seed=1),
                      L.Resizing(3, 3), L.CenterCrop(2, 2), L.Normalization(mean=[0.0] * 3, variance=[1.0] * 3)):
            assert layer(images, training=True).device == GPU0, type(layer).__name__
        ids = tf.constant([[1, 2, 0], [3, 0, 0]])
        pooled = L.GlobalAveragePooling1D()(L.LSTM(3, return_sequences=True)(L.Embedding(10, 8, mask_zero=True)(ids)))
        tv = L.TextVectorization(vocabulary=["a", "b"], output_sequence_length=3)
        tokens = tv(tf.constant(["a b c", "b"]))
    assert pooled.device == GPU0 and tokens.device == GPU0
    assert tokens.numpy().tolist() == [[2, 3, 1], [3, 0, 0]]
