"""Keras 3's ``.keras`` file: a zip of ``metadata.json``, ``config.json`` and ``model.weights.h5``.

``config.json`` is the model's Keras 3 serialization (``module``/``class_name``/``config``/
``registered_name`` dicts; a ``build_config`` with the input shape; a ``compile_config`` with the
optimizer, loss and metrics). ``model.weights.h5`` (HDF5, through h5py) holds each layer's
variables in creation order under ``layers/<layer name>/vars/<i>`` (nested models recurse), the
model's own under ``vars``, and the optimizer's under ``optimizer/vars/<i>``: ``iterations``,
``learning_rate``, then each trainable variable's slots in order. Files written here load in
Keras 3 and files Keras 3 writes for the standard layers load here.

Loading never runs code from the file: classes are looked up by name among tfcore's layers and
``custom_objects``/registered classes; configs are plain JSON. Writes go to a temporary file that
replaces the target, so a crash leaves the previous file intact.
"""

import datetime
import inspect
import json
import os
import re
import tempfile
import zipfile

import numpy as np

from ...framework import nest
from ...framework.errors import DataLossError, NotFoundError
from ...io import atomic_files
from .. import layers as layers_mod
from .. import losses as losses_mod
from .. import metrics as metrics_mod
from .. import optimizers as optimizers_mod
from ..engine.base_layer import Layer
from ..engine.input_layer import Input, InputLayer
from ..engine.keras_tensor import KerasTensor
from ..engine.model import Model
from ..engine.sequential import Sequential
from ..layers.serialization import builtin_class
from ..utils.object_registration import CustomObjectScope
from .safe_mode import SafeModeScope

KERAS_VERSION = "3.5.0"  # the Keras 3 file-format version this writer follows
_REGISTERED = {}


def _h5py():
    try:
        import h5py
    except ImportError as e:
        raise ImportError("Keras .keras files need the 'h5py' package: pip install 'tfcore[keras]' "
                          "(or pip install h5py)") from e
    return h5py


def register_keras_serializable(package="Custom", name=None):
    """Decorator: make a custom class loadable by name (``tf.keras.saving.register_keras_serializable``)."""

    def decorator(cls):
        key = f"{package}>{name or cls.__name__}"
        if key in _REGISTERED and _REGISTERED[key] is not cls:
            raise ValueError(f"{key} has already been registered to {_REGISTERED[key]}")
        _REGISTERED[key] = cls
        cls._registered_name = key
        return cls

    return decorator


# -- configs: tfcore -> Keras 3 --------------------------------------------------------------------
_SUFFIX_MODULES = (("_initializer", "keras.initializers"), ("_regularizer", "keras.regularizers"),
                   ("_constraint", "keras.constraints"))


def _dtype_name(dtype):
    return getattr(dtype, "name", dtype)


def _dtype_policy(name):
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name}, "registered_name": None}


def _jsonable(value):
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "as_list"):  # TensorShape
        return value.as_list()
    if hasattr(value, "name") and hasattr(value, "as_numpy_dtype"):  # DType
        return value.name
    return value


def _keras3_layer_config(config):
    out = {}
    for key, value in config.items():
        if key == "batch_input_shape":
            continue
        if key == "dtype" and isinstance(value, str):
            value = _dtype_policy(value)
        elif isinstance(value, dict) and "class_name" in value and "module" not in value:
            module = next((m for suffix, m in _SUFFIX_MODULES if key.endswith(suffix)), "keras.layers")
            inner = dict(value.get("config", {}))
            if module == "keras.layers" and _layer_class_or_none(value["class_name"]) is not None:
                for k in _NOT_IN_KERAS3.get(value["class_name"], ()):  # a wrapped layer's config
                    inner.pop(k, None)
                inner = _keras3_layer_config(inner)
            value = {"module": module, "class_name": value["class_name"], "config": _jsonable(inner),
                     "registered_name": None}
        out[key] = _jsonable(value)
    return out


def _input_layer_config(batch_shape, dtype, name):
    return {"module": "keras.layers", "class_name": "InputLayer",
            "config": {"batch_shape": list(batch_shape), "dtype": dtype, "sparse": False, "ragged": False,
                       "name": name}, "registered_name": None}


