"""Regenerates the TensorFlow-written reference files in this folder (run with TensorFlow installed).

    python tests/io/data/make_tf_refs.py

Everything here was written by TensorFlow 2.21 (tensorflow-cpu): TFRecord files with each
compression, what TF's parse ops return for them, serialize_tensor bytes, and the summary values
TF's tf.summary writes, so the tests compare tfcore with TF without TF installed.
"""

import json
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def example(i):
    feats = {"id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
             "vals": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5 * k + i for k in range(i)])),
             "pair": tf.train.Feature(int64_list=tf.train.Int64List(value=[i, -i * 1000000000000])),
             "seq": tf.train.Feature(float_list=tf.train.FloatList(value=[float(k) for k in range(2 * (i % 3))]))}
    if i != 3:
        feats["label"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[f"name-{i}".encode()]))
    return tf.train.Example(features=tf.train.Features(feature=feats))


def main():
    serialized = [example(i).SerializeToString() for i in range(6)]
    for suffix, comp in (("", None), (".gz", "GZIP"), (".zlib", "ZLIB")):
        with tf.io.TFRecordWriter(os.path.join(HERE, "examples.tfrecord" + suffix), options=comp) as w:
            for s in serialized:
                w.write(s)
    raw = [b"", b"a", bytes(range(256)) * 4, np.random.RandomState(0).bytes(3000)]
    with tf.io.TFRecordWriter(os.path.join(HERE, "raw.tfrecord")) as w:
        for r in raw:
            w.write(r)
    spec = {"id": tf.io.FixedLenFeature([], tf.int64),
            "label": tf.io.FixedLenFeature([], tf.string, default_value="none"),
            "vals": tf.io.VarLenFeature(tf.float32),
            "pair": tf.io.FixedLenFeature([2], tf.int64),
            "seq": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True, default_value=-1.0)}
    out = tf.io.parse_example(tf.constant(serialized), spec)
    refs = {"serialized_hex": [s.hex() for s in serialized],
            "raw_hex": [r.hex() for r in raw],
            "parse_example": {
                "id": out["id"].numpy().tolist(), "label": [x.decode() for x in out["label"].numpy()],
                "vals_indices": out["vals"].indices.numpy().tolist(),
                "vals_values": out["vals"].values.numpy().tolist(),
                "vals_dense_shape": out["vals"].dense_shape.numpy().tolist(),
                "pair": out["pair"].numpy().tolist(),
                "seq": out["seq"].numpy().tolist()}}
    one = tf.io.parse_single_example(serialized[2], spec)
    refs["parse_single_example_2"] = {"vals_indices": one["vals"].indices.numpy().tolist(),
                                      "seq": one["seq"].numpy().tolist()}
    tensors = {"f32": tf.constant([[1.5, -2.0, 3.25], [0.0, 1e-3, 7.0]]),
               "i64": tf.constant([1, -2, 3], tf.int64), "i32s": tf.constant(7),
               "str": tf.constant([b"ab", b"", b"\xff\x00z"]), "bool": tf.constant([True, False]),
               "f64e": tf.zeros([0, 3], tf.float64), "u8": tf.constant([[1, 2], [3, 255]], tf.uint8),
               "f16": tf.constant([1.0, -0.5], tf.float16)}
    refs["serialize_tensor"] = {k: tf.io.serialize_tensor(v).numpy().hex() for k, v in tensors.items()}
    seq = tf.train.SequenceExample(
        context=tf.train.Features(feature={"ctx": tf.train.Feature(int64_list=tf.train.Int64List(value=[5]))}),
        feature_lists=tf.train.FeatureLists(feature_list={"toks": tf.train.FeatureList(feature=[
            tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2])),
            tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))])}))
    refs["sequence_example_hex"] = seq.SerializeToString().hex()
    # Summaries: what TF's tf.summary writes for known inputs
    logdir = os.path.join("/tmp", "io_tf_summary_ref")
    import shutil
    shutil.rmtree(logdir, ignore_errors=True)
    w = tf.summary.create_file_writer(logdir)
    data = np.array([0.1, 0.4, 0.4, 2.0, -1.0, 3.5, 0.0, 0.9], np.float32)
    with w.as_default(step=3):
        tf.summary.scalar("loss", 0.25)
        tf.summary.histogram("h", data)
        tf.summary.histogram("h7", data, buckets=7)
        tf.summary.histogram("hconst", tf.fill([4], 2.0), buckets=5)
        tf.summary.histogram("hempty", tf.zeros([0]), buckets=4)
        tf.summary.text("t", "hello *world*")
        tf.summary.image("img", np.arange(2 * 3 * 4 * 3, dtype=np.uint8).reshape(2, 3, 4, 3), max_outputs=2)
        tf.summary.audio("a", np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16, 1), sample_rate=8000)
        with tf.name_scope("scoped"):
            tf.summary.scalar("x", 1)
    w.flush()
    from tensorboard.backend.event_processing import event_file_loader
    evs = []
    for f in sorted(os.listdir(logdir)):
        for ev in event_file_loader.EventFileLoader(os.path.join(logdir, f)).Load():
            for v in ev.summary.value:
                evs.append({"tag": v.tag, "step": ev.step, "value_hex": v.SerializeToString().hex()})
        refs["event_file_name"] = f
    refs["summary_values"] = evs
    refs["hist_data"] = data.tolist()
    # strings
    s = tf.strings
    refs["strings"] = {
        "as_string_f": [x.decode() for x in s.as_string(tf.constant([1.5, -0.1, 1e10, 3.0], tf.float32)).numpy()],
        "as_string_prec": [x.decode() for x in s.as_string(tf.constant([1.23456, 2.0]), precision=2).numpy()],
        "as_string_i": [x.decode() for x in s.as_string(tf.constant([12, -3]), width=5, fill="0").numpy()],
        "as_string_sci": [x.decode() for x in s.as_string(tf.constant([1234.5]), scientific=True).numpy()],
        "to_number": s.to_number(tf.constant(["1.5", " 2", "-3e2", "inf"])).numpy().tolist(),
        "split": [[x.decode() for x in r] for r in s.split(tf.constant(["a b  c", " d", ""])).to_list()],
        "split_sep": [[x.decode() for x in r] for r in s.split(tf.constant(["a,,b", "c"]), sep=",").to_list()],
        "split_max": [[x.decode() for x in r]
                      for r in s.split(tf.constant(["a,b,c,d"]), sep=",", maxsplit=2).to_list()],
        "regex_replace": [x.decode() for x in s.regex_replace(tf.constant(["aab", "xyz ab"]), "a+", "<\\0>").numpy()],
        "regex_first": [x.decode() for x in s.regex_replace(tf.constant(["aaba"]), "a", "-",
                                                            replace_global=False).numpy()],
        "length_byte": s.length(tf.constant(["héllo", ""])).numpy().tolist(),
        "length_char": s.length(tf.constant(["héllo", ""]), unit="UTF8_CHAR").numpy().tolist(),
        "unicode_decode": s.unicode_decode(tf.constant(["héllo", "€"]), "UTF-8").to_list(),
        "join": s.join([tf.constant(["a", "b"]), tf.constant(["c", "d"])], separator="-").numpy().tolist(),
        "reduce_join": s.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1,
                                     separator=",").numpy().tolist(),
    }
    refs["strings"] = json.loads(json.dumps(refs["strings"], default=lambda b: b.decode()))
    with open(os.path.join(HERE, "tf_refs.json"), "w") as f:
        json.dump(refs, f, indent=1, sort_keys=True)
    # images: a small PNG/JPEG written by TF and what TF decodes from them
    rgb = (np.arange(5 * 7 * 3).reshape(5, 7, 3) * 5 % 256).astype(np.uint8)
    jpeg = tf.io.encode_jpeg(rgb, quality=90).numpy()
    with open(os.path.join(HERE, "small.jpg"), "wb") as f:
        f.write(jpeg)
    png16 = tf.io.encode_png(tf.constant((np.arange(12).reshape(3, 4, 1) * 5000).astype(np.uint16))).numpy()
    with open(os.path.join(HERE, "small16.png"), "wb") as f:
        f.write(png16)
    np.savez(os.path.join(HERE, "image_refs.npz"), rgb=rgb, jpeg_decoded=tf.io.decode_jpeg(jpeg).numpy(),
             jpeg_gray=tf.io.decode_jpeg(jpeg, channels=1).numpy(),
             png16=tf.io.decode_png(png16, dtype=tf.uint16).numpy())


