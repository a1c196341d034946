"""Mixed-precision training-step benchmark: tfcore ``mixed_float16`` against float32 (and PyTorch AMP).

One step = Keras ``train_on_batch``: forward, sparse categorical cross-entropy, backward and an
Adam update (loss-scaled under mixed_float16), for the MLP and the small CNN of ``tfcore train``,
on batches of the bundled 8x8 digits repeated up to ``--batch-size``. tfcore runs on ``/GPU:0``
when there is one (a real GPU, or an emulated one with ``TFCORE_EMULATED_GPUS=1`` — slow, for
checking the paths only), else on the CPU. PyTorch runs float32 and ``torch.autocast`` +
``GradScaler`` (AMP) on CUDA when torch and a CUDA device are present. Run::

    python bench/bench_mixed_precision.py [--steps 50] [--batch-size 1024] [--models mlp,cnn]

The ratio column is float32 time / mixed time (> 1: mixed precision is faster). Only a GPU with
tensor cores can make mixed precision faster; on the CPU float16 is computed in float32 plus
casts, so expect ratios below 1 there. Numbers are the median of several timed runs.
"""

import argparse
import statistics
import sys
import time


def _data(batch_size):
    import numpy as np

    from tfcore.keras.train_command import load_digits

    (x, y), _ = load_digits()
    reps = -(-batch_size // len(x))
    x, y = np.concatenate([x] * reps)[:batch_size], np.concatenate([y] * reps)[:batch_size]
    return np.ascontiguousarray(x), y


def _median_step(step, steps, sync=lambda: None, repeats=3):
    for _ in range(3):
        step()  # warm up: builds variables, slots and kernels
    sync()
    results = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        results.append((time.perf_counter() - start) / steps)
    return statistics.median(results)


def bench_tfcore(kind, policy, x, y, steps):
    import tfcore as tf
    from tfcore.keras.train_command import build_model

    device = "/GPU:0" if tf.config.list_logical_devices("GPU") else "/CPU:0"
    tf.keras.mixed_precision.set_global_policy(policy)
    try:
        tf.keras.utils.set_random_seed(0)
        with tf.device(device):
            model = build_model(kind, mixed_precision=policy != "float32")
            model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy")
            xt, yt = tf.constant(x), tf.constant(y)

            def sync():
                float(model.trainable_variables[0].numpy().ravel()[0])  # waits for the device's queue

            return device, _median_step(lambda: model.train_on_batch(xt, yt), steps, sync)
    finally:
        tf.keras.mixed_precision.set_global_policy(None)


def _tfcore_tf32():
    import tfcore as tf

    return tf.config.experimental.tensor_float_32_execution_enabled()


def bench_torch(kind, amp, x, y, steps):
    import torch
    from torch import nn

    if not torch.cuda.is_available():
        raise ImportError("torch.cuda", name="CUDA for PyTorch")
    torch.manual_seed(0)
    dev = torch.device("cuda")
    # float32 in the same math mode as tfcore's (TF32 by default, as in TF): PyTorch's matmul default is off
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = _tfcore_tf32()
    if kind == "mlp":
        model = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                              nn.Linear(64, 10))
    else:
        model = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(256, 64), nn.ReLU(), nn.Linear(64, 10))
    model = model.to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler(enabled=amp)
    loss_fn = nn.CrossEntropyLoss()
    xt = torch.from_numpy(x.transpose(0, 3, 1, 2).copy()).to(dev)
    yt = torch.from_numpy(y.astype("int64")).to(dev)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            loss = loss_fn(model(xt), yt)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return "cuda:0", _median_step(step, steps, torch.cuda.synchronize)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--models", default="mlp,cnn")
    args = parser.parse_args(argv)
    x, y = _data(args.batch_size)
    rows = []
    for kind in args.models.split(","):
        for name, fn in (("tfcore", lambda k, m: bench_tfcore(k, "mixed_float16" if m else "float32", x, y,
                                                               args.steps)),
                         ("PyTorch", lambda k, m: bench_torch(k, m, x, y, args.steps))):
            try:
                device, fp32 = fn(kind, False)
                _, mixed = fn(kind, True)
            except ImportError as e:
                print(f"{kind}: {name} skipped ({e.name} not available)", file=sys.stderr)
                continue
            rows.append((kind, name, device, fp32, mixed))
    print(f"\nTraining step, batch {args.batch_size}: float32 vs mixed precision (median ms/step); float32 runs "
          f"with TF32 {'on' if _tfcore_tf32() else 'off'} on both sides")
    print(f"{'model':6} {'framework':10} {'device':12} {'float32':>10} {'mixed':>10} {'f32/mixed':>10}")
    for kind, name, device, fp32, mixed in rows:
        print(f"{kind:6} {name:10} {device.split('device:')[-1]:12} {fp32 * 1e3:10.3f} {mixed * 1e3:10.3f} "
              f"{fp32 / mixed:10.2f}")
    tf_rows = {k: (f, m) for k, n, _, f, m in rows if n == "tfcore"}
    torch_rows = {k: (f, m) for k, n, _, f, m in rows if n == "PyTorch"}
    for kind in tf_rows.keys() & torch_rows.keys():
        print(f"{kind}: tfcore mixed / PyTorch AMP time ratio {tf_rows[kind][1] / torch_rows[kind][1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
