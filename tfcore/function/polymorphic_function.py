"""``tf.function`` and ``ConcreteFunction``.

A :class:`Function` keeps one :class:`ConcreteFunction` per input signature,
with TF's rules (seed 004): tensors and NumPy arrays by dtype and shape, Python
scalars, strings and other hashable objects by value, unhashable objects by
id, variables by handle. The first call with a new signature traces the Python
function (Python side effects run then, and only then) and returns the traced
call's results; later calls with that signature replay the graph.

``input_signature`` traces once for every compatible input (None dimensions
accept any size) and rejects the others with TypeError; ``reduce_retracing``
retraces a second time at most per structure, with the shapes generalised
(differing dimensions become None).
"""

import functools
import inspect
import logging
import threading
import weakref

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes, nest, recording, replica_state, tracing
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..framework.type_spec import TypeSpec
from ..framework.variables import Variable
from . import autograph as _ag
from . import cuda_graph, executor, out_of_scope
from .func_graph import FuncGraph
from .trace_type import tracing_type_of

_logger = logging.getLogger("tfcore")
FREQUENT_TRACING_WARNING_THRESHOLD = 5
_MAX_VALUE_SPECIALISATIONS = 64
_VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable "
    "is only created once or created outside tf.function. See "
    "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")


# -- signature keys -----------------------------------------------------------------------------------
def _is_variable(x):
    return isinstance(x, Variable) and not isinstance(x, Tensor)


def _is_tensor_like(x):
    return isinstance(x, Tensor) or (isinstance(x, np.ndarray) and x.dtype != object)


def _spec_of(x):
    if isinstance(x, Tensor):
        return x._dtype, tuple(x._array.shape)
    return dtypes.from_numpy(x.dtype), tuple(x.shape)


class _CompositeArgs(tuple):
    """The components of an argument that follows TF's ``__tf_flatten__`` / ``__tf_unflatten__`` protocol
    (a distributed dataset's ``PerReplica`` batch). A tuple, so the signature keys its tensors by dtype and
    shape and tracing gives them placeholders (TF traces such values by their TypeSpec, never by identity);
    :func:`_rebuild_composites` turns the placeholders back into the object the function sees."""

    def __new__(cls, owner, metadata, components):
        self = super().__new__(cls, components)
        self.cls, self.metadata = owner, metadata
        return self


def _expand_composites(value):
    """``value`` with every ``__tf_flatten__`` object (nested in lists, tuples, dicts) as a :class:`_CompositeArgs`."""
    if isinstance(value, Tensor):
        return value
    if hasattr(type(value), "__tf_flatten__") and not isinstance(value, Tensor):
        metadata, components = value.__tf_flatten__()
        return _CompositeArgs(type(value), metadata, [_expand_composites(c) for c in components])
    if isinstance(value, list):
        return [_expand_composites(v) for v in value]
    if isinstance(value, tuple) and not isinstance(value, _CompositeArgs):
        parts = [_expand_composites(v) for v in value]
        if all(a is b for a, b in zip(parts, value)):
            return value
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    if isinstance(value, dict):
        return {k: _expand_composites(v) for k, v in value.items()}
    return value


