"""Eager per-op overhead and eager training steps, tfcore next to PyTorch and TensorFlow.

Workloads (the same math in every framework, float32, CPU):
- ``a + b``: two 1-element tensors (pure per-op overhead);
- ``mm+relu+CE fwd/bwd``: matmul, relu, sparse softmax cross-entropy and the gradient;
- ``MLP step``: 64-128-10 tanh MLP, GradientTape (autograd) + manual SGD, batch 32;
- ``CNN step``: the digits CNN (8x8x1 -> conv3x3x32 -> pool -> conv3x3x64 -> pool -> dense 64 -> 10),
  GradientTape + manual SGD, batch 32;
- ``GPU a + b``: two 8-element tensors on the first real CUDA GPU (the per-op launch cost: entering the
  device, allocation, the kernel launch), tfcore next to PyTorch on CUDA; only when a real GPU is
  present (not with emulated GPUs). Each timed batch of calls ends with a device synchronisation.

``python bench/bench_eager.py`` prints a table (microseconds, best of interleaved rounds so that
machine load hits every framework alike) with tfcore/PyTorch ratios; PyTorch and TensorFlow are
used when importable (neither is a dependency of tfcore). pytest-benchmark
(``python -m pytest bench/bench_eager.py --benchmark-enable``) times the tfcore workloads.
"""

import argparse
import time

import numpy as np

import tfcore as tf

BATCH, IN, HIDDEN, OUT = 32, 64, 128, 10
LR = 0.01
CLASSES = 10


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((BATCH, IN)).astype(np.float32),
        "y": rng.standard_normal((BATCH, OUT)).astype(np.float32),
        "w1": rng.standard_normal((IN, HIDDEN)).astype(np.float32) * 0.1,
        "w2": rng.standard_normal((HIDDEN, OUT)).astype(np.float32) * 0.1,
        "labels": rng.integers(0, CLASSES, BATCH).astype(np.int64),
        "img": rng.standard_normal((BATCH, 8, 8, 1)).astype(np.float32),
        "k1": rng.standard_normal((3, 3, 1, 32)).astype(np.float32) * 0.3,
        "k2": rng.standard_normal((3, 3, 32, 64)).astype(np.float32) * 0.06,
        "d1": rng.standard_normal((2 * 2 * 64, 64)).astype(np.float32) * 0.06,
        "d2": rng.standard_normal((64, CLASSES)).astype(np.float32) * 0.1,
    }


# -- tfcore workloads ------------------------------------------------------------------------------

def tfcore_add_setup():
    a = tf.constant([1.0], dtype=tf.float32)
    b = tf.constant([2.0], dtype=tf.float32)
    return lambda: a + b


def tfcore_ce_setup():
    d = _data()
    x, labels = tf.constant(d["x"]), tf.constant(d["labels"])
    w = tf.Variable(d["w1"][:, :CLASSES].copy())

    def fwd_bwd():
        with tf.GradientTape() as tape:
            logits = tf.nn.relu(tf.matmul(x, w))
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return tape.gradient(loss, w)

    return fwd_bwd


def tfcore_mlp_setup():
    d = _data()
    x, y = tf.constant(d["x"]), tf.constant(d["y"])
    w1, b1 = tf.Variable(d["w1"]), tf.Variable(np.zeros(HIDDEN, np.float32))
    w2, b2 = tf.Variable(d["w2"]), tf.Variable(np.zeros(OUT, np.float32))
    params = [w1, b1, w2, b2]

    def step():
        with tf.GradientTape() as tape:
            h = tf.tanh(tf.matmul(x, w1) + b1)
            pred = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(LR * g)
        return loss

    return step


def tfcore_cnn_setup():
    d = _data()
    img, labels = tf.constant(d["img"]), tf.constant(d["labels"])
    params = [tf.Variable(d["k1"]), tf.Variable(np.zeros(32, np.float32)),
              tf.Variable(d["k2"]), tf.Variable(np.zeros(64, np.float32)),
              tf.Variable(d["d1"]), tf.Variable(np.zeros(64, np.float32)),
              tf.Variable(d["d2"]), tf.Variable(np.zeros(CLASSES, np.float32))]

    def step():
        k1, c1, k2, c2, w1, b1, w2, b2 = params
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.nn.conv2d(img, k1, 1, "SAME") + c1)
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
            h = tf.nn.relu(tf.nn.conv2d(h, k2, 1, "SAME") + c2)
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
            h = tf.nn.relu(tf.matmul(tf.reshape(h, (BATCH, -1)), w1) + b1)
            logits = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(LR * g)
        return loss

    return step