def _build_shape(layer):
    shape = getattr(layer, "_build_input_shape", None)
    if shape is None and hasattr(layer, "_batch_input_shape"):
        shape = layer._batch_input_shape
    return _jsonable(shape) if shape is not None else None


# keys tfcore's configs carry that Keras 3's constructors of these classes reject
_NOT_IN_KERAS3 = {"DepthwiseConv2D": ("groups",), "SeparableConv2D": ("groups",), "Conv2DTranspose": ("groups",),
                  "Conv1DTranspose": ("groups",), "Conv3DTranspose": ("groups",), "LSTM": ("time_major",),
                  "GRU": ("time_major",), "SimpleRNN": ("time_major",), "RNN": ("time_major",)}


def serialize_layer(layer):
    """A layer or model as Keras 3 serializes it."""

    if _is_sequential(layer):
        return _with_build({"module": "keras", "class_name": "Sequential", "config": _sequential_config(layer),
                            "registered_name": None}, layer)
    if _is_functional(layer):
        return _with_build({"module": "keras.src.models.functional", "class_name": "Functional",
                            "config": functional_config(layer), "registered_name": None}, layer)
    if isinstance(layer, InputLayer):
        return _input_layer_config(layer._batch_input_shape, _dtype_name(layer.dtype), layer.name)
    cls = type(layer)
    builtin = cls.__module__.startswith("tfcore.keras.")
    registered = getattr(cls, "_registered_name", None)
    try:
        config = layer.get_config()
    except NotImplementedError as e:
        raise ValueError(f"Cannot serialize {cls.__name__} {layer.name!r}: it has no get_config(). Override "
                         "get_config() (and from_config() if needed) to save it in a .keras file.") from e
    for key in _NOT_IN_KERAS3.get(cls.__name__, ()):
        config.pop(key, None)
    entry = {"module": "keras.layers" if builtin else cls.__module__, "class_name": cls.__name__,
             "config": _keras3_layer_config(config),
             "registered_name": None if builtin else (registered or cls.__name__)}
    return _with_build(entry, layer)


def _with_build(entry, layer):
    shape = _build_shape(layer)
    if getattr(layer, "built", False) and shape is not None:
        entry["build_config"] = {"input_shape": shape}
    return entry


def _is_sequential(layer):
    return getattr(layer, "_seq_layers", None) is not None


def _is_functional(layer):
    return getattr(layer, "_graph", None) is not None and not _is_sequential(layer)


def _sequential_config(model):
    layers = []
    if model._input_layer is not None:
        layers.append(serialize_layer(model._input_layer))
    elif model._seq_layers and hasattr(model._seq_layers[0], "_batch_input_shape"):
        first = model._seq_layers[0]
        layers.append(_input_layer_config(first._batch_input_shape, _dtype_name(first.dtype), f"{first.name}_input"))
    layers += [serialize_layer(lay) for lay in model._seq_layers]
    config = {"name": model.name, "trainable": model.trainable, "dtype": _dtype_policy(_dtype_name(model.dtype)),
              "layers": layers}
    shape = _build_shape(model)
    if shape is not None:
        config["build_input_shape"] = shape
    return config


def functional_config(model):
    """The Keras 3 config of a functional model: layers with their inbound nodes, input and output layers."""

    graph = model._graph
    model_nodes = set(id(n) for n in graph.nodes)
    reindex = {}  # (layer id, node index in layer) -> node index within this model
    for layer in graph.layers:
        k = 0
        for i, node in enumerate(layer._inbound_nodes):
            if id(node) in model_nodes:
                reindex[(id(layer), i)] = k
                k += 1

    def tensor_ref(t):
        h = t._keras_history
        return [h.layer.name, reindex.get((id(h.layer), h.node_index), 0), h.tensor_index]

    def arg(x):
        if isinstance(x, KerasTensor):
            return {"class_name": "__keras_tensor__",
                    "config": {"shape": _jsonable(x.shape), "dtype": x.dtype, "keras_history": tensor_ref(x)}}
        return _jsonable(x)

    layers = []
    for layer in graph.layers:
        entry = serialize_layer(layer)
        entry["name"] = layer.name
        nodes = []
        for node in layer._inbound_nodes:
            if id(node) in model_nodes and not node.is_input:
                nodes.append({"args": _jsonable(nest.map_structure(arg, list(node.call_args))),
                              "kwargs": _jsonable(nest.map_structure(arg, dict(node.call_kwargs)))})
        entry["inbound_nodes"] = nodes
        layers.append(entry)

    def refs(tensors, structure):
        flat = [tensor_ref(t) for t in tensors]
        return flat[0] if not isinstance(structure, list | tuple | dict) else flat

    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": refs(graph.inputs, graph.inputs_structure),
            "output_layers": refs(graph.outputs, graph.outputs_structure)}


