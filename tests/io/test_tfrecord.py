"""TFRecord files and tf.train.Example: interchange with files TensorFlow wrote, corruption, parsing.

The reference files in ``data/`` were written by TensorFlow 2.21 (``data/make_tf_refs.py``):
``examples.tfrecord`` (+ ``.gz``/``.zlib``) hold six serialized Examples, ``raw.tfrecord`` four
raw records, and ``tf_refs.json`` what TF's own parse ops and serialize_tensor returned.
"""

import json
import os
import pathlib
import zlib

import numpy as np
import pytest

import tfcore as tf

HERE = os.path.join(os.path.dirname(__file__), "data")
REFS = json.loads(pathlib.Path(HERE, "tf_refs.json").read_text())
SERIALIZED = [bytes.fromhex(h) for h in REFS["serialized_hex"]]
SPEC = {"id": tf.io.FixedLenFeature([], tf.int64),
        "label": tf.io.FixedLenFeature([], tf.string, default_value="none"),
        "vals": tf.io.VarLenFeature(tf.float32),
        "pair": tf.io.FixedLenFeature([2], tf.int64),
        "seq": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True, default_value=-1.0)}


@pytest.mark.parametrize("suffix,comp", [("", None), ("", ""), (".gz", "GZIP"), (".zlib", "ZLIB")])
def test_reads_files_written_by_tensorflow(suffix, comp):
    ds = tf.data.TFRecordDataset(os.path.join(HERE, "examples.tfrecord" + suffix), compression_type=comp)
    assert ds.element_spec == tf.TensorSpec([], tf.string)
    assert [t.numpy() for t in ds] == SERIALIZED


def test_raw_records_empty_and_large():
    got = [t.numpy() for t in tf.data.TFRecordDataset([os.path.join(HERE, "raw.tfrecord")], buffer_size=7)]
    assert got == [bytes.fromhex(h) for h in REFS["raw_hex"]]


@pytest.mark.parametrize("comp", [None, "GZIP", "ZLIB"])
def test_writer_output_identical_records_and_bytes(tmp_path, comp):
    path = str(tmp_path / "out.tfrecord")
    with tf.io.TFRecordWriter(path, options=tf.io.TFRecordOptions(compression_type=comp)) as w:
        for s in SERIALIZED:
            w.write(s)
    if comp is None:  # uncompressed framing is deterministic: byte-identical to TF's file
        assert pathlib.Path(path).read_bytes() == pathlib.Path(os.path.join(HERE, "examples.tfrecord")).read_bytes()
    elif comp == "ZLIB":  # same stream of records inside the container as TF's
        assert zlib.decompress(pathlib.Path(path).read_bytes()) == \
            zlib.decompress(pathlib.Path(os.path.join(HERE, "examples.tfrecord.zlib")).read_bytes())
    assert [t.numpy() for t in tf.data.TFRecordDataset(path, compression_type=comp)] == SERIALIZED


def test_two_files_and_parallel_reads(tmp_path):
    paths = []
    for k in range(2):
        p = str(tmp_path / f"f{k}.tfrecord")
        with tf.io.TFRecordWriter(p, "GZIP") as w:
            for i in range(3):
                w.write(f"{k}-{i}")
        paths.append(p)
    seq = [t.numpy() for t in tf.data.TFRecordDataset(paths, "GZIP")]
    assert seq == [b"0-0", b"0-1", b"0-2", b"1-0", b"1-1", b"1-2"]
    inter = [t.numpy() for t in tf.data.TFRecordDataset(paths, "GZIP", num_parallel_reads=2)]
    assert inter == [b"0-0", b"1-0", b"0-1", b"1-1", b"0-2", b"1-2"]
    files = tf.data.Dataset.list_files(str(tmp_path / "*.tfrecord"), shuffle=False)
    assert [t.numpy() for t in tf.data.TFRecordDataset(files, "GZIP")] == seq


def _copy(tmp_path, data):
    p = tmp_path / "bad.tfrecord"
    p.write_bytes(data)
    return str(p)


