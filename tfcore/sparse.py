"""``tf.sparse``: SparseTensor and the sparse ops."""

from .framework.sparse_tensor import SparseTensor, SparseTensorSpec
from .ops.sparse_math_ops import bincount, cross, map_values, mask, maximum, minimum, reduce_max, softmax
from .ops.sparse_math_ops import sparse_segment_mean as segment_mean
from .ops.sparse_math_ops import sparse_segment_sqrt_n as segment_sqrt_n
from .ops.sparse_math_ops import sparse_segment_sum as segment_sum
from .ops.sparse_ops import add, from_dense, reduce_sum, reorder, sparse_dense_matmul, to_dense
from .ops.sparse_reshape_ops import (
    concat,
    expand_dims,
    eye,
    fill_empty_rows,
    reset_shape,
    reshape,
    retain,
    slice,
    split,
    to_indicator,
    transpose,
)

matmul = sparse_dense_matmul