def _real_gpu_backend():
    """The backend of GPU:0 when it is a real CUDA GPU, else None (no GPU, or emulated ones)."""
    if not tf.config.list_logical_devices("GPU"):
        return None
    from tfcore.framework.context import context

    b = context.find("GPU", 0).backend
    return None if getattr(b, "emulated", True) else b


def tfcore_gpu_add_setup():
    """``a + b`` of 8 float32 values on the first real GPU, or None without one; ``fn.sync`` waits for it."""
    b = _real_gpu_backend()
    if b is None:
        return None
    with tf.device("/GPU:0"):
        x = tf.constant(np.arange(8, dtype=np.float32))
        y = tf.constant(np.ones(8, np.float32))

    def gpu_add():
        return x + y  # placed by its inputs: GPU:0

    gpu_add.sync = b.synchronize
    return gpu_add


def tfcore_setups():
    setups = {"add": tfcore_add_setup(), "ce": tfcore_ce_setup(), "mlp": tfcore_mlp_setup(),
              "cnn": tfcore_cnn_setup()}
    gpu_add = tfcore_gpu_add_setup()
    if gpu_add is not None:
        setups["gpu_add"] = gpu_add
    return setups


# -- pytest-benchmark entry points -----------------------------------------------------------------

def test_bench_tfcore_add_scalar(benchmark):
    fn = tfcore_add_setup()
    out = benchmark(fn)
    assert out.numpy()[0] == 3.0


def test_bench_tfcore_gpu_add(benchmark):
    import pytest

    fn = tfcore_gpu_add_setup()
    if fn is None:
        pytest.skip("needs a real CUDA GPU")
    out = benchmark(fn)
    fn.sync()
    assert out.numpy().tolist() == [float(i + 1) for i in range(8)]


def test_bench_tfcore_ce_fwd_bwd(benchmark):
    g = benchmark(tfcore_ce_setup())
    assert g.shape == (IN, CLASSES)


def test_bench_tfcore_mlp_step(benchmark):
    step = tfcore_mlp_setup()
    first = float(step())
    benchmark(step)
    assert float(step()) < first


def test_bench_tfcore_cnn_step(benchmark):
    step = tfcore_cnn_setup()
    first = float(step())
    benchmark(step)
    assert float(step()) < first


# -- other frameworks -----------------------------------------------------------------------------------

def torch_setups():
    import torch

    fn = torch.nn.functional
    d = _data()
    a, b = torch.tensor([1.0]), torch.tensor([2.0])
    x, y, labels = torch.tensor(d["x"]), torch.tensor(d["y"]), torch.tensor(d["labels"])
    w = torch.tensor(d["w1"][:, :CLASSES].copy(), requires_grad=True)

    def ce():
        loss = fn.cross_entropy(torch.relu(x @ w), labels)
        return torch.autograd.grad(loss, [w])[0]

    w1, w2 = torch.tensor(d["w1"], requires_grad=True), torch.tensor(d["w2"], requires_grad=True)
    b1, b2 = torch.zeros(HIDDEN, requires_grad=True), torch.zeros(OUT, requires_grad=True)
    mlp_params = [w1, b1, w2, b2]

    def mlp():
        h = torch.tanh(x @ w1 + b1)
        loss = ((h @ w2 + b2 - y) ** 2).mean()
        grads = torch.autograd.grad(loss, mlp_params)
        with torch.no_grad():
            for p, g in zip(mlp_params, grads):
                p.sub_(LR * g)
        return loss

    img = torch.tensor(d["img"]).permute(0, 3, 1, 2).contiguous()  # NCHW, PyTorch's layout
    cnn_params = [torch.tensor(d["k1"]).permute(3, 2, 0, 1).contiguous().requires_grad_(),
                  torch.zeros(32, requires_grad=True),
                  torch.tensor(d["k2"]).permute(3, 2, 0, 1).contiguous().requires_grad_(),
                  torch.zeros(64, requires_grad=True),
                  torch.tensor(d["d1"], requires_grad=True), torch.zeros(64, requires_grad=True),
                  torch.tensor(d["d2"], requires_grad=True), torch.zeros(CLASSES, requires_grad=True)]

    def cnn():
        k1, c1, k2, c2, v1, e1, v2, e2 = cnn_params
        h = fn.max_pool2d(torch.relu(fn.conv2d(img, k1, c1, padding=1)), 2)
        h = fn.max_pool2d(torch.relu(fn.conv2d(h, k2, c2, padding=1)), 2)
        h = torch.relu(h.reshape(BATCH, -1) @ v1 + e1)
        loss = fn.cross_entropy(h @ v2 + e2, labels)
        grads = torch.autograd.grad(loss, cnn_params)
        with torch.no_grad():
            for p, g in zip(cnn_params, grads):
                p.sub_(LR * g)
        return loss

    setups = {"add": lambda: a + b, "ce": ce, "mlp": mlp, "cnn": cnn}
    if torch.cuda.is_available():
        ga = torch.arange(8, dtype=torch.float32, device="cuda")
        gb = torch.ones(8, dtype=torch.float32, device="cuda")

        def gpu_add():
            return ga + gb

        gpu_add.sync = torch.cuda.synchronize
        setups["gpu_add"] = gpu_add
    return setups


