"""keras.applications: architectures build with TF's exact parameter counts (no forward passes on big inputs)."""

import numpy as np
import pytest

import tfcore as tf

apps = tf.keras.applications


def test_mobilenet_v2_parameter_counts_and_name():
    model = apps.MobileNetV2(weights=None)
    assert model.count_params() == 3_538_984
    assert model.name == "mobilenetv2_1.00_224"
    assert len(model.layers) == 156
    assert model.output_shape == (None, 1000)
    trainable = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
    assert trainable == 3_504_872
    small = apps.MobileNetV2(input_shape=(96, 96, 3), alpha=0.35, include_top=False, pooling="avg")
    assert small.count_params() == 410_208
    assert small.output_shape == (None, 1280)


def test_resnet50_parameter_counts():
    model = apps.ResNet50(weights=None)
    assert model.count_params() == 25_636_712
    assert len(model.layers) == 177
    notop = apps.ResNet50(weights=None, include_top=False, input_shape=(64, 64, 3), pooling="max")
    assert notop.count_params() == 23_587_712
    assert notop.output_shape == (None, 2048)
    assert apps.ResNet50(weights=None, include_top=False).output_shape == (None, None, None, 2048)


def test_vgg16_without_top_and_custom_classes():
    model = apps.VGG16(weights=None, include_top=False)
    assert model.count_params() == 14_714_688
    assert model.output_shape == (None, None, None, 512)
    small = apps.VGG16(weights=None, input_shape=(32, 32, 3), classes=10)
    assert small.count_params() == 14_714_688 + 512 * 4096 + 4096 + 4096 * 4096 + 4096 + 4096 * 10 + 10


@pytest.mark.slow
def test_vgg16_full_parameter_count():
    assert apps.VGG16(weights=None).count_params() == 138_357_544


def test_imagenet_weights_need_a_file(tmp_path):
    with pytest.raises(ValueError, match="weights must|cannot download pretrained weights"):
        apps.MobileNetV2(weights="imagenet")
    with pytest.raises(ValueError, match="does not exist"):
        apps.ResNet50(weights=str(tmp_path / "missing.npz"))
    with pytest.raises(ValueError, match="at least 32x32"):
        apps.MobileNetV2(input_shape=(16, 16, 3), include_top=False)


def test_application_weights_file_round_trip_and_small_forward(tmp_path):
    model = apps.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None, classes=3)
    path = str(tmp_path / "mnv2.npz")
    model.save_weights(path)
    again = apps.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=path, classes=3)
    x = np.random.default_rng(0).uniform(0, 255, (1, 32, 32, 3)).astype(np.float32)
    x = apps.mobilenet_v2.preprocess_input(x)
    assert x.min() >= -1 and x.max() <= 1
    y1, y2 = model(x), again(x)
    assert y1.shape == (1, 3)
    np.testing.assert_allclose(y1.numpy(), y2.numpy(), rtol=1e-5)
    np.testing.assert_allclose(y1.numpy().sum(), 1.0, rtol=1e-5)


def test_input_tensor_argument():
    inp = tf.keras.Input((48, 48, 3))
    model = apps.MobileNetV2(input_tensor=inp, include_top=False, alpha=0.35, weights=None)
    assert model.inputs[0] is inp


def _reference_preprocess(x, mode, data_format="channels_last"):
    """Keras's ImageNet preprocessing in float64, written out for channels_last / channels_first."""
    x = np.asarray(x, np.float64)
    axis = -1 if data_format == "channels_last" else 1
    shape = [1] * x.ndim
    shape[axis] = 3
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        return (x / 255.0 - np.reshape([0.485, 0.456, 0.406], shape)) / np.reshape([0.229, 0.224, 0.225], shape)
    return np.flip(x, axis) - np.reshape([103.939, 116.779, 123.68], shape)


@pytest.mark.parametrize("module, mode", [("vgg16", "caffe"), ("resnet", "caffe"), ("mobilenet_v2", "tf")])
def test_preprocess_input_on_symbolic_inputs_builds_a_functional_model(module, mode):
    """The transfer-learning pattern: preprocessing as the first step of a functional model."""
    inputs = tf.keras.Input(shape=(8, 8, 3))
    x = getattr(apps, module).preprocess_input(inputs)
    outputs = tf.keras.layers.GlobalAveragePooling2D()(x)
    model = tf.keras.Model(inputs, outputs)
    images = np.random.default_rng(1).uniform(0, 255, (2, 8, 8, 3)).astype(np.float32)
    want = _reference_preprocess(images, mode).mean(axis=(1, 2))
    np.testing.assert_allclose(model(images).numpy(), want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(model.predict(images, verbose=0), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_preprocess_input_numpy_and_tensor_agree_with_the_reference(mode, data_format):
    from tfcore.keras.applications import imagenet_utils

    shape = (2, 5, 4, 3) if data_format == "channels_last" else (2, 3, 5, 4)
    images = np.random.default_rng(2).uniform(0, 255, shape).astype(np.float32)
    want = _reference_preprocess(images, mode, data_format)
    got = imagenet_utils.preprocess_input(images, data_format, mode)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    t = imagenet_utils.preprocess_input(tf.constant(images), data_format, mode)
    assert tf.is_tensor(t)
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(images, np.random.default_rng(2).uniform(0, 255, shape).astype(np.float32))


def test_preprocess_input_refuses_unknown_mode_and_data_format():
    from tfcore.keras.applications import imagenet_utils

    with pytest.raises(ValueError, match="Unknown preprocessing mode 'bgr'"):
        imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 3)), mode="bgr")
    with pytest.raises(ValueError, match="`data_format` should be"):
        imagenet_utils.preprocess_input(np.zeros((1, 2, 2, 3)), data_format="NHWC")
