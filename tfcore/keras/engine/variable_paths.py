"""Keras 3 variable paths: which layer (inside which model) created a weight.

Keras 3 (``tf.keras`` in TF 2.21) names a weight by the objects being built when it was created:
a ``Dense`` inside a ``Sequential`` owns ``sequential/dense/kernel``, an optimizer's slot is
``adam/sequential_dense_kernel_momentum``. The weight's ``name`` is the last part (``kernel``).
Every layer opens a path scope with its name while it builds, runs ``call`` and adds a weight; a
scope the same object has already opened is not opened twice (Keras 3's ``name_scope(caller=)``).
Unlike ``tf.name_scope`` these scopes never change a plain ``tf.Variable``'s name (``x:0``).

This module owns the per-thread stack of path scopes: only :func:`path_scope` changes it.
"""

import re
import threading

from ...framework.variables import Variable

__all__ = ["current_path", "path_scope", "set_keras_path", "to_snake_case"]


class _PathState(threading.local):
    def __init__(self):
        self.stack = []  # [(name, owner)], outermost first


_state = _PathState()


class path_scope:  # noqa: N801 - a context manager, used as ``with path_scope(name, owner):``
    """Within the block, new Keras variables' paths start with ``name`` (nested in the open scopes)."""

    __slots__ = ("_entry", "_pushed")

    def __init__(self, name, owner=None):
        self._entry = (name, owner)
        self._pushed = False

    def __enter__(self):
        stack = _state.stack
        name, owner = self._entry
        if not (stack and owner is not None and stack[-1][1] is owner and stack[-1][0] == name):
            stack.append(self._entry)
            self._pushed = True
        return self

    def __exit__(self, *exc):
        if self._pushed:
            _state.stack.pop()
            self._pushed = False
        return False


def current_path():
    """The open scopes joined by '/' ('' outside any)."""
    return "/".join(name for name, _ in _state.stack)


def set_keras_path(variable, name=None, path=None):
    """Make ``variable`` a Keras 3 variable: ``path`` given, or the open scopes + ``name``.

    Works on a plain variable and on the wrappers a layer may return (a strategy's MirroredVariable,
    a mixed-precision AutoCastVariable and the variable it wraps). Returns ``variable``.
    """
    if path is None:
        prefix = current_path()
        path = f"{prefix}/{name}" if prefix else name
    target = variable
    while isinstance(target, Variable):
        object.__setattr__(target, "_keras_path", path)
        target = target.__dict__.get("_variable")  # an AutoCastVariable's wrapped variable
    return variable


def to_snake_case(name):
    """Keras 3's ``to_snake_case``: 'RMSprop' -> 'rm_sprop', 'Adam' -> 'adam'."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    name = re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()
    return name
