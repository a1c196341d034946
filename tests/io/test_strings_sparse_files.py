"""tf.strings, tf.sparse, tf.io file/image ops: TF's values (from ``data/tf_refs.json``) and errors."""

import json
import pathlib

import numpy as np
import pytest

import tfcore as tf

DATA = pathlib.Path(__file__).with_name("data")
S = json.loads((DATA / "tf_refs.json").read_text())["strings"]


def _dec(t):
    return [x.decode() for x in t.numpy()]


def test_as_string_matches_tensorflow():
    s = tf.strings
    assert _dec(s.as_string(tf.constant([1.5, -0.1, 1e10, 3.0], tf.float32))) == S["as_string_f"]
    assert _dec(s.as_string(tf.constant([1.23456, 2.0]), precision=2)) == S["as_string_prec"]
    assert _dec(s.as_string(tf.constant([12, -3]), width=5, fill="0")) == S["as_string_i"]
    assert _dec(s.as_string(tf.constant([1234.5]), scientific=True)) == S["as_string_sci"]
    assert _dec(s.as_string(tf.constant([True, False]))) == ["true", "false"]
    assert _dec(s.as_string(tf.constant([0.5]), shortest=True)) == ["0.5"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="both scientific and shortest"):
        s.as_string(tf.constant([1.0]), scientific=True, shortest=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="precision"):
        s.as_string(tf.constant([1]), precision=2)


def test_to_number_and_errors():
    assert tf.strings.to_number(tf.constant(["1.5", " 2", "-3e2", "inf"])).numpy().tolist() == S["to_number"]
    out = tf.strings.to_number(["7", "-12"], out_type=tf.int64)
    assert out.dtype == tf.int64 and out.numpy().tolist() == [7, -12]
    with pytest.raises(tf.errors.InvalidArgumentError, match="StringToNumberOp could not correctly convert string: "
                                                            "1.5"):
        tf.strings.to_number(["1.5"], out_type=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="abc"):
        tf.strings.to_number("abc")
    with pytest.raises(tf.errors.InvalidArgumentError, match="3000000000"):
        tf.strings.to_number("3000000000", out_type=tf.int32)


def test_split_join_length_regex_case_match_tensorflow():
    s = tf.strings
    assert [[x.decode() for x in r] for r in s.split(tf.constant(["a b  c", " d", ""])).to_list()] == S["split"]
    assert [[x.decode() for x in r] for r in s.split(tf.constant(["a,,b", "c"]), sep=",").to_list()] == S["split_sep"]
    got = s.split(tf.constant(["a,b,c,d"]), sep=",", maxsplit=2)
    assert isinstance(got, tf.RaggedTensor) and [[x.decode() for x in r] for r in got.to_list()] == S["split_max"]
    assert s.split("x  y").numpy().tolist() == [b"x", b"y"]  # a scalar splits into a vector
    assert got.to_tensor().shape == (1, 3) and got.row_lengths().numpy().tolist() == [3]
    assert _dec(s.regex_replace(tf.constant(["aab", "xyz ab"]), "a+", "<\\0>")) == S["regex_replace"]
    assert _dec(s.regex_replace(tf.constant(["aaba"]), "a", "-", replace_global=False)) == S["regex_first"]
    assert _dec(s.regex_replace(["2024-01-05"], r"(\d+)-(\d+)-(\d+)", r"\3/\2/\1")) == ["05/01/2024"]
    assert s.regex_full_match(["abc", "abd"], "ab[c]").numpy().tolist() == [True, False]
    assert s.length(tf.constant(["héllo", ""])).numpy().tolist() == S["length_byte"]
    assert s.length(tf.constant(["héllo", ""]), unit="UTF8_CHAR").numpy().tolist() == S["length_char"]
    assert s.length("abc").dtype == tf.int32
    assert s.unicode_decode(tf.constant(["héllo", "€"]), "UTF-8").to_list() == S["unicode_decode"]
    assert s.unicode_decode(b"a\xffb", "UTF-8", replacement_char=63).numpy().tolist() == [97, 63, 98]
    with pytest.raises(tf.errors.InvalidArgumentError, match="invalid utf-8"):
        s.unicode_decode(b"a\xff", "UTF-8", errors="strict")
    assert _dec(s.join([tf.constant(["a", "b"]), tf.constant(["c", "d"])], separator="-")) == S["join"]
    assert _dec(s.join([tf.constant(["a", "b"]), "!"])) == ["a!", "b!"]
    assert _dec(s.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1, separator=",")) == S["reduce_join"]
    assert s.reduce_join(tf.constant([["a", "b"], ["c", "d"]])).numpy() == b"abcd"
    assert s.lower("ABC É").numpy() == "abc É".encode()  # ASCII only by default, as TF
    assert s.upper("abc é", encoding="utf-8").numpy() == "ABC É".encode()
    assert s.strip(["  x y\t\n"]).numpy().tolist() == [b"x y"]
    assert s.substr(["hello"], 1, 3).numpy().tolist() == [b"ell"]
    assert s.substr("héllo", 1, 2, unit="UTF8_CHAR").numpy() == "él".encode()
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected string tensors|expected a string tensor"):
        s.length(tf.constant([1, 2]))


