"""TFRecord throughput: TFRecordDataset (+ parse_example) on the same file for tfcore and TensorFlow.

``python bench/bench_tfrecord.py`` writes a file of serialized ``tf.train.Example``s (a label,
16 floats, a name and 0-8 token ids each) and prints records/second for: reading the raw records,
``batch(256) -> map(parse_example)`` and ``map(parse_single_example) -> batch(256)``, uncompressed
and GZIP, with TensorFlow's numbers and the ratio when TensorFlow is importable.
pytest-benchmark (``python -m pytest bench/bench_tfrecord.py --benchmark-enable``) times tfcore only.
"""

import argparse
import os
import tempfile
import time

import numpy as np

import tfcore as tf

N, BATCH = 20000, 256


def write_file(path, compression, n=N):
    rng = np.random.default_rng(0)
    with tf.io.TFRecordWriter(path, compression) as w:
        for i in range(n):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                "feat": tf.train.Feature(float_list=tf.train.FloatList(value=rng.standard_normal(16).tolist())),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[f"item-{i}".encode()])),
                "tokens": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=rng.integers(0, 1000, rng.integers(0, 9)).tolist()))}))
            w.write(ex.SerializeToString())


def spec(lib):
    return {"label": lib.io.FixedLenFeature([], lib.int64), "feat": lib.io.FixedLenFeature([16], lib.float32),
            "name": lib.io.FixedLenFeature([], lib.string), "tokens": lib.io.VarLenFeature(lib.int64)}


def pipeline(lib, path, compression, kind):
    ds = lib.data.TFRecordDataset(path, compression_type=compression)
    if kind == "raw":
        return ds.batch(BATCH)
    if kind == "parse_example":
        return ds.batch(BATCH).map(lambda x: lib.io.parse_example(x, spec(lib)))
    return ds.map(lambda x: lib.io.parse_single_example(x, spec(lib))).batch(BATCH)


def records_per_second(ds, epochs=2):
    best = 0.0
    for _ in range(epochs):
        start = time.perf_counter()
        n = 0
        for b in ds:
            first = b["label"] if isinstance(b, dict) else b
            n += int(first.shape[0])
        best = max(best, n / (time.perf_counter() - start))
    return best


def _tmp_file(compression):
    path = os.path.join(tempfile.mkdtemp(prefix="tfcore_bench_"), f"data{compression or ''}.tfrecord")
    write_file(path, compression, n=2000)
    return path


def test_bench_parse_example(benchmark):
    ds = pipeline(tf, _tmp_file(""), "", "parse_example")
    benchmark.pedantic(lambda: sum(1 for _ in ds), rounds=3, iterations=1)


def test_bench_raw_gzip(benchmark):
    ds = pipeline(tf, _tmp_file("GZIP"), "GZIP", "raw")
    benchmark.pedantic(lambda: sum(1 for _ in ds), rounds=3, iterations=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--no-tensorflow", action="store_true", help="skip the side-by-side TensorFlow run")
    args = parser.parse_args()
    real_tf = None
    if not args.no_tensorflow:
        try:
            import tensorflow as real_tf
        except ImportError:
            pass
    tmp = tempfile.mkdtemp(prefix="tfcore_bench_")
    print(f"{N} serialized Examples (label, 16 floats, name, 0-8 tokens); batch {BATCH}")
    print(f"{'compression':12} {'pipeline':22} {'tfcore rec/s':>13} {'TF rec/s':>12} {'tfcore/TF':>10}")
    for compression in ("", "GZIP"):
        path = os.path.join(tmp, f"data{compression}.tfrecord")
        write_file(path, compression)
        for kind in ("raw", "parse_example", "parse_single_example"):
            ours = records_per_second(pipeline(tf, path, compression, kind), args.epochs)
            line = f"{compression or 'NONE':12} {kind:22} {ours:13.0f}"
            if real_tf is not None:
                theirs = records_per_second(pipeline(real_tf, path, compression, kind), args.epochs)
                print(f"{line} {theirs:12.0f} {ours / theirs:10.2f}")
            else:
                print(f"{line} {'(not run)':>12}")


if __name__ == "__main__":
    main()
