"""``tf.saved_model.save`` / ``load``: TF's SavedModel directory written from traced tf.functions.

Layout (as TF): ``saved_model.pb`` (a ``SavedModel`` with one ``MetaGraphDef`` tagged ``serve``: the
function library of every saved ConcreteFunction, the ``SignatureDef``\\ s and the
``SavedObjectGraph``), ``variables/variables.{index,data-00000-of-00001}`` (a checkpoint of the same
object graph: node ids agree) and an empty ``assets/``. The object graph holds the saved object's
trackables (checkpoint.py's graph) plus one node per ``tf.function`` attribute and a
``signatures`` map.

``load`` rebuilds plain objects (no Python class is needed or imported): modules become objects
with the same attribute names, variables are restored from the checkpoint, functions run their
saved graphs (function_serialization.py) and ``.signatures["serving_default"]`` takes keyword
arguments and returns a dict. Nothing in the directory is executed as code.
"""

import os
import shutil

import numpy as np

from ..framework import dtypes, nest
from ..framework.errors import DataLossError, NotFoundError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_spec import TensorSpec
from ..framework.variables import Variable
from ..function import ConcreteFunction, Function, function
from ..function.polymorphic_function import _key_spec, _rebuild_composites
from ..io import atomic_files
from ..module import Module
from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from . import bundle, custom_gradients, graph
from .checkpoint import CheckpointOptions, _object_graph_proto, _protos
from .function_serialization import GraphFunction, function_def
from .saved_model_protos import decode_saved_model, encode_saved_model, pb

SAVED_MODEL_FILENAME_PB = "saved_model.pb"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
SERVING = "serve"
DEFAULT_SIGNATURE = "serving_default"
PREDICT_METHOD = "tensorflow/serving/predict"


class SaveOptions:
    """``tf.saved_model.SaveOptions`` (accepted; tfcore writes one device-independent graph)."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_io_device=None, experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False, experimental_sharding_callback=None):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_io_device = experimental_io_device
        self.experimental_custom_gradients = bool(experimental_custom_gradients)


class LoadOptions:
    """``tf.saved_model.LoadOptions`` (accepted)."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_skip_checkpoint = experimental_skip_checkpoint


# -- structured values ---------------------------------------------------------------------------------------
def _encode(value):
    sv = pb("struct_pb2").StructuredValue()
    if value is None:
        sv.none_value.SetInParent()
    elif isinstance(value, TensorSpec):
        spec = sv.tensor_spec_value
        if value.name:
            spec.name = value.name
        spec.dtype = value.dtype.as_datatype_enum
        if value.shape.rank is None:
            spec.shape.unknown_rank = True
        else:
            for d in value.shape.as_list():
                spec.shape.dim.add(size=-1 if d is None else d)
    elif isinstance(value, RaggedTensorSpec):
        _encode_ragged_spec(sv.type_spec_value, value)
    elif isinstance(value, bool):
        sv.bool_value = value
    elif isinstance(value, int):
        sv.int64_value = value
    elif isinstance(value, float):
        sv.float64_value = value
    elif isinstance(value, str):
        sv.string_value = value
    elif isinstance(value, tuple):
        for v in value:
            sv.tuple_value.values.add().CopyFrom(_encode(v))
        sv.tuple_value.SetInParent()
    elif isinstance(value, list):
        for v in value:
            sv.list_value.values.add().CopyFrom(_encode(v))
        sv.list_value.SetInParent()
    elif isinstance(value, dict):
        sv.dict_value.SetInParent()
        for k, v in value.items():
            sv.dict_value.fields[str(k)].CopyFrom(_encode(v))
    else:
        raise ValueError(f"tf.saved_model.save: cannot encode the argument {value!r} in a signature")
    return sv


def _encode_ragged_spec(ts, spec):
    """A ``RaggedTensorSpec`` as TF's ``TypeSpecProto`` (its ``_serialize()`` tuple: shape, dtype, ragged_rank,
    row_splits_dtype), so TensorFlow reads the signature too."""
    ts.type_spec_class = type(ts).RAGGED_TENSOR_SPEC
    ts.type_spec_class_name = "RaggedTensorSpec"
    ts.num_flat_components = len(spec._tf_component_specs())
    state = ts.type_state.tuple_value
    shape = state.values.add().tensor_shape_value
    if spec.shape.rank is None:
        shape.unknown_rank = True
    else:
        for d in spec.shape.as_list():
            shape.dim.add(size=-1 if d is None else d)
    state.values.add().tensor_dtype_value = spec.dtype.as_datatype_enum
    state.values.add().int64_value = spec.ragged_rank
    state.values.add().tensor_dtype_value = spec.row_splits_dtype.as_datatype_enum


