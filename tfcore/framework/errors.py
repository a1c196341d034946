"""``tf.errors`` for the framework and the layers above it.

The exception hierarchy is defined in :mod:`tfcore.backend.errors` (the bottom layer: the allocator
raises ``ResourceExhaustedError`` and collectives raise ``DeadlineExceededError`` there); this module
re-exports it so that every module above the backend keeps importing ``framework.errors``.
"""

from ..backend.errors import *  # noqa: F403
from ..backend.errors import OperatorNotAllowedInGraphError, __all__  # noqa: F401
