"""Wraps the public op functions for type-based dispatch (``framework/dispatch.py``), in one place.

Imported by ``tfcore/ops/__init__.py`` before anything re-exports the ops, so ``tf.add``, ``tf.math.add``
and ``tfcore.ops.math_ops.add`` are the same dispatch-enabled function; ``tfcore/ragged`` registers the
handlers that take ``tf.RaggedTensor`` arguments. The array ops carry ``@add_dispatch_support`` where
they are defined (``tfcore/ops/array_*_ops.py``), so that ``tfcore.ops.array_ops`` can re-export them.
"""

from ..framework.dispatch import add_dispatch_support_to_module
from . import (
    math_ops,
    math_reduction_ops,
    nn_ops,
    reduce_ops,
    special_math_ops,
    string_hash_ops,
    string_ops,
    unicode_ops,
)

for _module in (math_ops, reduce_ops, special_math_ops, math_reduction_ops, nn_ops, string_ops,
                string_hash_ops, unicode_ops):
    add_dispatch_support_to_module(_module, [name for name in dir(_module) if not name.startswith("_") and
                                             getattr(getattr(_module, name), "__module__", None) == _module.__name__])
