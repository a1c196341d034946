"""``tf.Module``: a named container that finds its variables and submodules.

Variables and submodules are found through attributes (sorted by attribute
name), lists, tuples and dicts (sorted by key), each object once; a module's
direct attributes come before its submodules' contents, which are walked depth
first in the order found, as TF's ``_flatten_module``.
"""

import functools
import re

from .framework import deferred as _deferred
from .framework.context import name_scope as _name_scope
from .framework.variables import Variable

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")


def _camel_to_snake(name):
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


class Module:
    """Base class for objects that own variables and other modules (as ``tf.Module``)."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset()

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_NAME.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._name = name
        self._scope_name = name

    def __setattr__(self, name, value):
        # a variable created after Checkpoint.restore (``self.w = tf.Variable(...)`` on a module's first call)
        # is restored when it is assigned, as TF's restore-on-create does
        object.__setattr__(self, name, value)
        if _deferred.waiting() and isinstance(value, Variable):
            _deferred.created(self, name, value)

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """A ``tf.name_scope`` that prefixes variables created inside with the module's name."""
        return _name_scope(self._scope_name)

    @property
    def variables(self):
        """All variables of this module and its submodules, each once."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self):
        """All modules reachable from this one (not including itself), each once."""
        return tuple(self._flatten(predicate=lambda m: isinstance(m, Module)))

    def _flatten(self, predicate, recursive=True):
        """Matching objects in TF's order: this module's attributes (sorted by name) first,
        then each submodule's, depth first, in the order they were found; each object once."""
        out = []
        _flatten_into(self, predicate, recursive, {id(self)}, out)
        return out

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: run ``method`` inside the module's name scope."""

        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapper

    # no __repr__: tf.Module prints as a plain Python object (``<__main__.Dense object at 0x...>``), as TF's


_SKIP_ATTRS = frozenset({"_name", "_scope_name"})


def _flatten_into(module, predicate, recursive, seen, out):
    attrs = vars(module)
    submodules = []
    for key in sorted(attrs):
        if key in module._TF_MODULE_IGNORED_PROPERTIES or key in _SKIP_ATTRS:
            continue
        for leaf in attribute_leaves(attrs[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                out.append(leaf)
            if recursive and isinstance(leaf, Module):
                submodules.append(leaf)  # walk direct attributes first, then recurse
    for sub in submodules:
        _flatten_into(sub, predicate, recursive, seen, out)


def _is_variable(v):
    return isinstance(v, Variable)


def attribute_leaves(value, depth=0):
    """Objects inside nested lists/tuples/dicts (dict keys sorted when sortable)."""
    if depth > 50:
        return
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        for k in keys:
            yield from attribute_leaves(value[k], depth + 1)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from attribute_leaves(v, depth + 1)
    else:
        yield value
