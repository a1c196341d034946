"""Optimizer updates inside a replica function of a multi-replica strategy.

``apply_gradients`` called by every replica (Keras ``train_step`` or a custom
loop under ``strategy.run``) joins ONE ``merge_call`` per step, as TF's
``_distributed_apply`` (Keras 3: ``apply_gradients`` -> ``merge_call`` ->
``batch_reduce_to`` + ``extended.update``): in cross-replica context the
gradients of every replica are summed in one batched cross-device reduction
(``batch_all_reduce``: the strategy's policy packs them into buckets where it
can), then the update is applied once per replica copy, each copy with its
device's sums: slots are created once, as mirrored variables, and every copy
of a variable receives the same update, so the copies stay identical. The
replicas rendezvous once per step (the merge), not once to reduce and again
to apply.
"""

from ...distribute import distribute_lib, values
from ...distribute.reduce_util import ReduceOp
from ...framework import context as _ctx
from ...framework import recording
from ...framework.indexed_slices import IndexedSlices
from ...ops import array_ops


def is_mirrored_copy_update(var):
    """True for a mirrored (not sync-on-read) variable while the merge updates one replica's copies: its
    reads and assigns then reach that copy, so the multi-tensor update op may serve it like a plain
    variable."""
    return type(var) is values.MirroredVariable and distribute_lib.current_component() is not None


def in_multi_replica_context():
    ctx = distribute_lib.get_replica_context()
    return ctx if ctx is not None and ctx.num_replicas_in_sync > 1 else None


def apply_across_replicas(ctx, grads_and_vars, apply_locally, aggregate=True):
    """Sum the gradients over the replicas and ``apply_locally(pairs)`` on each replica's copies, in one
    ``merge_call`` (``aggregate=False``: the gradients are applied as given, already reduced)."""
    pairs = [(g, v) for g, v in grads_and_vars if g is not None]
    if not pairs:
        return apply_locally(list(grads_and_vars))
    grads = [g for g, _ in pairs]
    variables = [v for _, v in pairs]

    def merge(strategy, per_replica_grads):
        n = len(strategy._devices)
        local = [list(values.select_replica(i, per_replica_grads)) for i in range(n)]
        if aggregate:
            with recording.stop_recording():
                local = _sum_across_replicas(strategy, local)
        result = None
        with strategy.scope():
            for i, dev in enumerate(strategy._devices):
                with distribute_lib.component_scope(i, dev.name):
                    result = apply_locally(list(zip(local[i], variables)))
        return result

    return ctx.merge_call(merge, args=(grads,))


def _sum_across_replicas(strategy, local):
    """``local[replica][k]`` summed over the replicas for every replica: dense gradients in one batched
    cross-device reduction; IndexedSlices (an Embedding's gradient) gathered instead, as TF's cross-device
    ops do (every replica's values and indices concatenated in replica order, on each replica's device), so
    the optimizer still gets slices."""
    sparse = {k for k, g in enumerate(local[0]) if type(g) is IndexedSlices}
    if not sparse:
        return strategy._cross_device_ops.batch_all_reduce(ReduceOp.SUM, local)
    dense = [k for k in range(len(local[0])) if k not in sparse]
    out = [list(row) for row in local]
    if dense:
        reduced = strategy._cross_device_ops.batch_all_reduce(ReduceOp.SUM, [[row[k] for k in dense] for row in local])
        for r, row in enumerate(reduced):
            for j, k in enumerate(dense):
                out[r][k] = row[j]
    for k in sorted(sparse):
        for r, dev in enumerate(strategy._devices):
            with _ctx.device(dev.name):
                vals = array_ops.concat([row[k].values._copy_to(dev) for row in local], 0)
                idx = array_ops.concat([row[k].indices._copy_to(dev) for row in local], 0)
            out[r][k] = IndexedSlices(vals, idx, local[0][k].dense_shape)
    return out