# -- configs: Keras 3 (or tfcore) -> objects -------------------------------------------------------------
# Keras 3 options with no effect on what tfcore computes (cuDNN selection, BatchNorm renorm unused)
_IGNORABLE = frozenset({"renorm_momentum", "renorm_clipping", "optional", "build_input_shape", "use_cudnn"})


def _plain(value):
    """A nested Keras 3 object dict reduced to ``{'class_name', 'config'}`` with None-valued options dropped."""
    if isinstance(value, dict) and "class_name" in value:
        if value.get("class_name") == "DTypePolicy" or value.get("class_name") == "DTypePolicyMap":
            return value.get("config", {}).get("name")
        if not isinstance(value.get("config") or {}, dict):  # a function by name, a lambda: kept whole
            return value
        inner = {k: _plain(v) for k, v in (value.get("config") or {}).items() if v is not None}
        cls = _layer_class_or_none(value["class_name"])
        if cls is not None:  # a nested layer (a wrapper's inner layer): only the options tfcore's class takes
            inner = _layer_kwargs(cls, inner, value["class_name"])
        out = {"class_name": value["class_name"], "config": inner}
        if value.get("registered_name") and value["registered_name"] != value["class_name"]:
            out["registered_name"] = value["registered_name"]  # finds a registered custom object
        return out
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _layer_class_or_none(class_name):
    if not isinstance(class_name, str):
        return None
    try:
        return _lookup_class(class_name, None, None)
    except ValueError:
        return None


def _lookup_class(class_name, registered_name, custom_objects):
    custom = custom_objects or {}
    for key in (registered_name, class_name):
        if key and key in custom:
            return custom[key]
        if key and key in _REGISTERED:
            return _REGISTERED[key]
    for key, cls in _REGISTERED.items():
        if key.split(">")[-1] == class_name:
            return cls

    cls = getattr(layers_mod, class_name, None) or builtin_class(class_name)
    if isinstance(cls, type) and issubclass(cls, Layer):  # only layer classes, whatever name the file holds
        return cls
    raise ValueError(f"Unknown layer: '{class_name}'. Please ensure you are using a "
                     "`keras.utils.custom_object_scope` and that this object is included in the scope, or pass it "
                     "in `custom_objects`.")


def _accepted(cls):
    from ..engine.base_layer import _ALLOWED_KWARGS

    names, var_kw = set(), False
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = inspect.signature(init).parameters.values()
        names.update(p.name for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL))
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            break
        var_kw = True
    if var_kw:
        names |= set(_ALLOWED_KWARGS) | {"batch_shape", "batch_input_shape"} | set(getattr(cls, "_cell_args", ()))
    return names


def _layer_kwargs(cls, config, class_name):
    config = {k: _plain(v) for k, v in config.items()}
    if getattr(cls, "from_config", None) is not None and cls.__dict__.get("from_config") is not None \
            and cls.__module__.startswith("tfcore.keras.") is False:
        return config  # a user class: its own from_config gets everything
    accepted = _accepted(cls)
    out = {}
    for key, value in config.items():
        if key in accepted:
            out[key] = value
        elif value in (None, False, 0, 1, [], {}) or key in _IGNORABLE:
            continue
        else:
            raise ValueError(f"Cannot load layer {class_name} {config.get('name')!r}: option {key}={value!r} is not "
                             "supported by tfcore.")
    return out


