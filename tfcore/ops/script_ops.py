"""``tf.vectorized_map``: maps ``fn`` over the first axis and stacks the results.

(``tf.py_function`` / ``tf.numpy_function`` live with the other graph-aware calls in
``tfcore.function.control_flow``.)
"""


from ..framework import nest
from . import array_ops as _a
from ._common import as_tensor

__all__ = ["vectorized_map"]


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
