"""A traced ``ConcreteFunction`` as TF's ``FunctionDef``, and a ``FunctionDef`` run again after loading.

Saving: every placeholder becomes an input argument, every variable the graph touches a trailing
``DT_RESOURCE`` argument (TF's captured variable handles), constants become ``Const`` nodes,
variable reads/writes ``ReadVariableOp``/``AssignVariableOp``, ``tf.print`` TF's ``StringFormat`` +
``PrintV2`` pair, and every other node the registry op it ran, by its TF name. Attributes are
written as TF ``AttrValue``\\ s and, exactly (float64, tuples, None), as JSON in ``_tfcore_attrs``.
Stateful nodes carry control inputs in program order, as TF's automatic control dependencies.
Graphs with nodes that hold Python code (``tf.py_function``, ``tf.cond``/``tf.while_loop`` bodies)
cannot be saved: a ValueError names the function and the node.

Loading interprets the nodes in order through ``ops.registry.execute`` (so restored functions are
differentiable); an op name the registry does not know is an error. Nothing in the file is code.
"""

import inspect
import json
import math
import sys

import numpy as np

from ..framework import dtypes
from ..framework.errors import DataLossError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..function import graph_names
from ..ops import array_ops, logging_ops
from ..ops.registry import execute, get_op
from .saved_model_protos import pb

_JSON_ATTRS = "_tfcore_attrs"
_EXTRA_INPUTS = "_tfcore_attr_inputs"  # trailing inputs that TF reads and tfcore has as attributes (Op.tf_attr_inputs)

# -- tensors ---------------------------------------------------------------------------------------------
def tensor_proto(value):
    TensorProto = pb("tensor_pb2").TensorProto
    if isinstance(value, Tensor):
        dtype, a = value.dtype, value.numpy()
    else:
        t = convert_to_tensor(value)
        dtype, a = t.dtype, t.numpy()
    p = TensorProto(dtype=dtype.as_datatype_enum)
    for d in np.shape(a):
        p.tensor_shape.dim.add(size=int(d))
    if dtype == dtypes.string:
        p.string_val.extend(x if isinstance(x, bytes) else str(x).encode() for x in np.asarray(a, object).ravel())
    else:
        arr = np.ascontiguousarray(a)
        if dtype.name == "bfloat16":
            arr = arr.view(np.uint16)
        p.tensor_content = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return p


# a constant stored as one value repeated (TF's splat form) may expand to at most this many bytes
MAX_SPLAT_BYTES = 1 << 30


