"""Callbacks: hook order, EarlyStopping (restore best weights), ReduceLROnPlateau, checkpoints, CSV, progress bar."""

import csv
import os
import re

import numpy as np
import pytest

import tfcore as tf

callbacks = tf.keras.callbacks
layers = tf.keras.layers


def data(n=64):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    return x, (x[:, 0] > 0).astype(np.int64)


def model(lr=0.05):
    tf.keras.utils.set_random_seed(3)
    m = tf.keras.Sequential([layers.Dense(8, activation="relu", input_shape=(4,)), layers.Dense(2)])
    m.compile(tf.keras.optimizers.SGD(lr), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    return m


class Recorder(callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []


def _recording_hook(name):
    return lambda self, *a, logs=None: self.events.append((name,) + a)


for _hook in [h for h in dir(callbacks.Callback) if h.startswith("on_") and h not in ("on_batch_begin",
                                                                                     "on_batch_end")]:
    setattr(Recorder, _hook, _recording_hook(_hook))


def test_hooks_are_called_in_keras_order():
    x, y = data(32)
    rec = Recorder()
    m = model()
    m.fit(x, y, batch_size=16, epochs=2, validation_data=(x, y), callbacks=[rec], verbose=0)
    names = [e[0] for e in rec.events]
    assert names[0] == "on_train_begin" and names[-1] == "on_train_end"
    epoch = names[1:names.index("on_epoch_end") + 1]
    assert epoch == ["on_epoch_begin", "on_train_batch_begin", "on_train_batch_end", "on_train_batch_begin",
                     "on_train_batch_end", "on_test_begin", "on_test_batch_begin", "on_test_batch_end",
                     "on_test_batch_begin", "on_test_batch_end", "on_test_end", "on_epoch_end"]
    assert rec.params == {"verbose": 0, "epochs": 2, "steps": 2} and rec.model is m


def test_early_stopping_restores_best_weights():
    x, y = data()
    m = model()
    losses = iter([1.0, 0.5, 0.7, 0.8, 0.9, 0.95])
    snapshots = []

    class FakeVal(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs["val_loss"] = next(losses)
            snapshots.append(self.model.get_weights())

    es = callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
    h = m.fit(x, y, epochs=6, callbacks=[FakeVal(), es], verbose=0)
    assert h.epoch == [0, 1, 2, 3] and es.stopped_epoch == 3 and es.best == 0.5 and es.best_epoch == 1
    for got, want in zip(m.get_weights(), snapshots[1]):
        np.testing.assert_array_equal(got, want)


def test_early_stopping_mode_and_min_delta():
    es = callbacks.EarlyStopping(monitor="val_accuracy", min_delta=0.1, patience=0)
    es.set_model(model())
    es.on_train_begin()
    es.on_epoch_end(0, {"val_accuracy": 0.5})
    es.on_epoch_end(1, {"val_accuracy": 0.55})  # not a big enough improvement
    assert es.model.stop_training and es.best == 0.5


def test_reduce_lr_on_plateau_and_lr_scheduler():
    x, y = data()
    m = model(lr=0.1)
    rl = callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=10.0, min_lr=0.02)
    h = m.fit(x, y, epochs=4, callbacks=[rl], verbose=0)
    # Keras logs the rate the epoch ran with, then reduces it for the next one
    np.testing.assert_allclose(h.history["lr"], [0.1, 0.1, 0.05, 0.025], rtol=1e-6)
    assert m.optimizer.learning_rate.numpy() == pytest.approx(0.02)  # 0.0125 clipped to min_lr
    sched = callbacks.LearningRateScheduler(lambda epoch, lr: 0.3 / (epoch + 1))
    h = m.fit(x, y, epochs=3, callbacks=[sched], verbose=0)
    np.testing.assert_allclose(h.history["lr"], [0.3, 0.15, 0.1], rtol=1e-6)


def test_terminate_on_nan():
    x, y = data(32)
    x[5, 0] = np.nan
    m = model()
    h = m.fit(x, y, batch_size=8, epochs=3, shuffle=False, callbacks=[callbacks.TerminateOnNaN()], verbose=0)
    assert len(h.epoch) == 1


def test_lambda_callback():
    seen = []
    x, y = data(16)
    model().fit(x, y, epochs=2, verbose=0, callbacks=[callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append((epoch, sorted(logs))))])
    assert seen == [(0, ["accuracy", "loss"]), (1, ["accuracy", "loss"])]


def test_model_checkpoint_formats_names_and_keeps_best(tmp_path):
    x, y = data()
    m = model()
    path = str(tmp_path / "w.{epoch:02d}-{val_loss:.2f}.weights.npz")
    m.fit(x, y, epochs=2, validation_data=(x, y), verbose=0,
          callbacks=[callbacks.ModelCheckpoint(path, save_weights_only=True)])
    names = sorted(os.listdir(tmp_path))
    assert len(names) == 2 and all(re.fullmatch(r"w\.0[12]-\d\.\d\d\.weights\.npz", n) for n in names)
    best = callbacks.ModelCheckpoint(str(tmp_path / "best.weights.npz"), monitor="val_loss", save_best_only=True,
                                     save_weights_only=True, mode="min")
    vals = iter([0.5, 0.7, 0.4])

    class FakeVal(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            logs["val_loss"] = next(vals)

    saved = []
    orig = m.save_weights
    m.save_weights = lambda p, overwrite=True: (saved.append(m.get_weights()), orig(p, overwrite=overwrite))
    m.fit(x, y, epochs=3, verbose=0, callbacks=[FakeVal(), best])
    assert len(saved) == 2 and best.best == 0.4
    m2 = model()
    m2.load_weights(str(tmp_path / "best.weights.npz"))
    for a, b in zip(m2.get_weights(), saved[-1]):
        np.testing.assert_array_equal(a, b)


def test_csv_logger(tmp_path):
    x, y = data(16)
    path = tmp_path / "log.csv"
    model().fit(x, y, epochs=3, verbose=0, callbacks=[callbacks.CSVLogger(str(path))])
    rows = list(csv.DictReader(path.read_text().splitlines()))
    assert [r["epoch"] for r in rows] == ["0", "1", "2"] and set(rows[0]) == {"epoch", "accuracy", "loss"}
    model().fit(x, y, epochs=1, verbose=0, callbacks=[callbacks.CSVLogger(str(path), append=True)])
    assert len(list(csv.DictReader(path.read_text().splitlines()))) == 4


# Keras 3 sorts the logs it hands callbacks (pythonify_logs): TF 2.21 prints "accuracy: ... - loss: ..."
LINE = re.compile(r" *(\d+)/(\d+) \[([=>.]+)\] - (ETA: \d+s|\d+s \d+[mu]?s/step) - accuracy: \d\.\d{4}"
                  r" - loss: \d+\.\d{4}")


def test_progress_bar_verbose_1(capsys):
    x, y = data(57 * 4)
    model().fit(x, y, batch_size=4, epochs=2, verbose=1)
    out = capsys.readouterr().out
    assert out.count("Epoch 1/2\n") == 1 and out.count("Epoch 2/2\n") == 1
    frames = [f for f in re.split(r"[\r\n\b]+", out) if f.strip()]
    bars = [LINE.match(f) for f in frames if not f.startswith("Epoch")]
    assert all(bars), frames
    # each epoch's last frame; a 57/57 frame with an ETA may come before it, as in Keras 3, whose last batch
    # updates the bar (shown when 0.05 s passed since the last frame: a slow machine) before the epoch ends it
    final = [b for b in bars if b.group(1) == "57" and not b.group(4).startswith("ETA")]
    assert len(final) == 2 and all(b.group(3) == "=" * 30 for b in final)
    assert re.search(r"57/57 \[=+\] - \d+s \d+[mu]?s/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}\s*\n", out)


def test_progress_bar_shape_mid_epoch(capsys):
    bar = tf.keras.utils.Progbar(57)
    bar.update(12, [("loss", 0.52), ("accuracy", 0.83)])
    out = capsys.readouterr().out.split("\r")[-1]
    assert re.fullmatch(r"12/57 \[=====>\.{24}\] - ETA: \d+s - loss: 0\.5200 - accuracy: 0\.8300", out)


def test_progress_bar_verbose_2_and_0(capsys):
    x, y = data(64)
    model().fit(x, y, batch_size=16, epochs=3, verbose=2, validation_data=(x, y))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0::2] == ["Epoch 1/3", "Epoch 2/3", "Epoch 3/3"]
    for line in lines[1::2]:
        # Keras 3 sorts the epoch logs (pythonify_logs): TF 2.21 prints "accuracy - loss - val_accuracy - val_loss"
        assert re.fullmatch(r"4/4 - \d+s - accuracy: \d\.\d{4} - loss: \d\.\d{4} - val_accuracy: \d\.\d{4} - "
                            r"val_loss: \d\.\d{4} - \d+s/epoch - \d+[mu]?s/step", line), line
    model().fit(x, y, epochs=2, verbose=0)
    m = model()
    m.evaluate(x, y, verbose=0)
    m.predict(x, verbose=0)
    assert capsys.readouterr().out == ""


def test_evaluate_prints_one_bar(capsys):
    x, y = data(64)
    model().evaluate(x, y, batch_size=16, verbose=1)
    out = capsys.readouterr().out
    assert re.search(r"4/4 \[={30}\] - \d+s \d+[mu]?s/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}\n$", out)


def test_history_and_callback_list_validation():
    with pytest.raises(ValueError, match="factor"):
        callbacks.ReduceLROnPlateau(factor=1.5)
    with pytest.raises(ValueError, match="save_freq"):
        callbacks.ModelCheckpoint("x", save_freq="sometimes")


def test_model_checkpoint_verbose_says_saving_and_finished_as_keras_3(tmp_path, capsys):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    path = str(tmp_path / "cp.weights.h5")
    cb = tf.keras.callbacks.ModelCheckpoint(path, save_weights_only=True, verbose=1)
    model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0, callbacks=[cb])
    out = capsys.readouterr().out
    assert f"Epoch 1: saving model to {path}" in out
    assert f"Epoch 1: finished saving model to {path}" in out