def deserialize_layer(entry, custom_objects=None):
    """A layer or model from its (Keras 3 or tfcore) serialization."""

    class_name = entry["class_name"]
    if class_name == "Sequential":
        return _sequential_from_config(entry["config"], custom_objects, entry.get("build_config"))
    if class_name in ("Functional", "Model") and "layers" in entry.get("config", {}):
        return functional_from_config(entry["config"], custom_objects)
    cls = _lookup_class(class_name, entry.get("registered_name"), custom_objects)
    config = _layer_kwargs(cls, dict(entry.get("config") or {}), class_name)
    if cls is InputLayer:
        return InputLayer(**config)
    for key, value in list(config.items()):  # e.g. Bidirectional's backward_layer ("layer" is from_config's)
        if key != "layer" and isinstance(value, dict) and _layer_class_or_none(value.get("class_name")):
            config[key] = deserialize_layer(value, custom_objects)
    layer = cls.from_config(config)
    build = entry.get("build_config")
    if build and build.get("input_shape") is not None and not layer.built and _is_model(layer):
        layer.build(_shape(build["input_shape"]))
    return layer


def _is_model(layer):
    return hasattr(layer, "compile")


def _shape(s):
    if isinstance(s, list) and s and all(isinstance(x, list) or x is None for x in s) and any(
            isinstance(x, list) for x in s):
        return [_shape(x) for x in s]
    return tuple(s)


def _sequential_from_config(config, custom_objects, build_config=None):
    model = Sequential(name=config.get("name"))
    for entry in config["layers"]:
        model.add(deserialize_layer(entry, custom_objects))
    shape = config.get("build_input_shape") or (build_config or {}).get("input_shape")
    if not model.built and shape is not None:
        model.build(_shape(shape))
    if config.get("trainable") is False:
        model.trainable = False
    return model


def functional_from_config(config, custom_objects=None):
    """Rebuild a functional model from ``functional_config``'s (Keras 3's) description."""

    tensors = {}
    layers = {}
    todo = []
    for entry in config["layers"]:
        if entry["class_name"] == "InputLayer":
            c = _layer_kwargs(InputLayer, dict(entry["config"]), "InputLayer")
            shape = c.pop("batch_shape", None) or c.pop("batch_input_shape", None)
            t = Input(batch_shape=tuple(shape), dtype=c.get("dtype"), name=c.get("name"))
            name = entry.get("name", c.get("name"))
            layers[name] = t._keras_history.layer
            tensors[(name, 0, 0)] = t
        else:
            layer = deserialize_layer(entry, custom_objects)
            layers[entry.get("name", layer.name)] = layer
            todo.append((entry.get("name", layer.name), layer, list(entry.get("inbound_nodes", []))))

    def resolve(x):
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            return tensors[tuple(x["config"]["keras_history"])]
        if isinstance(x, dict):
            return {k: resolve(v) for k, v in x.items()}
        if isinstance(x, list):
            return [resolve(v) for v in x]
        return x

    counts = {}
    while todo:
        progress = False
        rest = []
        for name, layer, nodes in todo:
            while nodes:
                try:
                    args = resolve(nodes[0].get("args", []))
                    kwargs = resolve(nodes[0].get("kwargs", {}))
                except KeyError:
                    break
                out = layer(*args, **kwargs)
                k = counts.get(name, 0)
                counts[name] = k + 1
                for i, t in enumerate(nest.flatten(out)):
                    tensors[(name, k, i)] = t
                nodes.pop(0)
                progress = True
            if nodes:
                rest.append((name, layer, nodes))
        if rest and not progress:
            raise ValueError(f"Cannot rebuild the functional model {config.get('name')!r}: the inputs of layer "
                             f"{rest[0][0]!r} are never produced.")
        todo = rest

    def pick(refs):
        if refs and isinstance(refs[0], str):
            return tensors[tuple(refs)]
        return [tensors[tuple(r)] for r in refs]

    model = Model(pick(config["input_layers"]), pick(config["output_layers"]), name=config.get("name"))
    if config.get("trainable") is False:
        model.trainable = False
    return model


