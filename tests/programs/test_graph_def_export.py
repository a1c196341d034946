"""``ConcreteFunction.graph.as_graph_def()`` (guide/intro_to_graphs): a traced graph as TF's ``GraphDef``.

TF 2.21 lays a FuncGraph out as one ``Placeholder`` per input named after the Python parameter (with
``dtype`` and ``shape`` attributes), the function's nodes with inputs written ``node`` / ``node:i``, and
one ``Identity`` node per output. These tests fail on the code before ``FuncGraph.as_graph_def`` existed.
"""

import pytest

import tfcore as tf

pytest.importorskip("tensorboard", reason="GraphDef export uses tensorboard's compiled TF protos")


def _nodes(gd):
    return [(n.name, n.op, list(n.input)) for n in gd.node]


def test_as_graph_def_has_named_placeholders_wired_nodes_and_output_identities():
    @tf.function
    def f(x, y):
        return tf.matmul(x, y) + 1.0, x

    gd = f.get_concrete_function(tf.TensorSpec([2, 3]), tf.TensorSpec([3, 2])).graph.as_graph_def()
    assert type(gd).__name__ == "GraphDef"
    nodes = _nodes(gd)
    assert nodes[:2] == [("x", "Placeholder", []), ("y", "Placeholder", [])]
    x = gd.node[0]
    assert x.attr["dtype"].type == tf.float32.as_datatype_enum
    assert [d.size for d in x.attr["shape"].shape.dim] == [2, 3]
    by_name = {n.name: n for n in gd.node}
    matmul = next(n for n in gd.node if "MatMul" in n.op)
    assert list(matmul.input) == ["x", "y"]
    add = next(n for n in gd.node if n.op == "AddV2")
    assert add.input[0] == matmul.name and by_name[add.input[1]].op == "Const"
    assert nodes[-2:] == [("Identity", "Identity", [add.name]), ("Identity_1", "Identity", ["x"])]


def test_as_graph_def_of_a_function_with_autograph_control_flow_shows_the_branch_node():
    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    gd = tf.function(simple_relu).get_concrete_function(tf.constant(1)).graph.as_graph_def()
    ops = [n.op for n in gd.node]
    assert ops[0] == "Placeholder" and gd.node[0].name == "x"
    assert "Greater" in ops and ops[-1] == "Identity"
    greater = next(n for n in gd.node if n.op == "Greater")
    assert greater.input[0] == "x"


def test_as_graph_def_names_captured_variables_as_resource_inputs():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return x * v

    gd = f.get_concrete_function(tf.constant(1.0)).graph.as_graph_def()
    placeholders = [n for n in gd.node if n.op == "Placeholder"]
    assert [p.attr["dtype"].type for p in placeholders] == [tf.float32.as_datatype_enum, 20]  # DT_RESOURCE
    read = next(n for n in gd.node if n.op == "ReadVariableOp")
    assert list(read.input) == [placeholders[1].name]
