"""Writes ``tf_optimizers/<name>.keras`` and ``tf_optimizers/variables.json`` (run with TF 2.21 installed).

    python tests/saving/data/make_tf_optimizer_files.py

Each file is a small Dense model trained two epochs with one optimizer whose ``variables`` order is not
simply "per model variable" in Keras 3: RMSprop with momentum and centered (every velocity, then every
momentum, then every average gradient), Adam with amsgrad and EMA (averages first, velocity hats last) and a
LossScaleOptimizer (its own four variables, then the inner optimizer's). A ``.keras`` file stores the
optimizer's variables by index in that order; ``variables.json`` holds each optimizer's variable paths and
values after training, for tests/saving/test_keras_format.py.
"""

import json
import os

import keras
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_optimizers")

OPTIMIZERS = {
    "rmsprop_momentum_centered": lambda: keras.optimizers.RMSprop(0.01, momentum=0.9, centered=True),
    "adam_amsgrad_ema": lambda: keras.optimizers.Adam(0.01, amsgrad=True, use_ema=True),
    "loss_scale_adam": lambda: keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.01)),
}


def main():
    os.makedirs(HERE, exist_ok=True)
    out = {}
    for name, make in OPTIMIZERS.items():
        keras.backend.clear_session()
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")])
        model.compile(make(), "mse")
        model.fit(np.arange(12, dtype="float32").reshape(4, 3), np.ones((4, 2), "float32"), verbose=0, epochs=2)
        model.save(os.path.join(HERE, f"{name}.keras"))
        out[name] = [[v.path, np.asarray(v.numpy()).tolist()] for v in model.optimizer.variables]
    with open(os.path.join(HERE, "variables.json"), "w") as f:
        json.dump(out, f, indent=0)


if __name__ == "__main__":
    main()