def _decode_type_spec(ts):
    if ts.type_spec_class != type(ts).RAGGED_TENSOR_SPEC:
        raise ValueError(f"tf.saved_model.load: the TypeSpec {ts.type_spec_class_name or ts.type_spec_class} in a "
                         "function signature is not supported by tfcore (only RaggedTensorSpec)")
    shape_v, dtype_v, rr_v, splits_v = list(ts.type_state.tuple_value.values)[:4]
    sh = shape_v.tensor_shape_value
    shape = None if sh.unknown_rank else [None if d.size < 0 else d.size for d in sh.dim]
    return RaggedTensorSpec(shape, dtypes.as_dtype(dtype_v.tensor_dtype_value), int(rr_v.int64_value),
                            dtypes.as_dtype(splits_v.tensor_dtype_value))


def _fullargspec(params):
    """Python's ``FullArgSpec`` of a function of ``params`` as TF's nested-structure coder writes it."""
    sv = pb("struct_pb2").StructuredValue()
    nt = sv.named_tuple_value
    nt.name = "FullArgSpec"
    for key, value in (("args", list(params)), ("varargs", None), ("varkw", None), ("defaults", None),
                       ("kwonlyargs", []), ("kwonlydefaults", None), ("annotations", {})):
        nt.values.add(key=key).value.CopyFrom(_encode(value))
    return sv


def _decode(sv):
    kind = sv.WhichOneof("kind")
    if kind == "none_value" or kind is None:
        return None
    if kind == "tensor_spec_value":
        s = sv.tensor_spec_value
        shape = None if s.shape.unknown_rank else [None if d.size < 0 else d.size for d in s.shape.dim]
        return TensorSpec(shape, dtypes.as_dtype(s.dtype), name=s.name or None)
    if kind == "type_spec_value":
        return _decode_type_spec(sv.type_spec_value)
    if kind in ("tuple_value", "list_value"):
        vals = [_decode(v) for v in getattr(sv, kind).values]
        return tuple(vals) if kind == "tuple_value" else vals
    if kind == "dict_value":
        return {k: _decode(v) for k, v in sv.dict_value.fields.items()}
    return getattr(sv, kind)


# -- what to save -------------------------------------------------------------------------------------------
def _function_attributes(obj):
    """``[(name, Function bound to obj)]`` of the tf.function attributes of one object."""

    out, seen = [], set()
    if isinstance(obj, list | tuple | dict) or graph.is_variable(obj):
        return out
    for klass in type(obj).__mro__:
        for name, value in vars(klass).items():
            if isinstance(value, Function) and name not in seen:
                seen.add(name)
                out.append((name, getattr(obj, name)))
    for name, value in vars(obj).items():
        if isinstance(value, Function) and name not in seen:
            seen.add(name)
            out.append((name, value))
    return out


def _concretes(fn):
    cfs = list(fn._cache.values())
    if not cfs and fn.input_signature is not None:
        cfs = [fn.get_concrete_function()]
    return cfs


_LITERALS = (type(None), bool, int, float, str)


def _tensor_specs(spec):
    """The TensorSpec leaves of a saved input structure in graph-input order (a RaggedTensorSpec gives its
    components' specs; Python literals are not graph inputs)."""
    out = []
    for s in nest.flatten(spec):
        if isinstance(s, RaggedTensorSpec):
            out.extend(s._tf_component_specs())
        elif isinstance(s, TensorSpec):
            out.append(s)
    return out


def _input_specs(cf):
    specs = []
    for name, k in zip(cf._param_names, cf._arg_keys):
        spec = _key_spec(k)
        if isinstance(spec, TensorSpec):
            spec = TensorSpec(spec.shape, spec.dtype, name=name)
        else:  # Python values are saved as literals (TF's nested_structure_coder), matched again on load
            bad = [s for s in nest.flatten(spec) if not isinstance(s, (TensorSpec, RaggedTensorSpec, *_LITERALS))]
            if bad:
                raise ValueError(f"tf.saved_model.save: {cf.name}({name}=...) was traced with the Python value "
                                 f"{bad[0]!r} ({type(bad[0]).__name__}); only tensors and Python None, bool, int, "
                                 "float and str values (in lists, tuples and dicts) can be saved")
        specs.append(spec)
    return tuple(specs)


