"""Compute the TensorFlow reference numbers that tests/keras/test_attention_refs.py and
tests/keras/test_preprocessing_refs.py compare against (run once, with TensorFlow installed):

    python tests/keras/data/make_tf_refs.py     # writes tf_refs.npz and tf_refs.json beside this file

TensorFlow is never a dependency of tfcore; the outputs are kept in the repository as test data.
Produced with tensorflow-cpu 2.21.0 (Keras 3.15.1).
"""

import json
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(1234)
arrays, meta = {}, {"tensorflow": tf.__version__, "keras": tf.keras.__version__}


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def put(prefix, **kw):
    for k, v in kw.items():
        arrays[f"{prefix}/{k}"] = np.asarray(v)


def weights(prefix, layer):
    for i, w in enumerate(layer.get_weights()):
        arrays[f"{prefix}/w{i}"] = w
    meta[f"{prefix}/nweights"] = len(layer.get_weights())


# -- MultiHeadAttention: self attention with padding masks + scores; cross attention, causal, attention_mask
q, v = f32(2, 5, 12), f32(2, 7, 12)
qmask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
vmask = np.array([[1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0]], bool)
amask = rng.random((2, 5, 7)) > 0.3
amask[:, :, 0] = True
mha = tf.keras.layers.MultiHeadAttention(num_heads=3, key_dim=4, value_dim=6)
out, scores = mha(q, v, return_attention_scores=True)
weights("mha", mha)
put("mha", q=q, v=v, out=out.numpy(), scores=scores.numpy())
qm, vm = tf.constant(q), tf.constant(v)
out_m, scores_m = mha(q, v, query_mask=qmask, value_mask=vmask, return_attention_scores=True)
put("mha", qmask=qmask, vmask=vmask, out_masked=out_m.numpy(), scores_masked=scores_m.numpy())
out_a, scores_a = mha(q, v, attention_mask=amask, return_attention_scores=True)
put("mha", amask=amask, out_amask=out_a.numpy(), scores_amask=scores_a.numpy())
k = f32(2, 7, 12)
kmask = np.array([[1, 1, 0, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1]], bool)
out_k, scores_k = mha(q, v, key=k, value_mask=vmask, key_mask=kmask, return_attention_scores=True)
put("mha", k=k, kmask=kmask, out_key=out_k.numpy(), scores_key=scores_k.numpy())
qs = f32(2, 5, 12)
out_c, scores_c = mha(qs, qs, use_causal_mask=True, return_attention_scores=True)
put("mha", qs=qs, out_causal=out_c.numpy(), scores_causal=scores_c.numpy())
# masks reaching MHA through Embedding(mask_zero=True) in a functional model
ids = np.array([[4, 7, 2, 0, 0], [9, 3, 5, 6, 1]], np.int32)
inp = tf.keras.Input((5,), dtype="int32")
emb = tf.keras.layers.Embedding(12, 8, mask_zero=True)
mha2 = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
h = emb(inp)
a = mha2(h, h)
pooled = tf.keras.layers.GlobalAveragePooling1D()(tf.keras.layers.Add()([h, a]))
model = tf.keras.Model(inp, pooled)
put("maskmodel", ids=ids, out=model(ids).numpy(), emb=emb.get_weights()[0])
weights("maskmodel_mha", mha2)
# output_shape / attention_axes variants
mha3 = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, output_shape=5, use_bias=False)
q3 = f32(2, 4, 6)
put("mha3", q=q3, out=mha3(q3, q3).numpy())
weights("mha3", mha3)
mha4 = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=2, attention_axes=(1, 2))
q4 = f32(2, 3, 4, 6)
put("mha4", q=q4, out=mha4(q4, q4).numpy())
weights("mha4", mha4)

# masks through RNNs: Masking -> LSTM(return_sequences) and Bidirectional(GRU), fixed random weights
seq = f32(3, 6, 4)
seq[0, 4:] = 0.0
seq[1, 2:] = 0.0
masked = tf.keras.layers.Masking()(seq)
lstm = tf.keras.layers.LSTM(5, return_sequences=True)
bigru = tf.keras.layers.Bidirectional(tf.keras.layers.GRU(3))
put("rnnmask", x=seq, lstm=lstm(masked).numpy(), bigru=bigru(masked).numpy(),
    gap=tf.keras.layers.GlobalAveragePooling1D()(masked).numpy())
weights("rnnmask_lstm", lstm)
weights("rnnmask_bigru", bigru)

