"""``FuncGraph``: the nodes a tf.function trace records, in program order.

tfcore traces by running the Python function once per signature on placeholder
tensors that carry the call's values (so every Keras/optimizer code path that
works eagerly also traces), while ``ops.registry.execute`` and the Variable hooks
report each step here. The graph therefore knows, for every tensor it saw, where
the value comes from: a placeholder (function input), a node output, a variable
read (captured by handle: replay reads the variable's value at that point), a
capture from an enclosing graph, or a constant captured by value.

Nodes are kept in program order; that order is the control dependency that keeps
stateful nodes (variable assignments, ``tf.print``, random ops, Python calls) in
the order the program wrote them. Replaying the graph with new inputs
(``executor``) gives what eager execution of the function would give.

A *dry* graph (the untaken branch of a ``tf.cond`` while tracing) records its
variable assignments without applying them and does not run its Python calls.

A *dataset-function* graph (``dataset_function=True``: tf.data traces ``map``/``filter``...
functions into one, and its branch/loop graphs inherit the flag) is traced ahead of the
elements it will run on, as TF does: its ``tf.print`` calls do not print at trace time
(every element's replay prints), and user code reading a traced tensor's value into Python
(``.numpy()``, ``bool()``, ``int()``, ``np.asarray``) raises TF's error for symbolic tensors
instead of recording a guard.
"""

import itertools
import os
import sys

import numpy as np

from ..framework import tracing
from ..framework.errors import InvalidArgumentError, OperatorNotAllowedInGraphError, OpError
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..ops.registry import DeferredErrorTensor
from . import graph_names

_uid = itertools.count()

class Node:
    """One recorded step.

    ``kind``: ``'op'`` (a registry op run through ``execute``), ``'read'`` (a variable read),
    ``'assign'`` (a variable assignment), ``'call'`` (a Python callable: tf.print,
    py_function, TensorArray updates, control flow) .

    Residual edges (op nodes only): ``res_out`` lists ``(name, slot)`` for the arrays the op's kernel
    saves for its gradient (``Residuals``: Conv2D's im2col columns), ``res_in`` lists ``(attr, slot)``
    for the attrs of a gradient op that take them (``Op.residual_attrs``). They are not tensors: they
    stay out of ``inputs``/``outputs`` (so ``get_operations`` and SavedModel export never see them),
    and a replay passes each execution's arrays from the producer to the consumer (None when that
    execution saved none: the consumer then recomputes, as without the edge).
    """

    __slots__ = ("kind", "op", "inputs", "outputs", "attrs", "target", "stateful", "name", "device",
                 "res_in", "res_out")

    def __init__(self, kind, op, inputs, outputs, attrs=None, target=None, stateful=False, name=None,
                 device=None, res_in=(), res_out=()):
        self.kind = kind
        self.op = op            # Op (kind 'op') or callable (kind 'call')
        self.inputs = inputs    # slot indices
        self.outputs = outputs  # slot indices
        self.attrs = attrs
        self.target = target    # the Variable of 'read'/'assign'
        self.stateful = stateful
        self.name = name
        self.device = device
        self.res_in = res_in    # ((attr name, slot), ...): residual arrays this op takes as attrs
        self.res_out = res_out  # ((name, slot), ...): residual arrays this op's kernel saves

    @property
    def type(self):
        if self.kind == "op":
            return self.op.name
        return {"read": "ReadVariableOp", "assign": "AssignVariableOp"}.get(self.kind, self.name)


class Operation:
    """A read-only view of a node, as ``graph.get_operations()`` gives (``op.type``, ``op.name``)."""

    def __init__(self, graph, node, index):
        self.graph = graph
        self._node = node
        self.type = node.type
        self.name = self.type if index == 0 else f"{self.type}_{index}"

    @property
    def inputs(self):
        return [self.graph._slot_tensor(s) for s in self._node.inputs]

    @property
    def outputs(self):
        return [self.graph._slot_tensor(s) for s in self._node.outputs]

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"


