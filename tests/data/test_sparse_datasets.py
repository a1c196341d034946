"""SparseTensors in tf.data and the SparseTensor operators (the sparse guide's cells; TF 2.21's values)."""

import tfcore as tf


def _sparse():
    return tf.sparse.SparseTensor(indices=[(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)],
                                  values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def test_from_tensor_slices_batch_unbatch_of_a_sparse_tensor():
    ds = tf.data.Dataset.from_tensor_slices(_sparse())
    assert isinstance(ds.element_spec, tf.SparseTensorSpec)
    rows = [tf.sparse.to_dense(e).numpy().tolist() for e in ds]
    assert rows == tf.sparse.to_dense(_sparse()).numpy().tolist()
    batches = list(ds.batch(4))
    assert [b.dense_shape.numpy().tolist() for b in batches] == [[4, 4], [2, 4]]
    again = [tf.sparse.to_dense(e).numpy().tolist() for e in ds.batch(4).unbatch()]
    assert again == rows


def test_sparse_times_scalar_in_a_map():
    out = [tf.sparse.to_dense(e).numpy().tolist() for e in tf.data.Dataset.from_tensor_slices(_sparse())
           .map(lambda x: x * 2)]
    assert out[0] == [2, 2, 2, 0] and out[5] == [2, 2, 0, 0]


def test_sparse_repr_prints_tensors_as_tf_does():
    text = repr(tf.sparse.SparseTensor(indices=[[0, 3]], values=[10], dense_shape=[3, 10]))
    assert text.startswith("SparseTensor(indices=tf.Tensor(")
