"""GPU training-step benchmark: tfcore next to PyTorch on the same models and shapes.

Cases (one training step = forward, sparse softmax cross-entropy, backward, Adam update):

- MLP 784-512-512-10 (ReLU) at batch 64, 256 and 1024;
- CNN on 28x28x1 (3 conv 3x3 + 2 dense, like the seed-001 CNN) at batch 64 and 1024;
- Keras ResNet50 (``tf.keras.applications.ResNet50(weights=None)``, 224x224x3, 1000 classes):
  a training step at batch 32 and inference at batch 64; PyTorch runs torchvision's resnet50 in
  channels-last memory format.

Each case prints ms/step and images/s for both frameworks and the speed ratio (PyTorch time /
tfcore time: above 1, tfcore is faster). PyTorch columns appear when ``torch`` (and torchvision
for ResNet50) is installed; ``--tf32`` turns TF32 matmuls/convolutions on in both.

Without a GPU it still runs on the CPU, for smoke testing: the large cases (CNN at batch 1024,
ResNet50) are listed as "needs a GPU" unless ``--cpu-all``, and ``--quick`` keeps every case to a
few steps (under a minute). Run as ``python bench/bench_gpu_training.py [--quick]`` or
``tfcore bench train [--quick]``.
"""

import argparse
import statistics
import time

import numpy as np

MLP_BATCHES = (64, 256, 1024)
CNN_BATCHES = (64, 1024)
RESNET_TRAIN_BATCH = 32
RESNET_INFER_BATCH = 64
CPU_MAX_CNN_BATCH = 64  # larger CNN batches and ResNet50 need a GPU unless --cpu-all


def _tfcore_gpu(tf):
    return bool(tf.config.list_physical_devices("GPU"))


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


# -- models ------------------------------------------------------------------------------------------

def tfcore_model(tf, kind):
    L = tf.keras.layers
    if kind == "mlp":
        return tf.keras.Sequential([L.Dense(512, activation="relu", input_shape=(784,)),
                                    L.Dense(512, activation="relu"), L.Dense(10)])
    if kind == "cnn":
        return tf.keras.Sequential([
            L.Conv2D(32, 3, padding="same", activation="relu", input_shape=(28, 28, 1)),
            L.MaxPool2D(2),
            L.Conv2D(64, 3, padding="same", activation="relu"),
            L.MaxPool2D(2),
            L.Conv2D(64, 3, padding="same", activation="relu"),
            L.Flatten(),
            L.Dense(128, activation="relu"),
            L.Dense(10)])
    if kind == "resnet50":
        return tf.keras.applications.ResNet50(weights=None)
    raise ValueError(kind)


def torch_model(torch, kind):
    nn = torch.nn
    if kind == "mlp":
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.Flatten(),
                             nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))
    if kind == "resnet50":
        import torchvision

        return torchvision.models.resnet50(weights=None)
    raise ValueError(kind)


def _data(kind, batch, rng):
    shape = {"mlp": (batch, 784), "cnn": (batch, 28, 28, 1), "resnet50": (batch, 224, 224, 3)}[kind]
    classes = 1000 if kind == "resnet50" else 10
    return rng.standard_normal(shape).astype(np.float32), rng.integers(0, classes, batch).astype(np.int64)


# -- timing ------------------------------------------------------------------------------------------

def _median_ms(run, sync, warmup, steps, repeats):
    for _ in range(warmup):
        run()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            run()
        sync()
        times.append((time.perf_counter() - start) * 1e3 / steps)
    return statistics.median(times)


def time_tfcore(kind, batch, train, cfg, rng):
    import tfcore as tf

    tf.keras.utils.set_random_seed(0)
    x_np, y_np = _data(kind, batch, rng)
    model = tfcore_model(tf, kind)
    x, y = tf.constant(x_np), tf.constant(y_np)
    last = []

    if train:
        opt = tf.keras.optimizers.Adam(1e-3)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=kind != "resnet50")

        def step():
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            last[:] = [loss]
    else:
        def step():
            last[:] = [model(x, training=False)]

    run = tf.function(step) if cfg.function else step

    def sync():
        if last:
            np.asarray(last[0].numpy()).ravel()[:1]  # device -> host: waits for the queued work

    return _median_ms(run, sync, cfg.warmup, cfg.steps, cfg.repeats)


def time_torch(torch, kind, batch, train, cfg, rng):
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    x_np, y_np = _data(kind, batch, rng)
    model = torch_model(torch, kind).to(dev)
    x = torch.from_numpy(x_np).to(dev)
    if kind != "mlp":
        x = x.permute(0, 3, 1, 2)  # NCHW view of the NHWC data
    if kind == "resnet50":
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    else:
        x = x.contiguous()
    y = torch.from_numpy(y_np).to(dev)
    if train:
        model.train()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        loss_fn = torch.nn.CrossEntropyLoss()

        def run():
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
    else:
        model.eval()

        def run():
            with torch.no_grad():
                model(x)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    return _median_ms(run, sync, cfg.warmup, cfg.steps, cfg.repeats)


