"""One keras.applications model per family in ONNX and TFLite (ResNet50 also in TF.js), at 32x32 with
weights=None, run by the real runtimes against tfcore (<= 1e-4 relative, on the logits).

``TFCORE_EXPORT_FULL_ZOO=1`` adds the other families (VGG16, Xception, InceptionV3, InceptionResNetV2,
MobileNet, MobileNetV2, MobileNetV3Large, ResNet50V2, EfficientNetV2B0): about 2 minutes more.

Export does not depend on the default device, and these models are slow on the emulated GPU, so this
file runs in CI's CPU pass only (skipped under ``TFCORE_EMULATED_GPUS``).
"""

import os

import numpy as np
import pytest
from export_helpers import assert_close, export_and_run, reference

from tfcore import keras
from tfcore.keras import applications

pytestmark = [pytest.mark.usefixtures("cpu"),
              pytest.mark.skipif(bool(os.environ.get("TFCORE_EMULATED_GPUS")),
                                 reason="device-independent and slow on the emulator: runs in the CPU pass only")]

FAMILIES = ["ResNet50", "MobileNetV3Small", "EfficientNetB0", "ConvNeXtTiny", "DenseNet121"]
MORE_FAMILIES = ["VGG16", "Xception", "InceptionV3", "InceptionResNetV2", "MobileNet", "MobileNetV2",
                 "MobileNetV3Large", "ResNet50V2", "EfficientNetV2B0"]
if os.environ.get("TFCORE_EXPORT_FULL_ZOO"):
    FAMILIES = FAMILIES + MORE_FAMILIES
MIN_SIZE = {"Xception": 71, "InceptionV3": 75, "InceptionResNetV2": 75}
_cache = {}


def _zoo(name):
    if name not in _cache:
        _cache.clear()  # keep one model alive at a time
        keras.utils.set_random_seed(0)
        size = MIN_SIZE.get(name, 32)
        model = getattr(applications, name)(weights=None, input_shape=(size, size, 3), classes=10,
                                            classifier_activation=None)
        for layer in model.layers:  # BN statistics away from the identity, so folding is tested
            if type(layer).__name__ == "BatchNormalization":
                rng = np.random.default_rng(len(layer.name))
                n = layer.moving_mean.shape[0]
                layer.moving_mean.assign(rng.normal(0, 0.1, n).astype("float32"))
                layer.moving_variance.assign(rng.uniform(0.8, 1.2, n).astype("float32"))
        x = np.random.default_rng(1).uniform(0, 255, (2, size, size, 3)).astype("float32")
        want = reference(model, x)
        assert np.ptp(want) > 1e-3 * np.abs(want).max()  # a non-constant output, so the comparison means something
        _cache[name] = model, x, want
    return _cache[name]


@pytest.mark.parametrize("fmt", ["onnx", "tflite"])
@pytest.mark.parametrize("name", FAMILIES)
def test_zoo_family(name, fmt, tmp_path):
    model, x, want = _zoo(name)
    assert_close(export_and_run(model, x, fmt, tmp_path), want)


def test_resnet50_tfjs(tmp_path):
    model, x, want = _zoo("ResNet50")
    assert_close(export_and_run(model, x, "tfjs", tmp_path), want)
