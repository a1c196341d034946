"""Model.compile/fit/evaluate/predict: digits accuracy, a GradientTape loop, inputs, weights, custom steps."""

import numpy as np
import pytest

import tfcore as tf
from tfcore.keras.train_command import build_model, load_digits

layers = tf.keras.layers


@pytest.fixture(scope="module")
def digits():
    return load_digits()


def mlp(seed=0):
    tf.keras.utils.set_random_seed(seed)
    return build_model("mlp")


def test_fit_on_digits_reaches_95_percent(digits):
    (x, y), (xt, yt) = digits
    model = mlp()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=8, verbose=0)
    assert isinstance(history, tf.keras.callbacks.History) and model.history is history
    assert sorted(history.history) == ["accuracy", "loss"] and len(history.history["loss"]) == 8
    assert history.history["loss"][-1] < history.history["loss"][0]
    loss, acc = model.evaluate(xt, yt, verbose=0)
    assert acc >= 0.95, acc
    pred = model.predict(xt, verbose=0)
    assert pred.shape == (360, 10)
    assert np.mean(pred.argmax(-1) == yt) == pytest.approx(acc, abs=1e-6)
    assert model.metrics_names == ["loss", "compile_metrics"]  # Keras 3: the compiled metrics in one container


def test_cnn_on_digits_reaches_95_percent(digits):
    (x, y), (xt, yt) = digits
    tf.keras.utils.set_random_seed(0)
    model = build_model("cnn")
    model.compile(optimizer=tf.keras.optimizers.Adam(3e-3), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, y, batch_size=64, epochs=4, verbose=0)
    assert model.evaluate(xt, yt, verbose=0)[1] >= 0.95


def test_gradient_tape_loop_reaches_the_same(digits):
    (x, y), (xt, yt) = digits
    model = mlp()
    opt = tf.keras.optimizers.Adam()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy()
    acc = tf.keras.metrics.SparseCategoricalAccuracy()
    rng = np.random.default_rng(0)
    for _ in range(8):
        order = rng.permutation(len(x))
        for i in range(0, len(x), 32):
            idx = order[i:i + 32]
            with tf.GradientTape() as tape:
                loss = loss_fn(y[idx], model(x[idx], training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
    acc.update_state(yt, model(xt))
    assert acc.result().numpy() >= 0.95


def toy(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    return x, y


def small_model():
    tf.keras.utils.set_random_seed(1)
    return tf.keras.Sequential([layers.Dense(8, activation="relu", input_shape=(4,)), layers.Dense(2)])


def test_validation_split_and_validation_data():
    x, y = toy(100)
    model = small_model()
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["acc"])
    h = model.fit(x, y, epochs=2, validation_split=0.2, verbose=0)
    assert sorted(h.history) == ["acc", "loss", "val_acc", "val_loss"]
    # the validation part is the last 20% of the data, as Keras takes it
    val = model.evaluate(x[80:], y[80:], verbose=0, return_dict=True)
    assert h.history["val_loss"][-1] == pytest.approx(val["loss"], rel=1e-5)
    h = model.fit(x, y, epochs=3, validation_data=(x[:10], y[:10]), validation_freq=2, verbose=0)
    assert len(h.history["val_loss"]) == 1


def test_evaluate_matches_a_numpy_forward_pass():
    x, y = toy(50)
    model = small_model()
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    w1, b1, w2, b2 = model.get_weights()
    logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    logp = logits - np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1, keepdims=True)) \
        - logits.max(-1, keepdims=True)
    want = -logp[np.arange(50), y].mean()
    # batches of 16, 16, 16, 2: the loss tracker weights each batch by its size
    assert model.evaluate(x, y, batch_size=16, verbose=0) == pytest.approx(want, rel=1e-5)


def test_tensors_and_datasets_as_input():
    x, y = toy(64)
    model = small_model()
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(tf.constant(x), tf.constant(y), epochs=1, verbose=0)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    h = model.fit(ds, epochs=2, verbose=0, validation_data=ds)
    assert len(h.history["val_accuracy"]) == 2
    assert model.evaluate(ds, verbose=0, return_dict=True)["loss"] == pytest.approx(
        model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)["loss"], rel=1e-5)
    assert model.predict(ds, verbose=0).shape == (64, 2)
    # a plain Python generator with steps_per_epoch
    gen = ((x[i:i + 8], y[i:i + 8]) for _ in range(100) for i in range(0, 64, 8))
    h = model.fit(gen, steps_per_epoch=4, epochs=3, verbose=0)
    assert len(h.history["loss"]) == 3


