"""Bad arguments are refused where the user passes them, with TF's exception type, a message naming
the argument, and nothing changed (weights, optimizer step, metrics, configuration)."""

import re
import warnings

import numpy as np
import pytest

import tfcore as tf


def _model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def _data(n=16):
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, 4)).astype(np.float32), rng.integers(0, 3, n).astype(np.int32)


def _state(model):
    return [w.copy() for w in model.get_weights()], int(model.optimizer.iterations.numpy())


@pytest.mark.parametrize("kwargs, match", [
    ({"epochs": -1}, r"`epochs` must be a non-negative integer, got epochs=-1"),
    ({"epochs": 2.5}, r"`epochs` must be a non-negative integer, got epochs=2.5"),
    ({"epochs": "3"}, r"`epochs` must be a non-negative integer, got epochs='3'"),
    ({"initial_epoch": -2}, r"`initial_epoch` must be a non-negative integer"),
    ({"batch_size": 0}, r"`batch_size` must be a positive integer, got batch_size=0"),
    ({"batch_size": -8}, r"`batch_size` must be a positive integer, got batch_size=-8"),
    ({"batch_size": 4.0}, r"`batch_size` must be a positive integer, got batch_size=4.0"),
])
def test_fit_refuses_bad_epochs_and_batch_size_and_changes_nothing(kwargs, match):
    model = _model()
    x, y = _data()
    model.fit(x, y, epochs=1, verbose=0)
    before = _state(model)
    with pytest.raises(ValueError, match=match):
        model.fit(x, y, verbose=0, **kwargs)
    after = _state(model)
    assert after[1] == before[1]
    for a, b in zip(after[0], before[0]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method", ["evaluate", "predict"])
def test_evaluate_and_predict_refuse_a_bad_batch_size(method):
    model = _model()
    x, y = _data()
    args = (x, y) if method == "evaluate" else (x,)
    with pytest.raises(ValueError, match=r"`batch_size` must be a positive integer, got batch_size=0"):
        getattr(model, method)(*args, batch_size=0, verbose=0)


def test_epochs_zero_trains_nothing_as_in_tf():
    model = _model()
    x, y = _data()
    before = _state(model)
    hist = model.fit(x, y, epochs=0, verbose=0)
    assert hist.history == {} and _state(model)[1] == before[1]


def test_batch_size_with_a_dataset_is_ignored_with_a_warning_naming_it():
    model = _model()
    x, y = _data()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    with pytest.warns(UserWarning, match=r"fit: `batch_size=8` is ignored: `x` is a .*Dataset.*yields batches"):
        hist = model.fit(ds, batch_size=8, epochs=1, verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 4  # the dataset's 4 batches, not 16 / 8
    assert len(hist.history["loss"]) == 1
    with pytest.warns(UserWarning, match=r"evaluate: `batch_size=8` is ignored"):
        model.evaluate(ds, batch_size=8, verbose=0)


def test_validation_dataset_gets_no_batch_size_warning():
    model = _model()
    x, y = _data()
    val = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(x, y, batch_size=8, validation_data=val, epochs=1, verbose=0)


@pytest.mark.parametrize("units", ["hello", 0, -3, None, True, [4]])
def test_dense_refuses_bad_units_naming_the_argument(units):
    with pytest.raises(ValueError, match=r"invalid value for `units`, expected a positive integer. Received: units="):
        tf.keras.layers.Dense(units)


def test_list_files_names_the_pattern_that_matched_nothing(tmp_path):
    pattern = str(tmp_path / "nothing-*.tfrecord")
    with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(f"No files matched pattern: {pattern}")):
        tf.data.Dataset.list_files(pattern)


@pytest.mark.parametrize("argv, option, value", [
    (["--devices", "0"], "--devices", "0"),
    (["--devices", "-1"], "--devices", "-1"),
    (["--batch-size", "0"], "--batch-size", "0"),
    (["--epochs", "-2"], "--epochs", "-2"),
    (["--memory-limit", "abc"], "--memory-limit", "abc"),
])
def test_train_command_refuses_bad_numbers_naming_the_option(argv, option, value, capsys):
    from tfcore import cli

    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", *argv])
    assert exit_info.value.code == 2  # argparse's usage error, before any device is configured
    out = capsys.readouterr()
    assert f"argument {option}: must be a positive integer, got '{value}'" in out.err
    assert "Training" not in out.out


def test_train_command_refuses_a_memory_limit_above_the_gpu(monkeypatch, capsys):
    from tfcore import cli
    from tfcore.framework.context import context

    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "1")  # one emulated GPU of 2048 MB
    context.reset_for_tests()
    try:
        with pytest.raises(SystemExit, match=r"--memory-limit 999999: memory_limit values \[999999, 999999\] "
                                             r"\(sum 1999998\) MB exceeds the memory of /physical_device:GPU:0"):
            cli.main(["train", "--devices", "2", "--memory-limit", "999999"])
        assert "Training" not in capsys.readouterr().out
    finally:
        monkeypatch.delenv("TFCORE_EMULATED_GPUS")
        context.reset_for_tests()