@pytest.mark.parametrize("where", [4, 10, 14, 40])  # length, length crc, data, data crc regions of record 0
def test_flipped_byte_raises_data_loss_naming_the_file(tmp_path, where):
    data = bytearray(pathlib.Path(os.path.join(HERE, "examples.tfrecord")).read_bytes())
    data[where] ^= 0x10
    path = _copy(tmp_path, bytes(data))
    with pytest.raises(tf.errors.DataLossError, match=r"bad\.tfrecord.*(corrupted|truncated) record at 0"):
        list(tf.data.TFRecordDataset(path))


def test_flipped_byte_in_later_record_reports_its_offset(tmp_path):
    data = bytearray(pathlib.Path(os.path.join(HERE, "examples.tfrecord")).read_bytes())
    first = int.from_bytes(data[:8], "little") + 16
    data[first + 20] ^= 1
    path = _copy(tmp_path, bytes(data))
    it = iter(tf.data.TFRecordDataset(path))
    assert next(it).numpy() == SERIALIZED[0]
    with pytest.raises(tf.errors.DataLossError, match=f"corrupted record at {first}"):
        next(it)


@pytest.mark.parametrize("cut", [5, 30, -2])
def test_truncated_file_raises_data_loss(tmp_path, cut):
    data = pathlib.Path(os.path.join(HERE, "examples.tfrecord")).read_bytes()
    path = _copy(tmp_path, data[:cut])
    with pytest.raises(tf.errors.DataLossError, match=r"bad\.tfrecord.*truncated record"):
        list(tf.data.TFRecordDataset(path))


@pytest.mark.parametrize("suffix,comp", [(".gz", "GZIP"), (".zlib", "ZLIB")])
def test_truncated_or_damaged_compressed_file(tmp_path, suffix, comp):
    data = pathlib.Path(os.path.join(HERE, "examples.tfrecord" + suffix)).read_bytes()
    path = _copy(tmp_path, data[:len(data) // 2])
    with pytest.raises(tf.errors.DataLossError, match=r"bad\.tfrecord"):
        list(tf.data.TFRecordDataset(path, comp))
    bad = bytearray(data)
    bad[len(bad) // 2] ^= 0xFF
    path = _copy(tmp_path, bytes(bad))
    with pytest.raises(tf.errors.DataLossError, match=r"bad\.tfrecord"):
        list(tf.data.TFRecordDataset(path, comp))


def test_reader_and_writer_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="compression_type"):
        tf.data.TFRecordDataset("x", compression_type="LZ4")
    with pytest.raises(ValueError, match="options"):
        tf.io.TFRecordWriter(str(tmp_path / "x"), options="BZ2")
    with pytest.raises(tf.errors.NotFoundError, match="missing.tfrecord"):
        list(tf.data.TFRecordDataset(str(tmp_path / "missing.tfrecord")))
    w = tf.io.TFRecordWriter(str(tmp_path / "x"))
    w.close()
    with pytest.raises(tf.errors.FailedPreconditionError):
        w.write(b"a")
    assert tf.io.TFRecordOptions.get_compression_type_string("GZIP") == "GZIP"
    assert tf.io.TFRecordOptions.get_compression_type_string(tf.io.TFRecordOptions("ZLIB")) == "ZLIB"


def test_example_messages_wire_compatible():
    ex = tf.train.Example.FromString(SERIALIZED[2])
    f = ex.features.feature
    assert list(f["id"].int64_list.value) == [2]
    assert list(f["vals"].float_list.value) == [2.0, 2.5]
    assert list(f["label"].bytes_list.value) == [b"name-2"]
    built = tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[2])),
        "vals": tf.train.Feature(float_list=tf.train.FloatList(value=[2.0, 2.5])),
        "pair": tf.train.Feature(int64_list=tf.train.Int64List(value=[2, -2000000000000])),
        "seq": tf.train.Feature(float_list=tf.train.FloatList(value=[0, 1, 2, 3])),
        "label": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"name-2"]))}))
    assert built == ex
    assert tf.train.Example.FromString(built.SerializeToString()) == ex
    seq = tf.train.SequenceExample.FromString(bytes.fromhex(REFS["sequence_example_hex"]))
    assert [list(x.int64_list.value) for x in seq.feature_lists.feature_list["toks"].feature] == [[1, 2], [3]]
    assert seq.SerializeToString().hex() == REFS["sequence_example_hex"]


