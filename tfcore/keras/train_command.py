"""``tfcore train``: the README's main job — train a small CNN (or MLP) on the bundled digits with Keras ``fit``.

Runs offline: the 8×8 digits ship inside the package. Prints Keras's progress bar per epoch, then the
test accuracy.
"""

import time

import numpy as np

from .. import config as tf_config
from .. import distribute, keras
from ..backend import mpi
from ..framework.commands import command
from .datasets import digits


def build_model(kind, num_classes=10, mixed_precision=False):
    """The small CNN (default) or MLP used by ``tfcore train``, for 8×8×1 inputs.

    With ``mixed_precision`` (the global policy set to ``'mixed_float16'`` by the caller) the softmax
    is a separate float32 layer, as TF's mixed-precision guide does: the logits are computed in
    float16 and the probabilities, hence the loss, in float32.
    """

    layers = keras.layers
    if mixed_precision:
        head = [layers.Dense(num_classes), layers.Activation("softmax", dtype="float32")]
    else:
        head = [layers.Dense(num_classes, activation="softmax")]
    if kind == "mlp":
        return keras.Sequential([
            layers.Flatten(input_shape=(8, 8, 1)),
            layers.Dense(128, activation="relu"),
            layers.Dense(64, activation="relu"),
            *head,
        ], name="digits_mlp")
    return keras.Sequential([
        layers.Conv2D(32, 3, padding="same", activation="relu", input_shape=(8, 8, 1)),
        layers.MaxPooling2D(2),
        layers.Conv2D(64, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(2),
        layers.Flatten(),
        layers.Dense(64, activation="relu"),
        *head,
    ], name="digits_cnn")


def load_digits():
    """``((x_train, y_train), (x_test, y_test))`` scaled to [0, 1] float32 with a channel axis."""

    (x_train, y_train), (x_test, y_test) = digits.load_data()
    prep = lambda x: (x.astype(np.float32) / 16.0)[..., None]
    return (prep(x_train), y_train), (prep(x_test), y_test)


def _positive_int(text):
    """argparse type: a positive integer; otherwise argparse's error names the option and the value."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _add_arguments(parser):
    parser.add_argument("--model", choices=("cnn", "mlp"), default="cnn", help="network to train (default: cnn)")
    parser.add_argument("--epochs", type=_positive_int, default=10, help="training epochs (default: 10)")
    parser.add_argument("--batch-size", type=_positive_int, default=32, help="batch size per replica (default: 32)")
    parser.add_argument("--devices", type=_positive_int, default=1,
                        help="replicas for data-parallel training with MirroredStrategy: N physical GPUs when "
                             "there are N, else N logical GPUs on GPU:0, else N logical CPUs (default: 1)")
    parser.add_argument("--workers", type=_positive_int, default=1,
                        help="worker processes for MultiWorkerMirroredStrategy, started with mpirun on this host "
                             "(needs Open MPI and tfcore[mpi]; default: 1)")
    parser.add_argument("--memory-limit", type=_positive_int, default=None, metavar="MB",
                        help="memory limit of each logical GPU when GPU:0 is split (default: an equal share)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--mixed-precision", action="store_true",
                        help="train with the 'mixed_float16' policy: float16 compute (tensor cores on a GPU), "
                             "float32 variables, dynamic loss scaling")
    parser.add_argument("--verbose", type=int, choices=(0, 1, 2), default=1, help="progress output (default: 1)")


def configure_devices(n, memory_limit_mb=None):
    """Devices for ``n`` replicas (before any tensor exists): physical GPUs, a split GPU:0, or logical CPUs."""

    gpus = tf_config.list_physical_devices("GPU")
    if n <= 1:
        return None
    if len(gpus) >= n:
        return [f"/gpu:{i}" for i in range(n)]
    if gpus:
        if memory_limit_mb is None:
            from ..framework.context import context

            total = context.gpu_info(gpus[0]).total_memory
            memory_limit_mb = int(0.9 * total / n / 2**20)
        tf_config.set_visible_devices(gpus[:1], "GPU")
        tf_config.set_logical_device_configuration(
            gpus[0], [tf_config.LogicalDeviceConfiguration(memory_limit=memory_limit_mb)] * n)
        return [f"/gpu:{i}" for i in range(n)]
    cpu = tf_config.list_physical_devices("CPU")[0]
    tf_config.set_logical_device_configuration(cpu, [tf_config.LogicalDeviceConfiguration()] * n)
    return [f"/cpu:{i}" for i in range(n)]


def _limit_blas_threads():
    """One BLAS thread: this model's matmuls are tiny, and threads only contend (replicas run in threads)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    return threadpool_limits(limits=1, user_api="blas")


@command("train", "train a small CNN (or MLP) on the bundled 8x8 digits with Keras fit", _add_arguments)
def run(args):
    from . import train_workers

    workers = getattr(args, "workers", 1)
    if workers > 1 and not mpi.launched_by_mpirun():
        return train_workers.launch(args)  # runs this command again in `workers` processes
    if mpi.launched_by_mpirun() and mpi.launcher_size() > 1:
        return _run(args, train_workers.strategy(args))
    try:
        devices = configure_devices(args.devices, args.memory_limit)
    except (TypeError, ValueError) as e:  # e.g. --memory-limit above the GPU's memory: say so, no traceback
        raise SystemExit(f"tfcore train: error: --devices {args.devices} --memory-limit {args.memory_limit}: "
                         f"{e}") from e
    return _run(args, distribute.MirroredStrategy(devices) if devices else None)


def _run(args, strategy):
    import contextlib


    chief = strategy is None or getattr(strategy.extended, "should_checkpoint", True)
    say = print if chief else (lambda *a, **k: None)  # in a multi-worker job only the chief reports
    if strategy is not None:
        ops = strategy.cross_device_ops
        workers = getattr(strategy, "_world", None)
        where = f" in {workers.size} workers" if workers is not None else ""
        say(f"Strategy: {type(strategy).__name__} with {strategy.num_replicas_in_sync} replicas{where} on "
            f"{', '.join(strategy.extended.worker_devices)}" + (" each" if workers is not None else ""))
        say(f"Reduction: {ops.name} ({strategy._reduction_reason})")
    keras.utils.set_random_seed(args.seed)
    (x_train, y_train), (x_test, y_test) = load_digits()
    limits = _limit_blas_threads()
    policy = keras.mixed_precision.global_policy()
    if args.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        with strategy.scope() if strategy is not None else contextlib.nullcontext():
            model = build_model(args.model, mixed_precision=args.mixed_precision)
            model.compile(optimizer=keras.optimizers.Adam(learning_rate=3e-3 if args.model == "cnn" else 1e-3),
                          loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    finally:
        keras.mixed_precision.set_global_policy(policy)
    if args.mixed_precision:
        say(f"Mixed precision: policy {model.dtype_policy.name} (compute {model.compute_dtype}, variables "
              f"{model.variable_dtype}), optimizer {type(model.optimizer).__name__} with dynamic loss scaling")
    say(f"Training a {args.model.upper()} on {len(x_train)} digits ({model.count_params():,} parameters), "
          f"testing on {len(x_test)}.")
    start = time.perf_counter()
    replicas = strategy.num_replicas_in_sync if strategy is not None else 1
    model.fit(x_train, y_train, batch_size=args.batch_size * replicas, epochs=args.epochs,
              verbose=args.verbose if chief else 0)
    seconds = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    if limits is not None:
        limits.restore_original_limits()
    say(f"Test accuracy: {accuracy:.4f} (loss {loss:.4f}); trained in {seconds:.1f} s")
    if args.mixed_precision:
        say(f"Final loss scale: {float(model.optimizer.dynamic_scale.numpy()):g}")
    return 0
