"""Gaps the tensorflow/docs Keras tutorials (site/en/tutorials/keras: text_classification, regression,
overfit_and_underfit) met on tfcore (issue 29, item 2). Each test fails on the code before its fix and
states what TF 2.21 / Keras 3 do."""

import numpy as np
import pytest

import tfcore as tf


# -- pandas inputs to fit/evaluate/predict (tutorials/keras/regression) --------------------------------------
def _frame():
    pd = pytest.importorskip("pandas", reason="pandas (the test extra) is what these tests feed to Keras")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=50), "b": rng.normal(size=50)})
    df["y"] = 2.0 * df["a"] - df["b"] + 1.0
    # a shuffled, gappy index, as DataFrame.sample / drop leave it: Keras 3 takes rows by position
    df = df.sample(frac=1.0, random_state=0).drop(index=[3, 7])
    return df, df.pop("y")


def test_fit_takes_a_dataframe_and_a_series_with_validation_split():
    """Keras 3: a DataFrame or Series is one array (``to_numpy()``); ``validation_split`` takes its last rows."""
    x, y = _frame()
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.1), loss="mean_absolute_error")
    history = model.fit(x, y, epochs=3, verbose=0, validation_split=0.2)
    assert len(history.history["val_loss"]) == 3
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0),
                               model.evaluate(x.to_numpy(), y.to_numpy(), verbose=0), rtol=1e-6)


def test_validation_split_of_a_series_is_its_last_rows_by_position():
    x, y = _frame()
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss="mean_absolute_error")
    history = model.fit(x, y, epochs=1, verbose=0, validation_split=0.2)
    tail = y.to_numpy()[int(len(y) * 0.8):]
    np.testing.assert_allclose(history.history["val_loss"][0], np.mean(np.abs(tail)), rtol=1e-5)


def test_predict_takes_a_single_column_series_and_a_dataframe_slice():
    x, _ = _frame()
    norm = tf.keras.layers.Normalization(input_shape=[1], axis=None)
    norm.adapt(np.array(x["a"]))
    model = tf.keras.Sequential([norm, tf.keras.layers.Dense(1)])
    assert model.predict(x["a"], verbose=0).shape == (len(x), 1)
    wide = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    np.testing.assert_allclose(wide.predict(x[:10], verbose=0), wide.predict(x.to_numpy()[:10], verbose=0))


# -- learning-rate schedules over an array of steps (tutorials/keras/overfit_and_underfit) -------------------
_STEPS = np.linspace(0, 100000, 5)
_SCHEDULE_RATES = [  # TF 2.21 / Keras 3.15 give these (float32, shape (5,)) for _STEPS
    (lambda S: S.InverseTimeDecay(0.001, 20000, 1), [0.001, 0.000444, 0.000286, 0.000211, 0.000167]),
    (lambda S: S.InverseTimeDecay(0.001, 20000, 1, staircase=True), [0.001, 0.0005, 0.000333, 0.00025, 0.000167]),
    (lambda S: S.ExponentialDecay(0.1, 30000, 0.5), [0.1, 0.056123, 0.031498, 0.017678, 0.009921]),
    (lambda S: S.PiecewiseConstantDecay([25000, 60000], [1.0, 0.5, 0.1]), [1.0, 1.0, 0.5, 0.1, 0.1]),
    (lambda S: S.CosineDecay(0.1, 50000), [0.1, 0.05, 0.0, 0.0, 0.0]),
    (lambda S: S.PolynomialDecay(0.1, 40000), [0.1, 0.037562, 0.0001, 0.0001, 0.0001]),
    (lambda S: S.PolynomialDecay(0.1, 40000, cycle=True), [0.1, 0.037562, 0.037562, 0.006344, 0.01675]),
    (lambda S: S.CosineDecayRestarts(0.1, 20000), [0.1, 0.096194, 0.014645, 0.091573, 0.05]),
]


@pytest.mark.parametrize("make, expected", _SCHEDULE_RATES)
def test_a_schedule_called_with_an_array_of_steps_gives_each_steps_rate(make, expected):
    """Keras 3 schedules are elementwise ops: the tutorial plots ``lr_schedule(np.linspace(0, 100000))``."""
    rates = make(tf.keras.optimizers.schedules)(_STEPS)
    assert rates.dtype == tf.float32 and rates.shape == (5,)
    np.testing.assert_allclose(rates.numpy(), expected, atol=1e-6)
    # one step still gives a scalar, the same rate
    np.testing.assert_allclose(make(tf.keras.optimizers.schedules)(_STEPS[1]).numpy(), expected[1], atol=1e-6)
    assert make(tf.keras.optimizers.schedules)(tf.constant(_STEPS[1])).shape == ()


def test_a_warmup_cosine_schedule_refuses_an_array_of_steps_as_keras_does():
    schedule = tf.keras.optimizers.schedules.CosineDecay(0.0, 50000, warmup_target=0.1, warmup_steps=30000)
    with pytest.raises(ValueError, match="one step at a time"):
        schedule(_STEPS)
    np.testing.assert_allclose(schedule(15000).numpy(), 0.05, atol=1e-7)
