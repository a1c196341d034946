"""Distribution benchmarks.

- all-reduce bus bandwidth per bucket size, for each cross-device op the machine
  supports (NCCL needs >= 2 physical GPUs; on-device reduction needs a GPU split
  into logical GPUs; host reduction always). Bus bandwidth follows NCCL's tests:
  busbw = bytes / time * 2 (n - 1) / n.
- step time of a small data-parallel training step versus replica count on
  logical devices (CPU split by default).
- step time of Keras ``Model.fit`` under ``MirroredStrategy`` on two replicas
  (two logical CPUs, or two logical GPUs of an emulated or real GPU), next to
  the same model's single-device ``fit`` (``--fit-only`` prints just these rows;
  ``--repeats`` sets how many timed fits give the median step).

Run as a script (``python bench/bench_distribute.py [--gpus]``) in a fresh
process: it configures logical devices before any tensor exists. Under pytest
the same functions run once on logical CPUs as pytest-benchmark cases.
"""

import argparse
import time

import numpy as np


def _timeit(fn, repeat=5, warmup=1):
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _time_allreduce(ops, devices, count, sync):
    import tfcore as tf
    from tfcore import distribute as dist

    per_replica = []
    for d in devices:
        with tf.device(d.name):
            per_replica.append([tf.ones((count,), tf.float32)])

    def run():
        ops.batch_all_reduce(dist.ReduceOp.SUM, per_replica)
        if sync:
            sync()

    return _timeit(run)


def allreduce_bandwidth(ops, devices, sizes_bytes, sync=None):
    """Rows (op, bytes, seconds, algbw GB/s, busbw GB/s) for one reduction over ``devices``."""
    rows = []
    n = len(devices)
    for nbytes in sizes_bytes:
        count = max(1, nbytes // 4)
        t = _time_allreduce(ops, devices, count, sync)
        algbw = count * 4 / t / 1e9
        rows.append((ops.name, count * 4, t, algbw, algbw * 2 * (n - 1) / n))
    return rows


def _time_mlp_step(devices, x, y, rng, features, classes):
    import tfcore as tf

    strategy = tf.distribute.MirroredStrategy(devices)
    with strategy.scope():
        w1 = tf.Variable(rng.standard_normal((features, 512)).astype(np.float32) * 0.05)
        w2 = tf.Variable(rng.standard_normal((512, classes)).astype(np.float32) * 0.05)
    xb, yb = next(iter(strategy.experimental_distribute_dataset([(x, y)])))

    def update(strategy, g1, g2):
        for var, g in ((w1, g1), (w2, g2)):
            strategy.extended.update(var, lambda v, gg: v.assign_sub(0.01 * gg), args=(g,))

    def replica_step(xs, ys):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(xs, w1))
            logits = tf.matmul(h, w2)
            loss = tf.nn.compute_average_loss(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ys, logits=logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        ctx = tf.distribute.get_replica_context()
        g1, g2 = ctx.all_reduce("SUM", [g1, g2])
        ctx.merge_call(update, args=(g1, g2))
        return loss

    return _timeit(lambda: strategy.run(replica_step, args=(xb, yb)), repeat=5, warmup=2)


def step_time_vs_replicas(replica_counts, global_batch=256, features=256, classes=10, device_type="CPU"):
    """Seconds per data-parallel SGD step of an MLP for each replica count (same global batch)."""
    from tfcore.framework.context import context

    rng = np.random.default_rng(0)
    x = rng.standard_normal((global_batch, features)).astype(np.float32)
    y = rng.integers(0, classes, global_batch).astype(np.int32)
    available = context.logical_devices(device_type)
    return [(n, _time_mlp_step([d.name for d in available[:n]], x, y, rng, features, classes))
            for n in replica_counts if n <= len(available)]


def _fit_model(features, classes, hidden, run_eagerly=False):
    import tfcore as tf

    tf.random.set_seed(0)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(hidden, activation="relu", input_shape=(features,)),
        tf.keras.layers.Dense(hidden, activation="relu"),
        tf.keras.layers.Dense(classes),
    ])
    model.compile(tf.keras.optimizers.SGD(0.01, momentum=0.9),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  run_eagerly=run_eagerly)
    return model