def _rebuild_composites(value):
    """The inverse of :func:`_expand_composites` (applied to the trace's placeholders)."""
    if isinstance(value, _CompositeArgs):
        parts = tuple(_rebuild_composites(c) for c in value)
        if parts and all(isinstance(p, TensorSpec) for p in parts) and hasattr(value.cls, "__tf_spec__"):
            return value.cls.__tf_spec__(value.metadata, parts)  # a traced output's type (RaggedTensorSpec)
        return value.cls.__tf_unflatten__(value.metadata, parts)
    if isinstance(value, list):
        return [_rebuild_composites(v) for v in value]
    if isinstance(value, tuple):
        parts = [_rebuild_composites(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    if isinstance(value, dict):
        return {k: _rebuild_composites(v) for k, v in value.items()}
    return value


_PLAIN = (list, tuple, dict, type(None), bool, int, float, str, bytes, complex)


def _key(x, relaxed=None):
    """The hashable part of the signature for one argument (tensors by dtype/shape)."""
    if _is_tensor_like(x):
        dt, shape = _spec_of(x)
        return ("T", dt, shape)
    if _is_variable(x):
        return ("V", id(x))
    tt = tracing_type_of(x) if not isinstance(x, _PLAIN) else None
    if tt is not None:  # the tracing protocol: keyed by the object's TraceType (TF's __tf_tracing_type__)
        return ("TT", tt)
    if isinstance(x, _CompositeArgs):  # by its type, metadata and its components' specs, as TF's TypeSpec
        keys = tuple(_key(v) for v in x)
        relax = getattr(x.cls, "__tf_component_key__", None)  # a RaggedTensor: by its RaggedTensorSpec
        return ("C", x.cls, x.metadata, relax(keys) if relax is not None else keys)
    if isinstance(x, list | tuple):
        return (type(x).__name__, tuple(_key(v) for v in x))
    if isinstance(x, dict):
        return ("dict", tuple((k, _key(x[k])) for k in sorted(x)))
    if x is None or isinstance(x, bool | int | float | str | bytes | complex):
        return (type(x).__name__, x)
    try:
        hash(x)
        return ("O", type(x), x)
    except TypeError:
        return ("id", id(x))


def _relax(key, other):
    """The key that accepts both ``key`` and ``other`` (shapes generalised), or None."""
    if key[0] == "T" and other[0] == "T":
        if key[1] is not other[1]:
            return None
        if key[2] is None or other[2] is None or len(key[2]) != len(other[2]):
            return ("T", key[1], None)  # an unknown rank (TF's relaxation of different ranks) accepts every shape
        return ("T", key[1], tuple(a if a == b else None for a, b in zip(key[2], other[2])))
    if key[0] == other[0] and key[0] in ("list", "tuple", "dict") and len(key[1]) == len(other[1]):
        parts = []
        for a, b in zip(key[1], other[1]):
            if key[0] == "dict":
                if a[0] != b[0]:
                    return None
                r = _relax(a[1], b[1])
                parts.append(None if r is None else (a[0], r))
            else:
                parts.append(_relax(a, b))
        if any(p is None for p in parts):
            return None
        return (key[0], tuple(parts))
    if key[0] == "C" and other[0] == "C" and key[1:3] == other[1:3] and len(key[3]) == len(other[3]):
        parts = [_relax(a, b) for a, b in zip(key[3], other[3])]
        return None if any(p is None for p in parts) else key[:3] + (tuple(parts),)
    return key if key == other else None


def _matches(general, key):
    if general[0] == "T" and key[0] == "T":
        if general[2] is None or key[2] is None:
            return general[1] is key[1] and general[2] is None
        return general[1] is key[1] and len(general[2]) == len(key[2]) and all(
            g is None or g == k for g, k in zip(general[2], key[2]))
    if general[0] == key[0] and general[0] in ("list", "tuple", "dict") and len(general[1]) == len(key[1]):
        if general[0] == "dict":
            return all(a[0] == b[0] and _matches(a[1], b[1]) for a, b in zip(general[1], key[1]))
        return all(_matches(a, b) for a, b in zip(general[1], key[1]))
    if general[0] == "C" and key[0] == "C" and general[1:3] == key[1:3] and len(general[3]) == len(key[3]):
        return all(_matches(a, b) for a, b in zip(general[3], key[3]))
    return general == key


def _key_str(k):
    if k[0] == "T":
        return f"TensorSpec(shape={TensorShape(None if k[2] is None else list(k[2]))}, dtype={k[1]!r}, name=None)"
    if k[0] in ("list", "tuple"):  # TF's trace types: List[...], Tuple[...], Dict[[key, type], ...]
        inner = ", ".join(_key_str(v) for v in k[1])
        return f"List[{inner}]" if k[0] == "list" else f"Tuple[{inner}]"
    if k[0] == "dict":
        return "Dict[" + ", ".join(f"[{a!r}, {_key_str(b)}]" for a, b in k[1]) + "]"
    if k[0] == "V":
        return "Variable(handle)"
    if k[0] in ("O", "id"):
        return f"{k[1]}" if k[0] == "id" else repr(k[2])
    return f"Literal[{k[1]!r}]"


class _AtomicFunction:
    """``ConcreteFunction.inference_fn``: the graph called with its flat tensor inputs, as TF's AtomicFunction."""

    def __init__(self, concrete):
        self._concrete = concrete
        self.name = concrete.name

    def __call__(self, *tensors):
        return self._concrete._call_flat([convert_to_tensor(t) for t in tensors])


# -- ConcreteFunction ----------------------------------------------------------------------------------
class ConcreteFunction:
    """One traced graph callable with tensors matching its signature (``f.get_concrete_function(...)``)."""

    def __init__(self, graph, name, param_names, arg_keys, structure, python_args):
        self.graph = graph
        self.name = name
        self._param_names = param_names
        graph._param_names = param_names            # placeholder names of graph.as_graph_def()
        self._arg_keys = arg_keys                   # per-parameter signature key (after binding)
        self._structure = structure                 # flat positional args with tensors replaced by None
        self._python_args = python_args
        self._plan = None
        self._owner = None              # the Function that traced it (shape specialisations)
        self._fused_plan = None
        self._jit_compile = False
        self._shapes = None
        self._specialisations = {}
        self._by_value = []

    @property
    def structured_outputs(self):
        return _rebuild_composites(self.graph.output_structure)

    @property
    def inputs(self):
        return self.graph.inputs

    @property
    def outputs(self):
        return [self.graph._slot_tensor(s) for s in self.graph.outputs]

    @property
    def variables(self):
        return tuple(self.graph.variables)

    @property
    def trainable_variables(self):
        return tuple(v for v in self.graph.variables if v.trainable)

    @property
    def structured_input_signature(self):
        args = tuple(_key_spec(k) for k in self._arg_keys)
        return args, {}

    @property
    def function_type(self):
        """TF's ``FunctionType``: an ``inspect.Signature`` whose parameters are annotated with their specs (what
        the graph accepts) and whose return annotation is the output structure of TensorSpecs."""
        import inspect

        args, _ = self.structured_input_signature
        params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=spec if k[0] in ("T", "C") else _TraceTypeText(_key_str(k)))
                  for name, spec, k in zip(self._param_names, args, self._arg_keys)]
        out = self.structured_outputs
        if not isinstance(out, TensorSpec):  # a structure or a Python value: TF's trace-type text
            out = _TraceTypeText(_output_str(self.graph.output_structure))
        return inspect.Signature(params, return_annotation=out)

    def _run_flat(self, flat_tensors):
        if self._jit_compile and not recording.active_tapes():  # fused steps: no tape may need the ops
            if self._fused_plan is None:
                self._fused_plan = executor.compile_plan(self.graph, fuse=True)
            return cuda_graph.run(self._fused_plan, flat_tensors)
        if self._plan is None:
            self._plan = executor.compile_plan(self.graph)
        return cuda_graph.run(self._plan, flat_tensors)

    def experimental_cuda_graph_stats(self):
        """Whether this function replays CUDA graphs: ``{'status', 'reason', 'segments', 'replays', ...}``.

        ``status``: ``'not run'``, ``'off'`` (the default; ``TFCORE_CUDA_GRAPHS=1`` or
        ``tf.config.experimental.enable_cuda_graphs(True)`` turns graphs on), ``'warm-up'``, ``'capturing'``,
        ``'replaying'`` or ``'not capturable: <why>'`` (see ``tfcore.function.cuda_graph``); for the plan
        the last calls used (the fused one with ``jit_compile`` when no tape records).
        """
        plan = self._fused_plan if self._fused_plan is not None and self._jit_compile else self._plan
        if not cuda_graph.enabled():
            return {"status": "off", "reason": cuda_graph.off_reason(), "replays": 0}
        if plan is None or plan.cuda_graph is None:
            return {"status": "not run", "reason": None, "replays": 0}
        if plan.cuda_graph is False:
            return {"status": plan.stats.get("cuda_graph", "not capturable"),
                    "reason": plan.stats.get("cuda_graph", "")[len("not capturable: "):] or None,
                    "replays": plan.stats.get("cuda_graph_replays", 0)}
        return plan.cuda_graph.stats()

    def _call_flat(self, flat_tensors):
        outs = self._run_flat(flat_tensors)
        return _pack_outputs(self.graph, outs)

    @property
    def inference_fn(self):
        """TF's ``AtomicFunction`` of this graph: called with the flat input tensors only."""
        return _AtomicFunction(self)

    def _check_python_arguments(self, args, kwargs):
        """TF's TypeError when a Python argument differs from the value this function was traced with."""
        given = dict(zip(self._param_names, args))
        given.update((k, v) for k, v in kwargs.items() if k in self._param_names)
        for name, key in zip(self._param_names, self._arg_keys):
            if name not in given or key[0] in ("T", "V", "C", "list", "tuple", "dict", "id", "O", "TT"):
                continue
            value = given[name]
            if _is_tensor_like(value) or _is_variable(value) or _key(value) != key:
                raise TypeError(f"{self.name}: the concrete function was traced with {name}={key[-1]!r} "
                                f"(a Python value is part of its signature), got {name}={value!r}")

    def __call__(self, *args, **kwargs):
        self._check_python_arguments(args, kwargs)
        flat = []
        for a in list(args) + [kwargs[k] for k in sorted(kwargs)]:
            for leaf in nest.flatten(_expand_composites(a)):
                if _is_variable(leaf):
                    leaf = leaf.value()
                if _is_tensor_like(leaf):
                    flat.append(leaf if isinstance(leaf, Tensor) else convert_to_tensor(leaf))
        n = len(self.graph.placeholders)
        if len(flat) != n:
            raise TypeError(f"{self.name}: expected {n} tensor argument(s) matching the signature "
                            f"{self.pretty_printed_signature(verbose=False)}, got {len(flat)}")
        specs = _flat_tensor_specs([_key_spec(k) for k in self._arg_keys])
        for i, (t, spec) in enumerate(zip(flat, specs)):
            if t._dtype is not spec.dtype:  # TF's error when the graph is run with another dtype
                raise InvalidArgumentError(
                    None, None, f"cannot compute {self.name} as input #{i}(zero-based) was expected to be a "
                    f"{spec.dtype.name} tensor but is a {t._dtype.name} tensor (signature {spec})")
            if not spec.shape.is_compatible_with(t.shape):
                raise TypeError(f"{self.name}: argument {t._dtype.name}{t.shape} does not match the signature's "
                                f"{spec}")
        if self._owner is not None and tuple(tuple(t._array.shape) for t in flat) != self._shapes:
            # a generalised signature: the owner keeps a graph per static shape; the Python arguments it was
            # traced with are part of it (the caller may leave them out, as TF's ConcreteFunction allows)
            kwargs = dict(kwargs)
            for name, key in list(zip(self._param_names, self._arg_keys))[len(args):]:
                if name not in kwargs and key[0] not in _SPEC_KEYS:
                    kwargs[name] = _key_spec(key)
            names, values, instance = self._owner._bind(args, kwargs)
            values = [_expand_composites(v) for v in values]  # a RaggedTensor's components are the graph's inputs
            return self._owner._call_concrete(self, names, values, instance)
        return self._call_flat(flat)

    def get_operations(self):
        return self.graph.get_operations()

    def pretty_printed_signature(self, verbose=True):
        """TF's ``repr(function_type)`` (parameters, output type, captures), or with ``verbose=False`` the one-line
        ``str(function_type)``."""
        if not verbose:
            return str(self.function_type)
        lines = ["Input Parameters:"]
        for name, k in zip(self._param_names, self._arg_keys):
            lines.append(f"  {name} (POSITIONAL_OR_KEYWORD): {_key_str(k)}")
        lines.append("Output Type:")
        lines.append(f"  {_output_str(self.graph.output_structure)}")
        lines.append("Captures:")
        caps = [v for v in self.graph.variables]
        if caps:
            for v in caps:
                lines.append(f"  {id(v)}: TensorSpec(shape={v.shape}, dtype=tf.resource, name=None)")
        else:
            lines.append("  None")
        return "\n".join(lines)

    def __repr__(self):  # TF: the short signature, ``(a: TensorSpec(...)) -> TensorSpec(...)``
        return f"<ConcreteFunction {self.function_type} at 0x{id(self):X}>"

    def __str__(self):  # TF: ``ConcreteFunction Input Parameters: ...`` (no function name)
        return "ConcreteFunction " + self.pretty_printed_signature()


