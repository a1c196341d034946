"""Type-based dispatch (``framework/dispatch.py``) for the public functions of ``nn_ops``, the one op module
whose functions do not yet carry ``@add_dispatch_support`` where they are defined.

Every other op module decorates its public functions at their definition (``math_ops``, ``reduce_ops``,
``special_math_ops``, ``math_reduction_ops``, the string ops and the ``array_*_ops`` modules), so
``tf.add``, ``tf.math.add`` and ``tfcore.ops.math_ops.add`` are one dispatch-enabled function and no module
is patched after its import; ``tfcore/ragged`` registers the handlers that take ``tf.RaggedTensor``
arguments. Imported by ``tfcore/ops/__init__.py`` before anything re-exports the ops. Follow-up: decorate
``nn_ops``' public functions in place and delete this module.
"""

from ..framework.dispatch import add_dispatch_support_to_module
from . import nn_ops

add_dispatch_support_to_module(nn_ops, [name for name in dir(nn_ops) if not name.startswith("_") and
                                        getattr(getattr(nn_ops, name), "__module__", None) == nn_ops.__name__])
