"""Regressions that checks written against TF 2.21 found (issue 29, item 1): each test fails on the code
before the fix and states what TF 2.21 / Keras 3 do."""

import numpy as np
import pytest

import tfcore as tf


# -- tf.data: TFRecordDataset(...).map(parse_*) ------------------------------------------------------------
def _write_examples(path, n=5):
    with tf.io.TFRecordWriter(str(path)) as w:
        for i in range(n):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"ex%d" % i])),
                "seq": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i)))),
            }))
            w.write(ex.SerializeToString())


@pytest.mark.parametrize("spec_kind", ["string", "sequence"])
def test_tfrecord_map_parse_single_example_with_one_feature(tmp_path, spec_kind):
    """A spec of one feature makes ParseExampleV2 a multi-output op with one output: the traced map's
    replay unpacked it as a single tensor (AttributeError: 'tuple' object has no attribute '_array')."""
    path = tmp_path / "x.tfrecord"
    _write_examples(path)
    if spec_kind == "string":
        spec = {"name": tf.io.FixedLenFeature([], tf.string)}
        want = [b"ex%d" % i for i in range(5)]
    else:
        spec = {"seq": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}
        want = [list(range(i)) for i in range(5)]
    ds = tf.data.TFRecordDataset(str(path)).map(lambda r: tf.io.parse_single_example(r, spec))
    key = next(iter(spec))
    got = [e[key].numpy() for e in ds]
    assert [g if isinstance(g, bytes) else g.tolist() for g in got] == want


def test_tfrecord_batch_map_parse_example(tmp_path):
    path = tmp_path / "x.tfrecord"
    _write_examples(path)
    spec = {"name": tf.io.FixedLenFeature([], tf.string)}
    ds = tf.data.TFRecordDataset(str(path)).batch(2).map(lambda r: tf.io.parse_example(r, spec))
    assert [e["name"].numpy().tolist() for e in ds] == [[b"ex0", b"ex1"], [b"ex2", b"ex3"], [b"ex4"]]


def test_tf_function_with_a_one_output_parse():
    """The same one-output multi-output op replayed by a tf.function's plan."""
    ex = tf.train.Example(features=tf.train.Features(feature={
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"abc"]))})).SerializeToString()
    spec = {"name": tf.io.FixedLenFeature([], tf.string)}
    f = tf.function(lambda r: tf.io.parse_single_example(r, spec)["name"])
    assert f(tf.constant(ex)).numpy() == b"abc"
    assert f(tf.constant(ex)).numpy() == b"abc"  # the replay


# -- LossScaleOptimizer as Keras 3 ----------------------------------------------------------------------
def test_loss_scale_optimizer_apply_gradients_unscales_as_keras3():
    """Keras 3 (TF 2.21): scale_loss, the tape's gradients of the scaled loss, apply_gradients. The
    gradients must be divided by the scale before the inner optimizer sees them (before: applied
    1024x too large)."""
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), initial_scale=1024)
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * tf.constant([3.0, -1.0]))
        scaled = opt.scale_loss(loss)
    grads = tape.gradient(scaled, [v])
    np.testing.assert_allclose(grads[0].numpy(), [3072.0, -1024.0])
    opt.apply_gradients(zip(grads, [v]))
    np.testing.assert_allclose(v.numpy(), [1.0 - 0.3, 2.0 + 0.1], rtol=1e-6)


def test_loss_scale_optimizer_custom_loop_skips_non_finite_steps_itself():
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), initial_scale=64)
    v = tf.Variable([1.0, 2.0])
    opt.apply_gradients([(tf.constant([np.inf, 1.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert float(opt.dynamic_scale.numpy()) == 32.0


def test_loss_scale_optimizer_in_a_tf_function_loop():
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5), initial_scale=256)
    v = tf.Variable(4.0)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            scaled = opt.scale_loss(v * v / 2.0)  # d/dv = v
        opt.apply_gradients(zip(tape.gradient(scaled, [v]), [v]))

    step()
    step()
    assert float(v.numpy()) == pytest.approx(1.0)  # 4 -> 2 -> 1


def test_keras2_loss_scale_names_raise_as_in_tf_2_21():
    """TF 2.21's tf.keras is Keras 3, whose LossScaleOptimizer has no get_scaled_loss/get_unscaled_gradients;
    keeping them would unscale twice in a Keras 2 loop (apply_gradients now unscales)."""
    opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD())
    for name in ("get_scaled_loss", "get_unscaled_gradients"):
        assert not hasattr(opt, name)
        with pytest.raises(AttributeError, match="scale_loss"):
            getattr(opt, name)


# -- .keras models compiled with loss objects ---------------------------------------------------------------
def test_keras_file_with_loss_and_metric_objects_reloads_and_trains(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.random((32, 4), dtype=np.float32)
    y = (x.sum(1) > 2).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss=tf.keras.losses.BinaryCrossentropy(label_smoothing=0.1),
                  metrics=[tf.keras.metrics.AUC(name="auc"), "accuracy"])
    model.fit(x, y, epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert isinstance(loaded.loss, tf.keras.losses.BinaryCrossentropy)
    assert loaded.loss.get_config()["label_smoothing"] == pytest.approx(0.1)
    want = model.evaluate(x, y, verbose=0, return_dict=True)
    got = loaded.evaluate(x, y, verbose=0, return_dict=True)
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-5)
    history = loaded.fit(x, y, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])


# -- tf.function on a distributed dataset's batches --------------------------------------------------------
def test_tf_function_traces_once_for_distributed_batches_and_uses_each_batch(two_cpus):
    """TF keys a PerReplica argument by its TypeSpec: one trace for equal-shaped batches (before: a trace
    per call, keyed by the object's id). Each call must see its own batch (a trace replayed with the first
    batch's values would be silently wrong)."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    ds = tf.data.Dataset.from_tensor_slices(np.arange(64, dtype=np.float32)).batch(16)
    dist = strategy.experimental_distribute_dataset(ds)

    @tf.function
    def step(batch):
        per_replica = strategy.run(lambda x: tf.reduce_sum(x), args=(batch,))
        return strategy.reduce("SUM", per_replica, axis=None), per_replica

    totals, locals_ = [], []
    for batch in dist:
        total, per_replica = step(batch)
        totals.append(float(total))
        locals_.append([float(t) for t in strategy.experimental_local_results(per_replica)])
    assert step.experimental_get_tracing_count() == 1
    assert totals == [float(np.arange(i, i + 16).sum()) for i in range(0, 64, 16)]
    assert locals_[1] == [float(np.arange(16, 24).sum()), float(np.arange(24, 32).sum())]


# -- the tfcore command: a user's mistake is one line, not a traceback -------------------------------------
def test_saved_model_show_of_a_missing_directory_prints_one_line(tmp_path, capsys):
    from tfcore.cli import main

    assert main(["saved_model", "show", "--dir", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("tfcore saved_model: error: ") and "missing" in err and "\n" not in err


def test_info_with_an_unknown_op_prints_one_line_with_tf_names(capsys):
    from tfcore.cli import main

    assert main(["info", "--ops", "matmul"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "No op named 'matmul'" in err and "BatchMatMulV2" in err
