"""tf.train.Checkpoint / CheckpointManager in TF's format: round trips, deferred restoration, status
objects, TF-written files, corruption and crash safety, and interchange with TensorFlow when installed."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfcore as tf

DATA = os.path.join(os.path.dirname(__file__), "data")


class Net(tf.Module):
    """The structure of tests/saving/data/make_tf_refs.py's Net, with other initial values."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.zeros((2, 3), np.float32), name="w")
        self.b = tf.Variable(np.zeros(3, np.float64), name="b")
        self.inner = tf.Module()
        self.inner.count = tf.Variable(np.int32(0), name="count")
        self.inner.flag = tf.Variable(False, name="flag")
        self.blocks = [tf.Variable(np.zeros(2, np.float32)), {"scale": tf.Variable(np.float32(0))}]


def _tf_ckpt():
    net = Net()
    return net, tf.train.Checkpoint(model=net, step=tf.Variable(np.int64(0)), note=tf.Variable(b""))


# -- files written by TensorFlow 2.21 (committed) ---------------------------------------------
def test_reads_checkpoint_written_by_tensorflow():
    d = os.path.join(DATA, "tf_module")
    latest = tf.train.latest_checkpoint(d)
    assert latest == os.path.join(d, "ckpt-2")
    net, ckpt = _tf_ckpt()
    ckpt.restore(latest).assert_consumed()
    np.testing.assert_array_equal(net.w.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) * 10)
    np.testing.assert_array_equal(net.b.numpy(), [0.5, -1.5, 2.0])
    assert net.b.dtype == tf.float64
    assert int(net.inner.count.numpy()) == 7 and bool(net.inner.flag.numpy()) is True
    np.testing.assert_array_equal(net.blocks[0].numpy(), [3.0, 3.0])
    assert float(net.blocks[1]["scale"].numpy()) == 0.25
    assert int(ckpt.step.numpy()) == 42 and ckpt.note.numpy() == b"written by TF"
    assert int(ckpt.save_counter.numpy()) == 2
    ckpt.restore(os.path.join(d, "ckpt-1")).assert_consumed()
    assert int(ckpt.step.numpy()) == 41 and float(net.w.numpy()[1, 2]) == 5.0


def test_load_checkpoint_and_list_variables_of_tf_file():
    d = os.path.join(DATA, "tf_module")
    names = dict(tf.train.list_variables(d))
    assert names["model/w/.ATTRIBUTES/VARIABLE_VALUE"] == [2, 3]
    assert names["model/blocks/1/scale/.ATTRIBUTES/VARIABLE_VALUE"] == []
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in names
    reader = tf.train.load_checkpoint(os.path.join(d, "ckpt-1"))
    assert reader.get_tensor("note/.ATTRIBUTES/VARIABLE_VALUE") == b"written by TF"
    assert reader.get_variable_to_dtype_map()["model/inner/count/.ATTRIBUTES/VARIABLE_VALUE"] == tf.int32
    assert reader.has_tensor("step/.ATTRIBUTES/VARIABLE_VALUE") and not reader.has_tensor("nope")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        tf.train.load_checkpoint(os.path.join(d, ".."))


def _keras3_mlp():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4), tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(2)])
    opt = tf.keras.optimizers.Adam(0.01)
    model.compile(opt, "mse")
    return model, opt


