"""Deferred checkpoint restoration: values waiting for variables that do not exist yet.

``Checkpoint.restore`` can run before a Keras model is built or an optimizer has created its
slots (as in TF). The restorer registers, per owner object and name, a callback that fills the
variable when it is created; ``Layer.add_weight`` and the optimizer's slot creation announce new
variables here. This module owns that registry (the only mutable state of deferred restoration);
with nothing pending, the announcements cost one dict lookup.
"""

import threading
import weakref

_lock = threading.Lock()
_pending = {}  # (id(owner), name) -> (weakref(owner), callback(variable))


def expect(owner, name, callback):
    """Call ``callback(variable)`` when ``owner`` creates its variable ``name`` (replaces an earlier wait)."""
    with _lock:
        _pending[(id(owner), name)] = (weakref.ref(owner), callback)


def cancel(owner, name):
    with _lock:
        _pending.pop((id(owner), name), None)


def waiting():
    """True while some checkpoint value waits for a variable (a cheap test for hot paths)."""
    return bool(_pending)


def created(owner, name, variable):
    """``owner`` created ``variable`` under ``name``: restore it if a checkpoint value waits for it."""
    if not _pending:
        return
    with _lock:
        entry = _pending.get((id(owner), name))
        if entry is None or entry[0]() is not owner:
            return
        del _pending[(id(owner), name)]
    entry[1](variable)


def slot_name(variable, slot):
    """The registry name of optimizer slot ``slot`` of ``variable`` (the optimizer is the owner)."""
    return ("slot", id(variable), slot)
