"""``tf.random``: seeded random tensors with TF's global/op seed behaviour."""

from .ops.random_extra_ops import *
from .ops.random_ops import *