def test_reads_keras3_checkpoint_written_by_tensorflow():
    """TF 2.21 (Keras 3) names: model/_functional/_operations/<i>/_kernel, optimizer/_variables/<i>."""
    path = os.path.join(DATA, "tf_keras", "ckpt")
    refs = np.load(os.path.join(DATA, "keras3_refs.npz"))
    reader = tf.train.load_checkpoint(path)
    model, opt = _keras3_mlp()  # not built: the weights are filled when the model builds
    status = tf.train.Checkpoint(model=model, optimizer=opt).restore(path)
    model.build((None, 3))
    np.testing.assert_allclose(model.predict(refs["ck_x"], verbose=0), refs["ck_pred"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(
        model.layers[1].moving_variance.numpy(),
        reader.get_tensor("model/_functional/_operations/2/moving_variance/.ATTRIBUTES/VARIABLE_VALUE"))
    assert int(opt.iterations.numpy()) == 4
    status.assert_existing_objects_matched()
    opt.build(model.trainable_variables)  # the slots in optimizer/_variables/<i> wait for the optimizer's build
    status.assert_consumed()
    np.testing.assert_array_equal(opt.get_slot(model.layers[0].kernel, "v").numpy(),
                                  reader.get_tensor("optimizer/_variables/3/.ATTRIBUTES/VARIABLE_VALUE"))

    built, opt2 = _keras3_mlp()  # optimizer slots exist: they come from optimizer/_variables/<i>
    built.optimizer.build(built.trainable_variables)
    tf.train.Checkpoint(model=built, optimizer=opt2).restore(path).assert_existing_objects_matched()
    np.testing.assert_array_equal(opt2.get_slot(built.layers[0].kernel, "v").numpy(),
                                  reader.get_tensor("optimizer/_variables/3/.ATTRIBUTES/VARIABLE_VALUE"))


# -- round trips ------------------------------------------------------------------------------
def test_module_round_trip_and_save_counter(tmp_path):
    net, ckpt = _tf_ckpt()
    net.w.assign(np.full((2, 3), 2.5, np.float32))
    ckpt.note.assign(b"ours")
    p1 = ckpt.save(str(tmp_path / "ck"))
    assert p1 == str(tmp_path / "ck-1") and tf.train.latest_checkpoint(str(tmp_path)) == p1
    net.w.assign(np.zeros((2, 3), np.float32))
    p2 = ckpt.save(str(tmp_path / "ck"))
    assert p2.endswith("ck-2")
    net2, ckpt2 = _tf_ckpt()
    ckpt2.restore(p1).assert_consumed()
    np.testing.assert_array_equal(net2.w.numpy(), np.full((2, 3), 2.5))
    assert ckpt2.note.numpy() == b"ours" and int(ckpt2.save_counter.numpy()) == 1
    assert ckpt.write(str(tmp_path / "plain")) == str(tmp_path / "plain")
    assert tf.train.latest_checkpoint(str(tmp_path)) == p2  # write() leaves the state file alone


def _model():
    return tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.BatchNormalization(),
                                tf.keras.layers.Dense(2)])


def _data():
    rs = np.random.RandomState(0)
    return rs.rand(16, 3).astype("float32"), rs.rand(16, 2).astype("float32")