def _variants(cf):
    """A ConcreteFunction and the graphs it specialised to other static input shapes."""
    return [cf] + [v for v in cf._specialisations.values() if v is not cf]


def _exact(declared, variant):
    """``declared`` specs with the static shapes ``variant`` was traced with."""
    shapes = iter(variant._shapes or ())

    def exact(s):
        if isinstance(s, RaggedTensorSpec):  # its components' shapes: the number of rows is part of the spec
            comps = [next(shapes, None) for _ in s._tf_component_specs()]
            rows = None if comps[1] is None else comps[1][0] - 1
            return RaggedTensorSpec([rows] + s.shape.as_list()[1:], s.dtype, s.ragged_rank, s.row_splits_dtype)
        if not isinstance(s, TensorSpec):
            return s  # a Python literal
        shape = next(shapes, None)
        if shape is None:  # the declared shape (None: an unknown rank, TensorSpec(None))
            shape = s.shape.as_list() if s.shape.rank is not None else None
        return TensorSpec(None if shape is None else list(shape), s.dtype, name=s.name)

    return nest.map_structure(exact, declared)


def _arg_names(cf, specs):
    names = []
    for param, spec in zip(cf._param_names, specs):
        flat = _tensor_specs(spec)
        names += [param] if len(flat) == 1 else [f"{param}_{i}" for i in range(len(flat))]
    return names


def _output_spec(cf, dynamic):
    g = cf.graph
    if not all(getattr(g, "output_is_slot", [True])):
        raise ValueError(f"tf.saved_model.save: {cf.name} returns Python values; only tensors can be saved")

    def spec(t):
        if t is None:
            return None
        if isinstance(t, RaggedTensorSpec):
            shape = [None] * t.shape.rank if dynamic else t.shape.as_list()
            return RaggedTensorSpec(shape, t.dtype, t.ragged_rank, t.row_splits_dtype)
        if t.shape.rank is None:  # an unknown rank (a function traced for TensorSpec(None))
            return TensorSpec(None, t.dtype)
        shape = [None] * t.shape.rank if dynamic else t.shape.as_list()
        return TensorSpec(shape, t.dtype)

    return nest.map_structure(spec, _rebuild_composites(g.output_structure))


def _signature_outputs(structure):
    if isinstance(structure, dict) and not any(isinstance(v, RaggedTensorSpec) for v in structure.values()):
        return dict(structure)
    flat = _tensor_specs(structure)  # a RaggedTensorSpec: its components, as TF's signatures
    return {f"output_{i}": s for i, s in enumerate(flat)}


def _default_signatures(obj):
    """TF's rule: a Keras model serves its call; a module its only tf.function with an input_signature."""
    if hasattr(obj, "compile") and hasattr(obj, "_trainable_weights"):
        inputs = getattr(obj, "inputs", None)
        if inputs:
            specs = [TensorSpec(t.shape, t.dtype, name=t._keras_history.layer.name) for t in inputs]
        else:
            shape = getattr(obj, "_build_input_shape", None)
            if shape is None:
                raise ValueError(f"Model {obj.name!r} cannot be saved: it has not been built (call it on data).")
            specs = [TensorSpec(shape, obj.dtype if isinstance(obj.dtype, str) else "float32", name="inputs")]
        if len(specs) == 1:
            return {DEFAULT_SIGNATURE: function(lambda inputs: obj(inputs, training=False),
                                                input_signature=specs).get_concrete_function()}, specs
        return {DEFAULT_SIGNATURE: function(lambda *inputs: obj(list(inputs), training=False),
                                            input_signature=specs).get_concrete_function()}, specs
    found = [fn for _, fn in _function_attributes(obj) if fn.input_signature is not None]
    if len(found) == 1:
        return {DEFAULT_SIGNATURE: found[0]}, None
    return {}, None


