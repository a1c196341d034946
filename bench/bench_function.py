"""Train steps as ``tf.function`` next to eager tfcore and TensorFlow's tf.function.

Workloads (float32, CPU, Adam, the same math in every framework):
- ``MLP step``: 64-256-256-10 relu MLP, sparse softmax cross-entropy, batch 128;
- ``CNN step``: seed 001's CNN (28x28x1 -> conv4x4x8 same -> pool2 -> conv4x4x16 same ->
  pool2 -> dense 10 softmax), categorical cross-entropy, batch 32.

On a real CUDA GPU the tfcore tf.function steps also run on GPU:0 with CUDA graphs on and off
(``TFCORE_CUDA_GRAPHS``; tfcore.function.cuda_graph); without one nothing GPU-specific is printed.

``python bench/bench_function.py [--threads N] [--repeats R]`` prints milliseconds per step (best of
rounds, over R alternations of tfcore and TensorFlow) and the ratios to tfcore's tf.function.
``--threads`` (default 1) caps tfcore's BLAS threads (threadpoolctl) and TensorFlow's intra- and
inter-op thread pools to the same number. TensorFlow runs in a separate process (``--tf-python``: its
interpreter, default this one), between the tfcore rounds: in one process its thread pools spin and
take CPU from tfcore on a small machine. TensorFlow is used when that
interpreter can import it (it is not a dependency of tfcore).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def _mlp(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(256, activation="relu", input_shape=(64,)),
                                tf.keras.layers.Dense(256, activation="relu"), tf.keras.layers.Dense(10)])


def _cnn(tf):
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(8, 4, padding="same", input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPool2D(2, 2, padding="same"),
        tf.keras.layers.Conv2D(16, 4, padding="same"),
        tf.keras.layers.MaxPool2D(2, 2, padding="same"),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(10, activation="softmax")])


def _data(kind):
    rng = np.random.default_rng(0)
    if kind == "mlp":
        return rng.standard_normal((128, 64)).astype(np.float32), rng.integers(0, 10, 128)
    return rng.random((32, 28, 28, 1)).astype(np.float32), np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)]


def make_step(tf, kind, use_function):
    """A zero-argument callable running one training step (inputs already tensors)."""
    model = _mlp(tf) if kind == "mlp" else _cnn(tf)
    opt = tf.keras.optimizers.Adam(1e-3)
    loss_fn = (tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True) if kind == "mlp"
               else tf.keras.losses.CategoricalCrossentropy())
    x, y = _data(kind)
    x, y = tf.constant(x), tf.constant(y)

    def step(a, b):
        with tf.GradientTape() as tape:
            loss = loss_fn(b, model(a, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    fn = tf.function(step) if use_function else step
    fn(x, y)  # build / trace
    return lambda: fn(x, y)


def _time(step, n):
    t = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - t) / n


WORKLOADS = (("mlp", "MLP step"), ("cnn", "CNN step"))


def _best(steps, rounds, n):
    """Best seconds per step of each variant, rounds interleaved (machine load hits them alike)."""
    best = {name: float("inf") for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            best[name] = min(best[name], _time(step, n))
    return best


def _tensorflow_worker(args):
    """In the TF process: cap TF's thread pools, time both workloads, print one JSON line."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow

    tensorflow.config.threading.set_intra_op_parallelism_threads(args.threads)
    tensorflow.config.threading.set_inter_op_parallelism_threads(args.threads)
    out = {}
    for kind, _ in WORKLOADS:
        out[kind] = _best({"TF function": make_step(tensorflow, kind, True)}, args.rounds, args.steps)["TF function"]
    print(json.dumps({"version": tensorflow.__version__, "seconds": out}))


def _run_tensorflow(args):
    """Seconds per step of TF's tf.function per workload (a child process), or None without TensorFlow."""
    cmd = [args.tf_python, os.path.abspath(__file__), "--tf-worker", "--threads", str(args.threads),
           "--rounds", str(args.rounds), "--steps", str(args.steps)]
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "TF_CPP_MIN_LOG_LEVEL": "2"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"(TensorFlow not run with {args.tf_python}: {tail})")
        return None
    res = json.loads(lines[-1])
    print(f"(TensorFlow {res['version']} in a separate process, {args.threads} intra/inter-op threads)")
    return res["seconds"]


