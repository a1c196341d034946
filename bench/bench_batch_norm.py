"""BatchNormalization training step (forward + backward) next to TensorFlow and PyTorch, and ops per step.

One step: ``BatchNormalization()(x, training=True)`` under a ``GradientTape``, the gradients of ``sum(y)`` with
respect to ``x``, gamma and beta (PyTorch: ``nn.BatchNorm2d`` in training, ``y.sum().backward()``). Each side runs in
its own process, with the interpreter given for it (frameworks that do not import there are skipped)::

    python bench/bench_batch_norm.py [--shape 32 56 56 64] [--tf-python /path/to/python] [--torch-python ...]
    python bench/bench_batch_norm.py --resnet50-ops   # ops of one eager Keras ResNet50 training step, by type

tfcore runs twice: with its native CPU kernels and with ``TFCORE_NATIVE_CPU=0`` (the NumPy candidates). The
tfcore lines also count the ops one step executes (``tf.debugging.set_log_device_placement``). Numbers are the
median and the minimum of ``--repeats`` timed steps after warm-up, in milliseconds.
"""

import argparse
import json
import os
import subprocess
import sys
import time

_SIDE = r'''
import json, statistics, sys, time
import numpy as np
kind, shape, repeats = sys.argv[1], [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3])
x_np = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
ops = None
if kind == "torch":
    import torch
    torch.set_num_threads(max(torch.get_num_threads(), 1))
    bn = torch.nn.BatchNorm2d(shape[-1])
    x = torch.tensor(x_np.transpose(0, 3, 1, 2).copy(), requires_grad=True)
    def step():
        x.grad = None
        bn.zero_grad()
        bn(x).sum().backward()
else:
    if kind == "tf":
        import tensorflow as tf
    else:
        import tfcore as tf
    bn = tf.keras.layers.BatchNormalization()
    x = tf.constant(x_np)
    def step():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = bn(x, training=True)
        return tape.gradient(y, [x] + bn.trainable_variables)
step()
if kind == "tfcore":
    from tfcore.benchmarks.op_profile import count_ops
    ops = sum(count_ops(step).values())
for _ in range(2):
    step()
times = []
for _ in range(repeats):
    t0 = time.perf_counter()
    step()
    times.append((time.perf_counter() - t0) * 1e3)
print(json.dumps({"median": statistics.median(times), "min": min(times), "ops": ops}))
'''


def run_side(python, kind, shape, repeats, env=None):
    """``{"median", "min", "ops"}`` of one side, or None when it cannot run (the framework is not installed)."""
    try:
        proc = subprocess.run([python, "-c", _SIDE, kind, ",".join(map(str, shape)), str(repeats)],
                              capture_output=True, text=True, env=dict(os.environ, **(env or {})), timeout=600,
                              check=False)
    except OSError:  # no such interpreter
        return None
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def resnet50_ops():
    """The ops one eager training step of ``ResNet50(weights=None, input_shape=(32, 32, 3), classes=10)`` executes
    (GradientTape + Adam, batch 2, on ``CPU:0``), as a Counter by op type."""
    import numpy as np

    import tfcore as tf
    from tfcore.benchmarks.op_profile import count_ops

    with tf.device("/CPU:0"):
        model = tf.keras.applications.ResNet50(weights=None, input_shape=(32, 32, 3), classes=10,
                                               classifier_activation=None)
        x = np.random.default_rng(0).standard_normal((2, 32, 32, 3)).astype(np.float32)
        y = np.array([1, 2])
        opt = tf.keras.optimizers.Adam()

        def step():
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))

        step()  # builds the optimizer's slots
        return count_ops(step)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", type=int, nargs=4, default=[32, 56, 56, 64], metavar=("N", "H", "W", "C"))
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--tf-python", default=sys.executable, help="interpreter with TensorFlow installed")
    p.add_argument("--torch-python", default=sys.executable, help="interpreter with PyTorch installed")
    p.add_argument("--resnet50-ops", action="store_true", help="count the ops of one ResNet50 training step")
    args = p.parse_args(argv)
    if args.resnet50_ops:
        ops = resnet50_ops()
        print(f"ResNet50 (32x32x3, 10 classes) eager training step: {sum(ops.values())} ops")
        for name, n in ops.most_common():
            print(f"  {name:28s} {n}")
        return 0
    rows = [("tfcore (native CPU kernels)", sys.executable, "tfcore", None),
            ("tfcore (NumPy candidates)", sys.executable, "tfcore", {"TFCORE_NATIVE_CPU": "0"}),
            ("TensorFlow", args.tf_python, "tf", {"TF_CPP_MIN_LOG_LEVEL": "3"}),
            ("PyTorch", args.torch_python, "torch", None)]
    print(f"BatchNormalization training step, float32 {'x'.join(map(str, args.shape))} (NHWC; PyTorch NCHW), "
          f"forward + backward, ms")
    print(f"{'framework':32s} {'median':>8s} {'min':>8s} {'ops/step':>9s}")
    for label, python, kind, env in rows:
        r = run_side(python, kind, args.shape, args.repeats, env)
        if r is None:
            print(f"{label:32s} {'(not installed)':>18s}")
            continue
        ops = "" if r["ops"] is None else str(r["ops"])
        print(f"{label:32s} {r['median']:8.1f} {r['min']:8.1f} {ops:>9s}")
    return 0


if __name__ == "__main__":
    start = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - start:.0f} s on {os.cpu_count()} CPUs)")
    sys.exit(code)