# -- save ---------------------------------------------------------------------------------------------------
def save(obj, export_dir, signatures=None, options=None):
    """Write ``obj`` (a tf.Module or Keras model) and its traced tf.functions as a SavedModel at ``export_dir``."""

    export_dir = os.fspath(export_dir)
    if not graph.is_trackable(obj) or graph.is_variable(obj):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj!r} with type {type(obj)}.")
    mpb, sopb = pb("meta_graph_pb2"), pb("saved_object_graph_pb2")
    g = graph.ObjectGraph(obj)
    n_trackables = len(g.nodes)
    if signatures is None:
        signatures, _ = _default_signatures(obj)
    elif isinstance(signatures, Function | ConcreteFunction):
        signatures = {DEFAULT_SIGNATURE: signatures}
    elif not isinstance(signatures, dict):
        raise ValueError(f"`signatures` must be a tf.function, a ConcreteFunction or a dict of them; got "
                         f"{signatures!r}")

    meta = mpb.MetaGraphDef()
    meta.meta_info_def.tags.append(SERVING)
    meta.meta_info_def.tensorflow_version = "tfcore"
    meta.meta_info_def.stripped_default_attrs = True
    meta.graph_def.versions.producer = 1
    obj_graph = sopb.SavedObjectGraph()
    saved_nodes = []
    for nid, o in enumerate(g.nodes[:n_trackables]):
        node = obj_graph.nodes.add()
        saved_nodes.append(node)
        for name, cid in g.edges[nid]:
            node.children.add(node_id=cid, local_name=name)
        if graph.is_variable(o):
            v = node.variable
            v.dtype = o.dtype.as_datatype_enum
            for d in o.shape.as_list():
                v.shape.dim.add(size=-1 if d is None else d)
            v.trainable = bool(o.trainable)
            v.name = o.name[:-2] if o.name.endswith(":0") else o.name
        else:
            node.user_object.identifier = "_generic_user_object"
            node.user_object.version.producer = 1
            node.user_object.version.min_consumer = 1
    var_ids = {id(o): nid for nid, o in enumerate(g.nodes[:n_trackables]) if graph.is_variable(o)}
    for nid, o in enumerate(g.nodes[:n_trackables]):  # a function traced in a strategy captures a replica's copy
        copies = getattr(o, "values", None) if graph.is_variable(o) else None
        if isinstance(copies, tuple):  # of a distributed variable: saved as the variable (TF saves replica 0's)
            var_ids.update((id(c), nid) for c in copies if id(c) not in var_ids)
    library = meta.graph_def.library
    names_used = set()

    def add_concrete(cf, base, specs=None, out_structure=None, keyword_specs=None):
        name = f"__inference_{base}_{len(names_used)}"
        names_used.add(name)
        specs = specs if specs is not None else _input_specs(cf)
        dynamic = any(d is None for s in _tensor_specs(specs) for d in (s.shape.as_list() if s.shape.rank is not None
                                                                       else [None]))
        arg_names = [sp.name for sp in keyword_specs] if keyword_specs is not None else _arg_names(cf, specs)
        fdef, captures = function_def(cf, name, arg_names)
        library.function.add().CopyFrom(fdef)
        saved = obj_graph.concrete_functions[name]
        for var in captures:
            nid = var_ids.get(id(var))
            if nid is None:
                raise ValueError(f"tf.saved_model.save: {cf.name} uses the variable {var.name}, which is not "
                                 f"reachable from the saved object; attach it (e.g. as an attribute) to {obj!r}.")
            saved.bound_inputs.append(nid)
        if keyword_specs is not None:  # signature functions take keyword arguments (TF's layout)
            saved.canonicalized_input_signature.CopyFrom(_encode(((), {sp.name: sp for sp in keyword_specs})))
        else:
            saved.canonicalized_input_signature.CopyFrom(_encode((tuple(specs), {})))
        out = _output_spec(cf, dynamic) if out_structure is None else out_structure
        saved.output_signature.CopyFrom(_encode(out))
        return name, specs, out

    for nid in range(n_trackables):
        for attr, fn in _function_attributes(g.nodes[nid]):
            fnode = obj_graph.nodes.add()
            saved_nodes[nid].children.add(node_id=len(obj_graph.nodes) - 1, local_name=attr)
            for cf in _concretes(fn):
                declared = _input_specs(cf)
                for variant in _variants(cf):
                    name, _, _ = add_concrete(variant, attr, specs=_exact(declared, variant))
                    fnode.function.concrete_functions.append(name)
            fnode.function.function_spec.is_method = False
            params = _concretes(fn)[0]._param_names if _concretes(fn) else []
            fnode.function.function_spec.fullargspec.CopyFrom(_fullargspec(params))
            fnode.function.function_spec.input_signature.CopyFrom(_encode(
                tuple(_input_specs(_concretes(fn)[0])) if _concretes(fn) else None))

    sig_node_id = len(obj_graph.nodes)
    sig_node = obj_graph.nodes.add()
    sig_node.user_object.identifier = "signature_map"
    sig_node.user_object.version.producer = 1
    saved_nodes[0].children.add(node_id=sig_node_id, local_name="signatures")
    for key, fn in signatures.items():
        cf = fn.get_concrete_function() if isinstance(fn, Function) else fn
        if not isinstance(cf, ConcreteFunction):
            raise ValueError(f"signatures[{key!r}] must be a tf.function with an input_signature or a "
                             f"ConcreteFunction; got {fn!r}")
        specs, keywords = [], []
        for s, p in zip(_input_specs(cf), cf._param_names):
            if isinstance(s, RaggedTensorSpec):  # TF's layout: one keyword per component (rt, rt_1, ...)
                comps = s._tf_component_specs()
                specs += comps
                keywords += [p] + [f"{p}_{i}" for i in range(1, len(comps))]
            else:
                specs.append(s)
                keywords.append(getattr(s, "name", None) or p)
        if any(not isinstance(s, TensorSpec) for s in specs):
            raise ValueError(f"signatures[{key!r}]: every argument must be a single tensor")
        dynamic = any(d is None for s in specs for d in (s.shape.as_list() if s.shape.rank is not None else [None]))
        outputs = _signature_outputs(_output_spec(cf, dynamic))
        kw_specs = tuple(TensorSpec(s.shape, s.dtype, name=k) for s, k in zip(specs, keywords))
        for i, variant in enumerate(_variants(cf)):
            exact = _exact(kw_specs, variant)
            # the first graph is declared with the signature's shapes (TF serves it for all of them);
            # further specialisations keep their exact static shapes
            name, _, _ = add_concrete(variant, f"signature_wrapper_{key}", specs=exact,
                                      out_structure=_signature_outputs(_output_spec(variant, i == 0 and dynamic)),
                                      keyword_specs=kw_specs if i == 0 else exact)
            bare = obj_graph.nodes.add()
            bare.bare_concrete_function.concrete_function_name = name
            bare.bare_concrete_function.argument_keywords.extend(keywords)
            # graphs are specialised to static shapes: further shapes are extra entries "<key>/<i>"
            sig_node.children.add(node_id=len(obj_graph.nodes) - 1, local_name=key if i == 0 else f"{key}/{i}")
        sdef = meta.signature_def[key]
        sdef.method_name = PREDICT_METHOD
        for k, s in zip(keywords, kw_specs):
            _tensor_info(sdef.inputs[k], f"{key}_{k}:0", s)
        for i, (k, s) in enumerate(outputs.items()):
            _tensor_info(sdef.outputs[k], f"StatefulPartitionedCall:{i}", s)
    if options is None or getattr(options, "experimental_custom_gradients", True):

        def add_function_def(cf, name, arg_names):
            fdef, captures = function_def(cf, name, arg_names)
            library.function.add().CopyFrom(fdef)
            return captures

        custom_gradients.add_gradient_functions(library, obj_graph, var_ids, add_function_def, _encode)
    meta.object_graph_def.CopyFrom(obj_graph)
    _write_directory(export_dir, meta, g)


