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
from ...framework import recording


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
                local = strategy._cross_device_ops.batch_all_reduce(ReduceOp.SUM, local)
        result = None
        with strategy.scope():
            for i, dev in enumerate(strategy._devices):
                with distribute_lib.component_scope(i, dev.name):
                    result = apply_locally(list(zip(local[i], variables)))
        return result

    return ctx.merge_call(merge, args=(grads,))
