"""Preprocessing layers against TensorFlow 2.21's outputs (tests/keras/data/tf_refs.*: adapt results,
vocabularies, hash bins, resizes, projective transforms) and their behaviour in models and tf.data."""

import json
import os

import numpy as np
import pytest

import tfcore as tf
from tfcore.keras.layers.image_augmentation import projective_transform

L = tf.keras.layers
DATA = os.path.join(os.path.dirname(__file__), "data")
REF = np.load(os.path.join(DATA, "tf_refs.npz"))
with open(os.path.join(DATA, "tf_refs.json")) as _f:
    META = json.load(_f)

TV_CASES = {
    "int": dict(output_mode="int", output_sequence_length=6),
    "int_ragged_pad": dict(output_mode="int"),
    "int_max": dict(output_mode="int", max_tokens=8, output_sequence_length=5),
    "multi_hot": dict(output_mode="multi_hot"),
    "count": dict(output_mode="count", max_tokens=10),
    "tf_idf": dict(output_mode="tf_idf"),
    "bigram": dict(output_mode="int", ngrams=2, output_sequence_length=10),
    "bigram_count": dict(output_mode="count", ngrams=(1, 2)),
    "nostd": dict(output_mode="int", standardize=None, output_sequence_length=6),
    "char": dict(output_mode="int", split="character", output_sequence_length=12),
}


@pytest.fixture(autouse=True)
def _cpu():
    with tf.device("/CPU:0"):
        yield


@pytest.mark.parametrize("name", sorted(TV_CASES))
def test_text_vectorization_adapt_and_outputs_match_tf(name):
    layer = L.TextVectorization(**TV_CASES[name])
    layer.adapt(META["corpus"])
    ref = META["tv"][name]
    assert layer.get_vocabulary() == ref["vocab"]
    out = layer(tf.constant(META["tv_inputs"][:2]))
    np.testing.assert_allclose(out.numpy(), np.array(ref["out"]), rtol=1e-6, atol=1e-6)
    if name == "tf_idf":  # idf = log(1 + documents / (1 + documents containing the token)); OOV: their mean
        idf = layer.idf_weights.numpy()
        assert abs(idf[1] - np.log(1 + 6 / (1 + 4))) < 1e-6  # "the" is in 4 of the 6 documents
        assert abs(idf[0] - idf[1:].mean()) < 1e-6


def test_text_vectorization_in_dataset_map_in_a_model_and_from_a_dataset():
    corpus = META["corpus"]
    tv = L.TextVectorization(output_mode="int", output_sequence_length=6)
    tv.adapt(tf.data.Dataset.from_tensor_slices(corpus).batch(2))
    assert tv.get_vocabulary() == META["tv"]["int"]["vocab"]
    ds = tf.data.Dataset.from_tensor_slices(META["tv_inputs"][:2]).batch(2).map(tv)
    want = np.array(META["tv"]["int"]["out"])
    np.testing.assert_array_equal(next(iter(ds)).numpy(), want)
    inp = tf.keras.Input(shape=(1,), dtype="string")
    model = tf.keras.Model(inp, tv(inp))
    got = model(tf.constant([[s] for s in META["tv_inputs"][:2]]))
    np.testing.assert_array_equal(got.numpy(), want)
    assert tv(tf.constant("")).numpy().tolist() == [0] * 6  # a scalar string: one unbatched sequence


def test_text_vectorization_vocabulary_argument_callables_and_errors():
    tv = L.TextVectorization(vocabulary=["b", "a"], standardize=lambda s: s, split=lambda s: s, output_mode="int",
                             output_sequence_length=2)
    assert tv.get_vocabulary() == ["", "[UNK]", "b", "a"]
    with pytest.raises(ValueError, match="output_mode"):
        L.TextVectorization(output_mode="bogus")
    with pytest.raises(ValueError, match="output_sequence_length"):
        L.TextVectorization(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="string inputs"):
        L.TextVectorization()(np.array([1.0, 2.0]))