def sequence_refs():
    """tf_sequence_ref.json: a SequenceExample and what parse_single_sequence_example returns."""
    seq = tf.train.SequenceExample(
        context=tf.train.Features(feature={"ctx": tf.train.Feature(int64_list=tf.train.Int64List(value=[5])),
                                           "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"s1"]))}),
        feature_lists=tf.train.FeatureLists(feature_list={
            "toks": tf.train.FeatureList(feature=[tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2])),
                                                  tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))]),
            "vec": tf.train.FeatureList(feature=[tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 1.5])),
                                                 tf.train.Feature(float_list=tf.train.FloatList(value=[2.5, 3.5]))])}))
    s = seq.SerializeToString()
    ctx, fl = tf.io.parse_single_sequence_example(
        s, context_features={"ctx": tf.io.FixedLenFeature([], tf.int64), "name": tf.io.VarLenFeature(tf.string),
                             "missing": tf.io.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])},
        sequence_features={"toks": tf.io.VarLenFeature(tf.int64), "vec": tf.io.FixedLenSequenceFeature([2], tf.float32),
                           "absent": tf.io.FixedLenSequenceFeature([3], tf.int64, allow_missing=True),
                           "absent_var": tf.io.VarLenFeature(tf.float32)})
    out = {"hex": s.hex(), "ctx": int(ctx["ctx"]), "name_values": [x.decode() for x in ctx["name"].values.numpy()],
           "name_indices": ctx["name"].indices.numpy().tolist(), "missing": ctx["missing"].numpy().tolist(),
           "toks_indices": fl["toks"].indices.numpy().tolist(), "toks_values": fl["toks"].values.numpy().tolist(),
           "toks_shape": fl["toks"].dense_shape.numpy().tolist(), "vec": fl["vec"].numpy().tolist(),
           "absent_shape": list(fl["absent"].shape), "absent_var_shape": fl["absent_var"].dense_shape.numpy().tolist()}
    with open(os.path.join(HERE, "tf_sequence_ref.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
    sequence_refs()
