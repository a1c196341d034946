"""Export time, file size and inference time of exported models next to tfcore, measured in one run.

For the digits CNN and ResNet50 (32x32, weights=None): seconds to export each format (float32 and
float16 weights), the file size, and the median time of one batch in tfcore (CPU:0), onnxruntime and
LiteRT (one thread each, as a phone would run it), printed with the ratio to tfcore. TF.js runs in
Node, where a per-call process start would dominate, so it is timed for export and size only.

Run ``python bench/bench_export.py [--batch 32] [--repeats 20]``.
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import tfcore as tf
from tfcore.export import export
from tfcore.keras import applications
from tfcore.keras.train_command import build_model


def _size(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
    return os.path.getsize(path)


def _median_seconds(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench(name, model, x, repeats, folder):
    import onnxruntime as ort
    from ai_edge_litert.interpreter import Interpreter

    print(f"{name}: {model.count_params():,} parameters, batch {x.shape[0]}")
    paths = {}
    for fmt, ext in (("onnx", ".onnx"), ("tflite", ".tflite"), ("tfjs", "_tfjs")):
        for f16 in (False, True):
            path = os.path.join(folder, f"{name}{'_f16' if f16 else ''}{ext}")
            start = time.perf_counter()
            export(model, path, format=fmt, float16=f16)
            print(f"  export {fmt:6s} {'float16' if f16 else 'float32'}: {time.perf_counter() - start:6.2f} s, "
                  f"{_size(path) / 2**20:7.2f} MiB")
            paths[fmt, f16] = path
    with tf.device("/CPU:0"):
        t_tfcore = _median_seconds(lambda: model(x, training=False).numpy(), repeats)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(paths["onnx", False], opts, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x}
    t_ort = _median_seconds(lambda: sess.run(None, feed), repeats)
    it = Interpreter(model_path=paths["tflite", False], num_threads=1)
    index = it.get_input_details()[0]["index"]
    it.resize_tensor_input(index, x.shape)
    it.allocate_tensors()

    def run_tflite():
        it.set_tensor(index, x)
        it.invoke()

    t_tfl = _median_seconds(run_tflite, repeats)
    print(f"  inference: tfcore {t_tfcore * 1e3:.2f} ms, onnxruntime {t_ort * 1e3:.2f} ms "
          f"({t_tfcore / t_ort:.1f}x faster), LiteRT {t_tfl * 1e3:.2f} ms ({t_tfcore / t_tfl:.1f}x faster)")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder, tf.device("/CPU:0"):
        tf.keras.utils.set_random_seed(0)
        bench("digits_cnn", build_model("cnn"), rng.random((args.batch, 8, 8, 1), dtype=np.float32), args.repeats,
              folder)
        resnet = applications.ResNet50(weights=None, input_shape=(32, 32, 3), classes=10)
        bench("resnet50", resnet, rng.uniform(0, 255, (args.batch, 32, 32, 3)).astype(np.float32),
              max(3, args.repeats // 4), folder)


if __name__ == "__main__":
    main()