def test_deferred_restore_with_optimizer_slots_continues_training_identically(tmp_path):
    x, y = _data()
    tf.keras.utils.set_random_seed(1)
    m = _model()
    m.compile(tf.keras.optimizers.Adam(0.01), "mse")
    m.fit(x, y, epochs=2, verbose=0, shuffle=False)
    path = tf.train.Checkpoint(model=m, optimizer=m.optimizer).save(str(tmp_path / "ck"))
    names = dict(tf.train.list_variables(path))  # Keras 3's names, as TF 2.21 writes them
    assert names["optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 4]  # the first kernel
    assert names["optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 4]  # its Adam momentum
    assert "model/_functional/_operations/2/moving_mean/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE" in names
    m.fit(x, y, epochs=2, verbose=0, shuffle=False)
    reference = m.predict(x, verbose=0)

    m2 = _model()  # not built: no weights, no slots yet
    opt2 = tf.keras.optimizers.Adam(0.01)
    status = tf.train.Checkpoint(model=m2, optimizer=opt2).restore(path)
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()
    assert int(opt2.iterations.numpy()) == 2  # existing objects restore at once
    m2.compile(opt2, "mse")
    m2.build((None, 3))  # weights are created and filled now
    np.testing.assert_array_equal(m2.layers[0].kernel.numpy(), _weights_at(path, "optimizer/_trainable_variables/0"))
    m2.fit(x, y, epochs=2, verbose=0, shuffle=False)  # slots are created and filled on the first step
    np.testing.assert_array_equal(m2.predict(x, verbose=0), reference)
    status.assert_consumed()


def _weights_at(path, name):
    return tf.train.load_checkpoint(path).get_tensor(f"{name}/.ATTRIBUTES/VARIABLE_VALUE")


def test_subclassed_model_restores_by_attribute_names(tmp_path):
    class Small(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(3)
            self.out = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.out(self.hidden(x))

    a = Small()
    a(np.ones((1, 2), np.float32))
    path = tf.train.Checkpoint(net=a).write(str(tmp_path / "w"))
    assert "net/hidden/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in dict(tf.train.list_variables(path))  # Keras 3's
    b = Small()
    status = tf.train.Checkpoint(net=b).read(path)
    b(np.ones((1, 2), np.float32))
    status.assert_consumed()
    np.testing.assert_array_equal(b.out.kernel.numpy(), a.out.kernel.numpy())


# -- status objects ---------------------------------------------------------------------------
def test_status_assertions_and_expect_partial(tmp_path, caplog):
    v, w = tf.Variable(1.0), tf.Variable(2.0)
    path = tf.train.Checkpoint(v=v, w=w).write(str(tmp_path / "c"))
    partial = tf.train.Checkpoint(v=tf.Variable(0.0))
    status = partial.restore(path)
    status.assert_existing_objects_matched().assert_nontrivial_match()
    with pytest.raises(AssertionError, match=r"\(root\)\.w"):
        status.assert_consumed()
    assert status.expect_partial() is status
    extra = tf.train.Checkpoint(v=tf.Variable(0.0), w=tf.Variable(0.0), z=tf.Variable(0.0))
    with pytest.raises(AssertionError, match="Object not assigned a value"):
        extra.restore(path).assert_existing_objects_matched()
    none = tf.train.Checkpoint(v=v).restore(None)
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        none.assert_consumed()
    with pytest.raises(ValueError, match="trackable object"):
        tf.train.Checkpoint(v=1)
    assert repr(tf.train.Checkpoint(v=[1, 2]).v) == "ListWrapper([1, 2])"  # TF wraps lists (trackable)


# -- CheckpointManager ----------------------------------------------------------------------
def test_manager_max_to_keep_numbers_and_recovery(tmp_path):
    step = tf.Variable(np.int64(0))
    ckpt = tf.train.Checkpoint(step=step)
    d = str(tmp_path / "run")
    mgr = tf.train.CheckpointManager(ckpt, d, max_to_keep=2)
    assert mgr.latest_checkpoint is None and mgr.checkpoints == []
    for _ in range(3):
        step.assign_add(1)
        mgr.save()
    assert mgr.checkpoints == [os.path.join(d, "ckpt-2"), os.path.join(d, "ckpt-3")]
    assert not os.path.exists(os.path.join(d, "ckpt-1.index"))
    assert not any(f.startswith("ckpt-1.") for f in os.listdir(d))
    assert mgr.save(checkpoint_number=100) == os.path.join(d, "ckpt-100")
    assert mgr.latest_checkpoint == tf.train.latest_checkpoint(d) == os.path.join(d, "ckpt-100")
    again = tf.train.CheckpointManager(tf.train.Checkpoint(step=tf.Variable(np.int64(0))), d, max_to_keep=2,
                                       checkpoint_name="ckpt")
    assert again.checkpoints == [os.path.join(d, "ckpt-3"), os.path.join(d, "ckpt-100")]
    assert again.restore_or_initialize() == os.path.join(d, "ckpt-100")
    assert int(again.checkpoint.step.numpy()) == 3
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.CheckpointManager(ckpt, d, max_to_keep=0)


def test_manager_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    import tfcore.saving.management as management

    clock = [1000.0]
    monkeypatch.setattr(management.time, "time", lambda: clock[0])
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    mgr = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1, keep_checkpoint_every_n_hours=1,
                                     checkpoint_name="m")
    kept = []
    for _ in range(5):
        clock[0] += 1800.0  # half an hour per save
        kept.append(mgr.save())
    left = sorted(f[:-6] for f in os.listdir(tmp_path) if f.endswith(".index"))
    # m-2 (t=1 h after start) and m-4 (t=2 h) are preserved hourly; m-5 is the one max_to_keep keeps
    assert left == ["m-2", "m-4", "m-5"], left
    assert mgr.checkpoints == [kept[-1]]


# -- errors -----------------------------------------------------------------------------------
def test_missing_truncated_and_corrupted_files(tmp_path):
    v = tf.Variable(np.arange(4, dtype=np.float32))
    ckpt = tf.train.Checkpoint(v=v)
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        ckpt.restore(str(tmp_path / "nope"))
    path = ckpt.write(str(tmp_path / "c"))
    index, data = path + ".index", path + ".data-00000-of-00001"

    shutil.copy(index, index + ".bak")
    with open(index, "r+b") as f:
        f.truncate(30)
    with pytest.raises(tf.errors.DataLossError, match="c.index"):
        ckpt.restore(path)
    shutil.copy(index + ".bak", index)
    _flip(index, 5, 0xFF)
    with pytest.raises(tf.errors.DataLossError, match="c.index"):
        tf.train.load_checkpoint(path)
    shutil.copy(index + ".bak", index)

    _flip(data, -1, 0x01)  # the last byte of the variable's value
    before = tf.Variable(np.zeros(4, np.float32))
    with pytest.raises(tf.errors.DataLossError, match="data-00000-of-00001"):
        tf.train.Checkpoint(v=before).restore(path)
    np.testing.assert_array_equal(before.numpy(), np.zeros(4))
    os.remove(data)
    with pytest.raises(tf.errors.NotFoundError, match="data-00000-of-00001"):
        tf.train.Checkpoint(v=before).restore(path)


def _flip(path, pos, bits):
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    raw[pos] ^= bits
    with open(path, "wb") as f:
        f.write(bytes(raw))


def test_shape_mismatch_names_variable_and_shapes_and_restores_nothing(tmp_path):
    a, b = tf.Variable(np.ones(3, np.float32), name="alpha"), tf.Variable(np.ones((2, 2), np.float32), name="beta")
    path = tf.train.Checkpoint(a=a, b=b).write(str(tmp_path / "c"))
    a2, b2 = tf.Variable(np.zeros(3, np.float32), name="alpha"), tf.Variable(np.zeros((2, 3), np.float32), name="beta")
    with pytest.raises(ValueError, match=r"shape \(2, 2\).*shape \(2, 3\) and name beta"):
        tf.train.Checkpoint(a=a2, b=b2).restore(path)
    np.testing.assert_array_equal(a2.numpy(), np.zeros(3))  # nothing half-restored


_WRITER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import tfcore as tf
    d = sys.argv[1]
    v = tf.Variable(np.full((256, 256), 1.0, np.float32))
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), d, max_to_keep=1)
    mgr.save()
    v.assign(np.full((256, 256), 2.0, np.float32))
    real_fsync = os.fsync
    def stall(fd):
        real_fsync(fd)
        print("writing", flush=True)
        time.sleep(60)
    os.fsync = stall
    mgr.save()