def _step_clock():
    """A callback that records when each training batch begins (tensor logs: it forces no host sync)."""
    import tfcore as tf

    class StepClock(tf.keras.callbacks.Callback):
        _supports_tf_logs = True

        def __init__(self):
            super().__init__()
            self.starts = []

        def on_train_batch_begin(self, batch, logs=None):
            self.starts.append(time.perf_counter())

    return StepClock()


def fit_step_time(devices, steps=30, repeats=3, global_batch=128, features=128, classes=10, hidden=256,
                  run_eagerly=False):
    """``(wall, cpu)`` seconds per step of ``Model.fit`` (an MLP, SGD with momentum, accuracy metric) under
    ``MirroredStrategy(devices)`` (``devices=None``: no strategy, the default device), over ``repeats``
    one-epoch fits of ``steps`` batches after one untimed fit (build, trace, warm caches). ``wall``: the
    median begin-to-begin time of the steps (a median: on a shared machine a step that waits for a busy
    core is noise); ``cpu``: the process's CPU time (every thread) per step, which other jobs on the
    machine disturb less than the wall clock. ``run_eagerly``: the step runs op by op (how fit ran under a
    strategy before its step was compiled), not as a ``tf.function``."""
    import tfcore as tf

    rng = np.random.default_rng(0)
    x = rng.standard_normal((global_batch * (steps + 1), features)).astype(np.float32)
    y = rng.integers(0, classes, global_batch * (steps + 1)).astype(np.int32)
    if devices is None:
        model = _fit_model(features, classes, hidden, run_eagerly)
    else:
        strategy = tf.distribute.MirroredStrategy(devices)
        with strategy.scope():
            model = _fit_model(features, classes, hidden, run_eagerly)
    model.fit(x[: 2 * global_batch], y[: 2 * global_batch], batch_size=global_batch, epochs=1, verbose=0,
              shuffle=False)
    deltas, cpu = [], 0.0
    for _ in range(repeats):
        clock = _step_clock()
        c0 = time.process_time()
        model.fit(x, y, batch_size=global_batch, epochs=1, verbose=0, shuffle=False, callbacks=[clock])
        cpu += time.process_time() - c0
        deltas.extend(np.diff(clock.starts))
    return float(np.median(deltas)), cpu / (repeats * steps)


# (global batch, features, hidden units, steps per timed fit) per device type. On CPUs a small MLP, whose
# step is mostly the host work per op that a compiled step saves (a wide one's is BLAS time, the same
# either way); the emulated GPU runs every CUDA thread of every kernel on the CPU, so its step is mostly
# the emulated kernels, the same in both paths
FIT_SIZES = {"CPU": (64, 64, 64, 40), "GPU": (32, 32, 64, 10)}


def fit_rows(repeats=3, kinds=("CPU", "GPU")):
    """``(label, (wall, cpu) seconds per step)`` of fit on one device and under MirroredStrategy on two
    replicas (a compiled step, and op by op with ``run_eagerly=True``), for each device type of ``kinds`` with
    two logical devices (sizes from :data:`FIT_SIZES`)."""
    import tfcore as tf
    from tfcore.framework.context import context

    rows = []
    for kind in kinds:
        devs = context.logical_devices(kind)
        if len(devs) < 2:
            continue
        batch, features, hidden, steps = FIT_SIZES[kind]
        size = dict(steps=steps, repeats=repeats, global_batch=batch, features=features, hidden=hidden)
        with tf.device(devs[0].name):
            rows.append((f"fit, 1 {kind} (no strategy)", fit_step_time(None, **size)))
        rows.append((f"fit, MirroredStrategy 2 {kind}s", fit_step_time([d.name for d in devs[:2]], **size)))
        rows.append(("  the same, run_eagerly=True", fit_step_time([d.name for d in devs[:2]], **size,
                                                                    run_eagerly=True)))
    return rows


