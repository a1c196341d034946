"""``tf.math``: element-wise math, reductions, arg-reductions, segment ops, top-k and counting."""

from . import math_special as special
from .ops.bessel_ops import *
from .ops.math_ops import *
from .ops.math_reduction_ops import *
from .ops.nn_ops import l2_normalize, log_softmax, softmax, softplus
from .ops.reduce_ops import *
from .ops.reduce_ops import (
    bincount,
    confusion_matrix,
    count_nonzero,
    cumprod,
    in_top_k,
    reduce_euclidean_norm,
    reduce_std,
    reduce_variance,
    segment_mean,
    segment_sum,
    top_k,
    unsorted_segment_mean,
    unsorted_segment_sum,
)
from .ops.special_math_ops import *
from .ops.spectral_ops import angle, imag, real  # noqa: E402