def test_string_ops_on_a_gpu_scope_run_on_the_host():
    with tf.device("/GPU:0"):
        out = tf.strings.upper(["a"])
    assert out.numpy().tolist() == [b"A"] and "CPU" in out.device


def test_sparse_basics_against_dense_float64():
    idx = [[0, 1], [1, 0], [2, 3]]
    vals = np.array([1.5, -2.0, 3.0])
    sp = tf.sparse.SparseTensor(idx, vals, [3, 4])
    dense = np.zeros((3, 4))
    dense[tuple(np.array(idx).T)] = vals
    np.testing.assert_array_equal(tf.sparse.to_dense(sp).numpy(), dense)
    np.testing.assert_array_equal(tf.sparse.to_dense(sp, default_value=7.0).numpy(),
                                  np.where(dense == 0, 7.0, dense))
    b = np.random.default_rng(0).standard_normal((4, 2))
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(sp, b).numpy(), dense @ b)
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(sp, b.T, adjoint_b=True).numpy(), dense @ b)
    c = np.random.default_rng(1).standard_normal((3, 5))
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(sp, c, adjoint_a=True).numpy(), dense.T @ c)
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(c.T, sp).numpy(), c.T @ dense)
    np.testing.assert_allclose(tf.sparse.reduce_sum(sp, axis=0).numpy(), dense.sum(0))
    np.testing.assert_allclose(tf.sparse.reduce_sum(sp, axis=1, keepdims=True).numpy(), dense.sum(1, keepdims=True))
    assert tf.sparse.reduce_sum(sp).numpy() == pytest.approx(2.5)
    back = tf.sparse.from_dense(dense)
    assert back.indices.numpy().tolist() == idx and back.values.numpy().tolist() == vals.tolist()
    assert back.dense_shape.numpy().tolist() == [3, 4] and sp.shape == (3, 4) and sp.dtype == tf.float64
    words = tf.sparse.from_dense(tf.constant([["a", ""], ["", "b"]]))
    assert words.values.numpy().tolist() == [b"a", b"b"]


