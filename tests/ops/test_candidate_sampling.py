"""Candidate samplers and compute_accidental_hits; expected counts checked against TensorFlow 2.21's."""

import numpy as np
import pytest

import tfcore as tf

TC = [[1, 3], [2, 0]]


def test_uniform_candidate_sampler_expected_counts():
    s, t, e = tf.random.uniform_candidate_sampler(TC, 2, 4, False, 10, seed=1)
    assert s.dtype == tf.int64 and s.shape == (4,) and np.all((s.numpy() >= 0) & (s.numpy() < 10))
    np.testing.assert_allclose(t.numpy(), np.full((2, 2), 0.4), rtol=1e-6)  # TF: p * num_sampled
    np.testing.assert_allclose(e.numpy(), np.full(4, 0.4), rtol=1e-6)
    s2, _, _ = tf.random.uniform_candidate_sampler(TC, 2, 4, False, 10, seed=1)
    u, tu, eu = tf.random.uniform_candidate_sampler(TC, 2, 10, True, 10, seed=3)
    assert sorted(u.numpy().tolist()) == list(range(10))  # unique: all distinct
    tries = np.log1p(-eu.numpy()[0]) / np.log1p(-0.1)  # TF: -expm1(tries * log1p(-p))
    assert tries >= 10 and abs(tries - round(tries)) < 1e-3
    np.testing.assert_allclose(tu.numpy(), np.full((2, 2), eu.numpy()[0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="range is too small"):
        tf.random.uniform_candidate_sampler(TC, 2, 11, True, 10)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_true"):
        tf.random.uniform_candidate_sampler(TC, 3, 2, True, 10)


def test_log_uniform_and_fixed_unigram_match_tf_probabilities():
    s, t, e = tf.random.log_uniform_candidate_sampler(TC, 2, 3, False, 10, seed=1)
    p = (np.log(s.numpy() + 2.0) - np.log(s.numpy() + 1.0)) / np.log(11.0)
    np.testing.assert_allclose(e.numpy(), 3 * p, rtol=1e-6)
    # TF 2.21: true_expected_count for [[1, 3], [2, 0]]
    np.testing.assert_allclose(t.numpy(), [[0.5072763, 0.27917427], [0.35991824, 0.8671945]], rtol=1e-6)
    s, t, e = tf.random.fixed_unigram_candidate_sampler(TC, 2, 3, False, 4, unigrams=[1.0, 2.0, 3.0, 4.0],
                                                        distortion=0.5, seed=1)
    np.testing.assert_allclose(t.numpy(), [[0.69027954, 0.97620267], [0.8454163, 0.48810133]], rtol=1e-6)
    w = np.sqrt([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(e.numpy(), 3 * w[s.numpy()] / w.sum(), rtol=1e-6)
    r, _, _ = tf.nn.fixed_unigram_candidate_sampler(TC, 2, 50, False, 4, unigrams=[1.0, 2.0, 3.0], num_reserved_ids=1)
    assert 0 not in r.numpy().tolist()


def test_all_candidate_sampler():
    s, t, e = tf.nn.all_candidate_sampler(TC, 2, 5, True)
    assert s.numpy().tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(t.numpy(), np.ones((2, 2)))
    np.testing.assert_allclose(e.numpy(), np.ones(5))
    assert tf.random.all_candidate_sampler(TC, 2, 3, False).sampled_candidates.shape == (3,)


def test_compute_accidental_hits_matches_tf():
    idx, ids, w = tf.nn.compute_accidental_hits(TC, [3, 2, 5, 1], 2)
    assert idx.dtype == tf.int32 and ids.dtype == tf.int64
    assert idx.numpy().tolist() == [0, 0, 1] and ids.numpy().tolist() == [3, 0, 1]
    np.testing.assert_allclose(w.numpy(), np.full(3, -3.4028235e38), rtol=1e-6)


def _sampled_loss_inputs():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((6, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    labels = np.array([[1], [4]], np.int64)
    sv = (tf.constant([4, 0, 5], tf.int64), tf.constant([[0.3], [0.6]]), tf.constant([0.6, 0.2, 0.1]))
    return w, b, x, labels, sv


def test_sampled_softmax_and_nce_loss_match_tf():
    w, b, x, labels, sv = _sampled_loss_inputs()
    np.testing.assert_allclose(tf.nn.sampled_softmax_loss(w, b, labels, x, 3, 6, sampled_values=sv).numpy(),
                               [1.0605641603469849, 2.05165958404541], rtol=1e-5)
    np.testing.assert_allclose(tf.nn.sampled_softmax_loss(w, b, labels, x, 3, 6, sampled_values=sv,
                                                          remove_accidental_hits=False).numpy(),
                               [1.0605641603469849, 2.172567844390869], rtol=1e-5)
    np.testing.assert_allclose(tf.nn.nce_loss(w, b, labels, x, 3, 6, sampled_values=sv).numpy(),
                               [4.461358070373535, 7.875828266143799], rtol=1e-5)
    np.testing.assert_allclose(tf.nn.nce_loss([w[:3], w[3:]], b, labels, x, 3, 6, sampled_values=sv,
                                              remove_accidental_hits=True).numpy(),
                               [4.461358070373535, 5.910417079925537], rtol=1e-5)


def test_sampled_softmax_loss_trains_weights():
    w, b, x, labels, _ = _sampled_loss_inputs()
    wv = tf.Variable(w)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sampled_softmax_loss(wv, b, labels, x, 3, 6, seed=2))
    g = tape.gradient(loss, wv)
    assert isinstance(g, tf.IndexedSlices)  # TF 2.21: the weights are looked up, so their gradient is sparse
    g = tf.convert_to_tensor(g)
    assert g.shape == (6, 3) and np.isfinite(g.numpy()).all()
    assert np.abs(g.numpy()[[1, 4]]).sum() > 0  # the true classes' rows always get a gradient
