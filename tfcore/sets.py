"""``tf.sets``: set operations on the last dimension of Tensors and SparseTensors."""