# -- whole models ------------------------------------------------------------------------------------------
def model_to_dict(model, include_compile=True):
    entry = serialize_layer(model)
    if include_compile and getattr(model, "optimizer", None) is not None and model._state().get("compiled"):
        entry["compile_config"] = _compile_config(model)
    return entry


def _compile_config(model):
    opt = optimizers_mod.serialize(model.optimizer)
    opt = {**opt, "config": _jsonable(opt["config"])}

    def ser(x):
        if x is None or isinstance(x, str):
            return x
        if isinstance(x, list | tuple):
            return [ser(v) for v in x]
        if isinstance(x, dict):
            return {k: ser(v) for k, v in x.items()}
        if hasattr(x, "get_config"):
            module = "keras.metrics" if hasattr(x, "update_state") else "keras.losses"
            return {"module": module, "class_name": type(x).__name__, "config": _jsonable(x.get_config()),
                    "registered_name": None}
        name = getattr(x, "__name__", None)
        if name is None:
            raise ValueError(f"Cannot serialize the compiled loss/metric {x!r}")
        return name

    compiled_metrics = model.compiled_metrics
    metrics = getattr(compiled_metrics, "_user_metrics", None)
    weighted = getattr(compiled_metrics, "_user_weighted", None)
    return {"optimizer": opt, "loss": ser(model.loss), "loss_weights": _jsonable(getattr(
        model.compiled_loss, "_user_loss_weights", None)), "metrics": ser(metrics), "weighted_metrics": ser(weighted),
        "run_eagerly": False, "steps_per_execution": 1, "jit_compile": False}


def _compile_from_config(model, cc, custom_objects):
    opt_entry = cc.get("optimizer")
    if isinstance(opt_entry, dict):
        opt = optimizers_mod.deserialize(_plain(opt_entry), custom_objects=custom_objects)
    else:
        opt = opt_entry or "rmsprop"
    model.compile(optimizer=opt, loss=_compiled_objects(cc.get("loss"), "loss", custom_objects),
                  metrics=_compiled_objects(cc.get("metrics"), "metric", custom_objects),
                  loss_weights=cc.get("loss_weights"),
                  weighted_metrics=_compiled_objects(cc.get("weighted_metrics"), "metric", custom_objects))


def _compiled_objects(value, kind, custom_objects):
    """A compile config's loss or metrics with each serialized object (``{'class_name', 'config', ...}``,
    a ``BinaryCrossentropy()`` passed to ``compile``) deserialized back into that object; names, lists
    and per-output dicts keep their structure."""

    if isinstance(value, dict) and "class_name" in value:
        entry = _plain(value)
        module = value.get("module") or ""
        if kind == "loss" or module.endswith("losses"):
            try:
                return losses_mod.deserialize(entry, custom_objects=custom_objects)
            except ValueError:
                if kind == "loss":
                    raise
        return metrics_mod.deserialize(entry, custom_objects=custom_objects)
    if isinstance(value, dict):
        return {k: _compiled_objects(v, kind, custom_objects) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_compiled_objects(v, kind, custom_objects) for v in value]
    return value


# -- weights ------------------------------------------------------------------------------------------------
def _own_variables(layer):
    own = list(layer._trainable_weights) + list(layer._non_trainable_weights)
    return sorted(own, key=lambda v: getattr(v, "_uid", 0))  # creation order, as Keras 3 stores them


def _children(layer):
    if _is_sequential(layer) or _is_functional(layer):
        return list(layer.layers)
    return layer._sublayers()


def _snake(name):
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _attribute_sublayers(layer):
    """``[(attribute, sublayer)]`` of a plain layer (an LSTM's ``cell``), first attribute name each."""

    out, seen = [], set()
    for key, value in vars(layer).items():
        if isinstance(value, Layer) and value is not layer and id(value) not in seen:
            seen.add(id(value))
            out.append((key, value))
    return out


def _sub_groups(group, layer, create):
    """``[(h5 group, sublayer)]``: a model's layers under ``layers/<class name>``, a plain layer's sublayers
    under their attribute names (``cell``), as Keras 3 stores them."""
    if _is_sequential(layer) or _is_functional(layer):
        named = _named_children(layer)
        if not named:
            return []
        parent = group.create_group("layers") if create else group.get("layers")
    else:
        named = _attribute_sublayers(layer)
        parent = group
    out = []
    for name, sub in named:
        g = (parent.create_group(name) if create else parent.get(name)) if parent is not None else None
        out.append((g, name, sub))
    return out