# -- EinsumDense
for name, eq, out_shape, bias_axes, x in (("ed1", "ab,bc->ac", 4, "c", f32(3, 6)),
                                           ("ed2", "abc,cde->abde", (None, 2, 3), "de", f32(2, 5, 6)),
                                           ("ed3", "...b,bc->...c", 4, None, f32(2, 3, 5)),
                                           ("ed4", "abc,cd->abd", (3, 4), "bd", f32(2, 3, 5))):
    layer = tf.keras.layers.EinsumDense(eq, output_shape=out_shape, bias_axes=bias_axes, activation="relu",
                                        bias_initializer="random_normal")
    put(name, x=x, out=layer(x).numpy())
    weights(name, layer)
    meta[name] = {"equation": eq, "output_shape": out_shape, "bias_axes": bias_axes}

# -- LayerNormalization (random gamma/beta), axes variants
for name, axis, x in (("ln1", -1, f32(3, 4, 6) * 3 + 1), ("ln2", [1, 2], f32(2, 3, 4) * 2), ("ln3", 1, f32(2, 5, 3))):
    layer = tf.keras.layers.LayerNormalization(axis=axis, epsilon=1e-3, gamma_initializer="random_normal",
                                               beta_initializer="random_normal")
    put(name, x=x, out=layer(x).numpy())
    weights(name, layer)
    meta[name] = {"axis": axis}

# -- Attention / AdditiveAttention / GroupNormalization / RMSNormalization
aq, av = f32(2, 3, 4), f32(2, 5, 4)
att = tf.keras.layers.Attention(use_scale=True)
att.build([aq.shape, av.shape])
att.set_weights([np.array(0.7, np.float32)])
o, s = att([aq, av], mask=[qmask[:, :3], vmask[:, :5]], return_attention_scores=True)
put("att", q=aq, v=av, qmask=qmask[:, :3], vmask=vmask[:, :5], out=o.numpy(), scores=s.numpy())
o = att([aq, av], use_causal_mask=False)
put("att", out_nomask=o.numpy())
add = tf.keras.layers.AdditiveAttention()
o, s = add([aq, av], mask=[None, vmask[:, :5]], return_attention_scores=True)
put("addatt", out=o.numpy(), scores=s.numpy())
weights("addatt", add)
gn = tf.keras.layers.GroupNormalization(groups=2, gamma_initializer="random_normal", beta_initializer="random_normal")
gx = f32(2, 3, 3, 4)
put("gn", x=gx, out=gn(gx).numpy())
weights("gn", gn)
rms = tf.keras.layers.RMSNormalization()
rx = f32(2, 3, 6)
rms.build(rx.shape)
rms.set_weights([rng.standard_normal(6).astype(np.float32)])
put("rms", x=rx, out=rms(rx).numpy())
weights("rms", rms)

# -- preprocessing: Normalization.adapt, Discretization.adapt, TextVectorization.adapt, Hashing, lookups
nx = (f32(50, 3) * np.array([1.0, 5.0, 0.1], np.float32) + np.array([0.0, 10.0, -3.0], np.float32))
norm = tf.keras.layers.Normalization()
norm.adapt(nx)
put("norm", x=nx, mean=norm.mean.numpy(), variance=norm.variance.numpy(), out=norm(nx[:4]).numpy())
norm2 = tf.keras.layers.Normalization(axis=None)
norm2.adapt(nx)
put("norm_all", mean=norm2.mean.numpy(), variance=norm2.variance.numpy(), out=norm2(nx[:4]).numpy())
ds_norm = tf.keras.layers.Normalization()
ds_norm.adapt(tf.data.Dataset.from_tensor_slices(nx).batch(7))
put("norm_ds", mean=ds_norm.mean.numpy(), variance=ds_norm.variance.numpy())
dx = rng.standard_normal(200).astype(np.float32)
disc = tf.keras.layers.Discretization(num_bins=4, epsilon=0.01)
disc.adapt(dx)
meta["disc_bins"] = [float(b) for b in disc.bin_boundaries]
put("disc", x=dx, out=disc(dx[:20]).numpy())

corpus = ["The quick brown fox.", "the lazy dog!", "The dog, the fox and THE cat", "a cat sat on the mat",
          "quick quick cat", "Dog eats; fox runs."]
meta["corpus"] = corpus
tests = ["the cat and the dog", "unknown words here fox", ""]
meta["tv_inputs"] = tests
tv_results = {}
for name, kw in (("int", dict(output_mode="int", output_sequence_length=6)),
                 ("int_ragged_pad", dict(output_mode="int")),
                 ("int_max", dict(output_mode="int", max_tokens=8, output_sequence_length=5)),
                 ("multi_hot", dict(output_mode="multi_hot")),
                 ("count", dict(output_mode="count", max_tokens=10)),
                 ("tf_idf", dict(output_mode="tf_idf")),
                 ("bigram", dict(output_mode="int", ngrams=2, output_sequence_length=10)),
                 ("bigram_count", dict(output_mode="count", ngrams=(1, 2))),
                 ("nostd", dict(output_mode="int", standardize=None, output_sequence_length=6)),
                 ("char", dict(output_mode="int", split="character", output_sequence_length=12))):
    layer = tf.keras.layers.TextVectorization(**kw)
    layer.adapt(corpus)
    out = layer(tf.constant(tests[:2]))
    tv_results[name] = {"vocab": [t if isinstance(t, str) else t.decode() for t in layer.get_vocabulary()],
                        "out": out.numpy().tolist()}
    if name == "tf_idf":
        tv_results[name]["idf"] = layer.idf_weights.numpy().tolist() if hasattr(layer, "idf_weights") else None
