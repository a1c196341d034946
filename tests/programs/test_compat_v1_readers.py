"""``tf.compat.v1.train.summary_iterator`` and ``tf.compat.v1.io.tf_record_iterator``: how TensorBoard's
get_started guide (tests/tutorials/tutorial_tensorboard_get_started.py) and TF2 tests read back the event
files ``tf.summary`` and the Keras TensorBoard callback write. Behaviour checked against TF 2.21."""

import numpy as np
import pytest

import tfcore as tf

pytest.importorskip("tensorboard", reason="event files and tf.compat.v1's protos need the tensorboard package")


def _scalars(path):
    out = []
    for event in tf.compat.v1.train.summary_iterator(path):
        for value in event.summary.value:
            out.append((event.step, value.tag, float(tf.make_ndarray(value.tensor))))
    return out


def test_summary_iterator_reads_back_the_scalars_a_file_writer_wrote(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
            tf.summary.scalar("accuracy", 0.5 + step / 10, step=step)
    writer.flush()
    (path,) = tmp_path.glob("events.out.tfevents.*")
    events = list(tf.compat.v1.train.summary_iterator(str(path)))
    assert isinstance(events[0], tf.compat.v1.Event) and events[0].file_version == "brain.Event:2"
    assert _scalars(str(path)) == [(0, "loss", 1.0), (0, "accuracy", 0.5), (1, "loss", 0.5),
                                   (1, "accuracy", pytest.approx(0.6)), (2, "loss", pytest.approx(1 / 3)),
                                   (2, "accuracy", pytest.approx(0.7))]


def test_summary_iterator_reads_what_the_keras_tensorboard_callback_wrote(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 3), np.float32)
    model.fit(x, np.zeros((8, 1), np.float32), epochs=2, verbose=0, validation_data=(x, np.zeros((8, 1))),
              callbacks=[tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1)])
    train_tags = {}
    for path in sorted((tmp_path / "train").glob("events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                train_tags.setdefault(value.tag, []).append(event.step)
    assert train_tags["epoch_loss"] == [0, 1]
    assert sum(tag.endswith("/histogram") for tag in train_tags) == 2  # kernel and bias, every epoch
    assert all(steps == [0, 1] for tag, steps in train_tags.items() if tag.endswith("/histogram"))


def test_tf_record_iterator_yields_the_records_as_bytes(tmp_path):
    path = str(tmp_path / "r.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        w.write(b"first")
        w.write(b"")
        w.write(b"third")
    assert list(tf.compat.v1.io.tf_record_iterator(path)) == [b"first", b"", b"third"]
    gz = str(tmp_path / "r.gz")
    with tf.io.TFRecordWriter(gz, options="GZIP") as w:
        w.write(b"zipped")
    assert list(tf.compat.v1.io.tf_record_iterator(gz, options=tf.io.TFRecordOptions("GZIP"))) == [b"zipped"]


def test_a_missing_file_or_a_directory_raises_when_the_iterator_is_made_as_in_tf(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="No such file"):
        tf.compat.v1.train.summary_iterator(str(tmp_path / "missing"))
    with pytest.raises(tf.errors.FailedPreconditionError, match="Is a directory"):
        tf.compat.v1.train.summary_iterator(str(tmp_path))


def test_a_file_that_is_not_a_tfrecord_raises_data_loss_when_read(tmp_path):
    path = tmp_path / "junk"
    path.write_bytes(b"garbage-not-a-record")
    it = tf.compat.v1.train.summary_iterator(str(path))
    with pytest.raises(tf.errors.DataLossError, match="junk"):
        next(it)


def test_other_v1_names_still_raise_attribute_error_naming_what_exists():
    with pytest.raises(AttributeError, match="summary_iterator"):
        tf.compat.v1.Session  # noqa: B018
