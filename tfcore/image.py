"""``tf.image``: resizing, flips, rotations, dtype conversion and crops (NHWC)."""

from .io.image_codecs import decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png
from .ops.image_ops import *
