"""Nadam, Adamax, Adadelta, Ftrl, Lion, Lamb and Adafactor against float64 NumPy transcriptions of
Keras' update rules (three steps, vector and matrix variables), plus config round trips and training."""

import numpy as np
import pytest

import tfcore as tf

O = tf.keras.optimizers
LR = float(np.float32(0.01))  # the learning rate lives in a float32 variable, as in TF


def _adamax(w, grads, lr=LR, b1=0.9, b2=0.999, eps=1e-7):
    m, u = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g))
        w = w - lr / (1 - b1 ** t) * m / (u + eps)
    return w


def _nadam(w, grads, lr=LR, b1=0.9, b2=0.999, eps=1e-7):
    m, v, prod = np.zeros_like(w), np.zeros_like(w), 1.0
    for t, g in enumerate(grads, 1):
        u_t = b1 * (1 - 0.5 * 0.96 ** t)  # Keras 3's keras/src/optimizers/nadam.py (Keras 2: 0.96 ** (0.004 t))
        u_next = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        prod *= u_t
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        m_hat = u_next * m / (1 - prod * u_next) + (1 - u_t) * g / (1 - prod)
        w = w - lr * m_hat / (np.sqrt(v / (1 - b2 ** t)) + eps)
    return w


def _adadelta(w, grads, lr=LR, rho=0.95, eps=1e-7):
    ag, ad = np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        ag = rho * ag + (1 - rho) * g * g
        d = -np.sqrt(ad + eps) / np.sqrt(ag + eps) * g
        ad = rho * ad + (1 - rho) * d * d
        w = w + lr * d
    return w


def _ftrl(w, grads, lr=LR, p=-0.5, init=0.1, l1=0.01, l2=0.02, shrink=0.03, beta=0.1):
    n, z = np.full_like(w, init), np.zeros_like(w)
    l2r = l2 + beta / (2 * lr)
    for g in grads:
        g2 = g + 2 * shrink * w
        n2 = n + g * g
        z = z + g2 - (n2 ** -p - n ** -p) / lr * w
        q = n2 ** -p / lr + 2 * l2r
        w = (np.clip(z, -l1, l1) - z) / q
        n = n2
    return w


def _lion(w, grads, lr=LR, b1=0.9, b2=0.99):
    m = np.zeros_like(w)
    for g in grads:
        w = w - lr * np.sign(b1 * m + (1 - b1) * g)
        m = b2 * m + (1 - b2) * g
    return w


def _lamb(w, grads, lr=LR, b1=0.9, b2=0.999, eps=1e-7):
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
        wn, rn = np.linalg.norm(w), np.linalg.norm(r)
        ratio = wn / rn if wn > 0 and rn > 0 else 1.0
        w = w - lr * ratio * r
    return w


def _adafactor(w, grads, lr=LR, decay=-0.8, e1=1e-30, e2=1e-3, clip=1.0):
    def rms(x):
        return np.sqrt(np.mean(x * x))

    r = np.zeros(w.shape[:-1]) if w.ndim >= 2 else None
    c = np.zeros(w.shape[:-2] + w.shape[-1:]) if w.ndim >= 2 else None
    v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        alpha = max(e2, rms(w)) * min(lr, 1 / np.sqrt(t))
        g2 = g * g + e1
        beta = 1 - t ** decay
        if w.ndim >= 2:
            r = beta * r + (1 - beta) * g2.mean(-1)
            c = beta * c + (1 - beta) * g2.mean(-2)
            v = (r / r.mean(-1, keepdims=True))[..., None] * c[..., None, :]
        else:
            v = beta * v + (1 - beta) * g2
        u = g / np.sqrt(v)
        u = u / max(1.0, rms(u) / clip)
        w = w - alpha * u
    return w


CASES = [
    (O.Adamax, {"learning_rate": 0.01}, _adamax),
    (O.Nadam, {"learning_rate": 0.01}, _nadam),
    (O.Adadelta, {"learning_rate": 0.01}, _adadelta),
    (O.Ftrl, {"learning_rate": 0.01, "l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02,
              "l2_shrinkage_regularization_strength": 0.03, "beta": 0.1}, _ftrl),
    (O.Lion, {"learning_rate": 0.01}, _lion),
    (O.Lamb, {"learning_rate": 0.01}, _lamb),
    (O.Adafactor, {"learning_rate": 0.01}, _adafactor),
]


@pytest.mark.parametrize("cls, kwargs, reference", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("shape", [(5,), (3, 4)])
def test_update_matches_float64_reference(cls, kwargs, reference, shape):
    rng = np.random.default_rng(7)
    w0 = rng.standard_normal(shape)
    grads = [rng.standard_normal(shape) for _ in range(3)]
    var = tf.Variable(w0)
    opt = cls(**kwargs)
    for g in grads:
        opt.apply_gradients([(tf.constant(g), var)])
    np.testing.assert_allclose(var.numpy(), reference(w0, grads), rtol=1e-9, atol=1e-12)
    assert int(opt.iterations.numpy()) == 3


@pytest.mark.parametrize("cls, kwargs, reference", CASES, ids=[c[0].__name__ for c in CASES])
def test_config_round_trip_and_get(cls, kwargs, reference):
    opt = cls(**kwargs)
    config = opt.get_config()
    again = O.deserialize(O.serialize(opt))
    assert type(again) is cls and again.get_config() == config
    assert type(O.get(cls.__name__.lower())) is cls


@pytest.mark.parametrize("name", ["nadam", "adamax", "lion", "lamb", "adafactor"])
def test_trains_a_model(name):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer=O.get(name), loss="mse")
    hist = model.fit(x, y, epochs=4, batch_size=16, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


def test_bad_hyperparameters_raise():
    with pytest.raises(ValueError, match="beta_1"):
        O.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        O.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="initial_accumulator_value"):
        O.Ftrl(initial_accumulator_value=-1.0)
