"""``tf.image``: resizing, flips, rotations, dtype conversion, crops, colour adjustments, quality measures
and non-max suppression (NHWC)."""

from .ops.image_adjust_ops import *
from .ops.image_ops import *