def _named_children(layer):
    """``[(group name, sublayer)]``: Keras 3 names a container's entries by class (``dense``, ``dense_1``)."""
    used, out = {}, []
    for sub in _children(layer):
        name = _snake(type(sub).__name__)
        if name in used:
            used[name] += 1
            name = f"{name}_{used[name]}"
        else:
            used[name] = 0
        out.append((name, sub))
    return out


def _write_layer(group, layer):
    v = group.create_group("vars")
    v.attrs["name"] = layer.name
    for i, w in enumerate(_own_variables(layer)):
        v.create_dataset(str(i), data=w.numpy())
    for g, _, sub in _sub_groups(group, layer, create=True):
        _write_layer(g, sub)


def _optimizer_variables(model):
    """The optimizer's variables as Keras 3 saves them (``optimizer/vars/<i>``): ``optimizer.variables``, in
    Keras 3's creation order (iteration, learning rate, EMA averages, slot groups, extras such as Nadam's
    ``u_product``; a LossScaleOptimizer's own four, then its inner optimizer's)."""
    return list(model.optimizer.variables)


# the most a compressed HDF5 dataset can expand its stored bytes (deflate's limit is about 1032:1)
_MAX_EXPANSION = 1100


def read_dataset(group, name):
    """The array of HDF5 dataset ``group[name]``, after checking its declared size against the bytes stored.

    A crafted file can declare a dataset of terabytes in a few bytes (HDF5 fills unwritten chunks);
    reading it would allocate all of it. ``DataLossError`` names the file and the dataset instead.
    """
    ds = group.get(name)
    where = f"{group.file.filename}: dataset {group.name}/{name}"
    if ds is None or not hasattr(ds, "shape") or not hasattr(ds, "dtype"):
        raise DataLossError(f"{where} is missing or not a dataset")
    shape = ds.shape or ()
    if any(d is None or d < 0 for d in shape):
        raise DataLossError(f"{where} has an invalid shape {shape}")
    n = 1
    for d in shape:
        n *= int(d)
    nbytes = n * ds.dtype.itemsize
    stored = ds.id.get_storage_size()
    limit = stored if ds.compression is None else stored * _MAX_EXPANSION
    if nbytes > limit and nbytes > 0:
        raise DataLossError(f"{where} declares shape {shape} dtype {ds.dtype} ({nbytes} bytes), but the file stores "
                            f"{stored} bytes for it: truncated or crafted")
    return np.asarray(ds[()])


def _collect_assignments(group, layer, path, out):
    own = _own_variables(layer)
    stored = group.get("vars")
    n = len(stored) if stored is not None else 0
    if n != len(own):
        raise ValueError(f"Layer {path!r} expects {len(own)} variables, but the file holds {n}.")
    for i, w in enumerate(own):
        a = read_dataset(stored, str(i))
        expected = tuple(w.shape.as_list())
        if a.shape != expected:
            raise ValueError(f"Shape mismatch in layer {path!r} for variable {w.name}: the model expects {expected}, "
                             f"the file holds {a.shape}.")
        out.append((w, a))
    for g, name, sub in _sub_groups(group, layer, create=False):
        if g is None:
            if sub.weights:
                raise ValueError(f"The file has no weights for layer {path}/{sub.name} (group {name}).")
            continue
        _collect_assignments(g, sub, f"{path}/{sub.name}", out)