class SymbolicTensorInfo:
    """What ``ConcreteFunction.graph.inputs/outputs`` list: name, dtype and shape of a slot."""

    def __init__(self, name, dtype, shape):
        self.name = name
        self.dtype = dtype
        self.shape = shape

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


class _TraceSpec:
    """What a finished graph keeps of a trace-time tensor: dtype, shape and device (not the values)."""

    __slots__ = ("_dtype", "shape", "_device")

    def __init__(self, t):
        self._dtype = t._dtype
        self.shape = TensorShape(list(t._array.shape))
        self._device = t._device

    @property
    def dtype(self):
        return self._dtype


_graph_def_exporter = None  # set by tfcore.saving (GraphDef export reuses the SavedModel FunctionDef writer)


def register_graph_def_exporter(fn):
    """Installs ``fn(graph) -> GraphDef`` behind ``FuncGraph.as_graph_def`` (tfcore.saving does)."""
    global _graph_def_exporter
    _graph_def_exporter = fn


class FuncGraph:
    """The graph of one trace (or of a control-flow branch/body inside one)."""

    def __init__(self, name, outer=None, dry=False, variable_policy=None, dataset_function=False):
        self.name = name
        self.outer = outer              # enclosing graph (branches and loop bodies)
        self.dry = dry or (outer is not None and outer.dry)
        self.dataset_function = dataset_function or (outer is not None and outer.dataset_function)
        self.nodes = []
        self.slot_values = []           # trace-time value of each slot (kept alive: ids stay unique)
        self._ids = {}                  # id(value) -> slot
        self._aliases = []              # implicit device copies named by their source's slot (kept alive)
        self._residual_ids = {}         # id(saved array) -> slot, for the residual edges (Node.res_out)
        self.placeholders = []          # input slots, in flat-argument order
        self.constants = {}             # slot -> value captured by value
        self.captures = []              # (outer slot, inner slot): values from the enclosing graph
        self.outputs = []               # output slots
        self.output_structure = None
        self.variables_created = []
        self._variable_policy = variable_policy if variable_policy is not None else (
            outer._variable_policy if outer is not None else None)
        self._overlay = {} if self.dry else None   # dry graphs: Variable -> value assigned here
        self.uid = next(_uid)
        self.children = []              # branch and loop-body graphs traced inside this one
        self._placeholder_names = {}    # input slot -> the argument's name (TF's placeholder op name)
        self._created_constants = {}    # id(tensor) -> (order, tensor): tf.constant values made while tracing
        self.input_names = None         # placeholder names an input_signature's TensorSpecs give (or None)
        self.input_shapes = None        # static shapes of the placeholders (None dims where the signature relaxes)
        # True for a re-run of a signature already traced (a graph specialised to other static shapes or
        # Python-read values): TF traced the Python function once, so Python ``print`` stays silent here.
        self.repeats_trace = outer is not None and outer.repeats_trace
        if outer is not None:
            outer.children.append(self)

    def release_values(self):
        """After tracing: drop the trace's intermediate values (constants stay), here and in sub-graphs."""
        for i, v in enumerate(self.slot_values):
            if isinstance(v, Tensor) and i not in self.constants:
                self.slot_values[i] = _TraceSpec(v)
        for s in self._residual_ids.values():
            self.slot_values[s] = None  # the trace's saved arrays (no tensors: nothing to describe)
        self._ids = {}
        self._residual_ids = {}
        self._aliases = []
        self._overlay = None
        self._created_constants = {}
        for g in self.children:
            g.release_values()

    # -- slots ---------------------------------------------------------------------------------------
    def _new_slot(self, value):
        s = len(self.slot_values)
        self.slot_values.append(value)
        if value is not None:
            self._ids[id(value)] = s
        return s

    def knows(self, value):
        """True when ``value`` is computed inside this graph or an enclosing one (not a constant)."""
        g = self
        while g is not None:
            s = g._ids.get(id(value))
            if s is not None and s not in g.constants:
                return True
            g = g.outer
        return False

    def slot_of(self, value):
        """The slot holding ``value``: known here, captured from an enclosing graph, or a constant."""
        s = self._ids.get(id(value))
        if s is not None:
            return s
        if self.outer is not None and self.outer.knows(value):
            outer_slot = self.outer.slot_of(value)
            s = self._new_slot(value)
            self.captures.append((outer_slot, s))
            return s
        if isinstance(value, DeferredErrorTensor):  # a failed op's result reaches the graph: TF would run it
            value._raise()
        s = self._new_slot(value)
        self.constants[s] = value
        return s

    def _alias(self, copy, original):
        self._ids[id(copy)] = self.slot_of(original)
        self._aliases.append(copy)

    def add_placeholder(self, value, name=None):
        """A function input; ``name`` (the argument's name) names it as TF names its placeholder op."""
        s = self._new_slot(value)
        self.placeholders.append(s)
        if name is not None:
            self._placeholder_names[s] = name
        return s

    # -- TF's graph form of a trace-time tensor ------------------------------------------------------------
    def tensor_names(self):
        """``{slot: 'name:k'}`` for this graph's placeholders and op/call/read outputs, named as TF's graph
        names them: placeholders after their arguments (``a``, ``xs_1``, ``args_0``), ops after TF's Python-level
        op names (:data:`graph_names.PYTHON_OP_NAMES`: ``a + b`` is ``add``) or their type, made unique
        case-insensitively in creation order (``add``, ``add_1``, ``Add_2``), as ``tf.Graph.unique_name``."""
        return self._names_in_use()[0]

    def _names_in_use(self):
        used = {}
        names = {}
        given = self.input_names or ()
        for i, s in enumerate(self.placeholders):
            name = given[i] if i < len(given) and given[i] else self._placeholder_names.get(s, f"args_{i}")
            names[s] = graph_names.unique(used, name) + ":0"
        for node in self.nodes:
            if not node.outputs:
                continue
            base = graph_names.unique(used, graph_names.python_op_name(node))
            for k, s in enumerate(node.outputs):
                names.setdefault(s, f"{base}:{k}")
        return names, used

    def _constant_created(self, t):
        """``tf.constant`` made ``t`` while this graph traced: TF's graph has a ``Const`` op for it."""
        self._created_constants.setdefault(id(t), (len(self._created_constants), t))

    def static_shapes(self):
        """``{slot: TensorShape}``: the static shape TF's graph would give each placeholder and op output.

        Placeholders have the trace signature's shapes (None where ``input_signature`` or
        ``reduce_retracing`` relaxes a dimension); an op's output keeps the trace value's shape when its inputs'
        shapes are all static, follows broadcasting for an element-wise op, and otherwise has unknown
        dimensions (of the value's rank; unknown rank when an input's rank is unknown): tfcore runs the trace
        on values and has no shape functions, so only those rules are known."""
        shapes = {}
        given = self.input_shapes
        for i, s in enumerate(self.placeholders):
            shapes[s] = given[i] if given is not None and i < len(given) else _value_shape(self.slot_values[s])
        for node in self.nodes:
            if not node.outputs:
                continue
            values = [_value_shape(self.slot_values[s]) for s in node.inputs]
            ins = [shapes.get(s, v) for s, v in zip(node.inputs, values)]
            for s in node.outputs:
                shapes[s] = graph_names.output_shape(ins, values, _value_shape(self.slot_values[s]), node.type,
                                                     node.attrs)
        return shapes

    def graph_form(self, value, as_repr):
        """TF's text of the symbolic tensor ``value`` stands for here (``Tensor("a:0", shape=(), dtype=int32)``,
        or ``<tf.Tensor 'a:0' shape=() dtype=int32>`` with ``as_repr``), or None when ``value`` is not a tensor
        computed in this graph or an enclosing one (a captured eager tensor prints its value, as in TF)."""
        g = self
        while g is not None:
            s = g._ids.get(id(value))
            if s is not None and s not in g.constants and s not in dict(g.captures).values():
                name = g.tensor_names().get(s)
                if name is not None:
                    return graph_names.tensor_text(name, g.static_shapes()[s], value._dtype, as_repr)
            made = g._created_constants.get(id(value))
            if made is not None:  # named after the ops (only other Const names can collide with it)
                used = g._names_in_use()[1]
                for _ in range(made[0]):
                    graph_names.unique(used, "Const")
                name = graph_names.unique(used, "Const") + ":0"
                return graph_names.tensor_text(name, _value_shape(value), value._dtype, as_repr)
            g = g.outer
        return None

    def _slot_tensor(self, s):
        v = self.slot_values[s]
        if isinstance(v, Tensor):
            return SymbolicTensorInfo(f"t{s}", v.dtype, TensorShape(list(v._array.shape)))
        if isinstance(v, _TraceSpec):
            return SymbolicTensorInfo(f"t{s}", v.dtype, v.shape)
        return v

    # -- recording hooks (called through framework.tracing) ------------------------------------------
    def _record_op(self, op, inputs, outputs, attrs, saved=None):
        ins = [self.slot_of(x) for x in inputs]
        outs = outputs if type(outputs) is tuple else (outputs,)
        out_slots = [self._new_slot(o) for o in outs]
        res_in = ()
        if attrs and op.residual_attrs:
            # One execution's arrays (e.g. im2col columns) are never kept in the graph: an array an earlier
            # node of this graph saved becomes a residual edge (replays pass their own arrays); any other
            # (from another graph, or made by hand) is dropped and replays recompute it.
            kept = {}
            for k, v in attrs.items():
                if k in op.residual_attrs:
                    s = self._residual_ids.get(id(v))
                    if s is not None:
                        res_in += ((k, s),)
                else:
                    kept[k] = v
            attrs = kept
        res_out = ()
        if saved:
            res_out = tuple((k, self._new_residual_slot(v)) for k, v in saved.items())
        self.nodes.append(Node("op", op, ins, out_slots, dict(attrs) if attrs else None, stateful=op.stateful,
                               res_in=res_in, res_out=res_out))

    def _new_residual_slot(self, array):
        s = len(self.slot_values)
        self.slot_values.append(array)  # kept alive while tracing: the id stays unique
        self._residual_ids[id(array)] = s
        return s

    def _read_variable(self, var):
        g = self
        value = None
        while g is not None:
            hit = g._overlay.get(id(var)) if g._overlay is not None else None
            if hit is not None:
                value = hit[1]
                break
            g = g.outer
        if value is None:
            value = var._value
        # Each read is a node; the value's id now names this read's slot (tapes track the same object).
        s = self._new_slot(value)
        self.nodes.append(Node("read", None, [], [s], target=var))
        return value

    def _write_variable(self, var, value):
        s = self.slot_of(value)
        self.nodes.append(Node("assign", None, [s], [], target=var, stateful=True))
        if self.dry:
            self._overlay[id(var)] = (var, value)
            return True
        return False

    def _variable_created(self, var):
        if self._variable_policy is not None:
            self._variable_policy(var)
        self.variables_created.append(var)

    def _creating_variables(self):
        """Variables are about to be created with recording suspended (``tracing.creating_variables``)."""
        if self._variable_policy is not None:
            self._variable_policy(None)

    def _record_call(self, fn, inputs, stateful, dry_result, name):
        ins = [self.slot_of(x) for x in inputs]
        if self.dry and stateful:  # a pure call (TensorArray update) still runs: later nodes need its value
            result = dry_result() if dry_result is not None else None
        elif self.dataset_function and name == "PrintV2":  # prints when elements replay the graph
            result = None
        elif self.dataset_function and name == "EagerPyFunc":
            # runs once while tracing, to give later ops its result; failing on the trace's element is an
            # op error (as TF's per-element one), so tf.data traces again with a real element
            with tracing.suspended():
                try:
                    result = fn(*inputs)
                except OpError:
                    raise
                except Exception as e:  # noqa: BLE001 - re-raised as the op error TF's py_function gives
                    raise InvalidArgumentError(None, None, str(e)) from e
        else:
            with tracing.suspended():
                result = fn(*inputs)
        single = result is not None and not isinstance(result, list | tuple)
        outs = [] if result is None else ([result] if single else list(result))
        out_slots = [self._new_slot(o) for o in outs]
        self.nodes.append(Node("call", fn, ins, out_slots, attrs={"single": single, "none": result is None},
                               stateful=stateful, name=name))
        return result

    def _host_read(self, t, kind="numpy"):
        if not self.knows(t):
            return
        if self.dataset_function and _read_by_user_code():
            _raise_symbolic_read(t, kind)
        import traceback

        where = ""
        for frame in reversed(traceback.extract_stack(limit=30)[:-3]):
            if "/tfcore/" not in frame.filename:
                where = f"{frame.filename}:{frame.lineno}"
                break
        value = np.array(t._device.backend.to_numpy(t._array), copy=True)
        self.nodes.append(Node("guard", None, [self.slot_of(t)], [], attrs={"value": value, "where": where},
                               stateful=True, name="Guard"))

    # -- inspection (TF's Graph API subset) -------------------------------------------------------------
    def as_graph_def(self):
        """This graph as TF's ``GraphDef`` protobuf (``tensorboard``'s compiled protos; needs
        ``pip install 'tfcore[tensorboard]'``): placeholders, nodes and output ``Identity`` nodes."""
        if _graph_def_exporter is None:
            raise NotImplementedError("FuncGraph.as_graph_def needs tfcore.saving (import tfcore)")
        return _graph_def_exporter(self)

    def get_operations(self):
        counts = {}
        ops = []
        for n in self.nodes:
            t = n.type
            ops.append(Operation(self, n, counts.get(t, 0)))
            counts[t] = counts.get(t, 0) + 1
        return ops

    @property
    def inputs(self):
        return [self._slot_tensor(s) for s in self.placeholders]

    @property
    def structured_outputs(self):
        return self.output_structure

    @property
    def variables(self):
        seen = {}
        for n in self.nodes:
            if n.target is not None:
                seen.setdefault(id(n.target), n.target)
        return list(seen.values())

    def __repr__(self):
        return f"<FuncGraph {self.name}: {len(self.nodes)} nodes>"