def _tensor_info(info, name, spec):
    info.name = name
    info.dtype = spec.dtype.as_datatype_enum
    if spec.shape.rank is None:
        info.tensor_shape.unknown_rank = True
    else:
        for d in spec.shape.as_list():
            info.tensor_shape.dim.add(size=-1 if d is None else d)


def _spec_from_info(info, name):
    shape = None if info.tensor_shape.unknown_rank else [None if d.size < 0 else d.size for d in info.tensor_shape.dim]
    return TensorSpec(shape, dtypes.as_dtype(info.dtype), name=name)


def _write_directory(export_dir, meta, g):
    """Write into a temporary sibling directory, then swap it in (atomic_files: the old or the new
    SavedModel is at ``export_dir`` after a kill at any step; temporaries of killed saves are removed)."""
    export_dir = os.path.abspath(export_dir)
    os.makedirs(os.path.dirname(export_dir), exist_ok=True)
    atomic_files.clean_stale(export_dir)
    tmp = atomic_files.temp_name(export_dir)
    try:
        os.makedirs(os.path.join(tmp, ASSETS_DIRECTORY))
        writer = bundle.BundleWriter(os.path.join(tmp, VARIABLES_DIRECTORY, VARIABLES_FILENAME))
        proto = _object_graph_proto(g, CheckpointOptions())
        og = np.empty((), dtype=object)
        og[()] = proto.SerializeToString()
        writer.add(graph.OBJECT_GRAPH_KEY, og, dtypes.string)
        for nid, key in g.keys.items():
            v = g.nodes[nid]
            writer.add(key, v.numpy(), v.dtype)
        writer.write()
        with open(os.path.join(tmp, SAVED_MODEL_FILENAME_PB), "wb") as f:
            f.write(encode_saved_model([meta]))
            f.flush()
            os.fsync(f.fileno())
        atomic_files.fsync_directory(tmp)
        atomic_files.replace_directory(tmp, export_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


# -- load ---------------------------------------------------------------------------------------------------
def read_meta_graph(export_dir):
    """The ``MetaGraphDef`` of ``export_dir``; TF's ``OSError`` when ``saved_model.pb`` is missing or unparsable."""
    export_dir = os.fspath(export_dir)
    atomic_files.clean_stale(export_dir)  # put back / remove what a killed save left
    path = os.path.join(export_dir, SAVED_MODEL_FILENAME_PB)
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
                      f"{{saved_model.pbtxt|{SAVED_MODEL_FILENAME_PB}}}")
    with open(path, "rb") as f:
        data = f.read()
    try:
        _, metas = decode_saved_model(data, path)
    except DataLossError as e:
        raise OSError(f"Cannot parse file {path}: {e}.") from e
    return metas[0]


