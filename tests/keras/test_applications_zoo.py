"""keras.applications beyond ResNet50/VGG16/MobileNetV2: every architecture builds with the exact parameter
and weight-variable counts TF's ``model.summary()`` prints for the default configuration, each model is built
once, and the cheap ones run a forward pass on a tiny input without the top."""

import gc
import json

import numpy as np
import pytest

import tfcore as tf

apps = tf.keras.applications

# (constructor, total parameters, number of weight variables) for the default 1000-class ImageNet configuration.
# Totals and variable counts as TF 2.x prints them (model.summary(), len(model.weights)).
EXACT = [
    ("ResNet101", 44_707_176, 626),
    ("ResNet152", 60_419_944, 932),
    ("ResNet50V2", 25_613_800, 272),
    ("ResNet101V2", 44_675_560, 544),
    ("ResNet152V2", 60_380_648, 816),
    ("DenseNet121", 8_062_504, 606),
    ("DenseNet169", 14_307_880, 846),
    ("DenseNet201", 20_242_984, 1006),
    ("MobileNet", 4_253_864, 137),
    ("MobileNetV3Small", 2_554_968, 210),
    ("MobileNetV3Large", 5_507_432, 266),
    ("Xception", 22_910_480, 236),
    ("InceptionV3", 23_851_784, 378),
    ("InceptionResNetV2", 55_873_736, 898),
    ("EfficientNetB0", 5_330_571, 314),
    ("EfficientNetB1", 7_856_239, 442),
    ("EfficientNetB2", 9_177_569, None),
    ("EfficientNetB3", 12_320_535, None),
    ("EfficientNetB4", 19_466_823, None),
    ("EfficientNetB5", 30_562_527, None),
    ("EfficientNetB6", 43_265_143, None),
    ("EfficientNetV2B0", 7_200_312, None),
    ("EfficientNetV2B1", 8_212_124, None),
    ("EfficientNetV2B2", 10_178_374, None),
    ("EfficientNetV2B3", 14_467_622, None),
    ("EfficientNetV2S", 21_612_360, None),
    ("EfficientNetV2M", 54_431_388, None),
    ("ConvNeXtTiny", 28_589_128, None),
    ("ConvNeXtSmall", 50_223_688, None),
    ("ConvNeXtBase", 88_591_464, None),
]
# The largest ones (hundreds of MB of float32 weights each): built once each, marked slow.
EXACT_SLOW = [
    ("VGG19", 143_667_240, 38),
    ("EfficientNetB7", 66_658_687, 1040),
    ("EfficientNetV2L", 119_027_848, None),
    ("ConvNeXtLarge", 197_767_336, None),
    ("ConvNeXtXLarge", 350_196_968, None),
]


def _check_counts(name, params, n_weights):
    model = getattr(apps, name)(weights=None)
    try:
        assert model.count_params() == params, name
        if n_weights is not None:
            assert len(model.weights) == n_weights, name
        assert model.output_shape == (None, 1000)
    finally:
        del model
        gc.collect()


@pytest.mark.parametrize("name, params, n_weights", EXACT, ids=[e[0] for e in EXACT])
def test_parameter_counts_match_tensorflow(name, params, n_weights):
    _check_counts(name, params, n_weights)


@pytest.mark.slow
@pytest.mark.parametrize("name, params, n_weights", EXACT_SLOW, ids=[e[0] for e in EXACT_SLOW])
def test_parameter_counts_match_tensorflow_large_models(name, params, n_weights):
    _check_counts(name, params, n_weights)


def test_trainable_split_and_names():
    model = apps.EfficientNetB0(weights=None)
    trainable = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
    assert trainable == 5_288_548  # TF: "Trainable params: 5,288,548" (BN statistics and Normalization excluded)
    assert model.name == "efficientnetb0"
    assert model.get_layer("block1a_se_excite") is not None
    assert model.get_layer("top_conv").kernel.shape == (1, 1, 320, 1280)


