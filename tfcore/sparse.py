"""``tf.sparse``: SparseTensor and the basic sparse ops."""

from .framework.sparse_tensor import SparseTensor, SparseTensorSpec
from .ops.sparse_ops import add, from_dense, reduce_sum, reorder, sparse_dense_matmul, to_dense

matmul = sparse_dense_matmul
