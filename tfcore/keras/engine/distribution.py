"""Keras under a ``tf.distribute`` strategy: data-parallel fit/evaluate/predict.

A model compiled inside ``strategy.scope()`` remembers the strategy. Each step
then splits the global batch into per-replica batches (on each replica's
device), runs ``train_step``/``test_step``/``predict_step`` once per replica with
``strategy.run``, and reports metrics read in cross-replica context, where the
metrics' sync-on-read variables aggregate over replicas. Gradients are summed
across replicas by the optimizer (``optimizers.distributed``); the compiled
loss is scaled by ``1 / num_replicas_in_sync`` so the sum equals the gradient of
the mean loss over the global batch, as in TF.
"""

import contextlib
import threading

import numpy as np

from ...distribute import distribute_lib, values
from ...framework import context as _ctx
from .data_adapter import unpack_x_y_sample_weight


def captured_strategy():
    """The strategy to remember at ``compile`` (None outside any strategy scope)."""
    return distribute_lib.get_strategy() if distribute_lib.has_strategy() else None


def replicas_in_sync():
    """Replicas the current step is split over (1 outside a replica function)."""
    ctx = distribute_lib.get_replica_context()
    return ctx.num_replicas_in_sync if ctx is not None else 1


_SHARED_STATE_LOCK = threading.RLock()


@contextlib.contextmanager
def shared_state_creation():
    """Create state every replica shares (metrics built on the first batch) once, correctly.

    The replica threads all reach lazily-built state at the same time; the first to take the lock
    builds it, the others find it built. Inside a replica function the build leaves the replica
    context for the strategy's scope, so each variable gets one sync-on-read copy per replica (as
    TF's metrics have): each replica thread then updates its own copy. A plain variable shared by the
    threads would lose updates whenever they interleave between an ``assign_add``'s read and write,
    which real GPU kernels (releasing the GIL) make happen.
    """
    with _SHARED_STATE_LOCK:
        ctx = distribute_lib._state.replica_context
        if ctx is None or ctx.strategy is None or not hasattr(ctx.strategy, "_devices"):
            yield
            return
        with distribute_lib.cross_replica_scope(), ctx.strategy.scope(), _ctx.device(None):
            yield


def check_metrics_created_in_scope(metrics):
    """Metric objects given to ``compile`` under a strategy must have been created in its scope (TF).

    A metric created outside holds plain variables that every replica thread would update at
    once (and lose updates); metrics given by name are created in the right scope automatically.
    """
    strategy = captured_strategy()
    if strategy is None or getattr(strategy, "num_replicas_in_sync", 1) <= 1:
        return
    flat = metrics if isinstance(metrics, list | tuple) else [metrics]
    stack = list(flat)
    while stack:
        m = stack.pop()
        if isinstance(m, dict):
            stack.extend(m.values())
        elif isinstance(m, list | tuple):
            stack.extend(m)
        elif hasattr(m, "variables") and hasattr(m, "update_state"):
            for v in m.variables:
                if not (isinstance(v, values.MirroredVariable) and v._strategy is strategy):
                    raise ValueError(
                        f"Metric ({m.name}) passed to `model.compile` was created inside a different "
                        "distribution strategy scope than the model. All metrics must be created in the same "
                        f"distribution strategy scope as the model (in this case {strategy}). If you pass in a "
                        "string identifier for a metric to compile, the metric will automatically be created in "
                        "the correct distribution strategy scope.")


def worker_of(model):
    """``(num_workers, index)`` of this process when the model trains under a multi-worker strategy, else
    None: ``fit``/``evaluate`` then read only this worker's share of the input (tf.data auto-sharding)."""
    strategy = getattr(model, "_distribution_strategy", None)
    return getattr(strategy, "_worker_shard", None)


def _first_replica(structure):
    return values.select_replica(0, structure)


def _ensure_built(model, strategy, per_replica_batch):
    """Build an unbuilt (subclassed) model once, in cross-replica context, before replicas run."""
    if model.built and all(layer.built for layer in getattr(model, "layers", ())):
        return

    x, _, _ = unpack_x_y_sample_weight(_first_replica(per_replica_batch))
    with strategy.scope():
        model(x, training=False)


def run_step(model, strategy, step_fn, batch):
    """``step_fn`` on every replica's share of ``batch``; returns the per-replica outputs."""
    per_replica = strategy._split_batch(batch)
    _ensure_built(model, strategy, per_replica)
    return strategy.run(step_fn, args=(per_replica,))


def reduce_logs(model, outputs):
    """Logs of a distributed step: metric results aggregated over replicas, other values from replica 0."""
    first = _first_replica(outputs)
    if not isinstance(first, dict):
        return first
    aggregated = model.get_metrics_result()
    return {k: aggregated.get(k, v) for k, v in first.items()}


def concat_predictions(outputs):
    """Per-replica predictions -> NumPy, replicas concatenated in order along the batch axis."""

    def join(value):
        if isinstance(value, values.PerReplica):
            parts = [np.asarray(v.numpy()) for v in value.values]
            return np.concatenate(parts, axis=0)
        if isinstance(value, dict):
            return {k: join(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(join(v) for v in value)
        return value.numpy() if hasattr(value, "numpy") else value

    return join(outputs)