# (module, constructor, kwargs, tiny input size, channels of the feature map without the top)
FORWARD = [
    ("resnet", "ResNet101", {}, 32, 2048),
    ("resnet_v2", "ResNet50V2", {}, 32, 2048),
    ("densenet", "DenseNet121", {}, 32, 1024),
    ("mobilenet", "MobileNet", {"alpha": 0.25}, 32, 256),
    ("mobilenet_v3", "MobileNetV3Small", {"alpha": 0.75}, 32, 432),
    ("mobilenet_v3", "MobileNetV3Large", {"minimalistic": True}, 32, 960),
    ("xception", "Xception", {}, 71, 2048),
    ("inception_v3", "InceptionV3", {}, 75, 2048),
    ("inception_resnet_v2", "InceptionResNetV2", {}, 75, 1536),
    ("efficientnet", "EfficientNetB0", {}, 32, 1280),
    ("efficientnet_v2", "EfficientNetV2B0", {}, 32, 1280),
    ("convnext", "ConvNeXtTiny", {}, 32, 768),
    ("vgg19", "VGG19", {}, 32, 512),
]


@pytest.mark.parametrize("module, name, kwargs, size, channels", FORWARD, ids=[f[1] for f in FORWARD])
def test_forward_pass_without_top(module, name, kwargs, size, channels):
    mod = getattr(apps, module)
    assert getattr(mod, name) is getattr(apps, name)
    model = getattr(apps, name)(weights=None, include_top=False, input_shape=(size, size, 3), pooling="avg",
                                **kwargs)
    assert model.output_shape == (None, channels)
    images = np.random.default_rng(0).uniform(0, 255, (2, size, size, 3)).astype(np.float32)
    out = model(mod.preprocess_input(images), training=False).numpy()
    assert out.shape == (2, channels)
    assert np.all(np.isfinite(out))
    assert not np.allclose(out[0], out[1], rtol=1e-3, atol=0)  # the two images give different features


def test_feature_maps_and_max_pooling():
    model = apps.DenseNet121(weights=None, include_top=False, input_shape=(64, 64, 3))
    assert model.output_shape == (None, 2, 2, 1024)
    assert apps.Xception(weights=None, include_top=False).output_shape == (None, None, None, 2048)
    pooled = apps.MobileNet(weights=None, include_top=False, alpha=0.25, input_shape=(32, 32, 3), pooling="max")
    unpooled = tf.keras.Model(pooled.inputs, pooled.get_layer("conv_pw_13_relu").output)
    x = np.random.default_rng(1).uniform(-1, 1, (1, 32, 32, 3)).astype(np.float32)
    np.testing.assert_allclose(pooled(x).numpy(), unpooled(x).numpy().max(axis=(1, 2)), rtol=1e-6)
    with pytest.raises(ValueError, match="pooling"):
        apps.DenseNet121(weights=None, include_top=False, pooling="median")


def test_custom_classes_and_classifier_activation():
    model = apps.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), classes=7, classifier_activation=None,
                                  dropout_rate=0.0)
    assert model.output_shape == (None, 7)
    logits = model(np.zeros((3, 32, 32, 3), np.float32)).numpy()
    assert logits.shape == (3, 7)
    probs = apps.EfficientNetB0(weights=None, input_shape=(32, 32, 3), classes=5)(np.ones((2, 32, 32, 3)))
    np.testing.assert_allclose(probs.numpy().sum(axis=1), 1.0, rtol=1e-5)


