"""One side of the CPU convolution benchmark matrix (:mod:`tfcore.benchmarks.conv_bench`), run in its own process.

Usage: ``python conv_bench_worker.py FRAMEWORK THREADS REPEAT CASES_JSON`` with FRAMEWORK ``tfcore``,
``tf`` (TensorFlow) or ``torch`` (PyTorch); prints one JSON object: ``{"version": ..., "ms": {row_id: [ms,
...]}}``, every timed repeat per row, or ``{"error": ...}`` when the framework does not import.

This file imports nothing from tfcore at module level, so any Python can run it by path: the matrix
runs TensorFlow's side through ``/path/to/tf-python conv_bench_worker.py tf ...`` with the very same
TF2 code as tfcore's side (``import tfcore as tf`` versus ``import tensorflow as tf``). Kernel rows call
the ops eagerly on float32 NHWC tensors (TF's raw ops for the two gradients, tfcore's equivalents);
training rows time a Keras ``Sequential`` model's ``tf.function`` step (GradientTape, sparse categorical
cross-entropy, Adam). PyTorch runs the same shapes in channels-last memory format.
"""

import json
import os
import sys
import time


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def _time(fn, repeat):
    """Milliseconds of each of ``repeat`` calls after two warm-ups (the result forced to the host)."""
    fn()
    fn()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def _tf_side(framework, threads, repeat, cases):
    import numpy as np

    if framework == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        raw = tf.raw_ops

        def bprop_input(sizes, w, dy, s, pad):
            return raw.Conv2DBackpropInput(input_sizes=sizes, filter=w, out_backprop=dy, strides=[1, s, s, 1],
                                           padding=pad)

        def bprop_filter(x, sizes, dy, s, pad):
            return raw.Conv2DBackpropFilter(input=x, filter_sizes=sizes, out_backprop=dy, strides=[1, s, s, 1],
                                            padding=pad)

        def dw_input(sizes, w, dy, s, pad):
            return raw.DepthwiseConv2dNativeBackpropInput(input_sizes=sizes, filter=w, out_backprop=dy,
                                                          strides=[1, s, s, 1], padding=pad)

        def dw_filter(x, sizes, dy, s, pad):
            return raw.DepthwiseConv2dNativeBackpropFilter(input=x, filter_sizes=sizes, out_backprop=dy,
                                                           strides=[1, s, s, 1], padding=pad)
    else:
        import tfcore as tf
        from tfcore.ops import conv_ops

        def bprop_input(sizes, w, dy, s, pad):
            return conv_ops.conv2d_backprop_input(sizes, w, dy, s, pad)

        def bprop_filter(x, sizes, dy, s, pad):
            return conv_ops.conv2d_backprop_filter(x, sizes, dy, s, pad)

        def dw_input(sizes, w, dy, s, pad):
            return conv_ops.depthwise_conv2d_backprop_input(sizes, w, dy, s, pad)

        def dw_filter(x, sizes, dy, s, pad):
            return conv_ops.depthwise_conv2d_backprop_filter(x, sizes, dy, s, pad)

    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    rng = np.random.default_rng(0)
    results = {}
    for case in cases:
        if case["kind"] == "train":
            results[case["id"]] = _tf_train(tf, np, rng, case, repeat)
            continue
        ops = _tf_kernel_ops(tf, np, rng, case, bprop_input, bprop_filter, dw_input, dw_filter)
        for op, fn in ops.items():
            results[f"{case['id']}/{op}"] = _time(fn, repeat)
    return tf.__version__, results


def _tf_kernel_ops(tf, np, rng, case, bprop_input, bprop_filter, dw_input, dw_filter):
    """The case's three calls (forward, input gradient, filter gradient) as closures over its tensors."""
    n, h, ci, co, k, s, pad = (case[key] for key in ("n", "h", "ci", "co", "k", "s", "pad"))
    depthwise = case["kind"] == "depthwise"
    x = tf.constant(rng.standard_normal((n, h, h, ci)).astype(np.float32))
    wshape = (k, k, ci, 1) if depthwise else (k, k, ci, co)
    w = tf.constant(rng.standard_normal(wshape).astype(np.float32) * 0.1)
    if depthwise:
        y = tf.nn.depthwise_conv2d(x, w, [1, s, s, 1], pad)
    else:
        y = tf.nn.conv2d(x, w, s, pad)
    dy = tf.constant(rng.standard_normal(tuple(y.shape)).astype(np.float32))
    xs, ws = tf.constant([n, h, h, ci], tf.int32), tf.constant(list(wshape), tf.int32)
    if depthwise:
        ops = {"fwd": lambda: tf.nn.depthwise_conv2d(x, w, [1, s, s, 1], pad).numpy(),
               "dgrad": lambda: dw_input(xs, w, dy, s, pad).numpy(),
               "wgrad": lambda: dw_filter(x, ws, dy, s, pad).numpy()}
    else:
        ops = {"fwd": lambda: tf.nn.conv2d(x, w, s, pad).numpy(),
               "dgrad": lambda: bprop_input(xs, w, dy, s, pad).numpy(),
               "wgrad": lambda: bprop_filter(x, ws, dy, s, pad).numpy()}
    return ops


