"""Per-op profile of an eager training step: which ops it runs, how many times, and what each costs.

``python bench/profile_ops.py --model resnet50 --batch 32`` (also ``tfcore bench ops``). Written after the
first real-GPU run (docs/gpu-results/2026-11-27-h200.md) measured Keras ResNet50 training at 0.08x
PyTorch's speed while its convolutions ran at cuDNN's: a step runs ~3000 ops, and the question is whether
their host-side cost (Python dispatch, allocation, launch) or their device time makes the step slow.

Three passes over the same step (``GradientTape`` forward and backward, then Adam), after warm-up steps:

- **step**: the median wall time of whole steps, nothing observed;
- **host**: every op timed around its ``execute`` call without waiting for the device (on a GPU this is the
  cost of dispatching the op: Python, kernel selection, allocation, launch);
- **synced**: the device synchronised after every op, so each op's time also holds its kernels' run time.

Per op name: calls per step, host µs per call, synced µs per call, and the synced milliseconds per step.
When the host total is close to the step time, the step is bound by dispatch, not by kernels.

An op whose host time is well above its synced time waits for the device inside its own dispatch (in the
synced pass the device is idle when it starts, so the wait vanishes): on the 11-27 H200 a ResNet50 step's 54
``Mul`` calls took 329 µs of host time each against 47 µs synced. ``--explain-host`` runs one more step with
Python's profiler switched on inside those ops only and prints where their time went.
"""

import argparse
import collections
import contextlib
import cProfile
import io
import json
import pstats
import statistics
import sys
import time

import numpy as np

from ..ops.registry import OpObserver, observe_ops

MODELS = ("mlp", "cnn", "resnet50")


class _Tally(OpObserver):
    """Calls and seconds per op name; with ``sync``, the device is synchronised after each op."""

    def __init__(self, sync=None):
        self.sync = sync
        self.calls = collections.Counter()
        self.seconds = collections.Counter()

    def wait(self):
        if self.sync is not None:
            self.sync()

    def after(self, op, seconds, outputs):
        self.calls[op.name] += 1
        self.seconds[op.name] += seconds


class _Counter(OpObserver):
    def __init__(self):
        self.counts = collections.Counter()

    def after(self, op, seconds, outputs):
        self.counts[op.name] += 1


def count_ops(fn):
    """``collections.Counter`` of the op names ``fn()`` executes (each op once, ops inside kernels not)."""
    with observe_ops(_Counter()) as counter:
        fn()
    return counter.counts


def build_step(tf, model_kind, batch, image_size=224, device=None):
    """(step function, device synchronisation) for one eager Adam training step of ``model_kind``."""
    rng = np.random.default_rng(0)
    tf.keras.utils.set_random_seed(0)
    layers = tf.keras.layers
    with tf.device(device) if device else contextlib.nullcontext():
        if model_kind == "mlp":
            model = tf.keras.Sequential([layers.Dense(512, activation="relu", input_shape=(784,)),
                                         layers.Dense(512, activation="relu"), layers.Dense(10)])
            x, classes = rng.standard_normal((batch, 784)), 10
        elif model_kind == "cnn":
            model = tf.keras.Sequential([
                layers.Conv2D(32, 3, padding="same", activation="relu", input_shape=(28, 28, 1)),
                layers.MaxPool2D(2), layers.Conv2D(64, 3, padding="same", activation="relu"), layers.MaxPool2D(2),
                layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(10)])
            x, classes = rng.standard_normal((batch, 28, 28, 1)), 10
        elif model_kind == "resnet50":
            model = tf.keras.applications.ResNet50(weights=None, input_shape=(image_size, image_size, 3))
            x, classes = rng.standard_normal((batch, image_size, image_size, 3)), 1000
        else:
            raise ValueError(f"model must be one of {MODELS}, got {model_kind!r}")
        x = tf.constant(x.astype(np.float32))
        y = tf.constant(rng.integers(0, classes, batch).astype(np.int64))
    opt = tf.keras.optimizers.Adam(1e-3)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=model_kind != "resnet50")
    last = []

    def step():
        with tf.device(device) if device else contextlib.nullcontext():
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
        last[:] = [loss]

    from ..framework.context import context

    gpu = context.find("GPU", 0) if tf.config.list_logical_devices("GPU") else None

    def sync():
        if gpu is not None and (device is None or "GPU" in device.upper()):
            gpu.backend.synchronize()

    return step, sync


def profile(model_kind="cnn", batch=32, steps=3, warmup=2, image_size=224, device=None, explain_host=False):
    """The three passes (see the module docstring) as a dict: step_ms, host_ms_per_step, synced_ms_per_step,
    ops_per_step and ``ops``: per op name its calls per step, host µs and synced µs per call. With
    ``explain_host``, also ``host_bound``: the :func:`host_bound_ops` and where their host time went."""
    import tfcore as tf

    step, sync = build_step(tf, model_kind, batch, image_size, device)
    for _ in range(warmup):
        step()
    sync()
    walls = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        sync()
        walls.append((time.perf_counter() - t0) * 1e3)
    host, synced = _Tally(), _Tally(sync)
    for tally in (host, synced):
        with observe_ops(tally):
            for _ in range(steps):
                step()
        sync()
    ops = {}
    for name in synced.calls:
        ops[name] = {"calls_per_step": synced.calls[name] / steps,
                     "host_us": 1e6 * host.seconds[name] / max(host.calls[name], 1),
                     "synced_us": 1e6 * synced.seconds[name] / synced.calls[name],
                     "synced_ms_per_step": 1e3 * synced.seconds[name] / steps}
    result = {"model": model_kind, "batch": batch, "steps": steps, "device": device or "default",
              "step_ms": statistics.median(walls),
              "host_ms_per_step": 1e3 * sum(host.seconds.values()) / steps,
              "synced_ms_per_step": 1e3 * sum(synced.seconds.values()) / steps,
              "ops_per_step": sum(synced.calls.values()) / steps, "ops": ops}
    if explain_host:
        names = host_bound_ops(result)
        result["host_bound"] = {"ops": names, "python_profile": explain_host_time(step, names) if names else ""}
        sync()
    return result


