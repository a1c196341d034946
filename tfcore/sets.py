"""``tf.sets``: set operations on the last dimension of Tensors and SparseTensors."""

from .ops.set_ops import difference, intersection, size, union
