"""tf.summary event files read back with TensorBoard's own reader, and compared with what TF writes.

``data/tf_refs.json`` holds the ``Summary.Value`` protos TensorFlow 2.21's tf.summary wrote for
known inputs (``data/make_tf_refs.py``): ours must be byte-identical (PNG bytes aside: encoders
differ, the decoded pixels must not).
"""

import io
import json
import os
import pathlib
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import tfcore as tf

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing import event_accumulator as ea  # noqa: E402
from tensorboard.backend.event_processing import event_file_loader  # noqa: E402
from tensorboard.compat.proto import summary_pb2  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

REFS = json.loads(pathlib.Path(__file__).with_name("data").joinpath("tf_refs.json").read_text())
TF_VALUES = {e["tag"]: summary_pb2.Summary.Value.FromString(bytes.fromhex(e["value_hex"]))
             for e in REFS["summary_values"]}


def _events(logdir):
    files = sorted(os.listdir(logdir))
    assert len(files) == 1
    return list(event_file_loader.EventFileLoader(os.path.join(logdir, files[0])).Load())


def _accumulator(logdir):
    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    return acc


def _write_reference_summaries(logdir):
    data = np.array(REFS["hist_data"], np.float32)
    w = tf.summary.create_file_writer(str(logdir))
    with w.as_default(step=3):
        assert bool(tf.summary.scalar("loss", 0.25))
        tf.summary.histogram("h", data)
        tf.summary.histogram("h7", data, buckets=7)
        tf.summary.histogram("hconst", tf.fill([4], 2.0), buckets=5)
        tf.summary.histogram("hempty", tf.zeros([0]), buckets=4)
        tf.summary.text("t", "hello *world*")
        tf.summary.image("img", np.arange(2 * 3 * 4 * 3, dtype=np.uint8).reshape(2, 3, 4, 3), max_outputs=2)
        tf.summary.audio("a", np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16, 1), sample_rate=8000)
        with tf.name_scope("scoped"):
            tf.summary.scalar("x", 1)
    return w


def test_summary_values_identical_to_tensorflow(tmp_path):
    _write_reference_summaries(tmp_path)
    events = _events(tmp_path)
    assert events[0].file_version == "brain.Event:2"
    values = {v.tag: (ev.step, v) for ev in events[1:] for v in ev.summary.value}
    assert sorted(values) == sorted(TF_VALUES)
    for tag, (step, value) in values.items():
        assert step == 3
        if tag == "img":
            continue
        assert value.SerializeToString() == TF_VALUES[tag].SerializeToString(), tag
    from PIL import Image

    ours = tensor_util.make_ndarray(values["img"][1].tensor)
    theirs = tensor_util.make_ndarray(TF_VALUES["img"].tensor)
    assert values["img"][1].metadata == TF_VALUES["img"].metadata
    assert list(ours[:2]) == list(theirs[:2]) == [b"4", b"3"]
    for a, b in zip(ours[2:], theirs[2:]):
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(a))), np.asarray(Image.open(io.BytesIO(b))))


def test_event_file_name_and_tensorboard_reader(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path), filename_suffix=".run1")
    name = os.listdir(tmp_path)[0]
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\.[^.]+(\.[^.]+)*\.\d+\.\d+\.run1", name), name
    with w.as_default():
        for step in range(5):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        tf.summary.histogram("weights", np.arange(10.0), step=7, buckets=5)
        tf.summary.text("notes", tf.constant(["a", "b"]), step=2)
        tf.summary.image("pic", np.ones((1, 2, 3, 1), np.float32) * 0.5, step=1)
    acc = _accumulator(tmp_path)
    assert sorted(acc.Tags()["tensors"]) == ["loss", "notes", "pic", "weights"]
    loss = acc.Tensors("loss")
    assert [e.step for e in loss] == [0, 1, 2, 3, 4]
    np.testing.assert_allclose([tensor_util.make_ndarray(e.tensor_proto) for e in loss],
                               [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5], rtol=1e-7)
    hist = tensor_util.make_ndarray(acc.Tensors("weights")[0].tensor_proto)
    np.testing.assert_allclose(hist, [[0, 1.8, 2], [1.8, 3.6, 2], [3.6, 5.4, 2], [5.4, 7.2, 2], [7.2, 9, 2]])
    assert acc.SummaryMetadata("weights").plugin_data.plugin_name == "histograms"
    assert list(tensor_util.make_ndarray(acc.Tensors("notes")[0].tensor_proto)) == [b"a", b"b"]
    pic = tensor_util.make_ndarray(acc.Tensors("pic")[0].tensor_proto)
    from PIL import Image

    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(pic[2]))), np.full((2, 3), 127, np.uint8))


