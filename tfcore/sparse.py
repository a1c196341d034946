"""``tf.sparse``: SparseTensor and the basic sparse ops."""

from .framework.sparse_tensor import SparseTensor, SparseTensorSpec
