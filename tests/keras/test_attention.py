"""Attention, EinsumDense and the per-example normalizations against TensorFlow 2.21's outputs on fixed
weights (tests/keras/data/tf_refs.npz, made by make_tf_refs.py), plus Keras mask propagation."""

import json
import os

import numpy as np
import pytest

import tfcore as tf

L = tf.keras.layers
DATA = os.path.join(os.path.dirname(__file__), "data")
REF = np.load(os.path.join(DATA, "tf_refs.npz"))
with open(os.path.join(DATA, "tf_refs.json")) as _f:
    META = json.load(_f)


@pytest.fixture(autouse=True)
def _cpu():
    with tf.device("/CPU:0"):
        yield


def tf_weights(prefix):
    return [REF[f"{prefix}/w{i}"] for i in range(META[f"{prefix}/nweights"])]


def close(got, want, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=atol)


def test_mha_weight_layout_and_outputs_match_tf():
    q, v = REF["mha/q"], REF["mha/v"]
    mha = L.MultiHeadAttention(num_heads=3, key_dim=4, value_dim=6)
    mha(q, v)
    assert [tuple(w.shape) for w in mha.get_weights()] == [(12, 3, 4), (3, 4), (12, 3, 4), (3, 4), (12, 3, 6), (3, 6),
                                                           (3, 6, 12), (12,)]
    mha.set_weights(tf_weights("mha"))
    out, scores = mha(q, v, return_attention_scores=True)
    close(out, REF["mha/out"])
    close(scores, REF["mha/scores"])
    out, scores = mha(q, v, query_mask=REF["mha/qmask"], value_mask=REF["mha/vmask"], return_attention_scores=True)
    close(out, REF["mha/out_masked"])
    close(scores, REF["mha/scores_masked"])
    out, scores = mha(q, v, attention_mask=REF["mha/amask"], return_attention_scores=True)
    close(out, REF["mha/out_amask"])
    close(scores, REF["mha/scores_amask"])
    out, scores = mha(q, v, key=REF["mha/k"], value_mask=REF["mha/vmask"], key_mask=REF["mha/kmask"],
                      return_attention_scores=True)
    close(out, REF["mha/out_key"])
    close(scores, REF["mha/scores_key"])
    qs = REF["mha/qs"]
    out, scores = mha(qs, qs, use_causal_mask=True, return_attention_scores=True)
    close(out, REF["mha/out_causal"])
    close(scores, REF["mha/scores_causal"])
    assert np.all(np.triu(scores.numpy()[0, 0], 1) == 0)


def test_mha_output_shape_no_bias_and_2d_attention_axes_match_tf():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, output_shape=5, use_bias=False)
    q = REF["mha3/q"]
    mha(q, q)
    mha.set_weights(tf_weights("mha3"))
    close(mha(q, q), REF["mha3/out"])
    mha = L.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2))
    q = REF["mha4/q"]
    mha(q, q)
    mha.set_weights(tf_weights("mha4"))
    close(mha(q, q), REF["mha4/out"])


def test_embedding_mask_reaches_attention_and_pooling_like_tf():
    inp = tf.keras.Input((5,), dtype="int32")
    emb = L.Embedding(12, 8, mask_zero=True)
    mha = L.MultiHeadAttention(num_heads=2, key_dim=4)
    h = emb(inp)
    pooled = L.GlobalAveragePooling1D()(L.Add()([h, mha(h, h)]))
    model = tf.keras.Model(inp, pooled)
    ids = REF["maskmodel/ids"]
    model(ids)
    emb.set_weights([REF["maskmodel/emb"]])
    mha.set_weights(tf_weights("maskmodel_mha"))
    close(model(ids), REF["maskmodel/out"])


@pytest.mark.parametrize("name", ["ed1", "ed2", "ed3", "ed4"])
def test_einsum_dense_matches_tf(name):
    cfg = META[name]
    layer = L.EinsumDense(cfg["equation"], output_shape=cfg["output_shape"], bias_axes=cfg["bias_axes"],
                          activation="relu")
    x = REF[f"{name}/x"]
    layer(x)
    want = tf_weights(name)
    assert [tuple(w.shape) for w in layer.get_weights()] == [w.shape for w in want]
    layer.set_weights(want)
    close(layer(x), REF[f"{name}/out"])
    assert layer.compute_output_shape(x.shape).as_list()[1:] == list(REF[f"{name}/out"].shape[1:])