def tensorflow_setups():
    import tensorflow as real_tf

    d = _data()
    a, b = real_tf.constant([1.0]), real_tf.constant([2.0])
    x, y = real_tf.constant(d["x"]), real_tf.constant(d["y"])
    params = [real_tf.Variable(d["w1"]), real_tf.Variable(np.zeros(HIDDEN, np.float32)),
              real_tf.Variable(d["w2"]), real_tf.Variable(np.zeros(OUT, np.float32))]

    def mlp():
        w1, b1, w2, b2 = params
        with real_tf.GradientTape() as tape:
            h = real_tf.tanh(real_tf.matmul(x, w1) + b1)
            loss = real_tf.reduce_mean(real_tf.square(real_tf.matmul(h, w2) + b2 - y))
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(LR * g)
        return loss

    return {"add": lambda: a + b, "mlp": mlp}


# -- side-by-side script -----------------------------------------------------------------------------

WORKLOADS = [("add", "a + b (1 elem)", 0.3), ("ce", "mm+relu+CE fwd/bwd", 0.3),
             ("mlp", "MLP step", 0.5), ("cnn", "CNN step", 0.8), ("gpu_add", "GPU a + b (8 elem)", 0.3)]


def _calibrate(fn, min_time):
    for _ in range(10):
        fn()
    n = 1
    while True:
        if _time_us(fn, n) * n / 1e6 > min_time:
            return n
        n *= 2


def _time_us(fn, n):
    """Microseconds per call of ``fn`` over ``n`` calls (then ``fn.sync()``, if any: GPU work included)."""
    sync = getattr(fn, "sync", None)
    if sync is not None:
        sync()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    if sync is not None:
        sync()
    return (time.perf_counter() - t0) / n * 1e6


def measure(frameworks, rounds=7):
    """``{framework: {workload: best us}}``: rounds interleave frameworks (fair under load)."""
    counts = {(f, w): _calibrate(fns[w], t / rounds) for f, fns in frameworks.items()
              for w, _, t in WORKLOADS if w in fns}
    best = {f: {} for f in frameworks}
    for _ in range(rounds):
        for f, fns in frameworks.items():
            for w, _, _ in WORKLOADS:
                if w in fns:
                    us = _time_us(fns[w], counts[(f, w)])
                    best[f][w] = min(us, best[f].get(w, float("inf")))
    return best


_THREAD_LIMITS = []


def _limit_threads(n):
    """NumPy's BLAS (tfcore's CPU kernels) and PyTorch both get ``n`` threads."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        print("(threadpoolctl not installed: NumPy's BLAS uses its default thread count)")
    else:
        _THREAD_LIMITS.append(threadpool_limits(n))
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(n)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/intra-op threads for every framework (default 1: per-op overhead, fair "
                             "on a shared machine); needs threadpoolctl for NumPy's BLAS")
    args = parser.parse_args(argv)
    _limit_threads(args.threads)
    frameworks = {"tfcore": tfcore_setups()}
    for name, setup in (("torch", torch_setups), ("tensorflow", tensorflow_setups)):
        try:
            frameworks[name] = setup()
        except ImportError:
            print(f"({name} not installed)")
    best = measure(frameworks, args.rounds)
    names = list(frameworks)
    header = f"{'workload (us)':<22}" + "".join(f"{n:>12}" for n in names)
    if "torch" in names:
        header += f"{'tfcore/torch':>14}"
    print(header)
    for w, label, _ in WORKLOADS:
        if not any(w in best[n] for n in names):
            continue  # e.g. the GPU workload without a real GPU
        row = f"{label:<22}" + "".join(f"{best[n][w]:>12.2f}" if w in best[n] else f"{'-':>12}" for n in names)
        if "torch" in names and w in best["torch"]:
            row += f"{best['tfcore'][w] / best['torch'][w]:>14.2f}"
        print(row)


if __name__ == "__main__":
    main()