def host_bound_ops(result, ratio=2.0, min_extra_us=50.0):
    """Op names whose host time per call exceeds ``ratio`` times their synced time by ``min_extra_us`` or more:
    the ops that wait for the device inside their dispatch when nothing forces them to."""
    return sorted(name for name, o in result["ops"].items()
                  if o["host_us"] > ratio * o["synced_us"] and o["host_us"] - o["synced_us"] >= min_extra_us)


class _PythonProfileOf(OpObserver):
    """Runs Python's profiler inside the ops named ``names`` only."""

    def __init__(self, names):
        self.names = frozenset(names)
        self.profiler = cProfile.Profile()

    def run(self, execute_fn, op, inputs, attrs, residuals_into):
        if op.name not in self.names:
            return super().run(execute_fn, op, inputs, attrs, residuals_into)
        self.profiler.enable()
        try:
            return super().run(execute_fn, op, inputs, attrs, residuals_into)
        finally:
            self.profiler.disable()


def explain_host_time(step, names, lines=25):
    """One ``step()`` with Python's profiler on inside the ops ``names``: the functions their host time went to,
    by cumulative time (the text ``pstats`` prints)."""
    watch = _PythonProfileOf(names)
    with observe_ops(watch):
        step()
    out = io.StringIO()
    pstats.Stats(watch.profiler, stream=out).sort_stats("cumulative").print_stats(lines)
    return out.getvalue()


def format_profile(result, top=25):
    """The printed report: the totals, then the ``top`` op names by synced time per step."""
    r = result
    lines = [f"op profile: {r['model']} batch {r['batch']}, eager training step (GradientTape + Adam), "
             f"{r['steps']} steps per pass, device {r['device']}",
             f"step {r['step_ms']:.2f} ms (median wall); {r['ops_per_step']:.0f} ops per step; host dispatch "
             f"{r['host_ms_per_step']:.2f} ms per step (no waiting); synced after every op "
             f"{r['synced_ms_per_step']:.2f} ms per step",
             f"{'op':<36} {'calls/step':>10} {'host us':>9} {'synced us':>10} {'synced ms/step':>15}"]
    ranked = sorted(r["ops"].items(), key=lambda kv: -kv[1]["synced_ms_per_step"])
    for name, o in ranked[:top]:
        lines.append(f"{name:<36} {o['calls_per_step']:>10.0f} {o['host_us']:>9.1f} {o['synced_us']:>10.1f} "
                     f"{o['synced_ms_per_step']:>15.3f}")
    rest = ranked[top:]
    if rest:
        lines.append(f"{f'({len(rest)} other ops)':<36} {sum(o['calls_per_step'] for _, o in rest):>10.0f} "
                     f"{'':>9} {'':>10} {sum(o['synced_ms_per_step'] for _, o in rest):>15.3f}")
    bound = r.get("host_bound")
    if bound is not None:
        if bound["ops"]:
            lines.append(f"host time far above synced time (waiting for the device inside dispatch?): "
                         f"{', '.join(bound['ops'])}; Python's profile of one step inside them:")
            lines.append(bound["python_profile"].rstrip())
        else:
            lines.append("no op's host time is far above its synced time")
    return "\n".join(lines)


def add_arguments(p):
    p.add_argument("--model", choices=MODELS, default="cnn", help="the model of the training step (default cnn)")
    p.add_argument("--batch", type=int, default=32, help="batch size (default 32)")
    p.add_argument("--steps", type=int, default=3, help="steps per pass (default 3)")
    p.add_argument("--warmup", type=int, default=2, help="steps before the passes (default 2)")
    p.add_argument("--image-size", type=int, default=224, help="ResNet50's input height and width (default 224)")
    p.add_argument("--device", default=None, help="run on this device (default: TF's placement)")
    p.add_argument("--top", type=int, default=25, help="op names listed (default 25)")
    p.add_argument("--json", default=None, metavar="PATH", help="also write the profile as JSON")
    p.add_argument("--explain-host", action="store_true",
                   help="profile the Python inside the ops whose host time is far above their synced time")


def main(argv=None):
    p = argparse.ArgumentParser(prog="profile_ops", description=__doc__.split("\n\n")[0])
    add_arguments(p)
    args = p.parse_args(argv)
    for name in ("batch", "steps", "image_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    result = profile(args.model, args.batch, args.steps, args.warmup, args.image_size, args.device,
                     args.explain_host)
    print(format_profile(result, args.top))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