def test_parse_example_matches_tensorflow():
    ref = REFS["parse_example"]
    out = tf.io.parse_example(tf.constant(SERIALIZED), SPEC)
    assert sorted(out) == sorted(SPEC)
    assert out["id"].dtype == tf.int64 and out["id"].numpy().tolist() == ref["id"]
    assert [x.decode() for x in out["label"].numpy()] == ref["label"]
    assert out["pair"].shape == (6, 2) and out["pair"].numpy().tolist() == ref["pair"]
    assert out["seq"].numpy().tolist() == ref["seq"]
    vals = out["vals"]
    assert isinstance(vals, tf.sparse.SparseTensor)
    assert vals.indices.numpy().tolist() == ref["vals_indices"]
    assert vals.values.numpy().tolist() == ref["vals_values"]
    assert vals.dense_shape.numpy().tolist() == ref["vals_dense_shape"]
    one = tf.io.parse_single_example(SERIALIZED[2], SPEC)
    assert one["vals"].indices.numpy().tolist() == REFS["parse_single_example_2"]["vals_indices"]
    assert one["seq"].numpy().tolist() == REFS["parse_single_example_2"]["seq"]
    assert one["id"].shape == () and one["pair"].shape == (2,)


def test_parse_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature: label .* is required"):
        tf.io.parse_single_example(SERIALIZED[3], {"label": tf.io.FixedLenFeature([], tf.string)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: pair.*Values size: 2 but output shape: \\[3\\]"):
        tf.io.parse_single_example(SERIALIZED[1], {"pair": tf.io.FixedLenFeature([3], tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Data types don't match. Data type: int64 but expected "
                                                            "type: float"):
        tf.io.parse_single_example(SERIALIZED[1], {"pair": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example input"):
        tf.io.parse_example(tf.constant([b"\xff\xff\xff"]), {"a": tf.io.VarLenFeature(tf.int64)})
    with pytest.raises(ValueError, match="allow_missing"):
        tf.io.parse_example(tf.constant(SERIALIZED), {"seq": tf.io.FixedLenSequenceFeature([2], tf.float32)})
    with pytest.raises(ValueError, match="unsupported dtype int32"):
        tf.io.parse_example(tf.constant(SERIALIZED), {"id": tf.io.FixedLenFeature([], tf.int32)})
    with pytest.raises(ValueError, match="scalar"):
        tf.io.parse_single_example(tf.constant(SERIALIZED), SPEC)


def test_fixed_len_default_with_shape():
    out = tf.io.parse_example(tf.constant(SERIALIZED[2:4]),
                              {"label": tf.io.FixedLenFeature([1], tf.string, default_value=["?"]),
                               "missing": tf.io.FixedLenFeature([2, 2], tf.float32, default_value=1.5)})
    assert out["label"].numpy().tolist() == [[b"name-2"], [b"?"]]
    np.testing.assert_array_equal(out["missing"].numpy(), np.full((2, 2, 2), 1.5, np.float32))


def test_dataset_pipeline_with_sparse_features():
    ds = tf.data.TFRecordDataset(os.path.join(HERE, "examples.tfrecord.gz"), "GZIP")
    single = ds.map(lambda x: tf.io.parse_single_example(x, {"vals": tf.io.VarLenFeature(tf.float32)}))
    batched = list(single.batch(3))
    assert isinstance(batched[0]["vals"], tf.sparse.SparseTensor)
    ref = REFS["parse_example"]
    assert batched[0]["vals"].indices.numpy().tolist() == ref["vals_indices"][:3]
    assert batched[1]["vals"].dense_shape.numpy().tolist() == [3, 5]
    parsed = list(ds.batch(4).map(lambda x: tf.io.parse_example(x, SPEC)))
    assert parsed[0]["pair"].numpy().tolist() == ref["pair"][:4]
    assert parsed[1]["id"].numpy().tolist() == [4, 5]


_DTYPES = {"f32": tf.float32, "i64": tf.int64, "i32s": tf.int32, "str": tf.string, "bool": tf.bool,
           "f64e": tf.float64, "u8": tf.uint8, "f16": tf.float16}
_VALUES = {"f32": [[1.5, -2.0, 3.25], [0.0, 1e-3, 7.0]], "i64": [1, -2, 3], "i32s": 7,
           "str": [b"ab", b"", b"\xff\x00z"], "bool": [True, False], "f64e": np.zeros((0, 3)),
           "u8": [[1, 2], [3, 255]], "f16": [1.0, -0.5]}


@pytest.mark.parametrize("key", sorted(_DTYPES))
def test_serialize_tensor_bytes_match_tensorflow(key):
    t = tf.constant(_VALUES[key], dtype=_DTYPES[key])
    assert tf.io.serialize_tensor(t).numpy().hex() == REFS["serialize_tensor"][key]
    back = tf.io.parse_tensor(bytes.fromhex(REFS["serialize_tensor"][key]), _DTYPES[key])
    assert back.dtype == _DTYPES[key] and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_parse_tensor_errors_and_value_fields():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch between parsed tensor \\(float\\) and "
                                                            "dtype \\(int32\\)"):
        tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1.0])), tf.int32)
    tp = tf.io.serialize_tensor(tf.constant(0.0)).numpy()  # a TensorProto using float_val: [2, 2] from one value
    from tfcore.io import protos
    msg = protos.message_class("TensorProto")(dtype=1)
    msg.tensor_shape.dim.add(size=2)
    msg.tensor_shape.dim.add(size=2)
    msg.float_val.extend([1.0, 2.0])
    out = tf.io.parse_tensor(msg.SerializeToString(), tf.float32)
    assert out.numpy().tolist() == [[1.0, 2.0], [2.0, 2.0]]  # TF repeats the last value
    assert tp


def test_tensorflow_reads_our_files(tmp_path):
    """Runs only where TensorFlow is installed (the other direction is covered by TF's files above)."""
    tf_real = pytest.importorskip("tensorflow")
    for comp in (None, "GZIP", "ZLIB"):
        path = str(tmp_path / f"ours{comp}.tfrecord")
        with tf.io.TFRecordWriter(path, comp) as w:
            for s in SERIALIZED:
                w.write(s)
            w.write(tf.io.serialize_tensor(tf.constant([[1.0, 2.0]])).numpy())
        got = [r.numpy() for r in tf_real.data.TFRecordDataset(path, compression_type=comp or "")]
        assert got[:-1] == SERIALIZED
        np.testing.assert_array_equal(tf_real.io.parse_tensor(got[-1], tf_real.float32).numpy(), [[1.0, 2.0]])
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, 2.5]))}))
    spec = {"x": tf_real.io.FixedLenFeature([2], tf_real.float32)}
    parsed = tf_real.io.parse_single_example(ex.SerializeToString(), spec)
    assert parsed["x"].numpy().tolist() == [1.5, 2.5]


