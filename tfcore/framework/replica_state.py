"""How many replicas the running code is one of (``num_replicas_in_sync``), for the layers below
``tf.distribute``.

``tf.nn.compute_average_loss`` and ``tf.nn.scale_regularization_loss`` divide by the global batch,
so they need the replica count of the strategy in scope, but ops sit below the distribution layer.
This module owns that thread-local fact: ``tf.distribute`` enters :func:`replica_count_scope` with
the strategy (in its ``scope()``) or the replica context (in a replica function), and ops read
:func:`num_replicas_in_sync`. Outside any strategy the count is 1.
"""

import contextlib
import threading


class _State(threading.local):
    source = None  # the innermost strategy or replica context in effect on this thread


_state = _State()


def num_replicas_in_sync():
    """The ``num_replicas_in_sync`` of the strategy or replica in effect on this thread (1 without one)."""
    source = _state.source
    return 1 if source is None else source.num_replicas_in_sync


def sync_group():
    """The synchronisation group of the replica function running on this thread (the rendezvous shared by
    the replicas of one ``strategy.run`` call; None outside a multi-replica function). ``tf.function``
    counts the concurrent traces of one group's replicas as one trace, as TF traces them into one graph."""
    return getattr(_state.source, "sync_group", None)


@contextlib.contextmanager
def replica_count_scope(source):
    """Within the body, :func:`num_replicas_in_sync` is ``source.num_replicas_in_sync`` (read when asked:
    a strategy's count may be known only once its devices are)."""
    saved = _state.source
    _state.source = source
    try:
        yield source
    finally:
        _state.source = saved


def in_strategy():
    """True inside a strategy's ``scope()`` or a replica function (TF's ``distribute_lib.has_strategy()``)."""
    return _state.source is not None


def replica_id():
    """The ``replica_id_in_sync_group`` of the replica function running on this thread (None outside one)."""
    return getattr(_state.source, "replica_id_in_sync_group_int", None)