@pytest.mark.parametrize("name", ["ln1", "ln2", "ln3"])
def test_layer_normalization_matches_tf(name):
    layer = L.LayerNormalization(axis=META[name]["axis"], epsilon=1e-3)
    x = REF[f"{name}/x"]
    layer(x)
    layer.set_weights(tf_weights(name))
    close(layer(x), REF[f"{name}/out"])


def test_attention_and_additive_attention_match_tf():
    q, v = REF["att/q"], REF["att/v"]
    att = L.Attention(use_scale=True)
    att([q, v])
    att.set_weights([np.array(0.7, np.float32)])
    out, scores = att([q, v], mask=[REF["att/qmask"], REF["att/vmask"]], return_attention_scores=True)
    close(out, REF["att/out"])
    close(scores, REF["att/scores"])
    close(att([q, v]), REF["att/out_nomask"])
    add = L.AdditiveAttention()
    add([q, v])
    add.set_weights(tf_weights("addatt"))
    out, scores = add([q, v], mask=[None, REF["att/vmask"]], return_attention_scores=True)
    close(out, REF["addatt/out"])
    close(scores, REF["addatt/scores"])


def test_group_and_rms_normalization_match_tf():
    gn = L.GroupNormalization(groups=2)
    x = REF["gn/x"]
    gn(x)
    gn.set_weights(tf_weights("gn"))
    close(gn(x), REF["gn/out"])
    rms = L.RMSNormalization()
    x = REF["rms/x"]
    rms(x)
    rms.set_weights(tf_weights("rms"))
    close(rms(x), REF["rms/out"])
    with pytest.raises(ValueError, match="groups"):
        L.GroupNormalization(groups=3)(np.zeros((1, 4, 4), np.float32))


def test_mha_gradients_reach_every_weight_and_match_finite_differences():
    tf.keras.utils.set_random_seed(0)
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3, dtype="float64")
    x = np.random.default_rng(0).standard_normal((2, 4, 5))
    mask = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], bool)
    mha(x, x)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.sin(mha(x, x, attention_mask=mask[:, None, :])))
    grads = tape.gradient(loss, mha.trainable_weights)
    assert len(grads) == 8 and all(g is not None for g in grads)
    w = mha.trainable_weights[0]
    base = w.numpy().copy()
    eps = 1e-6
    for idx in [(0, 0, 0), (3, 1, 2)]:
        vals = []
        for d in (eps, -eps):
            pert = base.copy()
            pert[idx] += d
            w.assign(pert)
            vals.append(float(tf.reduce_sum(tf.sin(mha(x, x, attention_mask=mask[:, None, :])))))
        w.assign(base)
        assert abs((vals[0] - vals[1]) / (2 * eps) - grads[0].numpy()[idx]) < 1e-6


def test_mha_dropout_only_in_training_and_seeded():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=4, dropout=0.5, seed=3)
    x = np.random.default_rng(1).standard_normal((2, 6, 8)).astype(np.float32)
    a = mha(x, x)
    close(mha(x, x, training=False), a.numpy())
    b = mha(x, x, training=True)
    assert not np.allclose(a.numpy(), b.numpy())


def test_mha_keyword_call_functional_and_validation():
    q = tf.keras.Input((5, 8))
    v = tf.keras.Input((7, 8))
    out, scores = L.MultiHeadAttention(num_heads=2, key_dim=4)(query=q, value=v, return_attention_scores=True)
    assert out.shape.as_list() == [None, 5, 8] and scores.shape.as_list() == [None, 2, 5, 7]
    with pytest.raises(ValueError, match="num_heads"):
        L.MultiHeadAttention(num_heads=0, key_dim=4)
    with pytest.raises(ValueError, match="list of inputs"):
        L.Attention()(np.zeros((1, 2, 3), np.float32))


# -- masks ----------------------------------------------------------------------------------------------