def _configure(n_cpus, gpu_split, gpu_memory_mb):
    import tfcore as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n_cpus)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus and gpu_split > 1:
        tf.config.set_logical_device_configuration(
            gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=gpu_memory_mb)] * gpu_split)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cpus", type=int, default=4, help="logical CPUs for the scaling run")
    parser.add_argument("--gpu-split", type=int, default=2, help="logical GPUs carved from GPU:0")
    parser.add_argument("--memory-limit", type=int, default=8192, help="MB per logical GPU")
    parser.add_argument("--max-size-log2", type=int, default=28,
                        help="largest all-reduce bucket: 2**N bytes (default 28; smaller for smoke runs)")
    parser.add_argument("--fit-only", action="store_true", help="only the Model.fit step times")
    parser.add_argument("--fit-devices", default="CPU,GPU", help="device types of the fit rows (CPU, GPU or both)")
    parser.add_argument("--repeats", type=int, default=3, help="timed fits per row (the median step is reported)")
    args = parser.parse_args()
    _configure(args.cpus, args.gpu_split, args.memory_limit)
    fit_kinds = tuple(k.strip().upper() for k in args.fit_devices.split(","))
    if args.fit_only:
        for label, (wall, cpu) in fit_rows(args.repeats, fit_kinds):
            print(f"  {label:<34}{wall * 1e3:8.2f} ms/step (median wall){cpu * 1e3:9.2f} ms CPU/step")
        return

    from tfcore.distribute import cross_device_ops as cdo

    import tfcore as tf
    from tfcore.backend.collectives import nccl_available
    from tfcore.framework.context import context

    sizes = [1 << k for k in range(12, args.max_size_log2 + 1, 2)]
    print(f"{'reduction':<22}{'bytes':>12}{'time (ms)':>12}{'algbw GB/s':>12}{'busbw GB/s':>12}")
    cpus = context.logical_devices("CPU")[:2]
    candidates = [(cdo.ReductionToOneDevice(), cpus, None)]
    gpus = context.logical_devices("GPU")
    if len(gpus) >= 2:
        sync = gpus[0].backend.synchronize
        same_card = [g for g in gpus if g.physical == gpus[0].physical][:2]
        distinct = list({g.physical: g for g in gpus}.values())
        if len(same_card) == 2:
            candidates.append((cdo.OnDeviceAllReduce(), same_card, sync))
            candidates.append((cdo.ReductionToOneDevice(reduce_to_device=same_card[0].name), same_card, sync))
        if len(distinct) >= 2 and nccl_available():
            candidates.append((cdo.NcclAllReduce(), distinct, sync))
    for ops, devs, sync in candidates:
        for row in allreduce_bandwidth(ops, devs, sizes, sync):
            print(f"{row[0]:<22}{row[1]:>12}{row[2] * 1e3:>12.3f}{row[3]:>12.2f}{row[4]:>12.2f}")
    print("\nstep time vs replicas (global batch 256, MLP 256-512-10):")
    for n, t in step_time_vs_replicas([1, 2, 4][: args.cpus]):
        print(f"  {n} logical CPU replica(s): {t * 1e3:8.2f} ms/step")
    if len(gpus) >= 2:
        for n, t in step_time_vs_replicas([1, 2], device_type="GPU"):
            print(f"  {n} logical GPU replica(s): {t * 1e3:8.2f} ms/step")
    print("\nModel.fit step time (MLP, SGD momentum, accuracy; sizes in FIT_SIZES):")
    for label, (wall, cpu) in fit_rows(args.repeats, fit_kinds):
        print(f"  {label:<34}{wall * 1e3:8.2f} ms/step (median wall){cpu * 1e3:9.2f} ms CPU/step")
    del tf


def test_host_allreduce_bandwidth(benchmark):
    """pytest-benchmark: host reduction of a 1 MB bucket across two replicas of the default device."""
    from tfcore.distribute import cross_device_ops as cdo

    from tfcore.framework.context import context

    cpu = context.find("CPU", 0)
    ops = cdo.ReductionToOneDevice()
    benchmark(lambda: allreduce_bandwidth(ops, [cpu, cpu], [1 << 20]))


if __name__ == "__main__":
    main()