def test_normalization_adapt_matches_tf():
    x = REF["norm/x"]
    norm = L.Normalization()
    norm.adapt(x)
    np.testing.assert_allclose(norm.mean.numpy(), REF["norm/mean"], rtol=1e-5)
    np.testing.assert_allclose(norm.variance.numpy(), REF["norm/variance"], rtol=1e-5)
    np.testing.assert_allclose(norm(x[:4]).numpy(), REF["norm/out"], rtol=1e-5, atol=1e-5)
    every = L.Normalization(axis=None)
    every.adapt(x)
    np.testing.assert_allclose(every.mean.numpy(), REF["norm_all/mean"], rtol=1e-5)
    np.testing.assert_allclose(every(x[:4]).numpy(), REF["norm_all/out"], rtol=1e-5, atol=1e-5)
    batched = L.Normalization()
    batched.adapt(tf.data.Dataset.from_tensor_slices(x).batch(7))
    np.testing.assert_allclose(batched.mean.numpy(), REF["norm_ds/mean"], rtol=1e-5)
    np.testing.assert_allclose(batched.variance.numpy(), REF["norm_ds/variance"], rtol=1e-5)
    inv = L.Normalization(mean=REF["norm/mean"].ravel(), variance=REF["norm/variance"].ravel(), invert=True)
    np.testing.assert_allclose(inv(REF["norm/out"]).numpy(), x[:4], rtol=1e-4, atol=1e-4)
    assert [w.name for w in norm.weights] == ["mean", "variance", "count"]  # Keras 3's names
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        L.Normalization(mean=1.0)


def test_discretization_adapt_matches_tf():
    disc = L.Discretization(num_bins=4, epsilon=0.01)
    disc.adapt(REF["disc/x"])
    np.testing.assert_allclose(disc.bin_boundaries, META["disc_bins"], rtol=1e-6)
    np.testing.assert_array_equal(disc(REF["disc/x"][:20]).numpy(), REF["disc/out"])
    hot = L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot")
    np.testing.assert_array_equal(hot(np.array([-1.0, 0.5, 3.0])).numpy(), np.eye(3, dtype=np.float32))


def test_hashing_matches_tf_bins():
    inputs = META["hash_inputs"]
    for bins, want in META["hash"].items():
        np.testing.assert_array_equal(L.Hashing(num_bins=int(bins))(tf.constant(inputs)).numpy(), want)
    np.testing.assert_array_equal(L.Hashing(num_bins=1000, salt=[123, 456])(tf.constant(inputs)).numpy(),
                                  META["hash_salt"])
    np.testing.assert_array_equal(L.Hashing(num_bins=10, mask_value="")(tf.constant(inputs)).numpy(),
                                  META["hash_mask"])
    np.testing.assert_array_equal(L.Hashing(num_bins=1000)(tf.constant([0, 1, 2, 42, -7, 123456789])).numpy(),
                                  META["hash_int"])
    hot = L.Hashing(num_bins=3, output_mode="one_hot")(tf.constant([["a"], ["hello"]]))
    np.testing.assert_array_equal(hot.numpy(), np.eye(3, dtype=np.float32)[[0, 1]])
    with pytest.raises(ValueError, match="num_bins"):
        L.Hashing(num_bins=0)


def test_lookups_match_tf_and_invert():
    sl = L.StringLookup()
    sl.adapt(tf.constant(["b", "a", "c", "a", "b", "a", "d"]))
    assert sl.get_vocabulary() == META["strlookup_vocab"]
    assert sl(tf.constant(["a", "d", "zz"])).numpy().tolist() == META["strlookup_out"]
    il = L.IntegerLookup()
    il.adapt(tf.constant([5, 7, 5, 9, 7, 5, 11]))
    assert il.get_vocabulary() == META["intlookup_vocab"]
    assert il(tf.constant([5, 11, 3])).numpy().tolist() == META["intlookup_out"]
    inv = L.StringLookup(vocabulary=["a", "b"], invert=True)
    assert inv(tf.constant([1, 2, 0])).numpy().tolist() == [b"a", b"b", b"[UNK]"]
    two_oov = L.StringLookup(vocabulary=["a"], num_oov_indices=2)
    from tfcore.ops._farmhash import fingerprint64
    assert two_oov(tf.constant(["a", "q"])).numpy().tolist() == [2, fingerprint64(b"q") % 2]
    multi = L.StringLookup(vocabulary=["a", "b", "c"], output_mode="multi_hot")
    np.testing.assert_array_equal(multi(tf.constant([["a", "c"], ["z", "z"]])).numpy(),
                                  [[0, 1, 0, 1], [1, 0, 0, 0]])
    masked = L.IntegerLookup(vocabulary=[12, 36], mask_token=0)
    assert masked(tf.constant([[12, 0, 99]])).numpy().tolist() == [[2, 0, 1]]
    with pytest.raises(ValueError, match="repeated"):
        L.StringLookup(vocabulary=["a", "a"])


