"""tf.random gamma/poisson (stateful and stateless), stateless binomial/categorical/truncated normal, seeds."""

import numpy as np
import pytest

import tfcore as tf

R = tf.random


def test_gamma_and_poisson_moments():
    R.set_seed(7)
    g = R.gamma([4000], alpha=[1.0, 4.0], beta=[1.0, 2.0], seed=1).numpy()
    assert g.shape == (4000, 2) and g.dtype == np.float32
    np.testing.assert_allclose(g.mean(0), [1.0, 2.0], rtol=0.08)  # mean alpha / beta
    np.testing.assert_allclose(g.var(0), [1.0, 1.0], rtol=0.15)  # var alpha / beta^2
    p = R.poisson([4000], lam=[2.0, 6.0], dtype=tf.int32, seed=2).numpy()
    assert p.dtype == np.int32
    np.testing.assert_allclose(p.mean(0), [2.0, 6.0], rtol=0.08)
    R.set_seed(7)
    np.testing.assert_array_equal(R.gamma([4000], alpha=[1.0, 4.0], beta=[1.0, 2.0], seed=1).numpy(), g)
    with pytest.raises(tf.errors.InvalidArgumentError):
        R.gamma([2], alpha=-1.0)


def test_stateless_draws_repeat_per_seed():
    for fn, kwargs in [(R.stateless_gamma, {"alpha": [1.0, 2.0]}), (R.stateless_poisson, {"lam": 3.0}),
                       (R.stateless_binomial, {"counts": 10, "probs": [0.2, 0.9]})]:
        a = fn([500, 2], seed=[1, 2], **kwargs).numpy()
        np.testing.assert_array_equal(a, fn([500, 2], seed=[1, 2], **kwargs).numpy())
        assert not np.array_equal(a, fn([500, 2], seed=[3, 4], **kwargs).numpy())
    b = R.stateless_binomial([4000, 2], seed=[5, 6], counts=10, probs=[0.2, 0.9]).numpy()
    np.testing.assert_allclose(b.mean(0), [2.0, 9.0], rtol=0.05)
    cat = R.stateless_categorical([[0.0, 30.0], [30.0, 0.0]], 6, seed=[1, 1]).numpy()
    assert cat.dtype == np.int64 and cat.tolist() == [[1] * 6, [0] * 6]
    t = R.stateless_parameterized_truncated_normal([2000], [5, 6], means=0.0, stddevs=1.0, minvals=-0.5,
                                                   maxvals=0.5).numpy()
    assert t.min() >= -0.5 and t.max() <= 0.5 and abs(t.mean()) < 0.05
    with pytest.raises(tf.errors.InvalidArgumentError, match="broadcast"):
        R.stateless_gamma([3], seed=[1, 2], alpha=[1.0, 2.0])


def test_seed_helpers():
    seeds = R.split([1, 2], num=3)
    assert seeds.shape == (3, 2) and seeds.dtype == tf.int32  # TF: the seed's dtype ([1, 2] is int32)
    np.testing.assert_array_equal(seeds.numpy(), R.split([1, 2], num=3).numpy())
    assert len({tuple(s) for s in seeds.numpy().tolist()}) == 3
    f = R.fold_in([1, 2], 7).numpy()
    assert f.shape == (2,) and not np.array_equal(f, R.fold_in([1, 2], 8).numpy())
    assert R.create_rng_state(1, "philox").numpy().tolist() == [1, 0, 0]
    assert R.Algorithm.PHILOX.value == 1 and R.Algorithm.THREEFRY.value == 2