# -- files -------------------------------------------------------------------------------------------------
def save_model(model, filepath, overwrite=True, include_optimizer=True):
    """Write ``model`` to a ``.keras`` zip (atomically)."""
    h5py = _h5py()
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError("Invalid filepath extension for saving. Please add a `.keras` extension for the native "
                         f"Keras format. Received: filepath={filepath}. Use `tf.saved_model.save` to export a "
                         "SavedModel.")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} already exists and overwrite=False")
    if not model.built:
        raise ValueError(f"Model {model.name!r} has not been built yet: call it on data or build() it before saving.")
    config = model_to_dict(model, include_compile=include_optimizer)
    metadata = {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
                "producer": "tfcore"}
    # the old file or the new one is at filepath whenever the writer dies
    with atomic_files.replace_file(filepath) as tmp, tempfile.TemporaryDirectory() as tdir:
        h5_path = os.path.join(tdir, "model.weights.h5")
        with h5py.File(h5_path, "w") as f:
            _write_layer(f, model)
            if include_optimizer and "compile_config" in config:
                og = f.create_group("optimizer").create_group("vars")
                og.attrs["name"] = model.optimizer.name
                for i, v in enumerate(_optimizer_variables(model)):
                    og.create_dataset(str(i), data=v.numpy())
        with zipfile.ZipFile(tmp, "w") as z:
            z.writestr("metadata.json", json.dumps(metadata))
            z.writestr("config.json", json.dumps(config))
            z.write(h5_path, "model.weights.h5")


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """A model from a ``.keras`` file (written here or by Keras 3).

    ``custom_objects`` (and registered objects) resolve class and function names; a Python lambda in the
    file is refused with Keras 3's message unless ``safe_mode=False``. A truncated file is ``DataLossError``,
    a config of the wrong structure a ``ValueError`` naming the file and the field.
    """
    h5py = _h5py()
    filepath = os.fspath(filepath)
    atomic_files.clean_stale(filepath)  # temporaries a killed save left
    if not os.path.isfile(filepath):
        raise NotFoundError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                            "zip file.")
    if not filepath.endswith(".keras"):
        raise ValueError(f"File format not supported: filepath={filepath}. tfcore loads Keras 3 `.keras` files "
                         "(use tf.saved_model.load for SavedModels, tf.train.Checkpoint for checkpoints).")

    try:
        with zipfile.ZipFile(filepath) as z, tempfile.TemporaryDirectory() as tdir:
            config = json.loads(z.read("config.json"))
            json.loads(z.read("metadata.json"))
            z.extract("model.weights.h5", tdir)
            h5_path = os.path.join(tdir, "model.weights.h5")
            check_model_config(config, filepath)
            with CustomObjectScope(custom_objects or {}), SafeModeScope(safe_mode):
                try:
                    model = deserialize_layer(config, custom_objects)
                    cc = config.get("compile_config")
                    if compile and cc:
                        _compile_from_config(model, cc, custom_objects)
                except (AttributeError, KeyError, IndexError) as e:
                    raise ValueError(f"Invalid .keras file {filepath}: its config.json is not a Keras model config "
                                     f"({type(e).__name__}: {e})") from e
                except TypeError as e:
                    if str(e).startswith("Could not locate"):
                        raise  # Keras 3's error for an unknown class or function
                    raise ValueError(f"Invalid .keras file {filepath}: its config.json is not a Keras model config "
                                     f"(TypeError: {e})") from e
                except ValueError as e:  # name the file, keeping Keras 3's own messages as they are
                    if type(e) is not ValueError or filepath in str(e) or str(e).startswith("Requested the "):
                        raise
                    raise ValueError(f"Invalid .keras file {filepath}: {e}") from e
            with h5py.File(h5_path, "r") as f:
                _load_weights(model, f, restore_optimizer=bool(compile and cc))
    except DataLossError as e:
        raise DataLossError(f"Cannot read the .keras file {filepath}: {e}") from e
    except (zipfile.BadZipFile, KeyError, OSError, json.JSONDecodeError, EOFError) as e:
        raise DataLossError(f"Cannot read the .keras file {filepath}: it is truncated or corrupted ({e})") from e
    return model


