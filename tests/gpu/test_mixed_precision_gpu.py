"""mixed_float16 training on a real CUDA GPU (float16 tensor-core matmul, float16 conv kernels): the digits
CNN reaches the float32 accuracy within 1 point, with float16 activations and float32 variables on the GPU.
Skipped (tests/gpu/conftest.py) where CuPy finds no GPU."""

import numpy as np

import tfcore as tf
from tfcore.keras.train_command import build_model, load_digits

mp = tf.keras.mixed_precision


def _accuracy(policy):
    (x_train, y_train), (x_test, y_test) = load_digits()
    mp.set_global_policy(policy)
    try:
        tf.keras.utils.set_random_seed(0)
        with tf.device("/GPU:0"):
            model = build_model("cnn", mixed_precision=policy != "float32")
            model.compile(optimizer=tf.keras.optimizers.Adam(3e-3), loss="sparse_categorical_crossentropy",
                          metrics=["accuracy"])
            model.fit(x_train, y_train, epochs=6, batch_size=64, verbose=0)
            hidden = model.layers[0](tf.constant(x_test[:2]))
            _, accuracy = model.evaluate(x_test, y_test, verbose=0)
    finally:
        mp.set_global_policy(None)
    return accuracy, model, hidden


def test_mixed_float16_cnn_on_the_gpu_matches_float32_accuracy():
    reference, _, _ = _accuracy("float32")
    accuracy, model, hidden = _accuracy("mixed_float16")
    assert hidden.dtype == tf.float16 and hidden.device.endswith("GPU:0")
    assert all(w.dtype == tf.float32 and w.device.endswith("GPU:0") for w in model.weights)
    assert isinstance(model.optimizer, mp.LossScaleOptimizer)
    assert reference > 0.9 and abs(accuracy - reference) <= 0.01
    assert np.isfinite(float(model.optimizer.dynamic_scale.numpy()))
