"""Strategy/replica context state: which strategy is in scope, which replica runs.

Thread-local, because ``MirroredStrategy.run`` runs each replica in its own
thread (so collectives inside the replica function can rendezvous, as in TF).
Keras and optimizers ask this module whether they run in a replica context.
This module owns that state: other modules change it only through the context
managers below (:func:`strategy_scope`, :func:`replica_scope`, :func:`component_scope`,
:func:`cross_replica_scope`) and read it through the accessors. The first two also set the replica
count that ops below this layer read (``tfcore/framework/replica_state.py``).
"""

import contextlib
import threading

from tfcore.framework import context as _ctx
from tfcore.framework.replica_state import replica_count_scope


class _State(threading.local):
    strategy = None         # innermost strategy whose scope() is entered (None: default strategy)
    replica_context = None  # the ReplicaContext of the replica function running on this thread
    component = None        # index of the mirrored component being read/updated (per-replica updates)


_state = _State()


def get_strategy():
    """The strategy in scope, or the default (single-device, no-op) strategy."""
    if _state.replica_context is not None:
        return _state.replica_context.strategy
    return _state.strategy if _state.strategy is not None else _default_strategy()


def has_strategy():
    """True inside a non-default strategy's ``scope()`` or replica function."""
    return _state.strategy is not None or _state.replica_context is not None


def get_replica_context():
    """The current ReplicaContext; None in a cross-replica context (inside ``scope()``, outside ``run``)."""
    if _state.replica_context is not None:
        return _state.replica_context
    if _state.strategy is not None:
        return None
    return _default_strategy()._default_replica_context


def current_replica_context():
    """The ReplicaContext running on this thread, or None (no default replica context, unlike
    :func:`get_replica_context`)."""
    return _state.replica_context


def current_strategy():
    """The strategy whose ``scope()`` (or replica function) is active on this thread, or None."""
    return _state.strategy


@contextlib.contextmanager
def strategy_scope(strategy):
    """Make ``strategy`` the current one on this thread (``Strategy.scope`` and replica threads)."""
    saved = _state.strategy
    _state.strategy = strategy
    try:
        with replica_count_scope(strategy):
            yield strategy
    finally:
        _state.strategy = saved


@contextlib.contextmanager
def replica_scope(replica_context):
    """Run the body as the replica of ``replica_context`` on this thread."""
    saved = _state.replica_context
    _state.replica_context = replica_context
    try:
        with replica_count_scope(replica_context):
            yield replica_context
    finally:
        _state.replica_context = saved


def in_cross_replica_context():
    return _state.replica_context is None and _state.strategy is not None


def get_cross_replica_context():
    if _state.replica_context is not None:
        return None
    return get_strategy()


def current_component():
    """Index of the replica whose copy of a mirrored variable is active on this thread, or None."""
    if _state.replica_context is not None:
        return _state.replica_context.replica_id_in_sync_group_int
    return _state.component


@contextlib.contextmanager
def component_scope(index, device_name):
    """Cross-replica code acting on replica ``index``'s copies (e.g. per-device optimizer updates)."""
    saved = _state.component
    _state.component = index
    try:
        with _ctx.device(device_name):
            yield
    finally:
        _state.component = saved


@contextlib.contextmanager
def cross_replica_scope():
    """Temporarily leave the replica context (used by merge_call)."""
    saved = _state.replica_context
    _state.replica_context = None
    try:
        yield
    finally:
        _state.replica_context = saved


# The default (no-op) strategy is a Strategy, defined in ``strategy`` (which builds on this module):
# it registers its factory here when imported.
_default = None
_default_factory = None


def register_default_strategy(factory):
    """Set the callable that builds the default strategy (``strategy._DefaultStrategy``)."""
    global _default_factory, _default
    _default_factory, _default = factory, None
    return factory


def _default_strategy():
    global _default
    if _default is None:
        _default = _default_factory()
    return _default
