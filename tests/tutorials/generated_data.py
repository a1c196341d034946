"""Generated stand-ins for the datasets TensorFlow's tutorials download (the tests run offline).

Each function returns arrays of the same shapes and dtypes as the real dataset (fewer examples), with a
learnable structure: every class has its own template and examples are noisy copies, so a tutorial's
model reaches a high accuracy in its (cut) epochs and a broken training step shows.
"""

import numpy as np


def _templates(n_classes, shape, rng):
    return rng.integers(0, 256, size=(n_classes, *shape)).astype(np.float64)


def image_classes(n_train, n_test, shape, n_classes=10, seed=0):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images of ``shape`` and uint8 labels."""
    rng = np.random.default_rng(seed)
    templates = _templates(n_classes, shape, rng)

    def make(n):
        y = rng.integers(0, n_classes, size=n)
        x = templates[y] * 0.7 + rng.integers(0, 256, size=(n, *shape)) * 0.3
        return np.clip(x, 0, 255).astype(np.uint8), y.astype(np.uint8)

    return make(n_train), make(n_test)


def mnist():
    """``tf.keras.datasets.mnist.load_data()``'s shapes: 28x28 uint8 digits, labels 0-9."""
    return image_classes(2000, 400, (28, 28))


def fashion_mnist():
    """``tf.keras.datasets.fashion_mnist.load_data()``'s shapes: 28x28 uint8 images, labels 0-9."""
    return image_classes(2000, 400, (28, 28), seed=1)


def cifar10():
    """``tf.keras.datasets.cifar10.load_data()``'s shapes: 32x32x3 uint8 images, labels of shape (n, 1)."""
    (x, y), (xt, yt) = image_classes(1000, 200, (32, 32, 3), seed=2)
    return (x, y.reshape(-1, 1)), (xt, yt.reshape(-1, 1))
