"""Damaged files: truncation, flipped bytes and lying size fields are ``DataLossError`` (or TF's ``OSError`` for
``saved_model.pb``) naming the file, raised before any memory is taken from a size read in the file, and never
a silently shorter result.
"""

import os
import struct

import numpy as np
import pytest

import tfcore as tf

D = tf.data.Dataset


def _cached(prefix):
    return [int(x) for x in D.range(6).map(lambda x: x * 3).cache(prefix).as_numpy_iterator()]


@pytest.mark.parametrize("damage", ["truncate", "flip", "append", "index"])
def test_damaged_cache_file_is_data_loss_never_fewer_elements(tmp_path, damage):
    prefix = str(tmp_path / "cache")
    assert _cached(prefix) == [0, 3, 6, 9, 12, 15]
    target = prefix + (".index" if damage == "index" else ".data-00000-of-00001")
    with open(target, "rb") as f:
        raw = bytearray(f.read())
    if damage == "truncate":
        raw = raw[:-10]
    elif damage == "flip":
        raw[len(raw) // 2] ^= 0x40
    elif damage == "append":
        raw += b"\x00" * 7
    else:
        raw[-2] ^= 0x01
    with open(target, "wb") as f:
        f.write(raw)
    with pytest.raises(tf.errors.DataLossError, match="cache"):
        _cached(prefix)
    with open(target, "rb") as f:
        assert f.read() == bytes(raw)  # the reader changed nothing


def test_cache_round_trips_every_dtype_and_structure(tmp_path):
    prefix = str(tmp_path / "mixed")
    ds = D.from_tensor_slices({"s": ["a", "", "ccc"], "f": np.arange(6, dtype=np.float16).reshape(3, 2),
                               "b": [True, False, True], "c": np.array([1 + 2j, 3j, 4], np.complex64)})
    first = list(ds.cache(prefix).as_numpy_iterator())
    second = list(ds.map(lambda d: d).cache(prefix).as_numpy_iterator())  # read from the files
    assert len(first) == len(second) == 3
    for a, b in zip(first, second):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
            assert np.asarray(a[k]).dtype == np.asarray(b[k]).dtype


def test_tfrecord_length_field_of_2_to_the_62_is_refused_before_allocating(tmp_path):
    from tfcore.io.tf_record import masked_crc32c

    path = str(tmp_path / "huge.tfrecord")
    head = struct.pack("<Q", 1 << 62)
    with open(path, "wb") as f:  # a valid length checksum: only the size check can catch it
        f.write(head + struct.pack("<I", masked_crc32c(head)) + b"x" * 100)
    with pytest.raises(tf.errors.DataLossError, match=r"huge\.tfrecord.*truncated record at 0"):
        list(tf.data.TFRecordDataset(path))


def _h5_with_huge_dataset(tmp_path):
    h5py = pytest.importorskip("h5py")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    path = str(tmp_path / "w.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        names = []
        f.visit(lambda n: names.append(n) if n.endswith("vars/0") else None)
        parent, _, leaf = names[0].rpartition("/")
        del f[names[0]]
        f[parent].create_dataset(leaf, shape=(1 << 40,), dtype="float32", chunks=(1 << 16,))  # 4 TiB, nothing stored
    return model, path


def test_h5_weight_shape_of_4_tib_is_refused_before_allocating(tmp_path):
    model, path = _h5_with_huge_dataset(tmp_path)
    before = [w.numpy() for w in model.weights]
    with pytest.raises(tf.errors.DataLossError, match=r"w\.weights\.h5.*4398046511104 bytes"):
        model.load_weights(path)
    for w, b in zip(model.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)


def test_keras_file_weight_shape_of_4_tib_is_refused_naming_the_file(tmp_path):
    import zipfile

    model, h5 = _h5_with_huge_dataset(tmp_path)
    good = str(tmp_path / "m.keras")
    model.save(good)
    bad = str(tmp_path / "bad.keras")
    with zipfile.ZipFile(good) as z, zipfile.ZipFile(bad, "w") as out:
        for n in z.namelist():
            if n == "model.weights.h5":
                out.write(h5, n)
            else:
                out.writestr(n, z.read(n))
    with pytest.raises(tf.errors.DataLossError, match=r"bad\.keras.*declares shape \(1099511627776,\)"):
        tf.keras.models.load_model(bad)


def _rewrite_bundle_entry(prefix, key, edit):
    """Rewrite one BundleEntryProto of a checkpoint index (the index checksums are recomputed: a crafted file)."""
    from tfcore.saving import _protos, table

    with open(prefix + ".index", "rb") as f:
        items = list(table.read_table(f.read(), prefix + ".index"))
    Entry = _protos.message_class("BundleEntryProto")
    out = []
    for k, v in items:
        if k == key.encode():
            e = Entry.FromString(v)
            edit(e)
            v = e.SerializeToString()
        out.append((k, v))
    with open(prefix + ".index", "wb") as f:
        f.write(table.build_table(out))


@pytest.mark.parametrize("dtype", [np.float32, "string"])
def test_checkpoint_tensor_shape_larger_than_its_bytes_is_data_loss(tmp_path, dtype):
    value = np.array(["ab", "c"], object) if dtype == "string" else np.ones(2, dtype)
    v = tf.Variable(value)
    prefix = tf.train.Checkpoint(v=v).write(str(tmp_path / "ckpt"))
    key = "v/.ATTRIBUTES/VARIABLE_VALUE"

    def huge(e):
        del e.shape.dim[:]
        e.shape.dim.add(size=1 << 40)
    _rewrite_bundle_entry(prefix, key, huge)
    with pytest.raises(tf.errors.DataLossError, match=r"ckpt"):
        tf.train.load_checkpoint(prefix).get_tensor(key)
    target = tf.Variable(np.zeros_like(value) if dtype != "string" else np.array(["", ""], object))
    before = target.numpy().copy()
    with pytest.raises(tf.errors.DataLossError, match=r"ckpt"):
        tf.train.Checkpoint(v=target).read(prefix)
    np.testing.assert_array_equal(target.numpy(), before)  # the failed restore changed nothing


def test_saved_model_constant_that_would_expand_to_terabytes_is_refused():
    from tfcore.saving import function_serialization
    from tfcore.saving.saved_model_protos import pb

    p = pb("tensor_pb2").TensorProto(dtype=tf.float32.as_datatype_enum, float_val=[1.0])
    p.tensor_shape.dim.add(size=1 << 40)
    with pytest.raises(tf.errors.DataLossError, match=r"\[1099511627776\] float32 would expand"):
        function_serialization.tensor_from_proto(p)
    p = pb("tensor_pb2").TensorProto(dtype=tf.float32.as_datatype_enum, tensor_content=b"\0" * 8)
    p.tensor_shape.dim.add(size=1 << 40)
    with pytest.raises(tf.errors.DataLossError, match="tensor_content has 8"):
        function_serialization.tensor_from_proto(p)


def _saved_model(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(3.0)
    m.f = tf.function(lambda x: x * m.v, input_signature=[tf.TensorSpec([], tf.float32)])
    export = str(tmp_path / "sm")
    tf.saved_model.save(m, export)
    return export


def test_missing_saved_model_pb_is_tfs_oserror(tmp_path):
    export = _saved_model(tmp_path)
    os.remove(os.path.join(export, "saved_model.pb"))
    with pytest.raises(OSError, match=r"SavedModel file does not exist at: .*sm/\{saved_model.pbtxt\|saved_model.pb\}"):
        tf.saved_model.load(export)


def test_corrupt_saved_model_pb_is_tfs_oserror(tmp_path):
    export = _saved_model(tmp_path)
    pb_path = os.path.join(export, "saved_model.pb")
    with open(pb_path, "rb") as f:
        raw = f.read()
    with open(pb_path, "wb") as f:
        f.write(raw[:len(raw) // 3])
    with pytest.raises(OSError, match=r"Cannot parse file .*sm/saved_model.pb"):
        tf.saved_model.load(export)