_SPEC_KEYS = ("T", "V", "C", "list", "tuple", "dict")  # keys of tensor arguments (specs), not of Python values


class _TraceTypeText:
    """A parameter's annotation in ``function_type`` where TF's is a trace type, printed as TF prints it
    (``Literal[2]``, ``List[Literal[1], Literal[-1]]``, ``Tuple[TensorSpec(...)]``)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _key_spec(k):
    if k[0] == "T":
        return TensorSpec(None if k[2] is None else list(k[2]), k[1])  # None: an unknown rank
    if k[0] in ("list", "tuple"):
        vals = [_key_spec(v) for v in k[1]]
        return vals if k[0] == "list" else tuple(vals)
    if k[0] == "dict":
        return {a: _key_spec(b) for a, b in k[1]}
    if k[0] == "C" and hasattr(k[1], "__tf_spec__"):  # a RaggedTensor argument: its RaggedTensorSpec
        return k[1].__tf_spec__(k[2], [_key_spec(c) for c in k[3]])
    return k[-1]


def _flat_tensor_specs(structure):
    """The TensorSpecs of a signature structure in graph-input order: a composite spec (RaggedTensorSpec)
    gives the specs of its components."""
    out = []
    for s in nest.flatten(structure):
        if hasattr(s, "_tf_component_specs"):
            out.extend(s._tf_component_specs())
        elif isinstance(s, TensorSpec):
            out.append(s)
    return out


def _output_str(structure):
    if structure is None:
        return "Literal[None]"  # TF 2.21 (a function returning None)
    if isinstance(structure, Tensor | TensorSpec):
        return f"TensorSpec(shape={structure.shape}, dtype={structure.dtype!r}, name=None)"
    if isinstance(structure, list | tuple):
        inner = ", ".join(_output_str(v) for v in structure)
        return f"List[{inner}]" if isinstance(structure, list) else f"Tuple[{inner}]"
    if isinstance(structure, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {_output_str(v)}]" for k, v in structure.items()) + "]"
    return f"Literal[{structure!r}]"


def _pack_outputs(graph, outs):
    it = iter(outs)
    flags = iter(graph.output_is_slot)
    return _map_leaves(lambda v: next(it) if next(flags) else v, graph.output_structure, rebuild=True)


def _map_leaves(fn, value, rebuild=False):
    """``value`` with each leaf replaced by ``fn(leaf)``, called in ``nest.flatten`` order (dict values by
    sorted key); lists, tuples, namedtuples, dicts and :class:`_CompositeArgs` keep their types, or with
    ``rebuild`` each :class:`_CompositeArgs` becomes its object again (:func:`_rebuild_composites` in the
    same walk: this runs on every call of a ConcreteFunction)."""
    if isinstance(value, _CompositeArgs):
        parts = [_map_leaves(fn, c, rebuild) for c in value]
        if rebuild:
            return value.cls.__tf_unflatten__(value.metadata, tuple(parts))
        return _CompositeArgs(value.cls, value.metadata, parts)
    if isinstance(value, list):
        return [_map_leaves(fn, c, rebuild) for c in value]
    if isinstance(value, tuple):
        parts = [_map_leaves(fn, c, rebuild) for c in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    if isinstance(value, dict):
        built = {k: _map_leaves(fn, value[k], rebuild) for k in sorted(value)}
        return {k: built[k] for k in value}
    return fn(value)


# -- Function --------------------------------------------------------------------------------------------
class Function:
    """The callable ``tf.function(f)`` returns (``tf.types.experimental.PolymorphicFunction``)."""

    def __init__(self, python_function, input_signature=None, autograph=True, jit_compile=None,
                 reduce_retracing=False, experimental_relax_shapes=None, name=None, instance=None,
                 trace_checks=True):
        """``trace_checks=False`` (Keras' own train/test/predict step functions) skips TF's checks of a trace:
        the re-trace after a first trace that created variables, and expiring the tensors a trace leaves
        behind (:mod:`out_of_scope`). Keras 3 builds a model's and its metrics' variables before it traces
        its step functions, so TF never re-traces those; tfcore builds them in the first trace."""
        if not callable(python_function):
            raise TypeError(f"tf.function: expected a callable, got {python_function!r}")
        self._python_function = python_function
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = bool(reduce_retracing or experimental_relax_shapes)
        self._name = name or getattr(python_function, "__name__", "function")
        self._instance = instance
        self._trace_checks = trace_checks
        self._input_signature = None
        if input_signature is not None:
            if not isinstance(input_signature, list | tuple):
                raise TypeError(f"input_signature must be a list or tuple of tf.TensorSpec, got {input_signature!r}")
            for s in nest.flatten(list(input_signature)):
                if not isinstance(s, TypeSpec):
                    raise TypeError(f"input_signature must contain tf.TensorSpec (or tf.TypeSpec) objects, "
                                    f"got {s!r}")
            self._input_signature = tuple(input_signature)
        # A composite spec without component specs checks the argument's type and the trace is keyed by the
        # value; a RaggedTensorSpec is keyed by itself (its components are graph inputs).
        self._composite_signature = self._input_signature is not None and any(
            not isinstance(s, TensorSpec) and not hasattr(s, "_tf_component_specs")
            for s in nest.flatten(list(self._input_signature)))
        self._lock = threading.RLock()  # guards the caches
        self._key_locks = {}
        self._cache = {}            # key -> ConcreteFunction
        self._relaxed = []          # (general key, ConcreteFunction) from reduce_retracing
        self._tracing_count = 0
        self._counted_group, self._counted_group_first = None, False  # see _count_trace
        self._recent = []           # traced? flags of the last calls (retracing warning)
        self._warned = False
        self._bound = weakref.WeakKeyDictionary()
        self._bound_by_id = {}
        self._converted = None
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        functools.update_wrapper(self, python_function, updated=())

    # -- descriptor: methods get one Function per instance ---------------------------------------------
    def __get__(self, instance, owner):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = self._bound_by_id.get(id(instance))
        if bound is None:
            bound = Function(self._python_function, input_signature=self._input_signature,
                             autograph=self._autograph, jit_compile=self._jit_compile,
                             reduce_retracing=self._reduce_retracing, name=self._name,
                             trace_checks=self._trace_checks,
                             instance=weakref.ref(instance) if _weakrefable(instance) else (lambda: instance))
            try:
                self._bound[instance] = bound
            except TypeError:
                self._bound_by_id[id(instance)] = bound
        return bound

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    @property
    def function_spec(self):
        return self._signature

    def experimental_get_tracing_count(self):
        return self._tracing_count

    # -- binding -------------------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        """(parameter names, values) in signature order, defaults applied (self excluded)."""
        if self._instance is not None:
            args = (self._instance(),) + tuple(args)
        if self._signature is None:
            names = [f"arg{i}" for i in range(len(args))] + sorted(kwargs)
            values = list(args) + [kwargs[k] for k in sorted(kwargs)]
        else:
            try:
                ba = self._signature.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{self._name}: {e}") from None
            ba.apply_defaults()
            names, values = [], []
            for name, v in ba.arguments.items():
                kind = self._signature.parameters[name].kind
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    for i, x in enumerate(v):
                        names.append(f"{name}_{i}")
                        values.append(x)
                elif kind is inspect.Parameter.VAR_KEYWORD:
                    for k in sorted(v):
                        names.append(k)
                        values.append(v[k])
                else:
                    names.append(name)
                    values.append(v)
        if self._instance is not None:
            return names[1:], values[1:], values[0]
        return names, values, None

    def _apply_input_signature(self, names, values):
        sig = self._input_signature
        if len(values) < len(sig):
            raise TypeError(f"{self._name}: expected {len(sig)} argument(s) for input_signature {list(sig)}, "
                            f"got {len(values)}")
        if len(values) > len(sig):
            extra = values[len(sig):]
            raise TypeError(f"{self._name}: got {len(values)} arguments but input_signature has {len(sig)} "
                            f"entries; extra: {extra!r}")
        return [_conform(self._name, name, v, spec) for name, v, spec in zip(names, values, sig)]

    # -- calling ---------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if tracing.functions_run_eagerly():
            return self._call_python(args, kwargs)
        if tracing.is_tracing():
            # Called while tracing another function: trace inline (the outer graph records the ops).
            return self._call_python(args, kwargs)
        names, values, instance = self._bind(args, kwargs)
        values = [_expand_composites(v) for v in values]
        if self._input_signature is not None:
            values = self._apply_input_signature(names, values)
            if self._composite_signature:
                sig_keys = tuple(_key(v) for v in values)
            else:
                sig_keys = tuple(_spec_key(s) for s in self._input_signature)
            cf = self._cache.get(sig_keys)
            if cf is None:
                return self._trace_and_call(names, values, instance, sig_keys)
            self._note_call(False)
            return self._call_concrete(cf, names, values, instance)
        keys = tuple(_key(v) for v in values)
        dev = _ctx.current_device()
        if dev is not None:  # as TF, the device scope is part of the cache key (replica threads)
            keys = keys + (("device", dev.name),)
        cf = self._cache.get(keys)
        if cf is None and self._relaxed:
            for general, c in self._relaxed:
                if _matches(general, ("tuple", keys)):
                    cf = c
                    break
        if cf is not None:
            self._note_call(False)
            return self._call_concrete(cf, names, values, instance)
        trace_keys = keys
        if self._reduce_retracing and self._cache:
            for k in list(self._cache):
                general = _relax(("tuple", k), ("tuple", keys))
                if general is not None and general != ("tuple", k):
                    trace_keys = general[1]
                    break
        return self._trace_and_call(names, values, instance, trace_keys, relaxed=trace_keys is not keys)

    def _call_python(self, args, kwargs):
        fn = self._python_function
        if self._instance is not None:
            return fn(self._instance(), *args, **kwargs)
        return fn(*args, **kwargs)

    def _note_call(self, traced):
        self._recent.append(traced)
        del self._recent[:-FREQUENT_TRACING_WARNING_THRESHOLD]
        if (traced and not self._warned and self._tracing_count >= FREQUENT_TRACING_WARNING_THRESHOLD
                and len(self._recent) == FREQUENT_TRACING_WARNING_THRESHOLD and all(self._recent)):
            self._warned = True
            _logger.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is expensive and the "
                "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, "
                "(2) passing tensors with different shapes, (3) passing Python objects instead of tensors. For "
                "(1), please define your @tf.function outside of the loop. For (2), @tf.function has "
                "reduce_retracing=True option that can avoid unnecessary retracing. For (3), please refer to "
                "https://www.tensorflow.org/guide/function#controlling_retracing and "
                "https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
                FREQUENT_TRACING_WARNING_THRESHOLD, FREQUENT_TRACING_WARNING_THRESHOLD, self._python_function)

    def _traced_python_function(self):
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            self._converted = _ag.convert_for_tracing(self._python_function)
        return self._converted

    def _call_concrete(self, cf, names, values, instance):
        """Run ``cf``; a generalised signature (None dims) runs a graph specialised to these static shapes.

        tfcore traces with the call's values, so Python code that read a static shape baked it into the
        graph; a call with other static shapes gets its own specialisation (the Python function runs
        again for it, but ``experimental_get_tracing_count`` counts TF's traces only).
        """
        flat = _flat_tensors(values)
        shapes = tuple(tuple(t._array.shape) for t in flat)
        base = cf
        if shapes != cf._shapes:
            base = cf._specialisations.get(shapes)
            if base is None:
                with self._key_lock((cf, shapes)):
                    base = cf._specialisations.get(shapes)
                    if base is None:
                        base, out = self._trace(names, values, instance, cf._arg_keys, count=False)
                        cf._specialisations[shapes] = base
                        return out
        try:
            return base._call_flat(flat)
        except executor.GuardFailure as e:
            if e.effects:
                raise
        return self._call_by_value(base, names, values, instance, flat)

    def _call_by_value(self, cf, names, values, instance, flat):
        """A Python value read while tracing changed before any effect ran: a graph per such value.

        (tfcore traces with the call's values; code like ``tf.fill([n], x)`` reads ``n`` in Python.)
        """
        for spec in cf._by_value:
            try:
                return spec._call_flat(flat)
            except executor.GuardFailure as e:
                if e.effects:
                    raise
        with self._key_lock((cf, "by_value")):
            if len(cf._by_value) >= _MAX_VALUE_SPECIALISATIONS:
                raise executor.GuardFailure(
                    f"{self._name}: more than {_MAX_VALUE_SPECIALISATIONS} graphs specialised to values that Python "
                    "code read from tensors while tracing; use TensorFlow ops on those tensors instead", True)
            spec, out = self._trace(names, values, instance, cf._arg_keys, count=False)
            cf._by_value.append(spec)
        return out

    def _trace(self, names, values, instance, keys, count=True):
        first = self._count_trace(count)

        def policy(var):
            if not first:
                raise ValueError(_VARIABLE_ERROR)

        graph = FuncGraph(self._name, variable_policy=policy)
        graph.repeats_trace = not count  # a specialisation of a traced signature: TF traced the Python once
        graph.input_shapes = _static_input_shapes(keys)
        if self._input_signature is not None:  # a TensorSpec's name names its placeholder, as in TF
            specs = _flat_tensor_specs(list(self._input_signature))
            graph.input_names = [getattr(spec, "name", None) for spec in specs]
        fn = self._traced_python_function()
        # A trace recorded by an outer tape (its ops are the caller's gradient path) keeps its tensors usable.
        expire = self._trace_checks and not recording.active_tapes()
        starts = tracing.STARTS[0]
        with tracing.recording_into(graph):
            out = self._run_python(graph, fn, names, values, instance)
            if self._trace_checks:  # TF: Python numbers, strings and NumPy values come back as tensors
                out = _map_leaves(_python_output_as_tensor, out)
        alone = tracing.traced_alone(starts)  # no concurrent trace (replica threads) may hold this one's tensors
        flat = nest.flatten(out)
        graph.output_structure = out
        graph.output_is_slot = []
        for leaf in flat:
            if isinstance(leaf, Tensor):
                graph.outputs.append(graph.slot_of(leaf))
                graph.output_is_slot.append(True)
            else:
                graph.output_is_slot.append(False)
        if first and self._trace_checks and _creates_variables(graph):
            self._retrace_without_variable_creation(fn, names, values, instance)
        cf = ConcreteFunction(graph, self._name, names, keys, None, None)
        cf._jit_compile = bool(self._jit_compile)
        cf._owner = self
        cf._shapes = tuple(tuple(graph.slot_values[s]._array.shape) for s in graph.placeholders)
        static = graph.static_shapes()  # TF's output specs: None where a relaxed input leaves a dimension unknown

        def output_spec(v):
            shape = static.get(graph._ids.get(id(v)), TensorShape._from_tuple(v._array.shape))
            return TensorSpec(shape, v._dtype)

        graph.output_structure = _map_leaves(lambda v: output_spec(v) if isinstance(v, Tensor) else v, out)
        leaked = out_of_scope.produced(graph) if expire else ()
        if leaked:  # the caller gets the results as fresh tensors; the trace's own ones go out of scope
            inner = {id(t) for t, _, _ in leaked}
            out = _map_leaves(lambda v: Tensor(v._array, v._dtype, v._device)
                              if isinstance(v, Tensor) and id(v) in inner else v, out)
        graph.release_values()
        if leaked and alone:
            out_of_scope.expire(leaked, graph)
        return cf, _rebuild_composites(out)

    def _count_trace(self, count):
        """Count a new trace; True when it is the first one (the only trace that may create variables).

        The replicas of one ``strategy.run`` call trace the function concurrently, one trace per replica
        device, where TF traces them into one graph: traces in the same synchronisation group (the
        rendezvous of one ``run``, ``replica_state.sync_group``) count as one trace, and as the first
        when one of them is (so per-replica state that the first step builds lazily, like metrics, may
        be created by whichever replica gets there first)."""
        if not count:
            return False
        group = replica_state.sync_group()
        with self._lock:
            if group is not None and group is self._counted_group:
                return self._counted_group_first
            first = self._tracing_count == 0
            self._tracing_count += 1
            self._counted_group, self._counted_group_first = group, first
        return first

    def _run_python(self, graph, fn, names, values, instance):
        """The Python function called on ``graph``'s placeholders (recording into ``graph``)."""
        ph_values = [_rebuild_composites(_placeholders(graph, v, name)) for name, v in zip(names, values)]
        call_args = ([instance] if instance is not None else []) + ph_values
        out = _call_with_names(fn, self._signature, names, call_args, instance is not None)
        out = nest.map_structure(lambda x: x.value() if _is_variable(x) else x, out)
        return _expand_composites(out)  # a PerReplica result: its tensors are outputs of the graph

    def _retrace_without_variable_creation(self, fn, names, values, instance):
        """TF's second trace after a first one that created variables: the function is traced again with
        variable creation refused, so a function that creates a ``tf.Variable`` on every call raises TF's
        ValueError ("tf.function only supports singleton tf.Variables created on the first call") on its
        first call, while one that creates them once (``if self.v is None: self.v = tf.Variable(...)``)
        passes. The re-trace is dry (its variable assignments and Python-call nodes do not run: the first
        trace already ran the call) and counts as a trace, as in TF; its graph is dropped."""
        created = []

        def refuse(var):
            created.append(var)
            raise ValueError(_VARIABLE_ERROR)

        graph = FuncGraph(self._name, dry=True, variable_policy=refuse)
        self._tracing_count += 1
        saved_tapes = recording.active_tapes()
        recording._state.tapes = []  # outer tapes recorded the first trace; this one is not the call
        starts = tracing.STARTS[0]
        try:
            with tracing.recording_into(graph):
                self._run_python(graph, fn, names, values, instance)
        except Exception:
            if created:
                raise ValueError(_VARIABLE_ERROR) from None
            # anything else a dry re-run meets (a skipped Python call's missing result) is not the program's
            # error: the first trace, which ran, stands
        finally:
            recording._state.tapes = saved_tapes
        if created:  # the program caught the error: TF's trace fails all the same
            raise ValueError(_VARIABLE_ERROR)
        leaked = out_of_scope.produced(graph)
        graph.release_values()
        if leaked and tracing.traced_alone(starts):
            out_of_scope.expire(leaked, graph)

    def _key_lock(self, keys):
        with self._lock:
            return self._key_locks.setdefault(keys, threading.RLock())

    def _trace_and_call(self, names, values, instance, keys, relaxed=False):
        # One trace per key at a time; different keys (replica threads' devices) trace concurrently, as
        # collectives inside the function rendezvous across those traces.
        with self._key_lock(keys):
            cf = self._cache.get(keys)
            if cf is not None:  # another thread traced it meanwhile
                return self._call_concrete(cf, names, values, instance)
            cf, out = self._trace(names, values, instance, keys)
            with self._lock:
                self._cache[keys] = cf
                if relaxed:
                    self._relaxed.append((("tuple", keys), cf))
        self._note_call(True)
        return out

    # -- concrete functions ---------------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (TensorSpecs allowed), tracing if needed."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        names, values, instance = self._bind(args, kwargs)
        if self._input_signature is not None and not args:
            values = list(self._input_signature)
        values = [_expand_composites(nest.map_structure(_spec_to_value, v)) for v in values]
        if self._input_signature is not None:
            values = self._apply_input_signature(names, values)
            keys = tuple(_spec_key(s) for s in self._input_signature)
        else:
            keys = tuple(_key(v) for v in values)
            given = nest.flatten(list(args) + list(kwargs.values()))
            specs = [v for v in given if isinstance(v, TensorSpec)]
            if any(None in (s.shape.as_list() if s.shape.rank is not None else [None]) for s in specs) or any(
                    hasattr(v, "_tf_component_specs") for v in given):
                keys = tuple(_key_with_specs(a) for a in _bind_raw(self, args, kwargs))
            dev = _ctx.current_device()
            if dev is not None:  # the same key a call in this device scope uses
                keys = keys + (("device", dev.name),)
        cf = self._cache.get(keys)
        if cf is None:
            cf, _ = self._trace(names, values, instance, keys)
            self._cache[keys] = cf
            if any(_has_none(k) for k in keys):
                self._relaxed.append((("tuple", keys), cf))
        return cf

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each traced ConcreteFunction's ``pretty_printed_signature(verbose)``, in tracing order, as TF 2.21
        (blank lines between them when verbose)."""
        return ("\n\n" if verbose else "\n").join(cf.pretty_printed_signature(verbose)
                                                  for cf in self._cache.values())

    def __repr__(self):
        return f"<tfcore.function.Function {self._name}>"


_PYTHON_OUTPUTS = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def _python_output_as_tensor(leaf):
    """A Python scalar, string or NumPy value a traced function returns, as the constant tensor TF returns."""
    if isinstance(leaf, _PYTHON_OUTPUTS) and not isinstance(leaf, Tensor):
        try:
            return convert_to_tensor(leaf)
        except (TypeError, ValueError):
            return leaf
    return leaf


def _creates_variables(graph):
    """True when ``graph`` (or a branch/loop graph traced inside it) created a variable."""
    return bool(graph.variables_created) or any(_creates_variables(g) for g in graph.children)


def _weakrefable(obj):
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def _has_none(k):
    if k[0] == "T":
        return k[2] is None or None in k[2]  # an unknown rank (TensorSpec(None)) or an unknown dimension
    if k[0] in ("list", "tuple"):
        return any(_has_none(v) for v in k[1])
    if k[0] == "dict":
        return any(_has_none(v) for _, v in k[1])
    if k[0] == "C":
        return any(_has_none(v) for v in k[3])
    return False


def _bind_raw(function, args, kwargs):
    names, values, _ = function._bind(args, kwargs)
    return values


def _key_with_specs(v):
    if isinstance(v, TensorSpec):
        shape = tuple(v.shape.as_list()) if v.shape.rank is not None else None  # None: an unknown rank
        return ("T", v.dtype, shape)
    if hasattr(v, "_tf_component_specs"):
        return _spec_key(v)
    if isinstance(v, list | tuple):
        return (type(v).__name__, tuple(_key_with_specs(x) for x in v))
    return _key(v)


def _spec_key(spec):
    if isinstance(spec, TensorSpec):
        shape = tuple(spec.shape.as_list()) if spec.shape.rank is not None else None
        return ("T", spec.dtype, shape)
    if hasattr(spec, "_tf_component_specs"):  # a RaggedTensorSpec: the key its values have (_key)
        return ("C", spec.value_type, spec._tf_metadata(), tuple(_spec_key(c) for c in spec._tf_component_specs()))
    if isinstance(spec, list | tuple):
        return (type(spec).__name__, tuple(_spec_key(s) for s in spec))
    if isinstance(spec, dict):
        return ("dict", tuple((k, _spec_key(spec[k])) for k in sorted(spec)))
    return _key(spec)


def _spec_to_value(v):
    """A TensorSpec given to get_concrete_function traces with zeros of that shape (None -> 1)."""
    if isinstance(v, TensorSpec):
        dims = v.shape.as_list() if v.shape.rank is not None else []
        shape = [1 if d is None else d for d in dims]
        return convert_to_tensor(np.zeros(shape, v.dtype.as_numpy_dtype), dtype=v.dtype)
    if hasattr(v, "_tf_sample_value"):  # a RaggedTensorSpec: a ragged value of that spec
        return v._tf_sample_value()
    return v


def _conform(fname, name, value, spec):
    """``value`` as the tensor(s) ``spec`` describes, or TypeError naming the argument."""
    if isinstance(spec, list | tuple | dict):
        if isinstance(spec, dict):
            if not isinstance(value, dict) or sorted(value) != sorted(spec):
                raise TypeError(f"{fname}: argument {name!r} must be a dict with keys {sorted(spec)}")
            return {k: _conform(fname, f"{name}[{k!r}]", value[k], spec[k]) for k in value}
        if not isinstance(value, list | tuple) or len(value) != len(spec):
            raise TypeError(f"{fname}: argument {name!r} must be a sequence of {len(spec)} elements matching "
                            f"{spec!r}, got {value!r}")
        return type(value)(_conform(fname, f"{name}[{i}]", v, s) for i, (v, s) in enumerate(zip(value, spec)))
    if not isinstance(spec, TensorSpec):  # a composite spec: the value must be of its type
        if not spec.is_compatible_with(_rebuild_composites(value)):
            raise TypeError(f"Binding inputs to tf.function `{fname}` failed: argument {name}="
                            f"{_rebuild_composites(value)!r} is not compatible with {spec!r}")
        return value
    if _is_variable(value):
        value = value.value()
    if isinstance(value, Tensor):
        t = value
        if t._dtype is not spec.dtype:
            raise TypeError(f"Binding inputs to tf.function `{fname}` failed due to `Can not cast "
                            f"TensorSpec(shape={t.shape}, dtype={t._dtype!r}, name=None) to {spec!r}`. Received "
                            f"args: {name}={value!r}")
    else:
        try:
            t = convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Binding inputs to tf.function `{fname}` failed: argument {name}={value!r} "
                            f"cannot be converted to {spec!r}: {e}") from None
    if not spec.shape.is_compatible_with(t.shape):
        raise TypeError(f"Binding inputs to tf.function `{fname}` failed due to `Can not cast "
                        f"TensorSpec(shape={t.shape}, dtype={t._dtype!r}, name=None) to {spec!r}`. Received "
                        f"args: {name} with shape {t.shape}")
    return t


def _static_input_shapes(keys):
    """The static shapes of a trace's placeholders, in graph-input order, from its signature keys (None dims
    where ``input_signature`` or ``reduce_retracing`` relaxes them), or None when they cannot be listed."""
    try:
        return [s.shape for s in _flat_tensor_specs([_key_spec(k) for k in keys])]
    except Exception:  # noqa: BLE001 - a key without specs (a composite's own): the values' shapes stand
        return None


def _flat_tensors(values):
    out = []
    for v in values:
        for leaf in nest.flatten(v):
            if isinstance(leaf, Tensor):
                out.append(leaf)
            elif _is_tensor_like(leaf):
                out.append(convert_to_tensor(leaf))
    return out


def _placeholders(graph, value, name=None):
    """``value`` with each tensor leaf made a placeholder of ``graph``, named after the argument ``name``."""
    def ph(leaf):
        if _is_tensor_like(leaf):
            t = leaf if isinstance(leaf, Tensor) else convert_to_tensor(leaf)
            if id(t) in graph._ids:  # the same tensor passed twice: a second placeholder needs its own object
                t = Tensor(t._array, t._dtype, t._device)
            graph.add_placeholder(t, name)  # the caller's tensor itself: an outer tape tracing it sees the trace's ops
            return t
        return leaf

    # flatten order (dict values by sorted key) is the order calls pass their tensors in
    return _map_leaves(ph, value)


def _call_with_names(fn, signature, names, call_args, has_self):
    if signature is None:
        return fn(*call_args)
    params = list(signature.parameters.values())
    args, kwargs = [], {}
    values = list(call_args)
    i = 0
    for p in params:
        if i >= len(values):
            break
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            while i < len(values) and (i - (1 if has_self else 0)) < len(names) and \
                    names[i - (1 if has_self else 0)].startswith(p.name + "_"):
                args.append(values[i])
                i += 1
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            while i < len(values):
                kwargs[names[i - (1 if has_self else 0)]] = values[i]
                i += 1
        elif p.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[p.name] = values[i]
            i += 1
        else:
            args.append(values[i])
            i += 1
    return fn(*args, **kwargs)


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None,
             name=None):
    """``tf.function``: as a decorator (with or without arguments) or called on a function."""
    if jit_compile is None and experimental_compile is not None:
        jit_compile = experimental_compile

    def decorate(f):
        return Function(f, input_signature=input_signature, autograph=autograph, jit_compile=jit_compile,
                        reduce_retracing=reduce_retracing, experimental_relax_shapes=experimental_relax_shapes,
                        name=name)

    if func is None:
        return decorate
    return decorate(func)
