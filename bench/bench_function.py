"""Train steps as ``tf.function`` next to eager tfcore (and TensorFlow's tf.function when installed).

Workloads (float32, CPU, Adam, the same math in every framework):
- ``MLP step``: 64-256-256-10 relu MLP, sparse softmax cross-entropy, batch 128;
- ``CNN step``: seed 001's subclassed CNN (28x28x1 -> conv4x4x8 same -> pool2 -> conv4x4x16 same ->
  pool2 -> dense 10 softmax), categorical cross-entropy, batch 32.

``python bench/bench_function.py`` prints milliseconds per step (best of interleaved rounds, so
machine load hits every variant alike) and the ratios. TensorFlow is used when importable (it is not
a dependency of tfcore).
"""

import argparse
import time

import numpy as np


def _mlp(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(256, activation="relu", input_shape=(64,)),
                                tf.keras.layers.Dense(256, activation="relu"), tf.keras.layers.Dense(10)])


def _cnn(tf):
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(8, 4, padding="same", input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPool2D(2, 2, padding="same"),
        tf.keras.layers.Conv2D(16, 4, padding="same"),
        tf.keras.layers.MaxPool2D(2, 2, padding="same"),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(10, activation="softmax")])


def _data(kind):
    rng = np.random.default_rng(0)
    if kind == "mlp":
        return rng.standard_normal((128, 64)).astype(np.float32), rng.integers(0, 10, 128)
    return rng.random((32, 28, 28, 1)).astype(np.float32), np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)]


def make_step(tf, kind, use_function):
    """A zero-argument callable running one training step (inputs already tensors)."""
    model = _mlp(tf) if kind == "mlp" else _cnn(tf)
    opt = tf.keras.optimizers.Adam(1e-3)
    loss_fn = (tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True) if kind == "mlp"
               else tf.keras.losses.CategoricalCrossentropy())
    x, y = _data(kind)
    x, y = tf.constant(x), tf.constant(y)

    def step(a, b):
        with tf.GradientTape() as tape:
            loss = loss_fn(b, model(a, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    fn = tf.function(step) if use_function else step
    fn(x, y)  # build / trace
    return lambda: fn(x, y)


def _time(step, n):
    t = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t) / n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--no-tensorflow", action="store_true")
    args = parser.parse_args(argv)
    import tfcore

    variants = {"tfcore function": (tfcore, True), "tfcore eager": (tfcore, False)}
    if not args.no_tensorflow:
        try:
            import tensorflow

            variants["TF function"] = (tensorflow, True)
        except ImportError:
            print("(tensorflow not installed)")
    print(f"{'workload (ms/step)':20s}" + "".join(f"{name:>18s}" for name in variants) + "   ratios")
    for kind, label in (("mlp", "MLP step"), ("cnn", "CNN step")):
        steps = {name: make_step(mod, kind, fn) for name, (mod, fn) in variants.items()}
        best = {name: float("inf") for name in steps}
        for _ in range(args.rounds):
            for name, step in steps.items():
                best[name] = min(best[name], _time(step, args.steps))
        base = best["tfcore function"]
        ratios = "  ".join(f"{name}/fn={best[name] / base:.2f}" for name in best if name != "tfcore function")
        print(f"{label:20s}" + "".join(f"{best[n] * 1e3:18.3f}" for n in best) + "   " + ratios)


if __name__ == "__main__":
    main()
