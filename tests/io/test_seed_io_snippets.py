"""The seeds' tf.summary, TensorBoard and TFRecord snippets, run as the guides wrote them.

Seed 000 §2.5 (metrics aggregated, then ``tf.summary.scalar`` into train/test writers), seed 003
(``trace_on``/``trace_export``), seed 004 (``tf.summary`` in a loop; cats-vs-dogs images into a
TFRecord file of ``tf.train.Example`` and back with ``tf.io.parse_single_example`` and
``tf.io.decode_jpeg``/``tf.image.decode_jpeg``). Only paths and sizes are changed.
"""

import os

import numpy as np
import pytest

import tfcore as tf

pytest.importorskip("tensorboard")
pytest.importorskip("PIL")
from tensorboard.backend.event_processing import event_accumulator as ea  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402


def _scalars(logdir, tag):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    return [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in acc.Tensors(tag)]


def test_seed000_metrics_then_summaries(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4)).astype("float32")
    y = (x.sum(1) > 0).astype("int64")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    optimizer = tf.keras.optimizers.SGD(0.1)
    loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def loss_fn(prediction, labels):
        return loss_obj(labels, prediction)

    def train_step(model, optimizer, images, labels):
        with tf.GradientTape() as tape:
            loss = loss_fn(model(images), labels)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    summary_writer = tf.summary.create_file_writer(str(tmp_path / "summaries"))
    with summary_writer.as_default():
        tf.summary.scalar('loss', 0.1, step=42)

    def train(model, optimizer, dataset, log_freq=4):
        avg_loss = tf.keras.metrics.Mean(name='loss', dtype=tf.float32)
        for images, labels in dataset:
            loss = train_step(model, optimizer, images, labels)
            avg_loss.update_state(loss)
            if tf.equal(optimizer.iterations % log_freq, 0):
                tf.summary.scalar('loss', avg_loss.result(), step=optimizer.iterations)
                avg_loss.reset_states()

    def test(model, test_x, test_y, step_num):
        loss = loss_fn(model(test_x), test_y)
        tf.summary.scalar('loss', loss, step=step_num)

    train_summary_writer = tf.summary.create_file_writer(str(tmp_path / "summaries/train"))
    test_summary_writer = tf.summary.create_file_writer(str(tmp_path / "summaries/test"))
    with train_summary_writer.as_default():
        train(model, optimizer, dataset)
    with test_summary_writer.as_default():
        test(model, x, y, optimizer.iterations)

    assert _scalars(tmp_path / "summaries", "loss") == [(42, pytest.approx(0.1))]
    assert [s for s, _ in _scalars(tmp_path / "summaries/train", "loss")] == [4, 8]
    (step, value), = _scalars(tmp_path / "summaries/test", "loss")
    assert step == 8 and value == pytest.approx(float(loss_fn(model(x), y)), rel=1e-6)


def test_seed003_and_004_trace_and_loop_summaries(tmp_path):
    logdir = str(tmp_path / "demomodule")
    writer = tf.summary.create_file_writer(logdir)
    with pytest.warns(UserWarning):
        tf.summary.trace_on(graph=True, profiler=True)
    result = tf.constant(5.0) + tf.constant(0.0)
    with writer.as_default(), pytest.warns(UserWarning, match="no tf.function graph"):
        tf.summary.trace_export(name="demomodule", step=0, profiler_outdir=logdir)
    assert float(result) == 5.0

    summary_writer = tf.summary.create_file_writer(str(tmp_path / "tensorboard_files"))
    for batch_index in range(3):
        loss = tf.constant(1.0 / (batch_index + 1))
        my_scalar = tf.constant(float(batch_index))
        with summary_writer.as_default():
            tf.summary.scalar("loss", loss, step=batch_index)
            tf.summary.scalar("MyScalar", my_scalar, step=batch_index)
    assert _scalars(tmp_path / "tensorboard_files", "MyScalar") == [(0, 0.0), (1, 1.0), (2, 2.0)]


def test_seed004_cats_vs_dogs_tfrecord(tmp_path):
    data_dir = str(tmp_path / "cats_vs_dogs")
    train_cats_dir = data_dir + '/train/cats/'
    train_dogs_dir = data_dir + '/train/dogs/'
    tfrecord_name = data_dir + '/train/train.tfrecords'
    rng = np.random.default_rng(0)
    for d, n in ((train_cats_dir, 3), (train_dogs_dir, 2)):
        os.makedirs(d)
        for i in range(n):
            img = rng.integers(0, 256, (6, 5, 3)).astype(np.uint8)
            tf.io.write_file(f"{d}{i}.jpg", tf.io.encode_jpeg(img))

    train_cat_filenames = [train_cats_dir + filename for filename in sorted(os.listdir(train_cats_dir))]
    train_dog_filenames = [train_dogs_dir + filename for filename in sorted(os.listdir(train_dogs_dir))]
    train_filenames = train_cat_filenames + train_dog_filenames
    train_labels = [0] * len(train_cat_filenames) + [1] * len(train_dog_filenames)

    with tf.io.TFRecordWriter(tfrecord_name) as writer:
        for filename, label in zip(train_filenames, train_labels):
            with open(filename, 'rb') as f:
                image = f.read()
            feature = {
                'image': tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
                'label': tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())

    raw_dataset = tf.data.TFRecordDataset(tfrecord_name)
    feature_description = {
        'image': tf.io.FixedLenFeature([], tf.string),
        'label': tf.io.FixedLenFeature([], tf.int64)
    }

    def _parse_example(example_string):
        feature_dict = tf.io.parse_single_example(example_string, feature_description)
        feature_dict['image'] = tf.io.decode_jpeg(feature_dict['image'])
        return feature_dict['image'], feature_dict['label']

    dataset = raw_dataset.map(_parse_example)
    got = list(dataset)
    assert [int(label) for _, label in got] == train_labels
    for (img, _), name in zip(got, train_filenames):
        np.testing.assert_array_equal(img.numpy(), tf.image.decode_jpeg(tf.io.read_file(name)).numpy())
        assert img.shape == (6, 5, 3) and img.dtype == tf.uint8

    def _decode_and_resize(filename, label):
        image_string = tf.io.read_file(filename)
        image_decoded = tf.image.decode_jpeg(image_string)
        image_resized = tf.image.resize(image_decoded, [8, 8]) / 255.0
        return image_resized, label

    train_dataset = tf.data.Dataset.from_tensor_slices((tf.constant(train_filenames), tf.constant(train_labels)))
    train_dataset = train_dataset.map(map_func=_decode_and_resize, num_parallel_calls=tf.data.experimental.AUTOTUNE)
    train_dataset = train_dataset.shuffle(20000).batch(2).prefetch(tf.data.experimental.AUTOTUNE)
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(2, activation='softmax')])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.001), loss=tf.keras.losses.sparse_categorical_crossentropy)
    hist = model.fit(train_dataset, epochs=1, verbose=0)
    assert np.isfinite(hist.history["loss"][0])
