"""``tf.image``: resizing, flips, rotations, dtype conversion, crops, colour adjustments, quality measures
and non-max suppression (NHWC)."""

from .io.image_codecs import decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png
from .ops.image_adjust_ops import *
from .ops.image_ops import *