def test_in_model_preprocessing_matches_manual_rescaling():
    """MobileNetV3 rescales inside the model: with ``include_preprocessing=False`` and the same weights,
    feeding ``x / 127.5 - 1`` gives the same output, and ``preprocess_input`` is the identity."""
    kwargs = dict(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg", alpha=0.75)
    with_pre = apps.MobileNetV3Small(**kwargs)
    without = apps.MobileNetV3Small(include_preprocessing=False, **kwargs)
    without.set_weights(with_pre.get_weights())
    x = np.random.default_rng(2).uniform(0, 255, (2, 32, 32, 3)).astype(np.float32)
    assert apps.mobilenet_v3.preprocess_input(x) is x
    np.testing.assert_allclose(with_pre(x).numpy(), without(x / 127.5 - 1.0).numpy(), rtol=1e-4, atol=1e-5)


def test_imagenet_weights_are_refused_and_weight_files_load(tmp_path):
    for ctor in (apps.DenseNet121, apps.EfficientNetV2B0, apps.ConvNeXtTiny, apps.InceptionV3):
        with pytest.raises(ValueError, match="cannot download pretrained weights"):
            ctor(weights="imagenet")
    model = apps.ResNet50V2(weights=None, include_top=False, input_shape=(32, 32, 3), pooling="avg")
    path = str(tmp_path / "r50v2.npz")
    model.save_weights(path)
    again = apps.ResNet50V2(weights=path, include_top=False, input_shape=(32, 32, 3), pooling="avg")
    x = np.random.default_rng(3).uniform(-1, 1, (1, 32, 32, 3)).astype(np.float32)
    np.testing.assert_allclose(model(x).numpy(), again(x).numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="at least 75x75"):
        apps.InceptionV3(weights=None, include_top=False, input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match="at least 71x71"):
        apps.Xception(weights=None, include_top=False, input_shape=(64, 64, 3))


def test_convnext_layer_scale_and_stochastic_depth():
    from tfcore.keras.applications.convnext import LayerScale, StochasticDepth

    scale = LayerScale(0.5, 3)
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_allclose(scale(x).numpy(), 0.5 * x.numpy())
    assert [w.shape for w in scale.trainable_weights] == [(3,)]
    drop = StochasticDepth(0.5)
    ones = tf.ones((400, 2, 2, 3))
    np.testing.assert_array_equal(drop(ones, training=False).numpy(), ones.numpy())
    out = drop(ones, training=True).numpy()
    per_sample = out.reshape(400, -1)
    assert set(np.unique(per_sample)) <= {0.0, 2.0}  # whole samples dropped, kept ones scaled by 1/(1-rate)
    assert np.all(per_sample.min(axis=1) == per_sample.max(axis=1))
    assert 120 < (per_sample[:, 0] == 0).sum() < 280


def test_preprocess_input_modes_per_module():
    x = np.full((1, 2, 2, 3), 255.0, np.float32)
    np.testing.assert_allclose(apps.resnet_v2.preprocess_input(x), 1.0)
    np.testing.assert_allclose(apps.xception.preprocess_input(x), 1.0)
    np.testing.assert_allclose(apps.inception_v3.preprocess_input(x), 1.0)
    np.testing.assert_allclose(apps.inception_resnet_v2.preprocess_input(x), 1.0)
    np.testing.assert_allclose(apps.mobilenet.preprocess_input(x), 1.0)
    np.testing.assert_allclose(apps.vgg19.preprocess_input(x)[0, 0, 0], [255 - 103.939, 255 - 116.779, 255 - 123.68],
                               rtol=1e-6)
    np.testing.assert_allclose(apps.densenet.preprocess_input(x)[0, 0, 0],
                               [(1 - 0.485) / 0.229, (1 - 0.456) / 0.224, (1 - 0.406) / 0.225], rtol=1e-5)
    for identity in (apps.efficientnet, apps.efficientnet_v2, apps.convnext, apps.mobilenet_v3):
        assert identity.preprocess_input(x) is x


def test_decode_predictions_reads_a_local_class_index(tmp_path, monkeypatch):
    monkeypatch.setenv("TFCORE_HOME", str(tmp_path / "tfcore_home"))
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "keras_home"))
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [3, 7, 1]] = [0.5, 0.3, 0.2]
    preds[1, 999] = 1.0
    with pytest.raises(FileNotFoundError, match="does not download"):
        apps.resnet50.decode_predictions(preds)
    (tmp_path / "keras_home" / "models").mkdir(parents=True)
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (tmp_path / "keras_home" / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    for module in (apps.resnet50, apps.densenet, apps.efficientnet, apps.convnext, apps.vgg19):
        top = module.decode_predictions(preds, top=3)
        assert [t[:2] for t in top[0]] == [("n00000003", "class_3"), ("n00000007", "class_7"),
                                           ("n00000001", "class_1")]
        np.testing.assert_allclose([t[2] for t in top[0]], [0.5, 0.3, 0.2])
        assert top[1][0][:2] == ("n00000999", "class_999")
    with pytest.raises(ValueError, match="shape"):
        apps.imagenet_utils.decode_predictions(np.zeros((2, 10)))
