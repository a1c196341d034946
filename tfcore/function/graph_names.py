"""TF's names and static shapes for the tensors of a trace: what ``print(x)`` shows inside a tf.function.

TensorFlow traces a tf.function on symbolic tensors, so Python code that prints a tensor while tracing sees
``Tensor("a:0", shape=(), dtype=int32)``: the placeholder named after the argument, an op's output named
after the op (``add:0``, ``add_1:0``), with the graph's static shape (None where ``input_signature`` or
``reduce_retracing`` relaxes a dimension). tfcore traces on values; :meth:`FuncGraph.graph_form` uses these
rules to print a trace-time tensor as TF's graph tensor. Nothing here runs on the eager path.
"""

from ..framework.tensor_shape import TensorShape

# The names TF's Python API gives the ops it creates for Python operators (``math_ops.binary_op_wrapper``'s
# name scopes: ``a + b`` is an AddV2 op named ``add``); other ops are named after their type, as an op made
# without a name is (``tf.tanh`` -> ``Tanh``, ``tf.matmul`` -> ``MatMul``). TF names ``tf.add(a, b)`` ``Add``:
# tfcore records one op for both spellings and names it as the operator, the more common one in programs.
PYTHON_OP_NAMES = {
    "AddV2": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "truediv", "FloorDiv": "floordiv",
    "FloorMod": "mod", "Pow": "pow", "BatchMatMulV2": "MatMul", "While": "while", "If": "cond",
}


def python_op_name(node):
    """The base name TF's graph gives the op of ``node`` (a FuncGraph node)."""
    t = node.type
    return PYTHON_OP_NAMES.get(t, t)


def unique(used, name):
    """``tf.Graph.unique_name``: ``name``, or ``name_N`` with the first free N; names compare without case
    (``add``, ``add_1``, then ``Add_2``). ``used`` maps lower-cased names in use to their next index."""
    key = name.lower()
    i = used.get(key, 0)
    if i > 0:
        base = key
        while key in used:
            key = f"{base}_{i}"
            i += 1
        used[base] = i
        name = f"{name}_{i - 1}"
    used[key] = 1
    return name


def _broadcast(shapes):
    """The static shape element-wise broadcasting gives ``shapes`` (TensorShapes of known rank)."""
    rank = max(len(s) for s in shapes)
    dims = []
    for pos in range(rank):
        known, unknown = None, False
        for s in shapes:
            i = pos - (rank - len(s))
            if i < 0:
                continue
            d = s.as_list()[i]
            if d is None:
                unknown = True
            elif d != 1 and known is None:
                known = d
        dims.append(known if known is not None else (None if unknown else 1))
    return TensorShape(dims)


def _shape_rule(ins, attrs, value_shape):
    return TensorShape([ins[0].rank])  # tf.shape(x): one element per dimension


def _matmul_rule(ins, attrs, value_shape):
    if len(ins) != 2 or ins[0].rank < 2 or ins[1].rank < 2:
        return None
    a, b = ins[0].as_list(), ins[1].as_list()
    rows = a[-1] if attrs.get("transpose_a") or attrs.get("adjoint_a") else a[-2]
    cols = b[-2] if attrs.get("transpose_b") or attrs.get("adjoint_b") else b[-1]
    batch = value_shape.as_list()[:-2]
    if a[:-2] or b[:-2]:
        batch = _broadcast([TensorShape(a[:-2]), TensorShape(b[:-2])]).as_list()
    return TensorShape(batch + [rows, cols])


# Ops whose output shape TF's shape functions know from the inputs' static shapes beyond broadcasting.
_SHAPE_RULES = {"Shape": _shape_rule, "BatchMatMulV2": _matmul_rule, "MatMul": _matmul_rule}


def output_shape(input_shapes, input_values, value_shape, op_type=None, attrs=None):
    """The static shape of an op output whose trace value has ``value_shape``, given its inputs' static
    shapes and their trace values' shapes (see :meth:`FuncGraph.static_shapes`)."""
    if value_shape.rank is None or all(s.is_fully_defined() for s in input_shapes):
        return value_shape
    if any(s.rank is None for s in input_shapes):
        return TensorShape(None)
    rule = _SHAPE_RULES.get(op_type)
    if rule is not None:
        shape = rule(input_shapes, attrs or {}, value_shape)
        if shape is not None and shape.rank == value_shape.rank and shape.is_compatible_with(value_shape):
            return shape
    if all(v.rank is not None for v in input_values) and \
            _broadcast(input_values).as_list() == value_shape.as_list():  # element-wise on these inputs
        b = _broadcast(input_shapes)
        if b.is_compatible_with(value_shape):
            return b
    return TensorShape([None] * value_shape.rank)


def shape_text(shape):
    """TF's ``shape=...`` part of a symbolic tensor's text (empty for an unknown rank, as TF prints)."""
    if shape.rank is None:
        return ""
    dims = shape.as_list()
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def tensor_text(name, shape, dtype, as_repr):
    """``Tensor("add:0", shape=(None,), dtype=int32)`` (str) or ``<tf.Tensor 'add:0' shape=(None,) dtype=int32>``
    (repr); an unknown rank prints no shape in the str form and ``shape=<unknown>`` in the repr, as in TF."""
    if as_repr:
        return f"<tf.Tensor '{name}' shape={shape} dtype={dtype.name}>"
    dims = shape_text(shape)
    return f'Tensor("{name}", {"shape=" + dims + ", " if dims else ""}dtype={dtype.name})'