def test_category_encoding():
    ce = L.CategoryEncoding(num_tokens=4, output_mode="count")
    got = ce(np.array([[0, 1, 1], [3, 3, 3]]), count_weights=np.array([[0.5, 1.0, 2.0], [1.0, 1.0, 1.0]]))
    np.testing.assert_allclose(got.numpy(), [[0.5, 3.0, 0, 0], [0, 0, 0, 3.0]])
    np.testing.assert_array_equal(L.CategoryEncoding(4, output_mode="one_hot")(np.array([3, 0])).numpy(),
                                  [[0, 0, 0, 1], [1, 0, 0, 0]])
    np.testing.assert_array_equal(L.CategoryEncoding(3)(np.array([[0, 2], [1, 1]])).numpy(), [[1, 0, 1], [0, 1, 0]])
    with pytest.raises(ValueError, match="num_tokens=4"):
        L.CategoryEncoding(4)(np.array([4]))


@pytest.mark.parametrize("name,layer", [
    ("resize", lambda: L.Resizing(5, 7)), ("resize_up", lambda: L.Resizing(13, 17)),
    ("resize_nearest", lambda: L.Resizing(5, 7, interpolation="nearest")),
    ("resize_crop", lambda: L.Resizing(6, 6, crop_to_aspect_ratio=True)),
    ("center_crop", lambda: L.CenterCrop(5, 6)), ("center_crop_up", lambda: L.CenterCrop(12, 12))])
def test_resizing_and_center_crop_match_tf(name, layer):
    np.testing.assert_allclose(layer()(REF["img/x"]).numpy(), REF[f"img/{name}"], atol=2e-6)


@pytest.mark.parametrize("fill", ["reflect", "wrap", "constant", "nearest"])
@pytest.mark.parametrize("interp", ["bilinear", "nearest"])
def test_projective_transform_matches_tf_image_projective_transform_v3(fill, interp):
    mats = np.stack([REF["proj/matrix"]] * 2)
    got = projective_transform(tf.constant(REF["img/x"]), mats, interp, fill, 0.5)
    np.testing.assert_allclose(got.numpy(), REF[f"proj/{fill}_{interp}"], atol=3e-6)


def test_augmentations_are_identity_at_inference_seeded_and_random_in_training():
    """TF 2.21: training defaults to True for these layers (a direct call augments); training=False and
    predict do not."""
    x = np.random.default_rng(0).uniform(0, 255, (4, 8, 8, 3)).astype(np.float32)
    for make in (lambda s: L.RandomFlip(seed=s), lambda s: L.RandomRotation(0.2, seed=s),
                 lambda s: L.RandomZoom(0.3, seed=s), lambda s: L.RandomTranslation(0.2, 0.2, seed=s),
                 lambda s: L.RandomContrast(0.5, seed=s), lambda s: L.RandomBrightness(0.3, seed=s)):
        a, b, c = make(7), make(7), make(8)
        np.testing.assert_array_equal(a(x, training=False).numpy(), x)
        model = tf.keras.Sequential([tf.keras.Input((8, 8, 3)), make(7)])
        np.testing.assert_array_equal(model.predict(x, verbose=0), x)
        assert not np.array_equal(model(x).numpy(), x)
        ya, yb, yc = a(x).numpy(), b(x, training=True).numpy(), c(x, training=True).numpy()
        np.testing.assert_array_equal(ya, yb)  # same seed, same draws
        assert not np.array_equal(ya, yc) and not np.array_equal(ya, x)