# -- driver ------------------------------------------------------------------------------------------

def cases(cfg, gpu):
    """(label, kind, batch, train, reason_skipped or None)."""
    out = []
    mlp = (8, 16) if cfg.tiny else MLP_BATCHES
    cnn = (4,) if cfg.tiny else CNN_BATCHES
    for b in mlp:
        out.append((f"MLP 784-512-512-10 train b={b}", "mlp", b, True, None))
    for b in cnn:
        skip = None if gpu or cfg.cpu_all or b <= CPU_MAX_CNN_BATCH else "needs a GPU (--cpu-all to force)"
        out.append((f"CNN 28x28x1 3conv+2dense train b={b}", "cnn", b, True, skip))
    if not cfg.tiny:
        skip = None if gpu or cfg.cpu_all else "needs a GPU (--cpu-all to force)"
        out.append((f"ResNet50 224x224 train b={RESNET_TRAIN_BATCH}", "resnet50", RESNET_TRAIN_BATCH, True, skip))
        out.append((f"ResNet50 224x224 infer b={RESNET_INFER_BATCH}", "resnet50", RESNET_INFER_BATCH, False, skip))
    return out


def run(cfg, out=print):
    import tfcore as tf

    torch = None if cfg.no_torch else _torch()
    tf32_before = tf.config.experimental.tensor_float_32_execution_enabled()
    try:
        return _run(tf, torch, cfg, out)
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(tf32_before)


def _run(tf, torch, cfg, out):
    gpu = _tfcore_gpu(tf)
    if cfg.tf32:
        tf.config.experimental.enable_tensor_float_32_execution(True)
        if torch is not None:
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True
    else:  # strict float32 on both sides: TF32 is TF's (and tfcore's) default, so it is turned off here
        tf.config.experimental.enable_tensor_float_32_execution(False)
        if torch is not None:
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
    where = "GPU" if gpu else "CPU (no GPU: GPU-sized cases are skipped, numbers are CPU numbers)"
    tdev = "-" if torch is None else ("cuda" if torch.cuda.is_available() else "cpu")
    out(f"tfcore training-step benchmark on {where}; PyTorch: {'not installed' if torch is None else tdev}; "
        f"TF32 {'on' if cfg.tf32 else 'off'}; {'tf.function' if cfg.function else 'eager'}; "
        f"median of {cfg.repeats} x {cfg.steps} steps")
    out(f"{'case':<40}{'tfcore ms':>11}{'img/s':>10}{'torch ms':>11}{'img/s':>10}{'speed tfcore/torch':>20}")
    rows = []
    rng = np.random.default_rng(0)
    for label, kind, batch, train, skip in cases(cfg, gpu):
        if skip:
            out(f"{label:<40}  skipped: {skip}")
            rows.append({"case": label, "skipped": skip})
            continue
        ours = time_tfcore(kind, batch, train, cfg, rng)
        theirs = None
        if torch is not None and (kind != "resnet50" or _has_torchvision()):
            theirs = time_torch(torch, kind, batch, train, cfg, rng)
        row = {"case": label, "tfcore_ms": ours, "torch_ms": theirs}
        rows.append(row)
        t_txt = f"{theirs:>11.3f}{batch / theirs * 1e3:>10.0f}" if theirs else f"{'-':>11}{'-':>10}"
        r_txt = f"{theirs / ours:>20.2f}" if theirs else f"{'-':>20}"
        out(f"{label:<40}{ours:>11.3f}{batch / ours * 1e3:>10.0f}{t_txt}{r_txt}")
    return rows


def _has_torchvision():
    try:
        import torchvision  # noqa: F401
    except ImportError:
        return False
    return True


def add_arguments(p):
    p.add_argument("--quick", action="store_true", help="a few steps per case (a CPU smoke run: under a minute)")
    p.add_argument("--tiny", action="store_true", help="tiny batches, no ResNet50 (tests)")
    p.add_argument("--steps", type=int, default=None, help="timed steps per repeat")
    p.add_argument("--repeats", type=int, default=None, help="timed repeats (median reported)")
    p.add_argument("--tf32", action="store_true", help="TF32 matmuls/convolutions in both frameworks")
    p.add_argument("--function", action="store_true", help="wrap the tfcore step in tf.function")
    p.add_argument("--cpu-all", action="store_true", help="run the GPU-sized cases on the CPU too")
    p.add_argument("--no-torch", action="store_true", help="tfcore columns only")


def config(args):
    quick = args.quick or args.tiny
    args.steps = args.steps or (2 if quick else 20)
    args.repeats = args.repeats or (1 if quick else 5)
    args.warmup = 1 if quick else 3
    return args


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(p)
    rows = run(config(p.parse_args(argv)))
    return 0 if rows else 1