class _UserObject(Module):
    """A restored object: the saved attributes, variables and functions (its class is not needed)."""

    def __init__(self):
        super().__init__(name="restored")

    def __call__(self, *args, **kwargs):
        fn = self.__dict__.get("__call__")
        if fn is None:
            raise TypeError("This restored object is not callable (it had no __call__ tf.function)")
        return fn(*args, **kwargs)


class _RestoredConcreteFunction:
    """One saved ConcreteFunction: checks the arguments against its signature and runs the graph."""

    def __init__(self, name, fn, saved):
        self.name = name
        self._fn = fn
        args, kwargs = _decode(saved.canonicalized_input_signature)
        self.structured_input_signature = (tuple(args), kwargs or {})
        self.input_specs = tuple(args)  # signature functions set theirs from their keyword order
        self.structured_outputs = _decode(saved.output_signature)

    def _matches(self, args):
        return _compatible(self.input_specs, args)

    def _run(self, args):
        flat = [a.value() if isinstance(a, Variable) else convert_to_tensor(a, dtype=s.dtype)
                for s, a in _tensor_leaves(list(self.input_specs), list(args))]
        outs = self._fn(flat)
        it = iter(outs)
        leaves = nest.flatten(self.structured_outputs)

        def value(s):
            if s is None:
                return None
            if isinstance(s, RaggedTensorSpec):  # its components, flat values first
                parts = [next(it) for _ in s._tf_component_specs()]
                return RaggedTensor.__tf_unflatten__(s._tf_metadata(), parts)
            return next(it)

        return nest.pack_sequence_as(self.structured_outputs, [value(s) for s in leaves])

    def __call__(self, *args):
        return self._run(args)


def _dispatch(name, concretes, declared, args):
    """Run the concrete function traced for these shapes; else one whose declared signature allows them.

    tfcore graphs are specialised to the static shapes they were traced with; a graph still runs for
    other shapes its declared signature allows (None dimensions) unless it baked a shape in, in which
    case the error says which shapes were saved.
    """
    for cf in concretes:
        if cf._matches(args):
            return cf._run(args)
    saved = [tuple(s.shape.as_list() for s in _tensor_specs(list(cf.input_specs)))
             for cf in concretes]
    if declared is not None and concretes and _compatible(declared, args):
        try:
            return concretes[0]._run(args)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{name}: the saved graphs were traced for input shapes {saved}; running the first "
                             f"one with these arguments failed ({e}). Trace the function with these shapes "
                             "before saving.") from e
    raise ValueError(f"Could not find matching concrete function to call loaded from the SavedModel {name!r}. "
                     f"Got: {args!r}. Expected one of the traced input shapes {saved}"
                     + (f" or the signature {declared}" if declared is not None else ""))