def test_augmentations_do_what_they_say():
    x = np.arange(2 * 6 * 6 * 1, dtype=np.float32).reshape(2, 6, 6, 1)
    flips = L.RandomFlip("horizontal", seed=3)(x, training=True).numpy()
    for i in range(2):
        assert np.array_equal(flips[i], x[i]) or np.array_equal(flips[i], x[i, :, ::-1])
    quarter = L.RandomRotation((0.25, 0.25), fill_mode="constant")(x, training=True).numpy()
    np.testing.assert_allclose(quarter[..., 0], np.rot90(x[..., 0], k=1, axes=(1, 2)), atol=1e-4)
    shift = L.RandomTranslation((1 / 6, 1 / 6), (2 / 6, 2 / 6), fill_mode="constant")(x, training=True).numpy()
    want = np.zeros_like(x)
    want[:, 1:, 2:] = x[:, :-1, :-2]
    np.testing.assert_allclose(shift, want, atol=1e-4)
    same = L.RandomZoom((0.0, 0.0))(x, training=True).numpy()
    np.testing.assert_allclose(same, x, atol=1e-4)
    bright = L.RandomBrightness((0.1, 0.1), value_range=(0, 100))(x, training=True).numpy()
    np.testing.assert_allclose(bright, np.clip(x + 10.0, 0, 100), atol=1e-4)
    contrast = L.RandomContrast(0.5, value_range=(-1e9, 1e9), seed=1)(x, training=True).numpy()
    np.testing.assert_allclose(contrast.mean(axis=(1, 2)), x.mean(axis=(1, 2)), rtol=1e-5)
    crop = L.RandomCrop(3, 4, seed=2)(x, training=True).numpy()
    assert crop.shape == (2, 3, 4, 1)
    for i in range(2):
        r, c = divmod(int(crop[i, 0, 0, 0]) - 36 * i, 6)
        np.testing.assert_array_equal(crop[i], x[i, r:r + 3, c:c + 4])
    np.testing.assert_allclose(L.RandomCrop(4, 4)(x, training=False).numpy(),
                               L.Resizing(4, 4, crop_to_aspect_ratio=True)(x).numpy())
    with pytest.raises(ValueError, match="fill_mode"):
        L.RandomRotation(0.1, fill_mode="mirror")


def test_augmentation_gradients_flow_to_the_image():
    x = tf.constant(np.random.default_rng(0).random((1, 5, 5, 2)))
    layer = L.RandomRotation(0.1, seed=0, dtype="float64")
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(layer(x, training=True))
    g = tape.gradient(y, x)
    assert g is not None and g.shape == x.shape and float(tf.reduce_sum(g)) > 0


def test_preprocessing_layers_round_trip_through_their_config():
    tv = L.TextVectorization(output_mode="tf_idf", ngrams=2)
    tv.adapt(META["corpus"])
    clone = L.TextVectorization.from_config(tv.get_config())
    texts = tf.constant(META["tv_inputs"][:2])
    np.testing.assert_allclose(clone(texts).numpy(), tv(texts).numpy(), rtol=1e-6)
    for layer in (L.StringLookup(vocabulary=["x", "y"], num_oov_indices=2), L.IntegerLookup(vocabulary=[3, 9]),
                  L.Hashing(num_bins=7, salt=5), L.CategoryEncoding(4, output_mode="count"),
                  L.Discretization(bin_boundaries=[0.0, 1.0]), L.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0]),
                  L.Resizing(4, 5, crop_to_aspect_ratio=True), L.CenterCrop(3, 3), L.RandomFlip("horizontal", seed=1),
                  L.RandomRotation(0.1, fill_mode="nearest"), L.RandomZoom(0.1, 0.2), L.RandomTranslation(0.1, 0.2),
                  L.RandomContrast(0.2), L.RandomBrightness(0.1), L.RandomCrop(3, 3, seed=4)):
        again = type(layer).from_config(layer.get_config())
        assert again.get_config() == layer.get_config(), type(layer).__name__


@pytest.mark.parametrize("make,data,shape", [
    (lambda L: L.Rescaling(2.0), [[1, 2]], (1, 2)),
    (lambda L: L.Resizing(2, 2), [[[[1.0]]]], (1, 2, 2, 1)),
    (lambda L: L.CenterCrop(1, 1), [[[[1.0]]]], (1, 1, 1, 1)),
    (lambda L: L.RandomFlip(), [[[[1.0]]]], (1, 1, 1, 1)),
])
def test_data_layers_take_nested_python_numbers_as_keras_3(make, data, shape):
    # Keras 3's DataLayer: Python data positionally, as one tensor of the compute dtype (TF 2.21:
    # Rescaling(2.0)([[1, 2]]) is tf.Tensor([[2. 4.]], shape=(1, 2), dtype=float32))
    out = make(tf.keras.layers)(data)
    assert out.shape == shape and out.dtype == tf.float32
    if shape == (1, 2):
        np.testing.assert_array_equal(out.numpy(), [[2.0, 4.0]])
