"""``tf.dtypes``."""

from .framework.dtypes import *
from .ops.math_ops import cast, saturate_cast  # noqa: E402,F401 - TF exports them from tf.dtypes too
from .ops.spectral_ops import complex  # noqa: E402,F401 - tf.dtypes.complex is tf.complex