def _tensor_leaves(spec, arg):
    """``[(TensorSpec, argument value)]``: the arguments that are graph inputs, in the graph's order."""
    if isinstance(spec, TensorSpec):
        return [(spec, arg)]
    if isinstance(spec, RaggedTensorSpec):
        return list(zip(spec._tf_component_specs(), arg.__tf_flatten__()[1]))
    if isinstance(spec, list | tuple):
        return [pair for s, a in zip(spec, arg) for pair in _tensor_leaves(s, a)]
    if isinstance(spec, dict):
        return [pair for k in sorted(spec) for pair in _tensor_leaves(spec[k], arg[k])]
    return []


def _compatible(spec, arg):
    """Whether ``arg`` fits the saved input structure ``spec``: tensors by dtype and shape; Python
    literals (a function traced with ``f([[2.0, 2.0]])``) by type and value, as TF's trace types."""
    if isinstance(spec, RaggedTensorSpec):
        return isinstance(arg, RaggedTensor) and spec.is_compatible_with(arg)
    if isinstance(spec, TensorSpec):
        dt = getattr(arg, "dtype", None) if isinstance(arg, Tensor | Variable) else None
        if dt is not None and dt != spec.dtype:
            return False
        try:
            shape = list(np.shape(arg.numpy() if hasattr(arg, "numpy") else arg))
        except ValueError:  # a ragged Python list
            return False
        return spec.shape.is_compatible_with(shape)
    if isinstance(spec, list | tuple):
        return (isinstance(arg, list | tuple) and len(arg) == len(spec)
                and all(_compatible(s, a) for s, a in zip(spec, arg)))
    if isinstance(spec, dict):
        return (isinstance(arg, dict) and set(arg) == set(spec)
                and all(_compatible(spec[k], arg[k]) for k in spec))
    return type(arg) is type(spec) and arg == spec


class _RestoredFunction:
    """A saved tf.function: calls the concrete function whose signature fits the arguments."""

    def __init__(self, name, concretes, declared=None):
        self.__name__ = name
        self.concrete_functions = concretes
        self.input_signature = declared

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{self.__name__}: restored functions take positional arguments")
        return _dispatch(self.__name__, self.concrete_functions, self.input_signature, args)


class _SignatureFunction:
    """``loaded.signatures[key]``: keyword arguments in, a dict of named outputs out."""

    def _use(self, concrete):
        kw = concrete.structured_input_signature[1]
        if kw:
            concrete.input_specs = tuple(kw[k] for k in self.argument_keywords)

    def __init__(self, concrete, keywords, declared=None):
        self._concretes = [concrete]
        self.argument_keywords = list(keywords)
        self._use(concrete)
        self._declared = declared
        specs = declared or concrete.input_specs
        # a positional bare concrete function (TF's "trace_0" children): its specs may have no names (RaggedTensorSpec)
        self.structured_input_signature = ((), {getattr(s, "name", None) or f"arg_{i}": s
                                                for i, s in enumerate(specs)})
        self.structured_outputs = concrete.structured_outputs

    def __call__(self, *args, **kwargs):
        if args:
            raise TypeError(f"signature functions take keyword arguments {self.argument_keywords}, got positional")
        missing = [k for k in self.argument_keywords if k not in kwargs]
        extra = [k for k in kwargs if k not in self.argument_keywords]
        if missing or extra:
            raise TypeError(f"signature expects keyword arguments {self.argument_keywords}; missing {missing}, "
                            f"unexpected {extra}")
        return _dispatch(self.argument_keywords[0] if len(self.argument_keywords) == 1 else "signature",
                         self._concretes, self._declared, tuple(kwargs[k] for k in self.argument_keywords))


def load(export_dir, tags=None, options=None):
    """Restore the object saved by ``tf.saved_model.save`` (no Python class needed).

    A damaged file is ``DataLossError`` naming the directory; a missing or unreadable ``saved_model.pb``
    is TF's ``OSError``.
    """
    export_dir = os.fspath(export_dir)
    try:
        return _load(export_dir, tags)
    except DataLossError as e:
        if export_dir in str(e):
            raise
        raise DataLossError(f"SavedModel {export_dir}: {e}") from e