def test_masking_layer_rnn_and_pooling_ignore_padded_steps():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    x[0, 3:] = 0.0  # example 0 has 3 real steps
    masked = L.Masking()(x)
    assert masked._keras_mask.numpy().tolist() == [[True] * 3 + [False] * 2, [True] * 5]
    lstm = L.LSTM(4)
    out = lstm(masked)
    want = lstm(x[:1, :3])  # the padded steps change nothing
    close(out[:1], want.numpy())
    seq = L.GRU(4, return_sequences=True)(masked)
    close(seq[0, 3], seq[0, 2].numpy())  # masked steps repeat the previous output (Keras)
    assert seq._keras_mask is masked._keras_mask
    pooled = L.GlobalAveragePooling1D()(masked)
    close(pooled[0], x[0, :3].mean(0))
    close(pooled[1], x[1].mean(0))


def test_mask_reaches_loss_through_dense_layers():
    emb = L.Embedding(5, 3, mask_zero=True)
    dense = L.Dense(2)
    ids = np.array([[1, 2, 0], [3, 0, 0]])
    y = np.array([[0, 1, 1], [1, 0, 0]])
    inp = tf.keras.Input((3,), dtype="int32")
    model = tf.keras.Model(inp, dense(emb(inp)))
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    logits = model(ids)
    assert logits._keras_mask.numpy().tolist() == [[True, True, False], [True, False, False]]
    per = tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True).numpy()
    want = per[[0, 0, 1], [0, 1, 0]].mean()  # mean over the 3 unmasked steps only
    got = model.evaluate(ids, y, verbose=0)
    assert abs(got - want) < 1e-5


def test_explicit_mask_argument_and_merge_masks():
    a = tf.constant(np.ones((1, 3, 2), np.float32))
    b = tf.constant(np.ones((1, 3, 2), np.float32))
    a._keras_mask = tf.constant([[True, True, False]])
    b._keras_mask = tf.constant([[True, False, True]])
    out = L.Add()([a, b])  # Keras 3: OR of the masks
    assert out._keras_mask.numpy().tolist() == [[True, True, True]]
    assert getattr(L.Add()([a, tf.ones((1, 3, 2))]), "_keras_mask", None) is None
    both = L.Concatenate(axis=1)([a, b])
    assert both._keras_mask.numpy().tolist() == [[True, True, False, True, False, True]]
    pooled = L.GlobalAveragePooling1D()(tf.ones((1, 3, 2)), mask=tf.constant([[True, False, False]]))
    close(pooled, [[1.0, 1.0]])


def test_bidirectional_passes_the_mask_to_both_directions():
    x = np.random.default_rng(2).standard_normal((2, 5, 3)).astype(np.float32)
    x[0, 3:] = 0.0
    bi = L.Bidirectional(L.GRU(4))
    out = bi(L.Masking()(x))
    want = bi(x[:1, :3])  # the backward direction starts at the last real step, not at the padding
    close(out[:1], want.numpy())


@pytest.mark.parametrize("make", [
    lambda: L.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4, dropout=0.1, output_shape=5),
    lambda: L.EinsumDense("abc,cd->abd", output_shape=(None, 4), bias_axes="d", activation="relu"),
    lambda: L.Attention(use_scale=True, score_mode="concat"), lambda: L.AdditiveAttention(use_scale=False),
    lambda: L.GroupNormalization(groups=2), lambda: L.RMSNormalization(axis=-1, epsilon=1e-5),
    lambda: L.Masking(mask_value=-1.0)])
def test_new_layers_round_trip_through_their_config(make):
    layer = make()
    clone = type(layer).from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    again = L.deserialize(L.serialize(layer))
    assert type(again) is type(layer)


def test_masked_lstm_bidirectional_gru_and_pooling_match_tf():
    x = REF["rnnmask/x"]
    masked = L.Masking()(x)
    lstm = L.LSTM(5, return_sequences=True)
    lstm(masked)
    lstm.set_weights(tf_weights("rnnmask_lstm"))
    close(lstm(masked), REF["rnnmask/lstm"])
    bigru = L.Bidirectional(L.GRU(3))
    bigru(masked)
    bigru.set_weights(tf_weights("rnnmask_bigru"))
    close(bigru(masked), REF["rnnmask/bigru"])
    close(L.GlobalAveragePooling1D()(masked), REF["rnnmask/gap"])