def tensor_from_proto(p):
    """The tensor a graph's ``TensorProto`` holds; its shape is checked against the bytes present first.

    ``DataLossError`` for a negative dimension, ``tensor_content`` of the wrong size, or a repeated-value
    constant that would expand beyond ``MAX_SPLAT_BYTES`` (a few bytes in a file must not allocate terabytes).
    """
    dtype = dtypes.as_dtype(p.dtype)
    shape = [d.size for d in p.tensor_shape.dim]
    if any(d < 0 for d in shape):
        raise DataLossError(f"Constant tensor with invalid shape {shape} ({dtype.name})")
    n = math.prod(shape)
    itemsize = 8 if dtype == dtypes.string else np.dtype(dtype.as_numpy_dtype).itemsize
    if p.tensor_content and len(p.tensor_content) != n * itemsize:
        raise DataLossError(f"Constant tensor of shape {shape} {dtype.name} needs {n * itemsize} bytes, its "
                            f"tensor_content has {len(p.tensor_content)}")
    if not p.tensor_content and n * itemsize > MAX_SPLAT_BYTES:
        raise DataLossError(f"Constant tensor of shape {shape} {dtype.name} would expand to {n * itemsize} bytes "
                            f"from a few stored values (more than the {MAX_SPLAT_BYTES}-byte limit)")
    if dtype == dtypes.string:
        vals = list(p.string_val) or [b""]
        a = np.empty(n, object)
        a[:] = vals if len(vals) == n else vals[:1] * n
        return convert_to_tensor(a.reshape(shape), dtype=dtype)
    np_dtype = np.dtype(np.uint16) if dtype.name == "bfloat16" else np.dtype(dtype.as_numpy_dtype)
    if p.tensor_content:
        a = np.frombuffer(p.tensor_content, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(shape)
    else:
        field = {np.float32: p.float_val, np.float64: p.double_val, np.int64: p.int64_val, np.bool_: p.bool_val}
        vals = list(field.get(np_dtype.type, p.int_val))
        a = np.array(vals if len(vals) == n else (vals[:1] or [0]) * n, np_dtype).reshape(shape)
    if dtype.name == "bfloat16":
        a = a.view(dtype.as_numpy_dtype)
    return convert_to_tensor(a, dtype=dtype)


# -- attrs ------------------------------------------------------------------------------------------------
def _json_attr(value):
    if isinstance(value, dtypes.DType):
        return {"__dtype__": value.name}
    if isinstance(value, TensorShape):
        return {"__shape__": value.as_list() if value.rank is not None else None}
    if isinstance(value, tuple):
        return {"__tuple__": [_json_attr(v) for v in value]}
    if isinstance(value, list):
        return [_json_attr(v) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[_json_attr(k), _json_attr(v)] for k, v in value.items()]}
    if isinstance(value, bytes):
        return {"__bytes__": value.decode("latin-1")}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, slice):  # StridedSlice/Slice keep the Python index they were given (x[1:, ::-2])
        return {"__slice__": [_json_attr(value.start), _json_attr(value.stop), _json_attr(value.step)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ValueError(f"cannot serialize the op attribute {value!r}")


def _from_json_attr(value):
    if isinstance(value, list):
        return [_from_json_attr(v) for v in value]
    if isinstance(value, dict):
        if "__dtype__" in value:
            return dtypes.as_dtype(value["__dtype__"])
        if "__shape__" in value:
            return TensorShape(value["__shape__"])
        if "__tuple__" in value:
            return tuple(_from_json_attr(v) for v in value["__tuple__"])
        if "__dict__" in value:
            return {_from_json_attr(k): _from_json_attr(v) for k, v in value["__dict__"]}
        if "__bytes__" in value:
            return value["__bytes__"].encode("latin-1")
        if "__array__" in value:
            return np.array(value["__array__"], dtype=value["dtype"])
        if "__slice__" in value:
            return slice(*(_from_json_attr(v) for v in value["__slice__"]))
        if "__ellipsis__" in value:
            return Ellipsis
    return value


def _set_attr(attr, value):
    """Fill a TF AttrValue where the value has a natural TF form; False where it has none."""
    if isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        attr.i = value
    elif isinstance(value, float):
        attr.f = value
    elif isinstance(value, str | bytes):
        attr.s = value.encode() if isinstance(value, str) else value
    elif isinstance(value, dtypes.DType):
        attr.type = value.as_datatype_enum
    elif isinstance(value, list | tuple) and value and all(isinstance(v, int) and not isinstance(v, bool)
                                                           for v in value):
        attr.list.i.extend(value)
    elif isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        attr.list.s.extend(v.encode() for v in value)
    elif isinstance(value, list | tuple) and value and all(isinstance(v, float) for v in value):
        attr.list.f.extend(value)
    else:
        return False
    return True


# -- saving -----------------------------------------------------------------------------------------------
def _print_parts(fn):
    """(template pieces, output stream name, summarize, end) of a tf.print node, from its closure."""
    cv = inspect.getclosurevars(fn).nonlocals
    leaves, slots = cv["leaves"], cv["slots"]
    stream = cv["output_stream"]
    if stream is sys.stderr:
        name = "stderr"
    elif stream is sys.stdout:
        name = "stdout"
    elif isinstance(stream, str):
        name = stream
    else:
        raise ValueError("tf.saved_model.save: tf.print to a custom output stream cannot be saved "
                         "(use sys.stdout, sys.stderr or 'file://path')")
    if not all(isinstance(leaves[i], Tensor) or i in slots for i in range(len(leaves))) and \
            any(isinstance(x, list | tuple | dict) for x in cv["inputs"]):
        raise ValueError("tf.saved_model.save: tf.print of nested structures cannot be saved")
    pieces = []
    for i, x in enumerate(leaves):
        pieces.append(None if i in slots else str(x).replace("{", "{{").replace("}", "}}"))
    return pieces, cv["sep"], name, cv["summarize"], cv["end"]


def _is_print(fn):
    return getattr(fn, "__qualname__", "") == "print.<locals>.emit" and \
        getattr(fn, "__module__", "").endswith("ops.logging_ops")


def _slot_dtype(g, slot):
    dtype = getattr(g.slot_values[slot], "dtype", None)
    return dtype.as_datatype_enum if dtype is not None else 0  # DT_INVALID: not a tensor


def function_def(cf, fname, arg_names, display=False):
    """``(FunctionDef, [captured variables])`` of a ConcreteFunction's graph.

    ``display=True`` (``FuncGraph.as_graph_def``: a graph to look at, not to load) writes each node
    that runs Python code (control flow, ``tf.py_function``) as a node of its own type instead of
    refusing it.
    """
    fpb = pb("function_pb2")
    g = cf.graph
    fdef = fpb.FunctionDef()
    fdef.signature.name = fname
    refs = {}
    for s, name in zip(g.placeholders, arg_names):
        a = fdef.signature.input_arg.add(name=name, type=g.slot_values[s].dtype.as_datatype_enum)
        refs[s] = a.name
    captures = []
    cap_names = {}

    def capture(var):
        key = id(var)
        if key not in cap_names:
            cap_names[key] = f"capture_{len(captures)}"
            captures.append(var)
        return cap_names[key]

    counts = {}
    used = {}  # display: TF's graph namespace (placeholders first, names unique without case)
    for name in arg_names:
        graph_names.unique(used, name)

    def new_node(op, display_name=None):
        base = op.lstrip("_") or "node"  # TF node names may not start with "_"
        if display:  # as TF's graph names the op: ``a + b`` is ``add``, then ``add_1``
            return fdef.node_def.add(name=graph_names.unique(used, display_name or base), op=op)
        k = counts.get(base, 0)
        counts[base] = k + 1
        return fdef.node_def.add(name=base if k == 0 else f"{base}_{k}", op=op)

    def ref(slot):
        if slot in refs:
            return refs[slot]
        if slot in g.constants:
            nd = new_node("Const")
            value = g.constants[slot]
            t = value if isinstance(value, Tensor) else convert_to_tensor(value)
            nd.attr["value"].tensor.CopyFrom(tensor_proto(t))
            nd.attr["dtype"].type = t.dtype.as_datatype_enum
            refs[slot] = f"{nd.name}:output:0"
            return refs[slot]
        if display:  # a tensor captured from an enclosing graph: an input of this one, as in TF
            refs[slot] = fdef.signature.input_arg.add(name=f"capture_t{slot}", type=_slot_dtype(g, slot)).name
            return refs[slot]
        raise ValueError(f"tf.saved_model.save: {fname} reads a value from outside the function (slot {slot}); "
                         "only placeholders, constants and variables can be saved")

    last_stateful = None
    for n in g.nodes:
        if n.kind == "op":
            ins = [ref(s) for s in n.inputs]
            nd = new_node(n.op.name, graph_names.python_op_name(n))
            nd.input.extend(ins)
            attrs = n.attrs or {}
            for k, v in attrs.items():
                _set_attr(nd.attr[k], v)
            # the exact attributes tfcore's kernels take (TF's "T" and friends are for TensorFlow's loader)
            nd.attr[_JSON_ATTRS].s = json.dumps({k: _json_attr(v) for k, v in attrs.items()}).encode()
            if n.op.name == "IdentityN":  # TF's IdentityN types each input: T is a list
                nd.attr["T"].list.type.extend(g.slot_values[s].dtype.as_datatype_enum for s in n.inputs)
            else:
                _to_tf_node(n.op, nd, attrs, [g.slot_values[s].dtype for s in n.inputs], new_node)
            if n.op.name in ("_FusedMatMul", "_FusedConv2D") and "num_args" not in attrs:
                nd.attr["num_args"].i = len(n.inputs) - 2  # TF's count of the fused ops' extra inputs
                if n.op.name == "_FusedConv2D":
                    nd.attr["TArgs"].list.type.extend([nd.attr["T"].type] * (len(n.inputs) - 2))
            out_arg = n.op.output_arg
            for i, s in enumerate(n.outputs):  # several named outputs (TopKV2's values, indices): one each
                refs[s] = f"{nd.name}:{out_arg[i]}:0" if isinstance(out_arg, tuple) else f"{nd.name}:{out_arg}:{i}"
            if n.stateful:
                if last_stateful:
                    nd.input.append("^" + last_stateful)
                last_stateful = nd.name
        elif n.kind in ("read", "assign"):
            cap = capture(n.target)
            if n.kind == "read":
                nd = new_node("ReadVariableOp")
                nd.input.append(cap)
                refs[n.outputs[0]] = f"{nd.name}:value:0"
            else:
                value = ref(n.inputs[0])
                nd = new_node("AssignVariableOp")
                nd.input.extend([cap, value])
            nd.attr["dtype"].type = n.target.dtype.as_datatype_enum
            if last_stateful:
                nd.input.append("^" + last_stateful)
            last_stateful = nd.name
        elif n.kind == "call" and _is_print(n.op):
            pieces, sep, stream, summarize, end = _print_parts(n.op)
            ins = [ref(s) for s in n.inputs]
            fmt = new_node("StringFormat")
            fmt.input.extend(ins)
            fmt.attr["template"].s = sep.join("{}" if p is None else p for p in pieces).encode()
            fmt.attr["placeholder"].s = b"{}"
            fmt.attr["summarize"].i = int(summarize if summarize is not None else -1)
            for s in n.inputs:
                fmt.attr["T"].list.type.append(g.slot_values[s].dtype.as_datatype_enum)
            pr = new_node("PrintV2")
            pr.input.append(f"{fmt.name}:output:0")
            pr.attr["output_stream"].s = stream.encode()
            pr.attr["end"].s = end.encode()
            if last_stateful:
                pr.input.append("^" + last_stateful)
            last_stateful = pr.name
        elif n.kind == "call" and n.name in ("Shape", "Size") and len(n.inputs) == 1:
            out_type = inspect.getclosurevars(n.op).nonlocals.get("out_type", dtypes.int32)
            nd = new_node(n.name)
            nd.input.append(ref(n.inputs[0]))
            nd.attr["out_type"].type = dtypes.as_dtype(out_type).as_datatype_enum
            nd.attr["T"].type = g.slot_values[n.inputs[0]].dtype.as_datatype_enum
            refs[n.outputs[0]] = f"{nd.name}:output:0"
        elif display:
            nd = new_node(n.name or n.type or "PyFunc")
            nd.input.extend(ref(s) for s in n.inputs)
            for i, s in enumerate(n.outputs):
                refs[s] = f"{nd.name}:output:{i}"
        else:
            what = n.name or n.type or n.kind
            raise ValueError(f"tf.saved_model.save: the function {cf.name!r} contains a {what!r} node that runs "
                             "Python code (tf.py_function, tf.cond/tf.while_loop branches, guards on Python values "
                             "of tensors); tfcore can only save graphs of registry ops, variables and tf.print.")
    for i, s in enumerate(g.outputs):
        name = f"output_{i}"
        t = g.slot_values[s]
        fdef.signature.output_arg.add(name=name, type=t.dtype.as_datatype_enum)
        fdef.ret[name] = ref(s)
    for name in cap_names.values():
        fdef.signature.input_arg.add(name=name, type=20)  # DT_RESOURCE
    if last_stateful:
        fdef.signature.is_stateful = True
    return fdef, captures


def _to_tf_node(op, nd, attrs, input_dtypes, new_node):
    """Make ``nd`` (tfcore's op ``op`` with ``attrs``) the node TF's OpDef describes, so TF can load the graph:
    attributes TF takes as inputs become Const inputs (``Op.tf_attr_inputs``), type attributes are set from the
    inputs' dtypes (``Op.tf_input_types``; default ``T`` from the first), attributes renamed or dropped
    (``Op.tf_attr_names``). tfcore's loader reads ``_tfcore_attrs`` and drops the added inputs."""
    dtypes_in = list(input_dtypes)
    added = []

    def insert(position, value, type_attr):
        nonlocal added
        value = np.asarray(value)
        dtype = dtypes.as_dtype(value.dtype)
        position = len(nd.input) if position is None else position
        const = new_node("Const")
        const.attr["value"].tensor.CopyFrom(tensor_proto(convert_to_tensor(value, dtype=dtype)))
        const.attr["dtype"].type = dtype.as_datatype_enum
        nd.input.insert(position, f"{const.name}:output:0")
        dtypes_in.insert(position, dtype)
        added = [a + (a >= position) for a in added] + [position]
        if type_attr:
            nd.attr[type_attr].type = dtype.as_datatype_enum

    for entry in op.tf_attr_inputs:
        if entry[0] in attrs:
            insert(entry[2] if len(entry) > 2 else None, np.asarray(attrs[entry[0]], np.int32), entry[1])
            del nd.attr[entry[0]]
    if op.tf_lowering is not None:
        inputs, tf_attrs, dropped = op.tf_lowering(attrs, input_dtypes)
        for position, value, type_attr in inputs:
            insert(position, value, type_attr)
        for name in dropped:
            if name in nd.attr:
                del nd.attr[name]
        for name, value in tf_attrs.items():
            _set_attr(nd.attr[name], value)
    if added:
        nd.attr[_EXTRA_INPUTS].list.i.extend(sorted(added))
    if op.tf_input_types is None:
        if "T" not in attrs and input_dtypes:
            nd.attr["T"].type = input_dtypes[0].as_datatype_enum  # TF's type attr
    else:
        for type_attr, dtype in zip(op.tf_input_types, dtypes_in):
            if type_attr and type_attr not in attrs:
                nd.attr[type_attr].type = dtype.as_datatype_enum
    if op.tf_count_attr:
        nd.attr[op.tf_count_attr].i = len(input_dtypes)
    names = op.tf_attr_names(input_dtypes) if callable(op.tf_attr_names) else op.tf_attr_names
    for name, tf_name in names.items():
        if name in nd.attr:
            if tf_name:
                nd.attr[tf_name].CopyFrom(nd.attr[name])
            del nd.attr[name]


# -- loading ----------------------------------------------------------------------------------------------
def _attr_value(attr):
    kind = attr.WhichOneof("value")
    if kind == "s":
        return attr.s.decode()
    if kind == "i":
        return attr.i
    if kind == "f":
        return attr.f
    if kind == "b":
        return attr.b
    if kind == "type":
        return dtypes.as_dtype(attr.type)
    if kind == "list":
        lst = attr.list
        for field in ("i", "f", "s", "b"):
            vals = list(getattr(lst, field))
            if vals:
                return tuple(v.decode() if field == "s" else v for v in vals)
        return ()
    return None


_BUILTIN_NODES = frozenset({"Const", "ReadVariableOp", "AssignVariableOp", "StringFormat", "PrintV2", "Shape", "Size",
                            "NoOp"})


class GraphFunction:
    """Runs a loaded FunctionDef on flat tensors, with its captured variables."""

    def __init__(self, fdef, variables, gradient_op_types=None):
        """``variables``: the bound inputs (variables, or placeholders that ``__call__``'s ``bound`` fills);
        ``gradient_op_types``: new names for the ``_gradient_op_type`` of IdentityN nodes (custom gradients
        registered by the loader)."""

        self.fdef = fdef
        self.name = fdef.signature.name
        n_args = len(fdef.signature.input_arg) - len(variables)
        self.arg_names = [a.name for a in fdef.signature.input_arg[:n_args]]
        self.arg_dtypes = [dtypes.as_dtype(a.type) for a in fdef.signature.input_arg[:n_args]]
        self.captures = dict(zip([a.name for a in fdef.signature.input_arg[n_args:]], variables))
        self.steps = []
        self.named_outputs = {}  # node -> its op's output names, for ops with several (Op.output_arg a tuple)
        for nd in fdef.node_def:
            inputs = [i for i in nd.input if not i.startswith("^")]
            if _EXTRA_INPUTS in nd.attr:  # positions of the inputs TF reads and tfcore has as attributes
                extra = nd.attr[_EXTRA_INPUTS]
                if extra.WhichOneof("value") == "list":
                    inputs = [x for k, x in enumerate(inputs) if k not in set(extra.list.i)]
                else:  # SavedModels written before 2026-11-27: a count of trailing inputs
                    inputs = inputs[: len(inputs) - extra.i]
            if nd.op in _BUILTIN_NODES:
                op = None
            else:
                try:
                    op = get_op(nd.op)
                except KeyError:
                    raise ValueError(f"The SavedModel function {self.name!r} uses op {nd.op!r}, which tfcore does "
                                     "not implement") from None
            if _JSON_ATTRS in nd.attr:
                raw = json.loads(nd.attr[_JSON_ATTRS].s.decode())
                attrs = {k: _from_json_attr(v) for k, v in raw.items()}
            elif op is not None:
                # TF's internal attrs (``_output_shapes``, ``_read_only_resource_inputs``) are not op attributes
                attrs = {k: _attr_value(v) for k, v in nd.attr.items()
                         if k not in ("T", "num_args") and not k.startswith("_")}
            else:
                attrs = {k: _attr_value(v) for k, v in nd.attr.items()}
            if gradient_op_types and attrs.get("_gradient_op_type") in gradient_op_types:
                attrs["_gradient_op_type"] = gradient_op_types[attrs["_gradient_op_type"]]
            const = tensor_from_proto(nd.attr["value"].tensor) if nd.op == "Const" else None
            self.steps.append((nd.name, nd.op, op, inputs, attrs, const))
            if op is not None and isinstance(op.output_arg, tuple):
                self.named_outputs[nd.name] = op.output_arg
        self.ret = [fdef.ret[a.name] for a in fdef.signature.output_arg]

    def __call__(self, flat, bound=None):
        """Run on the flat arguments; ``bound`` (one per bound input, None keeps it) replaces bound inputs."""

        env = dict(zip(self.arg_names, flat))
        for name, var in self.captures.items():
            env[name] = var
        if bound is not None:
            for name, value in zip(self.captures, bound):
                if value is not None:
                    env[name] = value

        def get(r):
            if r in env:
                return env[r]
            node, _, idx = r.rpartition(":")
            base, _, arg = node.rpartition(":")
            out = env[base or node]
            if base in self.named_outputs:  # "TopKV2:indices:0": the op's second output
                return out[self.named_outputs[base].index(arg) + int(idx)]
            return out[int(idx)] if isinstance(out, tuple | list) else out

        for name, kind, op, inputs, attrs, const in self.steps:
            if kind == "Const":
                env[name] = const
            elif kind == "NoOp":  # TF's anchor of control edges (replays run nodes in order)
                env[name] = None
            elif kind == "ReadVariableOp":
                env[name] = get(inputs[0]).value()
            elif kind == "AssignVariableOp":
                get(inputs[0]).assign(get(inputs[1]))
            elif kind == "StringFormat":
                values = iter([get(i) for i in inputs])
                parts = attrs["template"].split("{}")
                summarize = attrs.get("summarize", 3)
                text = parts[0]
                for p in parts[1:]:
                    text += logging_ops._format_value(next(values), summarize if summarize != -1 else None) + p
                env[name] = text.replace("{{", "{").replace("}}", "}")
            elif kind in ("Shape", "Size"):
                fn = array_ops.shape if kind == "Shape" else array_ops.size
                env[name] = fn(get(inputs[0]), attrs.get("out_type", dtypes.int32))
            elif kind == "PrintV2":
                stream = {"stderr": sys.stderr, "stdout": sys.stdout}.get(attrs["output_stream"],
                                                                           attrs["output_stream"])
                logging_ops._write([get(inputs[0])], stream, None, "", attrs.get("end", "\n"))
            else:
                env[name] = execute(op, [get(i) for i in inputs], attrs)
        return [get(r) for r in self.ret]
