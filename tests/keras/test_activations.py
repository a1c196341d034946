"""Keras 3 activations added to tf.keras.activations, against NumPy float64 formulas; initializer aliases."""

import numpy as np
import pytest

import tfcore as tf

A = tf.keras.activations
X = np.linspace(-2.5, 2.5, 11)


@pytest.mark.parametrize("name, ref", [
    ("celu", lambda x: np.where(x >= 0, x, np.expm1(x))),
    ("hard_shrink", lambda x: np.where(np.abs(x) > 0.5, x, 0.0)),
    ("hard_silu", lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hard_swish", lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hard_tanh", lambda x: np.clip(x, -1, 1)),
    ("log_sigmoid", lambda x: -np.log1p(np.exp(-x))),
    ("soft_shrink", lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0))),
    ("sparse_plus", lambda x: np.where(x <= -1, 0.0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    ("sparse_sigmoid", lambda x: np.clip((x + 1) / 2, 0, 1)),
    ("squareplus", lambda x: (x + np.sqrt(x * x + 4)) / 2),
    ("tanh_shrink", lambda x: x - np.tanh(x)),
])
def test_elementwise_activations(name, ref):
    fn = getattr(A, name)
    np.testing.assert_allclose(fn(X).numpy(), ref(X), rtol=1e-12, atol=1e-12)
    assert A.get(name) is fn and A.serialize(fn) in (name, fn.__name__)


def test_glu_sparsemax_threshold():
    x = np.random.default_rng(0).standard_normal((3, 6))
    a, b = x[:, :3], x[:, 3:]
    np.testing.assert_allclose(A.glu(x).numpy(), a / (1 + np.exp(-b)), rtol=1e-12)
    s = A.sparsemax(x).numpy()
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-12)
    assert np.all(s >= 0)
    np.testing.assert_allclose(A.sparsemax(np.array([1.0, 2.0, 3.0])).numpy(), [0.0, 0.0, 1.0])
    np.testing.assert_allclose(A.sparsemax(np.array([0.1, 0.2, 0.3])).numpy(), np.array([0.1, 0.2, 0.3]) + 0.4 / 3)
    np.testing.assert_allclose(A.sparsemax(x.T, axis=0).numpy(), s.T, rtol=1e-12)
    np.testing.assert_array_equal(A.threshold(X, 0.5, -1.0).numpy(), np.where(X > 0.5, X, -1.0))
    with pytest.raises(ValueError, match="divisible by 2"):
        A.glu(np.ones((2, 3)))
    layer = tf.keras.layers.Dense(4, activation="hard_silu")
    assert layer(np.ones((1, 2), np.float32)).shape == (1, 4)


def test_initializer_and_dtype_aliases():
    init = tf.keras.initializers
    assert init.IdentityInitializer is init.Identity and init.identity is init.Identity
    assert init.OrthogonalInitializer is init.Orthogonal and init.variance_scaling is init.VarianceScaling
    np.testing.assert_array_equal(init.IdentityInitializer()((2, 2)).numpy(), np.eye(2))
    assert tf.dtypes.cast([1.7], tf.int32).numpy().tolist() == [1]
    assert tf.dtypes.saturate_cast([300.0], tf.uint8).numpy().tolist() == [255]