def test_sparse_errors_and_reorder():
    unsorted = tf.sparse.SparseTensor([[2, 0], [0, 1]], [1.0, 2.0], [3, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of order"):
        tf.sparse.to_dense(unsorted)
    assert tf.sparse.to_dense(tf.sparse.reorder(unsorted)).numpy().tolist() == [[0, 2], [0, 0], [1, 0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        tf.sparse.to_dense(tf.sparse.SparseTensor([[5, 0]], [1.0], [3, 2]))
    with pytest.raises(ValueError, match="indices must have shape"):
        tf.sparse.SparseTensor([[0, 0, 0]], [1.0], [3, 2])
    with pytest.raises(TypeError, match="sp_input must be a SparseTensor"):
        tf.sparse.to_dense(tf.constant([1.0]))
    a = tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])
    assert tf.sparse.to_dense(tf.sparse.add(a, a)).numpy().tolist() == [[2, 0], [0, 0]]
    assert tf.sparse.add(a, tf.ones([2, 2])).numpy().tolist() == [[2, 1], [1, 1]]


def test_sparse_gradients_reach_values():
    vals = tf.Variable([1.0, 2.0])
    b = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        sp = tf.sparse.SparseTensor([[0, 1], [1, 0]], vals, [2, 2])
        loss = tf.reduce_sum(tf.sparse.sparse_dense_matmul(sp, b)) + tf.sparse.reduce_sum(sp)
    # d/dv0 (v0 * row 1 of b) = 3 + 4, d/dv1 (v1 * row 0 of b) = 1 + 2; plus 1 each from reduce_sum
    assert tape.gradient(loss, vals).numpy().tolist() == [8.0, 4.0]


def test_read_write_file_and_gfile(tmp_path):
    path = tmp_path / "sub" / "f.bin"
    tf.io.write_file(str(path), b"\x00\x01abc")
    assert tf.io.read_file(str(path)).numpy() == b"\x00\x01abc"
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        tf.io.read_file(str(tmp_path / "nope"))
    g = tf.io.gfile
    assert g.exists(str(path)) and g.isdir(str(tmp_path / "sub"))
    g.makedirs(str(tmp_path / "a" / "b"))
    with g.GFile(str(tmp_path / "a" / "t.txt"), "w") as f:
        f.write("line1\nline2\n")
    with g.GFile(str(tmp_path / "a" / "t.txt")) as f:
        assert f.readlines() == ["line1\n", "line2\n"]
    assert g.glob(str(tmp_path / "a" / "*.txt")) == [str(tmp_path / "a" / "t.txt")]
    assert g.listdir(str(tmp_path / "a")) == ["b", "t.txt"]
    matched = tf.io.matching_files(str(tmp_path / "a" / "*.txt")).numpy().tolist()
    assert matched == [str(tmp_path / "a" / "t.txt").encode()]
    g.copy(str(tmp_path / "a" / "t.txt"), str(tmp_path / "c.txt"))
    with pytest.raises(tf.errors.AlreadyExistsError):
        g.copy(str(tmp_path / "a" / "t.txt"), str(tmp_path / "c.txt"))
    g.remove(str(tmp_path / "c.txt"))
    with pytest.raises(tf.errors.NotFoundError):
        g.remove(str(tmp_path / "c.txt"))
    with pytest.raises(tf.errors.NotFoundError):
        g.GFile(str(tmp_path / "missing"), "rb")
    g.rmtree(str(tmp_path / "a"))
    assert not g.exists(str(tmp_path / "a"))


def test_decode_raw():
    out = tf.io.decode_raw(tf.constant([b"\x01\x00\x02\x00", b"\xff\xff\x00\x01"]), tf.int16)
    assert out.numpy().tolist() == [[1, 2], [-1, 256]]
    assert tf.io.decode_raw(b"\x00\x01", tf.uint16, little_endian=False).numpy().tolist() == [1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="multiple of 4"):
        tf.io.decode_raw(b"abc", tf.float32)


def test_images_png_jpeg_against_tensorflow():
    ref = np.load(DATA / "image_refs.npz")
    png = tf.io.encode_png(ref["rgb"])
    assert png.dtype == tf.string and png.numpy()[:8] == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(tf.io.decode_png(png).numpy(), ref["rgb"])
    np.testing.assert_array_equal(tf.io.decode_image(png, channels=4).numpy()[..., 3], 255)
    gray = tf.io.decode_png(png, channels=1).numpy()
    assert gray.shape == (5, 7, 1)
    png16 = tf.io.read_file(str(DATA / "small16.png"))  # written by TF's encode_png
    np.testing.assert_array_equal(tf.io.decode_png(png16, dtype=tf.uint16).numpy(), ref["png16"])
    np.testing.assert_array_equal(tf.io.decode_png(tf.io.encode_png(ref["png16"]), dtype=tf.uint16).numpy(),
                                  ref["png16"])
    jpg = tf.io.read_file(str(DATA / "small.jpg"))  # written by TF's encode_jpeg
    # TF decodes with libjpeg's fast integer DCT, Pillow with the accurate one: a few levels apart
    rgb = tf.io.decode_jpeg(jpg).numpy().astype(int)
    assert rgb.shape == (5, 7, 3) and np.abs(rgb - ref["jpeg_decoded"]).max() <= 6
    assert np.abs(rgb - ref["jpeg_decoded"]).mean() < 2
    g = tf.io.decode_jpeg(jpg, channels=1).numpy().astype(int)
    assert g.shape == (5, 7, 1) and np.abs(g - ref["jpeg_gray"]).max() <= 4
    f = tf.io.decode_image(jpg, dtype=tf.float32)
    assert f.dtype == tf.float32 and float(tf.reduce_min(f)) >= 0.0 and float(tf.reduce_max(f)) <= 1.0
    smooth = np.broadcast_to(np.linspace(0, 250, 16).astype(np.uint8)[None, :, None], (8, 16, 3))
    roundtrip = tf.io.decode_jpeg(tf.io.encode_jpeg(smooth, quality=100)).numpy().astype(int)
    assert np.abs(roundtrip - smooth).max() <= 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a PNG"):
        tf.io.decode_png(jpg)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
        tf.io.decode_image(b"hello")
    with pytest.raises(tf.errors.InvalidArgumentError, match="EncodePng"):
        tf.io.encode_png(np.zeros((2, 2), np.uint8))


def test_missing_optional_packages_name_their_extra(monkeypatch, tmp_path):
    import sys

    from tfcore.io import protos, tf_record

    for mod in ("tensorboard.compat.proto.event_pb2", "google.protobuf", "PIL.Image", "google_crc32c", "crc32c"):
        monkeypatch.setitem(sys.modules, mod, None)  # makes `import mod` raise ImportError
    monkeypatch.setattr(protos, "_classes", {})
    monkeypatch.setattr(tf_record, "_crc", [None])
    with pytest.raises(ImportError, match=r"tfcore\[tensorboard\]"):
        tf.summary.create_file_writer(str(tmp_path))
    with pytest.raises(ImportError, match=r"tfcore\[tfrecord\]"):
        protos.message_class("Example")
    with pytest.raises(ImportError, match=r"tfcore\[tfrecord\]"):
        tf.io.TFRecordWriter(str(tmp_path / "x")).write(b"a")
    with pytest.raises(ImportError, match=r"tfcore\[images\]"):
        tf.io.decode_png(tf.io.encode_png(np.zeros((1, 1, 1), np.uint8)))  # encoding needs nothing