def _value_shape(v):
    if isinstance(v, Tensor):
        return TensorShape._from_tuple(v._array.shape)
    if isinstance(v, _TraceSpec):
        return v.shape
    if isinstance(v, np.ndarray | np.generic):
        return TensorShape._from_tuple(v.shape)
    return TensorShape(None)  # a Python value or a residual array: no static shape


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _read_by_user_code():
    """True when the code that read a tensor's value (the first frame outside the Tensor class and the
    tracing hooks) is not tfcore's own: library code (ops reading a host argument) keeps its guards."""
    f = sys._getframe(2)
    framework = _PACKAGE_DIR + "framework" + os.sep
    while f is not None and f.f_code.co_filename.startswith(framework):
        f = f.f_back
    return f is None or not f.f_code.co_filename.startswith(_PACKAGE_DIR)


_SYMBOLIC_READ = {
    "numpy": (AttributeError, "'SymbolicTensor' object has no attribute 'numpy'"),
    "array": (NotImplementedError, "Cannot convert a symbolic tf.Tensor to a numpy array"),
    "bool": (OperatorNotAllowedInGraphError, "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"),
    "scalar": (OperatorNotAllowedInGraphError, "Converting a symbolic `tf.Tensor` to a Python number is not "
                                                "allowed"),
}


def _raise_symbolic_read(t, kind):
    cls, what = _SYMBOLIC_READ.get(kind, _SYMBOLIC_READ["numpy"])
    raise cls(f"{what}: inside a tf.data function (Dataset.map, filter, scan, reduce...) elements are "
              f"symbolic graph tensors (here shape={list(t._array.shape)}, dtype={t._dtype.name}); the function is "
              "traced once into a graph, as in TensorFlow, so its Python code cannot see element values. Use "
              "TensorFlow ops (AutoGraph converts `if`/`while` on tensors), or wrap Python code that needs values "
              "in tf.py_function / tf.numpy_function, which run it on every element.")
