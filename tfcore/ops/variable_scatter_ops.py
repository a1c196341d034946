"""``tf.Variable.scatter_*``: sparse read-modify-write updates of a variable, atomic across threads.

Each method computes the new value from the current one with the ``tensor_scatter_nd_*`` op and
replaces the variable's value while holding the variable's update lock, as TF's resource scatter
ops do: updates from many threads all land, and readers see the value before or after an update,
never a mix. ``scatter_*`` take a ``tf.IndexedSlices`` (rows of the first dimension);
``scatter_nd_*`` take ``indices`` and ``updates`` as ``tf.tensor_scatter_nd_*`` does.
"""

from ..framework import recording
from ..framework.indexed_slices import IndexedSlices
from ..framework.variables import Variable
from . import array_ops as _a
from . import misc_ops as _misc
from ._common import as_tensor

_ND_OPS = {"add": _a.tensor_scatter_nd_add, "sub": _misc.tensor_scatter_nd_sub,
           "update": _a.tensor_scatter_nd_update, "max": _misc.tensor_scatter_nd_max,
           "min": _misc.tensor_scatter_nd_min}


def _apply_nd(var, mode, indices, updates, op_name):
    """Replace ``var``'s value by ``tensor_scatter_nd_<mode>(value, indices, updates)`` under its lock."""
    with var._lock():
        with recording.stop_recording():
            current = var._current()
            upd = as_tensor(updates)
            if upd._dtype is not current._dtype:
                upd = var._coerce(updates, op_name)
            new = _ND_OPS[mode](current, indices, upd)
        var._set(new, op_name)
    return var


def _sparse(method, mode, op_name):
    def scatter(self, sparse_delta, use_locking=False, name=None):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        indices = _a.expand_dims(as_tensor(sparse_delta.indices), -1)
        return _apply_nd(self, mode, indices, sparse_delta.values, op_name)
    scatter.__name__ = method
    scatter.__doc__ = (f"``{mode}`` the rows ``sparse_delta.indices`` of this variable with "
                       f"``sparse_delta.values`` (a ``tf.IndexedSlices``); atomic across threads.")
    return scatter


def _nd(method, mode, op_name):
    def scatter_nd(self, indices, updates, name=None):
        return _apply_nd(self, mode, indices, updates, op_name)
    scatter_nd.__name__ = method
    scatter_nd.__doc__ = (f"``{mode}`` this variable at ``indices`` (as ``tf.tensor_scatter_nd_{mode}``) with "
                          f"``updates``; atomic across threads.")
    return scatter_nd


for _mode, _op in (("add", "ResourceScatterAdd"), ("sub", "ResourceScatterSub"), ("update", "ResourceScatterUpdate"),
                   ("max", "ResourceScatterMax"), ("min", "ResourceScatterMin")):
    Variable._override_operator(f"scatter_{_mode}", _sparse(f"scatter_{_mode}", _mode, _op))
for _mode, _op in (("add", "ResourceScatterNdAdd"), ("sub", "ResourceScatterNdSub"),
                   ("update", "ResourceScatterNdUpdate")):
    Variable._override_operator(f"scatter_nd_{_mode}", _nd(f"scatter_nd_{_mode}", _mode, _op))