def _load(export_dir, tags):
    meta = read_meta_graph(export_dir)
    if tags is not None:
        want = {tags} if isinstance(tags, str) else set(tags)
        if not want <= set(meta.meta_info_def.tags):
            raise RuntimeError(f"MetaGraphDef associated with tags {sorted(want)} could not be found in SavedModel "
                               f"{export_dir}; available tags: {list(meta.meta_info_def.tags)}")
    og = meta.object_graph_def
    reader = bundle.BundleReader(os.path.join(export_dir, VARIABLES_DIRECTORY, VARIABLES_FILENAME))

    ckpt_graph = _protos.trackable_object_graph().FromString(reader.read(graph.OBJECT_GRAPH_KEY).item())
    library = meta.graph_def.library
    fdefs = {f.signature.name: f for f in library.function}
    renames = custom_gradients.rename_map(library)
    objects = [None] * len(og.nodes)
    for nid, node in enumerate(og.nodes):
        kind = node.WhichOneof("kind")
        if kind == "variable":
            key = None
            if nid < len(ckpt_graph.nodes):
                key = next((a.checkpoint_key for a in ckpt_graph.nodes[nid].attributes if a.name == graph.VALUE), None)
            if key is None:
                raise NotFoundError(f"SavedModel {export_dir}: no checkpoint value for variable node {nid}")
            v = node.variable
            objects[nid] = Variable(reader.read(key), dtype=dtypes.as_dtype(v.dtype), trainable=v.trainable,
                                    name=v.name or None)
        elif kind == "user_object" or kind is None:
            objects[nid] = {} if node.user_object.identifier == "signature_map" else _UserObject()

    def concrete(name):
        saved = og.concrete_functions[name]
        fdef = fdefs.get(name)
        if fdef is None:
            raise NotFoundError(f"SavedModel {export_dir}: function {name} is missing from the function library")
        variables = [objects[i] for i in saved.bound_inputs]
        return _RestoredConcreteFunction(name, GraphFunction(fdef, variables, renames), saved)

    custom_gradients.register_loaded_gradients(
        library, og, fdefs, renames,
        lambda fdef, bound: GraphFunction(fdef, [objects[b] if isinstance(b, int) else b for b in bound], renames),
        _decode)

    for nid, node in enumerate(og.nodes):
        kind = node.WhichOneof("kind")
        if kind == "function":
            declared = _decode(node.function.function_spec.input_signature)
            objects[nid] = _RestoredFunction("function", [concrete(n) for n in node.function.concrete_functions],
                                             declared)
        elif kind == "bare_concrete_function":
            b = node.bare_concrete_function
            objects[nid] = _SignatureFunction(concrete(b.concrete_function_name), b.argument_keywords)
    for nid, node in enumerate(og.nodes):
        parent = objects[nid]
        for ref in node.children:
            child = objects[ref.node_id]
            if isinstance(parent, dict):  # the signature map; "<key>/<i>" are more shapes of <key>
                key = ref.local_name.split("/")[0]
                if key in parent:
                    for cf in child._concretes:
                        parent[key]._use(cf)
                    # exact-shape graphs first: the declared (None-dimension) graph is the fallback
                    parent[key]._concretes = child._concretes + parent[key]._concretes
                else:
                    parent[key] = child
                    sdef = meta.signature_def.get(key)
                    if sdef is not None:
                        child._declared = tuple(_spec_from_info(sdef.inputs[k], k) for k in child.argument_keywords)
                        child.structured_input_signature = ((), {s.name: s for s in child._declared})
            elif isinstance(parent, _UserObject):
                if isinstance(child, _RestoredFunction):
                    child.__name__ = ref.local_name
                object.__setattr__(parent, ref.local_name, child)
    root = objects[0]
    if isinstance(root, _UserObject) and "signatures" not in vars(root):
        object.__setattr__(root, "signatures", {})
    return root


def contains_saved_model(export_dir):
    """True when ``export_dir`` holds a ``saved_model.pb``."""
    return os.path.isfile(os.path.join(os.fspath(export_dir), SAVED_MODEL_FILENAME_PB))