def _limit_blas(n):
    """Cap NumPy's BLAS (tfcore's CPU kernels) to ``n`` threads; the limiter must stay referenced."""
    import numpy  # noqa: F401 - BLAS must be loaded before threadpoolctl can limit it

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        print("(threadpoolctl not installed: NumPy's BLAS uses its default thread count)")
        return None
    return threadpool_limits(n)


def _real_gpu():
    from tfcore.backend import cuda, emulated_gpu_count

    return not emulated_gpu_count() and bool(cuda.list_physical_gpus())


def _gpu_graph_rows(args):
    """On a real GPU: ms per tf.function step on GPU:0 with CUDA graphs on and off (each step syncs)."""
    import tfcore
    from tfcore.function import cuda_graph

    def variant(kind, graphs):
        os.environ[cuda_graph.ENV_SWITCH] = "1" if graphs else "0"
        with tfcore.device("/GPU:0"):
            step = make_step(tfcore, kind, True)

        def run():
            os.environ[cuda_graph.ENV_SWITCH] = "1" if graphs else "0"
            with tfcore.device("/GPU:0"):  # the device scope is part of the function's cache key
                return step().numpy()
        for _ in range(4):  # trace, warm-up, capture
            run()
        return run

    saved = os.environ.get(cuda_graph.ENV_SWITCH)
    try:
        print(f"{'GPU:0 (ms/step)':20s}{'graphs on':>18s}{'graphs off':>18s}   off/on")
        for kind, label in WORKLOADS:
            steps = {"on": variant(kind, True), "off": variant(kind, False)}
            best = _best(steps, args.rounds, args.steps)
            print(f"{label:20s}{best['on'] * 1e3:18.3f}{best['off'] * 1e3:18.3f}   {best['off'] / best['on']:.2f}")
    finally:
        if saved is None:
            os.environ.pop(cuda_graph.ENV_SWITCH, None)
        else:
            os.environ[cuda_graph.ENV_SWITCH] = saved


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2,
                        help="alternations of tfcore's rounds and TensorFlow's process (default 2)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads of tfcore and intra/inter-op threads of TensorFlow (default 1)")
    parser.add_argument("--no-tensorflow", action="store_true")
    parser.add_argument("--tf-python", default=sys.executable,
                        help="Python interpreter with TensorFlow installed (default: this one)")
    parser.add_argument("--tf-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tf_worker:
        return _tensorflow_worker(args)
    limiter = _limit_blas(args.threads)
    import tfcore

    variants = {"tfcore function": (tfcore, True), "tfcore eager": (tfcore, False)}
    steps = {kind: {name: make_step(mod, kind, fn) for name, (mod, fn) in variants.items()} for kind, _ in WORKLOADS}
    results = {kind: {} for kind, _ in WORKLOADS}
    # tfcore's rounds and TensorFlow's process alternate --repeats times (best of all kept), so a slow
    # spell of a shared machine does not fall on one framework only.
    for _ in range(args.repeats):
        for kind, _ in WORKLOADS:
            for name, sec in _best(steps[kind], args.rounds, args.steps).items():
                results[kind][name] = min(sec, results[kind].get(name, sec))
        tf_seconds = None if args.no_tensorflow else _run_tensorflow(args)
        if tf_seconds is None:
            args.no_tensorflow = True  # not installed there: do not try again
            continue
        for kind, _ in WORKLOADS:
            best_tf = results[kind].get("TF function", tf_seconds[kind])
            results[kind]["TF function"] = min(tf_seconds[kind], best_tf)
    del limiter
    names = list(results[WORKLOADS[0][0]])
    threads = f"{args.threads} thread" + ("s" if args.threads != 1 else "")
    print(f"{'workload (ms/step)':20s}" + "".join(f"{name:>18s}" for name in names) + f"   ratios ({threads})")
    for kind, label in WORKLOADS:
        best = results[kind]
        base = best["tfcore function"]
        ratios = "  ".join(f"{name}/fn={best[name] / base:.2f}" for name in best if name != "tfcore function")
        print(f"{label:20s}" + "".join(f"{best[n] * 1e3:18.3f}" for n in names) + "   " + ratios)
    if _real_gpu():
        _gpu_graph_rows(args)


if __name__ == "__main__":
    main()