meta["tv"] = tv_results

hash_inputs = ["", "a", "hello", "fox", "The quick brown fox", "tfcore", "0", "ü", "abcdefghijklmnopqrstuvwxyz12345",
               "x" * 33, "The quick brown fox jumps over the lazy dog 0123", "0123456789" * 7, "lorem ipsum " * 17,
               "z" * 64, "y" * 65, "w" * 128, "v" * 129, "abcdefgh", "abcdefghijklmnopq"]
meta["hash_inputs"] = hash_inputs
meta["hash"] = {str(n): tf.keras.layers.Hashing(num_bins=n)(tf.constant(hash_inputs)).numpy().ravel().tolist()
                for n in (3, 1024, 2**31 - 1)}
meta["hash_salt"] = tf.keras.layers.Hashing(num_bins=1000, salt=[123, 456])(
    tf.constant(hash_inputs)).numpy().ravel().tolist()
hash_mask = tf.keras.layers.Hashing(num_bins=10, mask_value="")
meta["hash_mask"] = hash_mask(tf.constant(hash_inputs)).numpy().ravel().tolist()
hash_int = tf.keras.layers.Hashing(num_bins=1000)
meta["hash_int"] = hash_int(tf.constant([0, 1, 2, 42, -7, 123456789])).numpy().ravel().tolist()

sl = tf.keras.layers.StringLookup()
sl.adapt(tf.constant(["b", "a", "c", "a", "b", "a", "d"]))
meta["strlookup_vocab"] = sl.get_vocabulary()
meta["strlookup_out"] = sl(tf.constant(["a", "d", "zz"])).numpy().tolist()
il = tf.keras.layers.IntegerLookup()
il.adapt(tf.constant([5, 7, 5, 9, 7, 5, 11]))
meta["intlookup_vocab"] = [int(x) for x in il.get_vocabulary()]
meta["intlookup_out"] = il(tf.constant([5, 11, 3])).numpy().tolist()

img = rng.random((2, 9, 11, 3)).astype(np.float32)
put("img", x=img, resize=tf.keras.layers.Resizing(5, 7)(img).numpy(),
    resize_up=tf.keras.layers.Resizing(13, 17)(img).numpy(),
    resize_nearest=tf.keras.layers.Resizing(5, 7, interpolation="nearest")(img).numpy(),
    resize_crop=tf.keras.layers.Resizing(6, 6, crop_to_aspect_ratio=True)(img).numpy(),
    center_crop=tf.keras.layers.CenterCrop(5, 6)(img).numpy(),
    center_crop_up=tf.keras.layers.CenterCrop(12, 12)(img).numpy())

# ImageProjectiveTransformV3 (what RandomRotation/Zoom/Translation run) on a fixed transform, every fill mode
ang = 0.4
cx, cy = 5.0, 4.0
cos, sin = np.cos(ang), np.sin(ang)
mat = np.array([[cos * 1.2, -sin, 0.0], [sin, cos * 0.9, 0.0], [0.0, 0.0, 1.0]])
mat[0, 2] = cx - mat[0, 0] * cx - mat[0, 1] * cy + 1.7
mat[1, 2] = cy - mat[1, 0] * cx - mat[1, 1] * cy - 2.2
put("proj", matrix=mat)
flat = np.tile(mat.ravel()[:8].astype(np.float32), (2, 1))
for fill in ("reflect", "wrap", "constant", "nearest"):
    for interp in ("bilinear", "nearest"):
        out = tf.raw_ops.ImageProjectiveTransformV3(images=img, transforms=flat, output_shape=[9, 11],
                                                    fill_value=0.5, interpolation=interp.upper(),
                                                    fill_mode=fill.upper())
        put("proj", **{f"{fill}_{interp}": out.numpy()})

np.savez_compressed(os.path.join(HERE, "tf_refs.npz"), **arrays)
with open(os.path.join(HERE, "tf_refs.json"), "w") as f:
    json.dump(meta, f, indent=1, sort_keys=True)
print("wrote", len(arrays), "arrays and", len(meta), "json entries")