def _tf_train(tf, np, rng, case, repeat):
    """ms per ``tf.function`` training step of the case's Keras CNN."""
    keras = tf.keras
    h, c, batch = case["h"], case["c"], case["n"]
    layers = [keras.Input((h, h, c))]
    for filters, k in case["convs"]:
        layers.append(keras.layers.Conv2D(filters, k, padding="same", activation="relu"))
        layers.append(keras.layers.MaxPooling2D())
    layers += [keras.layers.Flatten(), keras.layers.Dense(10)]
    model = keras.Sequential(layers)
    opt = keras.optimizers.Adam(1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    x = tf.constant(rng.standard_normal((batch, h, h, c)).astype(np.float32))
    y = tf.constant(rng.integers(0, 10, batch).astype(np.int32))

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return _time(lambda: step(x, y).numpy(), repeat)


def _torch_side(threads, repeat, cases):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    results = {}
    for case in cases:
        if case["kind"] == "train":
            results[case["id"]] = _torch_train(torch, case, repeat)
            continue
        results.update(_torch_kernel(torch, F, case, repeat))
    return torch.__version__, results


def _torch_kernel(torch, F, case, repeat):
    """ms of the case's forward, input gradient and filter gradient in PyTorch (channels-last)."""
    cl = torch.channels_last
    results = {}
    n, h, ci, co, k, s, pad = (case[key] for key in ("n", "h", "ci", "co", "k", "s", "pad"))
    depthwise = case["kind"] == "depthwise"
    groups = ci if depthwise else 1
    x = torch.randn(n, ci, h, h).to(memory_format=cl)
    w = (torch.randn(co if not depthwise else ci, 1 if depthwise else ci, k, k) * 0.1).to(memory_format=cl)
    out_h = -(-h // s) if pad == "SAME" else (h - k) // s + 1
    total = max((out_h - 1) * s + k - h, 0) if pad == "SAME" else 0
    before, after = total // 2, total - total // 2

    def conv(x, w):  # TF's SAME: the odd pixel of padding at the end
        xp = F.pad(x, (before, after, before, after)) if total else x
        return F.conv2d(xp, w, stride=s, groups=groups)

    xg = x.clone().requires_grad_(True)
    wg = w.clone().requires_grad_(True)
    y = conv(xg, wg)
    dy = torch.randn_like(y)

    def grad(target):
        return torch.autograd.grad(y, target, dy, retain_graph=True)

    with torch.no_grad():
        results[f"{case['id']}/fwd"] = _time(lambda: conv(x, w), repeat)
    # autograd.grad of the kept graph: the one backward kernel (plus a pad's gradient when padded)
    results[f"{case['id']}/dgrad"] = _time(lambda: grad(xg), repeat)
    results[f"{case['id']}/wgrad"] = _time(lambda: grad(wg), repeat)
    return results


def _torch_train(torch, case, repeat):
    nn = torch.nn
    h, c, batch = case["h"], case["c"], case["n"]
    mods, ch, size = [], c, h
    for filters, k in case["convs"]:
        total = k - 1
        mods += [nn.ZeroPad2d((total // 2, total - total // 2, total // 2, total - total // 2)),
                 nn.Conv2d(ch, filters, k), nn.ReLU(), nn.MaxPool2d(2)]
        ch, size = filters, size // 2
    mods += [nn.Flatten(), nn.Linear(ch * size * size, 10)]
    model = nn.Sequential(*mods).to(memory_format=torch.channels_last)
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    x = torch.randn(batch, c, h, h).to(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (batch,))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    return _time(step, repeat)


def main(argv):
    framework, threads, repeat, cases = argv[0], int(argv[1]), int(argv[2]), json.loads(argv[3])
    try:
        if framework == "torch":
            version, ms = _torch_side(threads, repeat, cases)
        else:
            version, ms = _tf_side(framework, threads, repeat, cases)
    except ImportError as e:
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 0
    print(json.dumps({"version": version, "ms": ms}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