""")


def test_writer_killed_mid_save_leaves_previous_checkpoint_loadable(tmp_path):
    d = str(tmp_path / "ckpts")
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, d], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"  # the second save is half written
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert tf.train.latest_checkpoint(d) == os.path.join(d, "ckpt-1")
    assert not os.path.exists(os.path.join(d, "ckpt-2.index"))
    v = tf.Variable(np.zeros((256, 256), np.float32))
    tf.train.Checkpoint(v=v).restore(tf.train.latest_checkpoint(d)).assert_consumed()
    assert float(v.numpy().min()) == 1.0
    mgr = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), d, max_to_keep=1)
    assert mgr.checkpoints == [os.path.join(d, "ckpt-1")]


def test_missing_optional_packages_name_the_extra(monkeypatch):
    import tfcore.saving._protos as protos

    monkeypatch.setattr(protos, "_checked", [False])
    monkeypatch.setitem(sys.modules, "tensorboard.compat.proto.trackable_object_graph_pb2", None)
    with pytest.raises(ImportError, match=r"tensorboard.*tfcore\[checkpoint\]"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).write("/nonexistent/never-written")


# -- interchange with TensorFlow (runs only where TensorFlow is installed) -------------------------
def test_tensorflow_reads_our_checkpoints(tmp_path):
    tf_real = pytest.importorskip("tensorflow")
    net, ckpt = _tf_ckpt()
    net.w.assign(np.full((2, 3), 1.25, np.float32))
    net.inner.flag.assign(True)
    ckpt.note.assign(b"from tfcore")
    ckpt.save(str(tmp_path / "ck"))

    class TFNet(tf_real.Module):
        def __init__(self):
            super().__init__()
            self.w = tf_real.Variable(np.zeros((2, 3), np.float32))
            self.b = tf_real.Variable(np.zeros(3, np.float64))
            self.inner = tf_real.Module()
            self.inner.count = tf_real.Variable(np.int32(0))
            self.inner.flag = tf_real.Variable(False)
            self.blocks = [tf_real.Variable(np.zeros(2, np.float32)), {"scale": tf_real.Variable(np.float32(0))}]

    tnet = TFNet()
    tck = tf_real.train.Checkpoint(model=tnet, step=tf_real.Variable(np.int64(0)), note=tf_real.Variable(b""))
    tck.restore(tf_real.train.latest_checkpoint(str(tmp_path))).assert_consumed()
    np.testing.assert_array_equal(tnet.w.numpy(), np.full((2, 3), 1.25))
    assert bool(tnet.inner.flag.numpy()) and tck.note.numpy() == b"from tfcore"

    x, y = _data()
    m = _model()
    m.compile(tf.keras.optimizers.Adam(0.01), "mse")
    m.fit(x, y, epochs=1, verbose=0)
    kpath = tf.train.Checkpoint(model=m, optimizer=m.optimizer).write(str(tmp_path / "keras"))
    reader = tf_real.train.load_checkpoint(kpath)
    ours = tf.train.load_checkpoint(kpath)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(ours.get_variable_to_shape_map())
    key = "optimizer/_variables/3/.ATTRIBUTES/VARIABLE_VALUE"  # the first kernel's Adam velocity
    np.testing.assert_array_equal(reader.get_tensor(key), m.optimizer.get_slot(m.layers[0].kernel, "v").numpy())


def test_we_read_checkpoints_tensorflow_writes_now(tmp_path):
    tf_real = pytest.importorskip("tensorflow")
    sys.path.insert(0, DATA)
    try:
        import make_tf_refs
    finally:
        sys.path.remove(DATA)
    tnet = make_tf_refs.Net()
    tnet.b.assign([9.0, 8.0, 7.0])
    tck = tf_real.train.Checkpoint(model=tnet, step=tf_real.Variable(np.int64(5)), note=tf_real.Variable(b"now"))
    mgr = tf_real.train.CheckpointManager(tck, str(tmp_path), max_to_keep=3)
    mgr.save()
    mgr.save()
    net, ckpt = _tf_ckpt()
    ckpt.restore(tf.train.latest_checkpoint(str(tmp_path))).assert_consumed()
    np.testing.assert_array_equal(net.b.numpy(), [9.0, 8.0, 7.0])
    assert ckpt.note.numpy() == b"now" and int(ckpt.save_counter.numpy()) == 2
    assert tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3).checkpoints == mgr.checkpoints
