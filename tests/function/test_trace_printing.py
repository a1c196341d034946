"""What Python code sees of tensors while a tf.function traces (guide/function, "Tracing with ...").

TensorFlow 2.21 traces on symbolic tensors and its AutoGraph leaves ``print`` alone, so ``print(x)`` inside a
tf.function runs once per trace and shows TF's graph tensor: ``Tensor("x:0", shape=(None,), dtype=int32)``
(the placeholder named after the argument, an op output after its op, the trace's static shape). Every
expected text here is what TF 2.21 printed for the same program. On the code before this change these tests
fail: the trace printed values (``Tracing with 1``), ``print`` of a tensor became a ``tf.print`` node that
printed on every call (so string tensors seemed to retrace on every value), relaxed signatures re-ran
``print`` once per static shape, and ConcreteFunction texts carried the function's name.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore.function import graph_names


def test_print_inside_a_trace_shows_the_placeholder_once_per_trace(capsys):
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a

    assert double(tf.constant(1)).numpy() == 2
    assert double(tf.constant(1.1)).numpy() == pytest.approx(2.2)
    assert double(tf.constant("a")).numpy() == b"aa"
    assert double(tf.constant("b")).numpy() == b"bb"  # a string tensor: keyed by its spec, no new trace
    assert double(tf.constant(2)).numpy() == 4
    assert capsys.readouterr().out.splitlines() == [
        'Tracing with Tensor("a:0", shape=(), dtype=int32)',
        'Tracing with Tensor("a:0", shape=(), dtype=float32)',
        'Tracing with Tensor("a:0", shape=(), dtype=string)',
    ]
    assert double.experimental_get_tracing_count() == 3
    assert "double(a)" not in double.pretty_printed_concrete_signatures()


def test_pretty_printed_concrete_signatures_is_tf_texts_joined():
    @tf.function
    def double(a):
        return a + a

    double(tf.constant(1))
    double(tf.constant("a"))
    assert double.pretty_printed_concrete_signatures() == (
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "Captures:\n"
        "  None\n"
        "\n"
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Captures:\n"
        "  None")
    assert double.pretty_printed_concrete_signatures(verbose=False) == (
        "(a: TensorSpec(shape=(), dtype=tf.int32, name=None)) -> TensorSpec(shape=(), dtype=tf.int32, name=None)\n"
        "(a: TensorSpec(shape=(), dtype=tf.string, name=None)) -> TensorSpec(shape=(), dtype=tf.string, name=None)")


def test_input_signature_and_reduce_retracing_print_the_relaxed_shape_once(capsys):
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def g(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    np.testing.assert_array_equal(g(tf.constant([1, 2])).numpy(), [4, 1])
    np.testing.assert_array_equal(g(tf.constant([1, 2, 3, 4, 5])).numpy(), [4, 1, 10, 2, 16])

    @tf.function(reduce_retracing=True)
    def h(x):
        print("Tracing with", x, x + 1)
        return x

    for n in (3, 5, 7, 9):
        np.testing.assert_array_equal(h(tf.range(n)).numpy(), np.arange(n))
    assert capsys.readouterr().out.splitlines() == [
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)',
        'Tracing with Tensor("x:0", shape=(3,), dtype=int32) Tensor("add:0", shape=(3,), dtype=int32)',
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32) Tensor("add:0", shape=(None,), dtype=int32)',
    ]
    assert h.experimental_get_tracing_count() == 2


def test_op_outputs_are_named_as_tf_names_them():
    seen = []

    @tf.function
    def f(a, b):
        c = a + b
        seen.extend([str(c), repr(c), f"{c}"])
        seen.extend(str(t) for t in (a + b, a * b, a - b, a / b, a % b, a ** b, -a, tf.tanh(a), tf.reduce_sum(a),
                                     a > b, tf.constant(3.0), tf.cast(a, tf.int32), tf.multiply(a, b)))
        return c

    f(tf.constant(1.0), tf.constant(2.0))
    assert seen == [
        'Tensor("add:0", shape=(), dtype=float32)', "<tf.Tensor 'add:0' shape=() dtype=float32>",
        'Tensor("add:0", shape=(), dtype=float32)',
        'Tensor("add_1:0", shape=(), dtype=float32)', 'Tensor("mul:0", shape=(), dtype=float32)',
        'Tensor("sub:0", shape=(), dtype=float32)', 'Tensor("truediv:0", shape=(), dtype=float32)',
        'Tensor("mod:0", shape=(), dtype=float32)', 'Tensor("pow:0", shape=(), dtype=float32)',
        'Tensor("Neg:0", shape=(), dtype=float32)', 'Tensor("Tanh:0", shape=(), dtype=float32)',
        'Tensor("Sum:0", shape=(), dtype=float32)', 'Tensor("Greater:0", shape=(), dtype=bool)',
        'Tensor("Const:0", shape=(), dtype=float32)', 'Tensor("Cast:0", shape=(), dtype=int32)',
        # TF names tf.multiply's op "Mul_1" (its own name scope); tfcore records one op for both spellings
        'Tensor("mul_1:0", shape=(), dtype=float32)',
    ]


def test_a_format_spec_on_a_trace_tensor_raises_tf_type_error():
    seen = []

    @tf.function
    def f(x):
        seen.append(f"{x}|{x!r}|{x:}")
        with pytest.raises(TypeError, match="unsupported format string passed to SymbolicTensor.__format__"):
            f"{x:.3f}"
        return x

    f(tf.constant(1.5))
    assert seen == ['Tensor("x:0", shape=(), dtype=float32)|<tf.Tensor \'x:0\' shape=() dtype=float32>|'
                    'Tensor("x:0", shape=(), dtype=float32)']  # TF 2.21's texts
    assert f"{tf.constant(1.5):.3f}" == "1.500"  # an eager tensor formats its value


def test_unique_names_ignore_case_as_tf_graph_unique_name():
    used = {}
    assert [graph_names.unique(used, n) for n in ("add", "add", "Add", "mul", "Mul", "add")] == [
        "add", "add_1", "Add_2", "mul", "Mul_1", "add_3"]


def test_placeholders_are_named_after_arguments_and_signature_names():
    seen = []

    @tf.function
    def f(a, xs, d=None, *args, **kw):
        seen.append(f"{a} {xs} {d} {args} {kw}")
        return a

    f(tf.constant(1.0), [tf.constant(1.0), tf.constant(2.0)], {"k": tf.constant(3)}, tf.constant(4),
      kk=tf.constant(5))

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="inp")])
    def h(x):
        seen.append(str(x))
        return x

    h(tf.zeros([2, 3]))
    assert seen == [
        "Tensor(\"a:0\", shape=(), dtype=float32) [<tf.Tensor 'xs:0' shape=() dtype=float32>, "
        "<tf.Tensor 'xs_1:0' shape=() dtype=float32>] {'k': <tf.Tensor 'd:0' shape=() dtype=int32>} "
        "(<tf.Tensor 'args_0:0' shape=() dtype=int32>,) {'kk': <tf.Tensor 'kk:0' shape=() dtype=int32>}",
        'Tensor("inp:0", shape=(None, 3), dtype=float32)',
    ]


def test_eager_and_captured_tensors_and_variables_print_as_in_tf():
    c = tf.constant(5)
    v = tf.Variable(1.0)
    seen = []

    @tf.function
    def f(x):
        seen.extend([str(c), repr(v), str(v + 1.0)])
        return x

    f(tf.constant(1))
    assert seen == ["tf.Tensor(5, shape=(), dtype=int32)", "<tf.Variable 'Variable:0' shape=() dtype=float32>",
                    'Tensor("add:0", shape=(), dtype=float32)']
    assert str(c) == "tf.Tensor(5, shape=(), dtype=int32)"  # eager tensors print their values, as before
    assert repr(c) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"


def test_keras_variable_prints_without_its_value_inside_a_trace():
    layer = tf.keras.layers.Dense(2, name="probe")
    layer.build((None, 3))
    seen = []

    @tf.function
    def f(x):
        seen.append(repr(layer.kernel))
        return layer(x)

    f(tf.zeros([4, 3]))
    assert seen == ["<Variable path=probe/kernel, shape=(3, 2), dtype=float32>"]  # TF 2.21's text
    assert repr(layer.kernel).startswith("<Variable path=probe/kernel, shape=(3, 2), dtype=float32, value=[[")


def test_dataset_map_function_prints_its_args_placeholder(capsys):
    ds = tf.data.Dataset.range(3).map(lambda x: (print("map", x), x * 2)[1])
    assert list(ds.as_numpy_iterator()) == [0, 2, 4]
    assert capsys.readouterr().out.splitlines() == ['map Tensor("args_0:0", shape=(), dtype=int64)']


def test_leaked_tensor_is_named_as_tf_names_it():
    leaked = []

    @tf.function
    def leaky(a):
        leaked.append(a + 1)
        return a + 2

    assert leaky(tf.constant(1)).numpy() == 3
    assert repr(leaked[0]) == "<tf.Tensor 'add:0' shape=() dtype=int32>"


def test_unknown_rank_signature_prints_and_calls_as_tf(capsys):
    @tf.function
    def pw(a, b):
        print("tr", a)
        return a ** b

    sq = pw.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert str(sq) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[2]\n"
        "Output Type:\n"
        "  TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None")
    assert repr(sq).startswith(
        "<ConcreteFunction (a: TensorSpec(shape=<unknown>, dtype=tf.float32, name=None), b: Literal[2]) -> "
        "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None) at 0x")
    assert sq(tf.constant(3.0)).numpy() == 9.0
    np.testing.assert_allclose(sq(tf.constant([1.0, 2.0])).numpy(), [1.0, 4.0])  # another rank, b left out
    np.testing.assert_allclose(pw(tf.constant([[2.0]]), 2).numpy(), [[4.0]])  # the unknown rank serves it
    assert pw.experimental_get_tracing_count() == 1
    assert capsys.readouterr().out.splitlines() == ['tr Tensor("a:0", dtype=float32)']


def test_graph_def_nodes_are_named_as_tf_names_them():
    @tf.function
    def double(a):
        return a + a

    graph = double.get_concrete_function(tf.constant("a")).graph
    assert [(list(n.input), n.name) for n in graph.as_graph_def().node] == [
        ([], "a"), (["a", "a"], "add"), (["add"], "Identity")]


def test_python_structures_in_signatures_print_as_tf_trace_types():
    @tf.function
    def f(x, t, ts):
        return ts

    cf = f.get_concrete_function([1, -1], (2, "a"), [tf.constant(1.0), (tf.constant(2),)])
    ts = ("List[TensorSpec(shape=(), dtype=tf.float32, name=None), "
          "Tuple[TensorSpec(shape=(), dtype=tf.int32, name=None)]]")
    assert str(cf) == (
        "ConcreteFunction Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): List[Literal[1], Literal[-1]]\n"
        "  t (POSITIONAL_OR_KEYWORD): Tuple[Literal[2], Literal['a']]\n"
        f"  ts (POSITIONAL_OR_KEYWORD): {ts}\n"
        "Output Type:\n"
        f"  {ts}\n"
        "Captures:\n"
        "  None")
    assert repr(cf).startswith(
        f"<ConcreteFunction (x: List[Literal[1], Literal[-1]], t: Tuple[Literal[2], Literal['a']], ts: {ts}) "
        f"-> {ts} at")

    @tf.function
    def g():
        return None

    assert repr(g.get_concrete_function()).startswith("<ConcreteFunction () -> Literal[None] at 0x")


def test_reduce_retracing_relaxes_a_new_rank_to_an_unknown_rank(capsys):
    @tf.function(reduce_retracing=True)
    def k(x):
        print(x, x + 1)
        return x + 1

    assert k(tf.constant([1, 2])).numpy().tolist() == [2, 3]
    assert k(tf.constant([1, 2, 3])).numpy().tolist() == [2, 3, 4]
    assert k(tf.constant([[1]])).numpy().tolist() == [[2]]
    assert k(tf.constant(5)).numpy() == 6  # served by the unknown-rank trace
    assert k.experimental_get_tracing_count() == 3
    assert capsys.readouterr().out.splitlines() == [  # TF 2.21's lines
        'Tensor("x:0", shape=(2,), dtype=int32) Tensor("add:0", shape=(2,), dtype=int32)',
        'Tensor("x:0", shape=(None,), dtype=int32) Tensor("add:0", shape=(None,), dtype=int32)',
        'Tensor("x:0", dtype=int32) Tensor("add:0", dtype=int32)',
    ]


def test_static_shapes_follow_tf_shape_functions_for_shape_and_matmul():
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        seen.extend(str(t) for t in (tf.shape(x), tf.reduce_sum(x, axis=1), tf.matmul(x, x, transpose_a=True),
                                     tf.nn.relu(x), x * tf.ones([3])))
        return x

    f(tf.zeros([2, 3]))
    assert seen == [  # TF 2.21's static shapes
        'Tensor("Shape:0", shape=(2,), dtype=int32)', 'Tensor("Sum:0", shape=(None,), dtype=float32)',
        'Tensor("MatMul:0", shape=(3, 3), dtype=float32)', 'Tensor("Relu:0", shape=(None, 3), dtype=float32)',
        'Tensor("mul:0", shape=(None, 3), dtype=float32)']
