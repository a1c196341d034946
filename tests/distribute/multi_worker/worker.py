"""One worker of the multi-worker tests: ``python worker.py SCENARIO OUT_DIR`` (under ``mpirun`` or alone).

Every scenario trains with MultiWorkerMirroredStrategy and writes this worker's results to
``OUT_DIR/rank<r>.npz``; run alone (a one-worker job) it gives the single-process reference.
"""

import os
import sys

import numpy as np

import tfcore as tf

GLOBAL_BATCH = 32
STEPS = 6


def digits(n=GLOBAL_BATCH * STEPS):
    (x, y), _ = tf.keras.datasets.digits.load_data()
    return (x[:n, :, :, None] / 16.0).astype(np.float32), y[:n].astype(np.int64)


def cnn():
    init = tf.keras.initializers.GlorotUniform(seed=1)
    return tf.keras.Sequential([
        tf.keras.Input((8, 8, 1)),
        tf.keras.layers.Conv2D(4, 3, activation="relu", kernel_initializer=init),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(10, kernel_initializer=init),
    ])


def weights_of(model):
    return {f"w{i}": np.asarray(v.numpy()) for i, v in enumerate(model.weights)}


def custom_loop(strategy):
    """strategy.run + experimental_distribute_dataset + compute_average_loss + strategy.reduce."""
    x, y = digits()
    with strategy.scope():
        model = cnn()
        opt = tf.keras.optimizers.SGD(0.5)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
    dist = strategy.experimental_distribute_dataset(ds)

    def step(inputs):
        xb, yb = inputs
        with tf.GradientTape() as tape:
            loss = tf.nn.compute_average_loss(loss_fn(yb, model(xb, training=True)), global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = []
    for batch in dist:
        per_replica = strategy.run(step, args=(batch,))
        losses.append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None).numpy()))
    return dict(weights_of(model), losses=np.array(losses))


def keras_fit(strategy, data="arrays", out=None):
    x, y = digits()
    with strategy.scope():
        model = cnn()
        model.compile(tf.keras.optimizers.SGD(0.5),
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    if data == "arrays":  # with the callbacks that write files: only the chief's are kept
        callbacks = [tf.keras.callbacks.ModelCheckpoint(os.path.join(out, "ckpt", "model.weights.h5"),
                                                        save_weights_only=True),
                     tf.keras.callbacks.TensorBoard(os.path.join(out, "logs"))]
        hist = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=2, shuffle=False, verbose=0, callbacks=callbacks)
    else:
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
        hist = model.fit(ds, epochs=2, verbose=0)
    ev = model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0, return_dict=True)
    return dict(weights_of(model), loss=np.array(hist.history["loss"]), accuracy=np.array(hist.history["accuracy"]),
                eval_loss=np.array(ev["loss"]), eval_accuracy=np.array(ev["accuracy"]))


def file_shards(strategy, out):
    """AUTO sharding of a pipeline reading 4 text files: each worker reads its files only."""
    d = os.path.join(out, "files")
    if os.environ.get("OMPI_COMM_WORLD_RANK", "0") == "0":
        os.makedirs(d, exist_ok=True)  # (a single process reads them all)
        for i in range(4):
            with open(os.path.join(d, f"part{i}.txt"), "w") as f:
                f.write("".join(f"{i * 100 + j}\n" for j in range(8)))
    strategy._world.barrier()
    files = [os.path.join(d, f"part{i}.txt") for i in range(4)]
    ds = tf.data.TextLineDataset(files).map(lambda s: tf.strings.to_number(s, tf.float32)).batch(8)
    seen = []
    for batch in strategy.experimental_distribute_dataset(ds):
        for v in strategy.experimental_local_results(batch):
            seen.extend(np.asarray(v.numpy()).tolist())
    return {"seen": np.array(sorted(seen))}


class _DieAt(tf.keras.callbacks.Callback):
    """Kills this process (no cleanup, as a crash would) before training on (epoch, batch)."""

    def __init__(self, epoch, batch):
        super().__init__()
        self.at, self.epoch = (epoch, batch), None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_begin(self, batch, logs=None):
        if (self.epoch, batch) == self.at:
            sys.stdout.flush()
            os._exit(7)


def backup_fit(strategy, out):
    """fit for 3 epochs with BackupAndRestore; TFCORE_TEST_DIE_AT="rank:epoch:batch" kills that worker."""
    x, y = digits()
    with strategy.scope():
        model = cnn()
        model.compile(tf.keras.optimizers.Adam(0.01), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    freq = os.environ.get("TFCORE_TEST_SAVE_FREQ", "epoch")
    callbacks = [tf.keras.callbacks.BackupAndRestore(os.path.join(out, "backup"),
                                                     save_freq=freq if freq == "epoch" else int(freq))]
    die = os.environ.get("TFCORE_TEST_DIE_AT")
    if die:
        rank, epoch, batch = (int(v) for v in die.split(":"))
        if rank == int(os.environ.get("OMPI_COMM_WORLD_RANK", 0)):
            callbacks.append(_DieAt(epoch, batch))
    hist = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=3, shuffle=False, verbose=0, callbacks=callbacks)
    return dict(weights_of(model), epochs_run=np.array(hist.epoch))


def pipelines_and_gather(strategy, rank):
    """distribute_datasets_from_function (one input pipeline per worker) and strategy.gather across workers."""
    contexts = []

    def dataset_fn(ctx):
        contexts.append([ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.get_per_replica_batch_size(8)])
        return tf.data.Dataset.range(8).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(2)

    firsts = [int(strategy.experimental_local_results(b)[0].numpy()[0])
              for b in strategy.distribute_datasets_from_function(dataset_fn)]
    mine = strategy.run(lambda: tf.fill([2], float(rank)))
    return {"input_context": np.array(contexts[0]), "pipeline_firsts": np.array(firsts),
            "gathered": np.asarray(strategy.gather(mine, axis=0).numpy())}


def main():
    scenario, out = sys.argv[1], sys.argv[2]
    timeout = os.environ.get("TFCORE_TEST_TIMEOUT")
    options = tf.distribute.experimental.CommunicationOptions(
        implementation=os.environ.get("TFCORE_TEST_COMMUNICATION", "AUTO"),
        timeout_seconds=float(timeout) if timeout else None)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", 0))
    if scenario == "custom":
        result = custom_loop(strategy)
        result.update(file_shards(strategy, out))
        result.update(pipelines_and_gather(strategy, rank))
    elif scenario == "fit":
        result = keras_fit(strategy, "arrays", out)
        result.update({f"dataset_{k}": v for k, v in keras_fit(strategy, "dataset").items()})
    elif scenario == "backup":
        result = backup_fit(strategy, out)
    elif scenario == "stall":  # rank 1 hangs (alive) before training; rank 0's all-reduce times out
        if rank == 1:
            import time

            time.sleep(60)
        custom_loop(strategy)
        result = {}
    elif scenario in ("raise", "exit"):
        if rank == 1 and scenario == "raise":
            raise RuntimeError("worker 1 failed on purpose")
        if rank == 1:
            sys.exit("worker 1 gave up on purpose")
        custom_loop(strategy)  # rank 0 waits in a collective that rank 1 never joins
        result = {}
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    result["num_replicas_in_sync"] = np.array(strategy.num_replicas_in_sync)
    result["should_checkpoint"] = np.array(strategy.extended.should_checkpoint)
    result["task"] = np.array(f"{strategy.cluster_resolver.task_type}:{strategy.cluster_resolver.task_id}")
    np.savez(os.path.join(out, f"rank{rank}.npz"), **result)


if __name__ == "__main__":
    main()