def test_steps_record_if_and_no_writer(tmp_path):
    assert not bool(tf.summary.scalar("x", 1.0, step=0))  # no default writer: nothing, no error
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.scalar("x", 1.0)
        tf.summary.experimental.set_step(4)
        tf.summary.scalar("a", 1.0)
        step = tf.Variable(9, dtype=tf.int64)
        tf.summary.scalar("b", 2.0, step=step)
        with tf.summary.record_if(False):
            assert not tf.summary.should_record_summaries()
            assert not bool(tf.summary.scalar("never", 1.0))
        with tf.summary.record_if(lambda: tf.equal(step % 2, 0)):
            tf.summary.scalar("odd_step", 1.0)
        tf.summary.experimental.set_step(None)
        with pytest.raises(ValueError, match="must be a scalar"):
            tf.summary.scalar("v", [1.0, 2.0], step=0)
    with tf.summary.create_noop_writer().as_default(step=1):
        assert not bool(tf.summary.scalar("noop", 1.0))
    acc = _accumulator(tmp_path)
    assert sorted(acc.Tags()["tensors"]) == ["a", "b"]
    assert acc.Tensors("a")[0].step == 4 and acc.Tensors("b")[0].step == 9


def test_writes_happen_off_the_calling_thread(tmp_path, monkeypatch):
    from tfcore.summary import event_file

    seen = []
    original = event_file.EventFileWriter._event_bytes

    def spy(self, item):
        seen.append(threading.current_thread() is threading.main_thread())
        return original(self, item)

    monkeypatch.setattr(event_file.EventFileWriter, "_event_bytes", spy)
    w = tf.summary.create_file_writer(str(tmp_path), max_queue=2, flush_millis=10 ** 7)
    with w.as_default(step=0):
        tf.summary.scalar("a", 1.0)
        tf.summary.scalar("b", 2.0)
        deadline = time.time() + 10  # max_queue=2 events pending: the thread flushes without being asked
        while time.time() < deadline and len(_accumulator(tmp_path).Tags()["tensors"]) < 2:
            time.sleep(0.02)
        assert sorted(_accumulator(tmp_path).Tags()["tensors"]) == ["a", "b"]
    assert seen == [False, False]
    w.close()
    with pytest.raises(tf.errors.FailedPreconditionError, match="closed"), w.as_default(step=0):
        tf.summary.scalar("c", 1.0)


def test_pending_events_are_flushed_at_exit(tmp_path):
    code = ("import tfcore as tf\n"
            f"w = tf.summary.create_file_writer({str(tmp_path)!r}, flush_millis=10**7)\n"
            "w.set_as_default(step=5)\n"
            "tf.summary.scalar('late', 3.0)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    acc = _accumulator(tmp_path)
    assert [e.step for e in acc.Tensors("late")] == [5]


def test_trace_export_without_graphs_exports_nothing(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True)
    tf.constant(1.0) + 1.0
    with w.as_default(), pytest.warns(UserWarning, match="no tf.function graph"):
        assert tf.summary.trace_export("eager", step=0) == 0
    from tfcore.summary import trace

    tf.summary.trace_on()
    trace.add_graph(b"\n\x05\n\x01a\x12\x00")  # what tf.function hands over: a serialized GraphDef
    with w.as_default():
        assert tf.summary.trace_export("fn", step=1) == 1
    graphs = [e for e in _events(tmp_path) if e.HasField("graph_def")]
    assert len(graphs) == 1 and graphs[0].step == 1


def test_keras_tensorboard_callback_runs(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 3)).astype("float32")
    y = x.sum(1, keepdims=True)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    cb = tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), histogram_freq=1, update_freq=2)
    hist = model.fit(x, y, epochs=3, batch_size=10, validation_split=0.25, verbose=0, callbacks=[cb])
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    train, val = _accumulator(tmp_path / "train"), _accumulator(tmp_path / "validation")

    def series(acc, tag):
        return [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in acc.Tensors(tag)]

    for name in ("loss", "mae"):
        assert [s for s, _ in series(train, "epoch_" + name)] == [0, 1, 2]
        np.testing.assert_allclose([v for _, v in series(train, "epoch_" + name)], hist.history[name], rtol=1e-6)
        np.testing.assert_allclose([v for _, v in series(val, "epoch_" + name)], hist.history["val_" + name],
                                   rtol=1e-6)
        assert [s for s, _ in series(val, f"evaluation_{name}_vs_iterations")] == [3, 6, 9]
    assert [s for s, _ in series(train, "batch_loss")] == [2, 4, 6, 8]
    kernel = train.Tensors(model.layers[0].kernel.path + "/histogram")  # Keras 3's tag: sequential/dense/kernel
    assert [e.step for e in kernel] == [0, 1, 2]
    assert tensor_util.make_ndarray(kernel[-1].tensor_proto)[:, 2].sum() == 12  # 3x4 kernel values bucketed
    np.testing.assert_allclose(tensor_util.make_ndarray(kernel[-1].tensor_proto)[[0, -1], [0, 1]],
                               [model.layers[0].kernel.numpy().min(), model.layers[0].kernel.numpy().max()],
                               rtol=1e-6)
    assert train.SummaryMetadata("keras").plugin_data.plugin_name == "graph_keras_model"
    with pytest.raises(ValueError, match="update_freq"):
        tf.keras.callbacks.TensorBoard(str(tmp_path), update_freq=0)