def check_model_config(config, filepath):
    """``ValueError`` naming the file and the field unless ``config`` has the structure of a Keras model config."""
    def bad(field, expected, value):
        raise ValueError(f"Invalid .keras file {filepath}: field `{field}` must be {expected}, got "
                         f"{type(value).__name__} {str(value)[:80]!r}")

    def layer_entry(entry, field):
        if not isinstance(entry, dict):
            bad(field, "a layer config (a dict)", entry)
        if not isinstance(entry.get("class_name"), str):
            bad(f"{field}.class_name", "a string", entry.get("class_name"))
        if not isinstance(entry.get("config"), dict):
            bad(f"{field}.config", "a dict", entry.get("config"))
        for key in ("build_config", "compile_config"):
            if entry.get(key) is not None and not isinstance(entry[key], dict):
                bad(f"{field}.{key}", "a dict", entry[key])
        inner = entry["config"]
        if entry["class_name"] in ("Sequential", "Functional", "Model") and "layers" in inner:
            layers = inner["layers"]
            if not isinstance(layers, list):
                bad(f"{field}.config.layers", "a list", layers)
            for i, sub in enumerate(layers):
                layer_entry(sub, f"{field}.config.layers[{i}]")
                if "inbound_nodes" in sub and not isinstance(sub["inbound_nodes"], list):
                    bad(f"{field}.config.layers[{i}].inbound_nodes", "a list", sub["inbound_nodes"])
            for key in ("input_layers", "output_layers"):
                if key in inner and not isinstance(inner[key], list):
                    bad(f"{field}.config.{key}", "a list", inner[key])

    layer_entry(config, "config.json")


def _load_weights(model, f, restore_optimizer):
    pairs = []
    _collect_assignments(f, model, model.name, pairs)
    opt_pairs = []
    og = f.get("optimizer/vars")
    if restore_optimizer and og is not None and len(og):
        opt = model.optimizer
        opt.build(model.trainable_variables)
        variables = _optimizer_variables(model)
        if len(variables) == len(og):
            for i, v in enumerate(variables):
                a = read_dataset(og, str(i))
                if a.shape != tuple(v.shape.as_list()):
                    raise ValueError(f"Optimizer variable {i} ({v.name}) has shape {tuple(v.shape.as_list())}; the "
                                     f"file holds {a.shape}.")
                opt_pairs.append((v, a))
        else:
            import warnings

            warnings.warn(f"Skipping variable loading for optimizer '{opt.name}', because it has {len(variables)} "
                          f"variables whereas the saved optimizer has {len(og)} variables.")
    for v, a in pairs + opt_pairs:
        v.assign(a.astype(v.dtype.as_numpy_dtype, copy=False))


def to_json(model, **kwargs):
    return json.dumps(model_to_dict(model, include_compile=False), **kwargs)


def model_from_json(json_string, custom_objects=None):
    return deserialize_layer(json.loads(json_string), custom_objects)


def model_from_config(config, custom_objects=None):
    return deserialize_layer(config, custom_objects)


def save_weights_h5(model, filepath, overwrite=True):
    """``model.save_weights("m.weights.h5")``: the weights part of a ``.keras`` file, Keras 3's layout."""
    h5py = _h5py()
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} already exists and overwrite=False")
    with atomic_files.replace_file(filepath) as tmp, h5py.File(tmp, "w") as f:
        _write_layer(f, model)


def is_hdf5(filepath):
    """True when ``filepath`` starts with HDF5's signature (missing files count as HDF5: the loader reports them)."""
    try:
        with open(filepath, "rb") as f:
            return f.read(8) == b"\x89HDF\r\n\x1a\n"
    except FileNotFoundError:
        return True


def load_weights_h5(model, filepath):
    """Load a ``.weights.h5`` file (written here or by Keras 3); all shapes are checked before any assignment."""
    h5py = _h5py()
    filepath = os.fspath(filepath)
    atomic_files.clean_stale(filepath)  # temporaries a killed save left
    if not os.path.isfile(filepath):
        raise NotFoundError(f"Unable to load weights: no file at {filepath}")
    if not model.built:
        raise ValueError(f"Unable to load weights into model {model.name!r}: it has not created its weights yet. "
                         "Call the model on a batch of data or `build()` it first, then load the weights.")
    try:
        with h5py.File(filepath, "r") as f:
            pairs = []
            _collect_assignments(f, model, model.name, pairs)
    except OSError as e:
        raise DataLossError(f"Cannot read the weights file {filepath}: it is truncated or corrupted ({e})") from e
    for v, a in pairs:
        v.assign(a.astype(v.dtype.as_numpy_dtype, copy=False))