def test_parse_single_sequence_example_matches_tensorflow():
    ref = json.loads(pathlib.Path(HERE, "tf_sequence_ref.json").read_text())
    ctx, lists = tf.io.parse_single_sequence_example(
        bytes.fromhex(ref["hex"]),
        context_features={"ctx": tf.io.FixedLenFeature([], tf.int64), "name": tf.io.VarLenFeature(tf.string),
                          "missing": tf.io.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])},
        sequence_features={"toks": tf.io.VarLenFeature(tf.int64),
                           "vec": tf.io.FixedLenSequenceFeature([2], tf.float32),
                           "absent": tf.io.FixedLenSequenceFeature([3], tf.int64, allow_missing=True),
                           "absent_var": tf.io.VarLenFeature(tf.float32)})
    assert int(ctx["ctx"]) == ref["ctx"] and ctx["missing"].numpy().tolist() == ref["missing"]
    assert [x.decode() for x in ctx["name"].values.numpy()] == ref["name_values"]
    assert ctx["name"].indices.numpy().tolist() == ref["name_indices"]
    assert lists["toks"].indices.numpy().tolist() == ref["toks_indices"]
    assert lists["toks"].values.numpy().tolist() == ref["toks_values"]
    assert lists["toks"].dense_shape.numpy().tolist() == ref["toks_shape"]
    assert lists["vec"].numpy().tolist() == ref["vec"]
    assert lists["absent"].shape.as_list() == ref["absent_shape"]
    assert lists["absent_var"].dense_shape.numpy().tolist() == ref["absent_var_shape"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature list 'nope' is required"):
        tf.io.parse_single_sequence_example(bytes.fromhex(ref["hex"]),
                                            sequence_features={"nope": tf.io.FixedLenSequenceFeature([], tf.int64)})
