"""``tf.dtypes``."""

from .framework.dtypes import *
from .ops.math_ops import cast, saturate_cast  # noqa: E402,F401 - TF exports them from tf.dtypes too
