"""SavedModels of functions traced for a ``tf.RaggedTensorSpec`` (the ragged guide's ``CustomModule.grow``).

TF stores a ragged argument as two graph inputs (flat values, row splits) and its spec as a
``TypeSpecProto`` of class ``RAGGED_TENSOR_SPEC``; ``data/tf_ragged_grow`` was written by TensorFlow 2.21
(``data/make_tf_ragged_saved_model.py``).
"""

import os

import tfcore as tf
from tfcore.saving.saved_model import read_meta_graph

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class CustomModule(tf.Module):
    def __init__(self, variable_value):
        super().__init__()
        self.v = tf.Variable(variable_value)

    @tf.function
    def grow(self, x):
        return x * self.v


def test_save_and_load_a_ragged_signature(tmp_path):
    module = CustomModule(100.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    tf.saved_model.save(module, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    for rows in ([[1.0, 4.0, 3.0], [2.0]], [[1.0], [], [4.0, 3.0], [2.0]]):  # row lengths never traced
        out = loaded.grow(tf.ragged.constant(rows))
        assert isinstance(out, tf.RaggedTensor)
        assert out.to_list() == [[100.0 * v for v in r] for r in rows]


def test_ragged_signature_is_tf_type_spec_proto(tmp_path):
    module = CustomModule(2.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    tf.saved_model.save(module, str(tmp_path))
    meta = read_meta_graph(str(tmp_path))
    (fn,) = meta.object_graph_def.concrete_functions.values()
    spec = fn.canonicalized_input_signature.tuple_value.values[0].tuple_value.values[0].type_spec_value
    assert spec.type_spec_class_name == "RaggedTensorSpec" and spec.num_flat_components == 2
    assert spec.type_spec_class == type(spec).RAGGED_TENSOR_SPEC
    assert fn.output_signature.type_spec_value.type_spec_class == type(spec).RAGGED_TENSOR_SPEC
    names = meta.object_graph_def.concrete_functions
    (fdef,) = [f for f in meta.graph_def.library.function if f.signature.name in names]
    assert [a.type for a in fdef.signature.input_arg][:2] == [tf.float32.as_datatype_enum, tf.int64.as_datatype_enum]


def test_load_tensorflow_saved_model_with_ragged_signature():
    loaded = tf.saved_model.load(os.path.join(DATA, "tf_ragged_grow"))
    out = loaded.grow(tf.ragged.constant([[1.0, 4.0, 3.0], [2.0], []]))
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[100.0, 400.0, 300.0], [200.0], []]


class _RowStats(tf.Module):
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def stats(self, rt):
        return tf.math.reduce_max(rt, axis=-1), tf.reduce_mean(rt, axis=1)


def test_ragged_input_signature_saves_with_tf_serving_signature(tmp_path):
    module = _RowStats()
    module.stats(tf.ragged.constant([[5, 1], [2]]))  # saved graphs keep the number of rows they ran with (2)
    tf.saved_model.save(module, str(tmp_path))  # the graph slices row_splits (t[1:]): slices are saved too
    loaded = tf.saved_model.load(str(tmp_path))
    hi, mean = loaded.stats(tf.ragged.constant([[1], [3, 9]]))  # 2 rows, another row partition
    assert hi.numpy().tolist() == [1, 9] and mean.numpy().tolist() == [1.0, 6.0]
    hi, mean = loaded.stats(tf.ragged.constant([[1, 2, 3, 4, 5], [7]]))  # 2 rows, another number of values
    assert hi.numpy().tolist() == [5, 7] and mean.numpy().tolist() == [3.0, 7.0]
    serve = loaded.signatures["serving_default"]
    # TF's layout: one keyword per component of the ragged argument (flat values, row splits)
    assert sorted(serve.structured_input_signature[1]) == ["rt", "rt_1"]
    out = serve(rt=tf.constant([4, 2, 8], tf.int32), rt_1=tf.constant([0, 1, 3], tf.int64))
    assert out["output_0"].numpy().tolist() == [4, 8] and out["output_1"].numpy().tolist() == [4.0, 5.0]
