"""tf.io codecs: web-safe base64, decode_compressed, decode_csv, JPEG headers, BMP/GIF, sparse serialization."""

import base64
import gzip
import io
import zlib

import numpy as np
import pytest

import tfcore as tf


def test_base64_is_web_safe_and_unpadded():
    out = tf.io.encode_base64(["hello world?>", b"\xff\xfe"])
    assert out.numpy().tolist() == [b"aGVsbG8gd29ybGQ_Pg", b"__4"]
    assert tf.io.encode_base64("hi", pad=True).numpy() == b"aGk="
    back = tf.io.decode_base64(out)
    assert back.numpy().tolist() == [b"hello world?>", b"\xff\xfe"]
    assert tf.io.decode_base64("aGk=").numpy() == b"hi" and tf.io.decode_base64("aGk").numpy() == b"hi"
    data = bytes(range(256))
    assert tf.io.decode_base64(base64.urlsafe_b64encode(data)).numpy() == data
    with pytest.raises(tf.errors.InvalidArgumentError, match="base64"):
        tf.io.decode_base64("a+b/")  # the standard alphabet is not web-safe


def test_decode_compressed():
    out = tf.io.decode_compressed([zlib.compress(b"abc"), zlib.compress(b"")], compression_type="ZLIB")
    assert out.numpy().tolist() == [b"abc", b""]
    assert tf.io.decode_compressed(gzip.compress(b"xyz"), "GZIP").numpy() == b"xyz"
    assert tf.io.decode_compressed(b"raw").numpy() == b"raw"
    with pytest.raises(tf.errors.InvalidArgumentError, match="ZLIB"):
        tf.io.decode_compressed(b"not zlib", "ZLIB")


def test_decode_csv_types_defaults_quotes():
    a, b, c = tf.io.decode_csv(['1,2.5,"a,b"', ',,c', '7,-1e3,""""'], [[0], [1.0], ["z"]])
    assert a.dtype == tf.int32 and a.numpy().tolist() == [1, 0, 7]
    assert b.dtype == tf.float32 and b.numpy().tolist() == [2.5, 1.0, -1000.0]
    assert c.numpy().tolist() == [b"a,b", b"c", b'"']
    x, y = tf.io.decode_csv(tf.constant([["1|NA"], ["NA|x"]]), [tf.constant([5], tf.int64), ["d"]],
                            field_delim="|", na_value="NA")
    assert x.shape == [2, 1] and x.numpy().tolist() == [[1], [5]] and y.numpy().tolist() == [[b"d"], [b"x"]]
    (sel,) = tf.io.decode_csv(["1,2,3"], [[0.0]], select_cols=[2])
    assert sel.numpy().tolist() == [3.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 3"):
        tf.io.decode_csv(["1,2,3"], [[0], [0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="required but missing"):
        tf.io.decode_csv([",1"], [tf.constant([], tf.int32), [0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int32"):
        tf.io.decode_csv(["x"], [[0]])


def test_jpeg_header_ops():
    img = tf.io.encode_jpeg(tf.zeros([5, 7, 3], tf.uint8))
    assert bool(tf.io.is_jpeg(img).numpy()) and not bool(tf.io.is_jpeg(b"\x89PNG....").numpy())
    shape = tf.io.extract_jpeg_shape(img)
    assert shape.dtype == tf.int32 and shape.numpy().tolist() == [5, 7, 3]
    gray = tf.io.encode_jpeg(tf.zeros([4, 2, 1], tf.uint8))
    assert tf.io.extract_jpeg_shape(gray, output_type=tf.int64).numpy().tolist() == [4, 2, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="ExtractJpegShape"):
        tf.io.extract_jpeg_shape(b"not a jpeg")


def test_decode_bmp_and_gif():
    image_mod = pytest.importorskip("PIL.Image")
    rgb = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    buf = io.BytesIO()
    image_mod.fromarray(rgb).save(buf, format="BMP")
    np.testing.assert_array_equal(tf.io.decode_bmp(buf.getvalue()).numpy(), rgb)
    assert tf.io.decode_bmp(buf.getvalue(), channels=4).shape == [4, 5, 4]
    frames = [image_mod.fromarray(np.full((3, 2, 3), v, np.uint8)) for v in (0, 255)]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:])
    gif = tf.io.decode_gif(buf.getvalue())
    assert gif.shape == [2, 3, 2, 3] and gif.dtype == tf.uint8
    assert gif.numpy()[0].max() == 0 and gif.numpy()[1].min() == 255
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodeGif"):
        tf.io.decode_gif(buf.getvalue()[:0] + b"BM")


def test_sparse_serialization_round_trip():
    pytest.importorskip("google.protobuf")
    sp = tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 2]], [1.0, 2.0, 3.0], [3, 4])
    one = tf.io.serialize_sparse(sp)
    assert one.shape == [3] and one.dtype == tf.string
    assert tf.io.parse_tensor(one[0], tf.int64).numpy().tolist() == [[0, 1], [2, 0], [2, 2]]
    assert tf.io.parse_tensor(one[2], tf.int64).numpy().tolist() == [3, 4]
    many = tf.io.serialize_many_sparse(sp)
    assert many.shape == [3, 3]
    assert tf.io.parse_tensor(many[2, 0], tf.int64).numpy().tolist() == [[0], [2]]
    back = tf.io.deserialize_many_sparse(many, tf.float32)
    assert back.indices.numpy().tolist() == [[0, 1], [2, 0], [2, 2]]
    assert back.values.numpy().tolist() == [1.0, 2.0, 3.0] and back.dense_shape.numpy().tolist() == [3, 4]
    strs = tf.sparse.SparseTensor([[0], [3]], ["a", "b"], [5])
    both = tf.stack([tf.io.serialize_sparse(strs), tf.io.serialize_sparse(tf.sparse.SparseTensor([[1]], ["c"], [2]))])
    merged = tf.io.deserialize_many_sparse(both, tf.string, rank=2)
    assert merged.indices.numpy().tolist() == [[0, 0], [0, 3], [1, 1]] and merged.dense_shape.numpy().tolist() == [2, 5]
    with pytest.raises(tf.errors.InvalidArgumentError, match="type"):
        tf.io.deserialize_many_sparse(many, tf.int32)


def test_match_filenames_once(tmp_path):
    for n in ("a.txt", "b.txt", "c.csv"):
        (tmp_path / n).write_text("x")
    v = tf.io.match_filenames_once(str(tmp_path / "*.txt"))
    assert isinstance(v, tf.Variable) and not v.trainable
    assert [p.decode().rsplit("/", 1)[1] for p in v.numpy()] == ["a.txt", "b.txt"]
