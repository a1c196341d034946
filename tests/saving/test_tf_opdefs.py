"""A SavedModel's nodes follow TF's OpDefs, so TensorFlow itself loads what tfcore saves: attributes TF takes
as inputs are Const inputs (``Op.tf_attr_inputs``), type attributes are TF's (``Op.tf_input_types``), names
are TF's (``Op.tf_attr_names``), list counts are set (``Op.tf_count_attr``), several outputs are named
(``Op.output_arg``). ``tf_op_defs.json`` was read from TF 2.21's OpDefs; TF 2.21 loaded the model below and
returned the same 45 values (checked by hand; tests never import TF)."""

import json
import pathlib

import numpy as np
import pytest

import tfcore as tf
from tfcore.ops.registry import REGISTRY
from tfcore.saving.saved_model import read_meta_graph

TF_OPS = json.loads(pathlib.Path(__file__).with_name("tf_op_defs.json").read_text())["ops"]
LIST_INPUTS = {"ConcatV2", "Pack", "AddN", "IdentityN"}  # one TF argument holds several inputs


class Many(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([2], tf.int32)])
    def f(self, x, i):
        b = x > 1.0
        return [tf.reduce_sum(x, 1), tf.reduce_mean(x, 0, keepdims=True), tf.reduce_max(x), tf.reduce_min(x, 1),
                tf.reduce_prod(x, 0), tf.reduce_any(b, 1), tf.reduce_all(b), tf.argmax(x, 1), tf.argmin(x, 0),
                tf.reshape(x, [3, 2]), tf.transpose(x), tf.concat([x, x], 1), tf.expand_dims(x, 0),
                tf.squeeze(tf.expand_dims(x, 0), 0), tf.tile(x, [2, 1]), tf.gather(x, i, axis=1),
                tf.matmul(x, x, transpose_b=True), tf.nn.softmax(x), tf.cast(x, tf.int32), tf.cumsum(x, 1),
                tf.math.cumprod(x, 0), tf.one_hot(i, 4), tf.stack([x, x]), tf.math.top_k(x, 2).indices,
                tf.where(b, x, 0.0), tf.clip_by_value(x, 0.0, 1.0), tf.nn.bias_add(x, tf.ones([3])),
                tf.fill([2], 1.0) + tf.cast(i, tf.float32), tf.add_n([x, x]), tf.shape(x),
                tf.broadcast_to(tf.ones([1, 3]), [2, 3]), tf.math.unsorted_segment_sum(x, i, 2),
                tf.reverse(x, [1]), tf.gather_nd(x, [[0, 1]]), x[:, 1:], x[-1], x[None, ..., ::-2], x[0, :2],
                tf.slice(x, [0, 1], [2, -1]), tf.split(x, [1, 2], axis=1)[1], tf.pad(x, [[1, 0], [0, 2]]),
                tf.pad(x, [[1, 1], [0, 0]], mode="REFLECT"), tf.pad(x, [[0, 0], [1, 1]], constant_values=7.0),
                tf.range(3), tf.range(1.0, 2.0, 0.25)]


X = np.array([[1.0, 2.0, 3.0], [4.0, 0.5, 6.0]], np.float32)
I = np.array([1, 0], np.int32)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("opdefs") / "m")
    module = Many()
    want = [t.numpy() for t in module.f(tf.constant(X), tf.constant(I))]
    tf.saved_model.save(module, path)
    return path, want


def test_every_saved_node_has_tfs_inputs_and_attributes(saved):
    meta = read_meta_graph(saved[0])
    seen, wrong = set(), []
    for fdef in meta.graph_def.library.function:
        for nd in fdef.node_def:
            spec = TF_OPS.get(nd.op)
            if spec is None:
                continue
            seen.add(nd.op)
            attrs = {a for a in nd.attr if not a.startswith("_")}
            inputs = [s for s in nd.input if not s.startswith("^")]
            if attrs - set(spec["attrs"]) or set(spec["required"]) - attrs:
                wrong.append((nd.op, sorted(attrs - set(spec["attrs"])), sorted(set(spec["required"]) - attrs)))
            if nd.op not in LIST_INPUTS and len(inputs) != len(spec["inputs"]):
                wrong.append((nd.op, f"{len(inputs)} inputs, TF's: {spec['inputs']}"))
    assert not wrong, wrong
    assert {"Sum", "All", "ArgMax", "Fill", "OneHot", "GatherV2", "TopKV2", "Cast", "SelectV2", "StridedSlice",
            "Slice", "SplitV", "PadV2", "MirrorPad", "Range"} <= seen


def test_inserted_inputs_and_named_outputs_load_back_in_tfcore(saved):
    path, want = saved
    got = tf.saved_model.load(path).f(tf.constant(X), tf.constant(I))
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g.numpy(), w, err_msg=f"output {k}")


def test_the_graph_def_names_a_second_named_output_by_its_index():
    @tf.function
    def f(x):
        return tf.math.top_k(x, 2).indices + 1

    gd = f.get_concrete_function(tf.TensorSpec([3], tf.float32)).graph.as_graph_def()
    (add,) = [n for n in gd.node if n.op == "AddV2"]
    assert add.input[0] == "TopKV2:1"


def test_ops_typed_unlike_tfs_first_input_say_how():
    """An op whose TF OpDef does not type its first input as ``T`` declares ``tf_input_types`` (or TF's
    loader sees a wrong ``T``); the ones left are listed with the reason."""
    untyped = {
        # tfcore has TF's leading size/shape input as an attribute: the inputs differ, not only the types
        "AvgPoolGrad", "Conv2DBackpropInput", "DepthwiseConv2dNativeBackpropInput", "StridedSliceGrad",
        "ScatterNd", "SparseToDense", "InTopKV2", "Range",
        # FFTs with an fft_length input tfcore keeps as an attribute
        "RFFT", "RFFT2D", "RFFT3D", "IRFFT", "IRFFT2D", "IRFFT3D",
        # training ops (resource inputs: tfcore saves variable updates as AssignVariableOp)
        "ResourceApplyAdagradV2", "ResourceApplyAdam", "ResourceApplyAdamWithAmsgrad",
        "ResourceApplyCenteredRMSProp", "ResourceApplyGradientDescent", "ResourceApplyKerasMomentum",
        "ResourceApplyRMSProp",
        # typed another way when saved (IdentityN, StringFormat: a list; Cast: renamed T -> SrcT)
        "IdentityN", "StringFormat", "Cast",
        # not saved in graphs (sparse serialisation, strings, summaries)
        "SerializeManySparse", "SerializeSparse", "SparseTensorDenseMatMul", "Substr", "WriteSummary",
    }
    missing = sorted(name for name, spec in TF_OPS.items()
                     if REGISTRY[name].tf_input_types is None and spec["input_types"]
                     and spec["input_types"][0] != "T" and ("T" in spec["attrs"] or spec["input_types"][0])
                     and name not in untyped)
    assert not missing, f"declare Op(tf_input_types=...) for {missing}"
