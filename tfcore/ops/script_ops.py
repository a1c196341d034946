"""``tf.py_function``, ``tf.numpy_function`` and ``tf.vectorized_map`` for eager execution.

Eagerly, ``py_function`` simply calls the Python function on tensors (so tapes see the ops it runs and
gradients flow), ``numpy_function`` calls it on NumPy arrays (no gradient, as in TF), and
``vectorized_map`` maps ``fn`` over the first axis and stacks the results.
"""

import numpy as np

from ..framework import dtypes, nest
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.variables import Variable
from . import array_ops as _a
from . import math_ops as _m
from ._common import as_tensor

__all__ = ["py_function", "numpy_function", "vectorized_map"]


def _outputs(result, Tout):
    if Tout is None:
        return None
    if isinstance(Tout, list | tuple):
        res = list(result) if isinstance(result, list | tuple) else [result]
        if len(res) != len(Tout):
            raise ValueError(f"The function returned {len(res)} values, but Tout lists {len(Tout)} dtypes")
        return [_cast(r, t) for r, t in zip(res, Tout)]
    return _cast(result, Tout)


def _cast(value, dtype):
    dt = dtypes.as_dtype(dtype)
    t = convert_to_tensor(value)
    return t if t.dtype is dt else _m.cast(t, dt)


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803
    """``tf.py_function``: ``func(*inp)`` on tensors; outputs converted to ``Tout`` (differentiable)."""
    if func is None:
        return lambda f: (lambda *args: py_function(f, list(args), Tout))
    args = [x if isinstance(x, Variable) else as_tensor(x) for x in (inp or [])]
    return _outputs(func(*args), Tout)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """``tf.numpy_function``: ``func`` on NumPy arrays; results converted to ``Tout`` (not differentiable)."""
    if func is None:
        return lambda f: (lambda *args: numpy_function(f, list(args), Tout, stateful))
    arrays = [as_tensor(x).numpy() if not isinstance(x, np.ndarray) else x for x in (inp or [])]
    result = func(*arrays)
    if isinstance(Tout, list | tuple):
        res = list(result) if isinstance(result, list | tuple) else [result]
        return [_a.stop_gradient(_cast(np.asarray(r), t)) for r, t in zip(res, Tout)]
    return _a.stop_gradient(_cast(np.asarray(result), Tout))


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``tf.vectorized_map``: ``fn`` applied to each slice of ``elems`` along axis 0, results stacked
    (nested structures of tensors in and out)."""
    flat = [as_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must contain at least one tensor")
    n = flat[0].shape[0]
    results = []
    for i in range(n):
        results.append(fn(nest.pack_sequence_as(elems, [t[i] for t in flat])))
    outs = [nest.flatten(r) for r in results]
    stacked = [_a.stack([o[k] for o in outs], axis=0) for k in range(len(outs[0]))]
    return nest.pack_sequence_as(results[0], stacked)