def test_sample_weight_and_class_weight():
    x, y = toy(32)
    model = small_model()
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    per_sample = tf.keras.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True).numpy()
    w = np.linspace(0, 2, 32).astype(np.float32)
    got = model.evaluate(x, y, sample_weight=w, batch_size=32, verbose=0)
    assert got == pytest.approx((per_sample * w).mean(), rel=1e-5)
    before = model.get_weights()
    model.fit(x, y, class_weight={0: 0.0, 1: 0.0}, batch_size=32, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_allclose(a, b)  # zero class weights: zero loss, zero gradients
    with pytest.raises(ValueError, match="class_weight"):
        model.fit(x, y, class_weight={0: 1.0}, epochs=1, verbose=0)


def test_train_test_predict_on_batch():
    x, y = toy(16)
    model = small_model()
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    loss, acc = model.train_on_batch(x, y)
    assert np.isfinite(loss) and 0 <= acc <= 1
    logs = model.test_on_batch(x, y, return_dict=True)
    assert set(logs) == {"loss", "accuracy"}
    np.testing.assert_allclose(model.predict_on_batch(x), model(x).numpy(), rtol=1e-6)
    assert int(model.optimizer.iterations.numpy()) == 1


def test_accuracy_string_resolves_by_loss_and_shape():
    x, y = toy(32)
    for loss, yy, units, want in [
        ("sparse_categorical_crossentropy", y, 2, "sparse_categorical_accuracy"),
        ("categorical_crossentropy", tf.keras.utils.to_categorical(y, 2), 2, "categorical_accuracy"),
        ("binary_crossentropy", y[:, None].astype(np.float32), 1, "binary_accuracy"),
        ("mse", y[:, None].astype(np.float32), 1, "binary_accuracy"),
    ]:
        model = tf.keras.Sequential([layers.Dense(units, activation="sigmoid", input_shape=(4,))])
        model.compile("sgd", loss, metrics=["accuracy"])
        model.fit(x, yy, epochs=1, verbose=0)
        assert model.compiled_metrics.metrics[0]._fn.__name__ == want
        assert model.metrics_names == ["loss", "compile_metrics"]  # Keras 3


def test_regularization_losses_are_added():
    x, y = toy(16)
    tf.keras.utils.set_random_seed(2)
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(4,), kernel_regularizer=tf.keras.regularizers.l2(0.5))])
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    plain = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y, model(x)).numpy()
    reg = 0.5 * np.sum(model.layers[0].kernel.numpy() ** 2)
    assert model.evaluate(x, y, batch_size=16, verbose=0) == pytest.approx(plain + reg, rel=1e-5)


def test_overridden_train_step_like_tf():
    class CustomModel(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            self.calls = getattr(self, "calls", 0) + 1
            return {m.name: m.result() for m in self.metrics}

    x, y = toy(64)
    inputs = tf.keras.Input(shape=(4,))
    outputs = layers.Dense(2)(layers.Dense(8, activation="relu")(inputs))
    model = CustomModel(inputs, outputs)
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  run_eagerly=True)
    h = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert model.calls == 12 and sorted(h.history) == ["accuracy", "loss"]
    # the default (run_eagerly=False) traces the override once, as TF: its Python side effect runs once
    model.calls = 0
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    h2 = model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    assert model.calls == 1 and sorted(h2.history) == ["accuracy", "loss"]


def test_train_step_without_compiled_loss_and_own_metrics():
    loss_tracker = tf.keras.metrics.Mean(name="loss")

    class CustomModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y_pred - y))
            self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
            loss_tracker.update_state(loss)
            return {"loss": loss_tracker.result()}

        @property
        def metrics(self):
            return [loss_tracker]

    x = np.random.default_rng(0).standard_normal((64, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    model = CustomModel()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1))
    h = model.fit(x, y, epochs=5, verbose=0)
    assert h.history["loss"][-1] < 0.1 * h.history["loss"][0]


def test_multi_output_functional_model_with_loss_weights():
    x, y = toy(32)
    inputs = tf.keras.Input(shape=(4,))
    hidden = layers.Dense(8, activation="relu")(inputs)
    cls = layers.Dense(2, name="cls")(hidden)
    reg = layers.Dense(1, name="reg")(hidden)
    model = tf.keras.Model(inputs, [cls, reg])
    model.compile("adam", loss={"cls": tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                                "reg": "mse"},
                  loss_weights={"cls": 1.0, "reg": 0.5}, metrics={"cls": ["accuracy"]})
    yr = x[:, :1]
    h = model.fit(x, {"cls": y, "reg": yr}, epochs=2, batch_size=32, verbose=0)
    assert {"loss", "cls_loss", "reg_loss", "cls_accuracy"} <= set(h.history)
    logs = model.evaluate(x, [y, yr], batch_size=32, verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(logs["cls_loss"] + 0.5 * logs["reg_loss"], rel=1e-5)


def test_errors_before_compile_and_without_targets():
    model = small_model()
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(np.zeros((4, 4)), np.zeros(4), verbose=0)
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="Target data is missing"):
        model.fit(np.zeros((4, 4), np.float32), verbose=0)


def test_stop_training_and_initial_epoch():
    x, y = toy(32)
    model = small_model()
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))

    class StopAtSecond(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 3:
                self.model.stop_training = True

    h = model.fit(x, y, epochs=10, initial_epoch=2, callbacks=[StopAtSecond()], verbose=0)
    assert h.epoch == [2, 3]
