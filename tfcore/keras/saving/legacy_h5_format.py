"""Keras 2's whole-model HDF5 file (``model.save("m.h5")`` / ``load_model("m.h5")``), as Keras 3 writes and
reads it (``keras/src/legacy/saving/legacy_h5_format.py``).

Layout: root attributes ``keras_version``, ``backend``, ``model_config`` (JSON: ``{"class_name", "config"}`` with
layer entries in the legacy form, without ``module``/``registered_name``) and ``training_config`` (JSON: loss,
metrics, ``optimizer_config``); a ``model_weights`` group with ``layer_names`` and, per layer, a group whose
``weight_names`` attribute lists its datasets (``<model>/<layer>/<weight>``) in the layer's weight order.
An ``optimizer_weights`` group holds the optimizer's variables (``weight_names`` attribute, one dataset per
variable, in ``optimizer.variables`` order: iteration, learning_rate, slots), as Keras 3 writes it. Loading does
what Keras 3 does with it: the optimizer is built for the model's OWN variables (none in a Sequential or
functional model) and takes the file's values in order while the shapes agree, so ``iterations`` and the
learning rate come back, the slots start fresh, and ``summary()`` counts 2 optimizer params. Unlike Keras 3,
a later ``fit`` works (tfcore's optimizers add slots for variables they meet later).
"""

import json
import os

import numpy as np

from ...framework.errors import NotFoundError
from ...io import atomic_files
from .keras_format import (
    KERAS_VERSION,
    _compile_config,
    _compile_from_config,
    _h5py,
    deserialize_layer,
    serialize_layer,
)

__all__ = ["save_model_to_hdf5", "load_model_from_hdf5"]


def _legacy_entry(entry):
    """A layer/model entry in Keras 2's form: ``{"class_name", "config"}``; nested models and layer lists too."""
    if not isinstance(entry, dict) or "class_name" not in entry:
        return entry
    config = dict(entry.get("config") or {})
    if isinstance(config.get("layers"), list):
        config["layers"] = [_legacy_entry(lay) for lay in config["layers"]]
        if "build_input_shape" not in config and (entry.get("build_config") or {}).get("input_shape") is not None:
            config["build_input_shape"] = entry["build_config"]["input_shape"]
    out = {"class_name": entry["class_name"], "config": config}
    for key in ("name", "inbound_nodes"):
        if key in entry:
            out[key] = entry[key]
    return out


def _legacy_object(value):
    """Losses, metrics and optimizers as ``{"class_name", "config"}`` (strings stay strings)."""
    if isinstance(value, list):
        return [_legacy_object(v) for v in value]
    if isinstance(value, dict) and "class_name" in value:
        config = dict(value.get("config") or {})
        if config.get("reduction") == "auto":  # Keras 2's name of Keras 3's default reduction
            config["reduction"] = "sum_over_batch_size"
        return {"class_name": value["class_name"], "config": config}
    return value


def _weight_name(variable):
    name = getattr(variable, "path", None) or variable.name
    return name.split(":")[0].split("/")[-1]


def save_model_to_hdf5(model, filepath, overwrite=True, include_optimizer=True):
    """Write ``model`` (architecture, weights, compile settings) to a legacy Keras 2 HDF5 file."""
    h5py = _h5py()
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} already exists and overwrite=False")
    if not model.built:
        raise ValueError(f"Model {model.name!r} has not been built yet: call it on data or build() it before saving.")
    model_config = _legacy_entry(serialize_layer(model))
    dirpath = os.path.dirname(filepath)
    if dirpath:
        os.makedirs(dirpath, exist_ok=True)
    with atomic_files.replace_file(filepath) as tmp, h5py.File(tmp, "w") as f:
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = KERAS_VERSION
        f.attrs["model_config"] = json.dumps({"class_name": model_config["class_name"],
                                              "config": model_config["config"]}).encode("utf8")
        if include_optimizer and getattr(model, "optimizer", None) is not None and model._state().get("compiled"):
            cc = _compile_config(model)
            training = {"loss": _legacy_object(cc["loss"]), "loss_weights": cc["loss_weights"],
                        "metrics": _legacy_object(cc["metrics"]), "weighted_metrics": _legacy_object(
                            cc["weighted_metrics"]), "run_eagerly": False, "steps_per_execution": 1,
                        "jit_compile": False, "optimizer_config": _legacy_object(cc["optimizer"])}
            f.attrs["training_config"] = json.dumps(training).encode("utf8")
        group = f.create_group("model_weights")
        group.attrs["backend"] = "tensorflow"
        group.attrs["keras_version"] = KERAS_VERSION
        layers = [lay for lay in model.layers if type(lay).__name__ != "InputLayer"]
        group.attrs["layer_names"] = [lay.name.encode("utf8") for lay in layers]
        for lay in layers:
            g = group.create_group(lay.name)
            names = [f"{model.name}/{lay.name}/{_weight_name(w)}" for w in lay.weights]
            g.attrs["weight_names"] = [n.encode("utf8") for n in names]
            for name, w in zip(names, lay.weights):
                g.create_dataset(name, data=np.asarray(w.numpy()))
        top = group.create_group("top_level_model_weights")
        top.attrs["weight_names"] = np.array([], dtype=np.float64)
        if "training_config" in f.attrs:
            _save_optimizer_weights(f, model.optimizer)


def _save_optimizer_weights(f, optimizer):
    """Keras 3's ``save_optimizer_weights_to_hdf5_group``: the variables of a built optimizer, by path."""
    variables = list(getattr(optimizer, "variables", ())) if getattr(optimizer, "built", False) else []
    if not variables:
        return
    group = f.create_group("optimizer_weights")
    names, seen = [], set()
    for v in variables:
        name = (getattr(v, "path", None) or v.name).split(":")[0]
        base, i = name, 1
        while name in seen:  # a dataset name must be unique in the group
            name, i = f"{base}_{i}", i + 1
        seen.add(name)
        names.append(name)
    group.attrs["weight_names"] = [n.encode("utf8") for n in names]
    for name, v in zip(names, variables):
        group.create_dataset(name, data=np.asarray(v.numpy()))


def _load_optimizer_weights(model, values):
    """Keras 3's legacy loader: ``optimizer.build(model._trainable_variables)`` (the model's own variables,
    not its layers') then ``set_weights``: the values in order, up to the shorter list, until a shape differs
    (Keras 3 then logs that the optimizer starts fresh)."""
    optimizer = model.optimizer
    own = [v for v in getattr(model, "_trainable_weights", ()) if v.trainable]
    optimizer.build(own)
    for v, a in zip(optimizer.variables, values):
        if tuple(v.shape.as_list()) != a.shape:
            import warnings

            warnings.warn("Error in loading the saved optimizer state. As a result, your model is starting with a "
                          "freshly initialized optimizer.")
            return
        v.assign(a.astype(v.dtype.as_numpy_dtype, copy=False))


def _text(value):
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def load_model_from_hdf5(filepath, custom_objects=None, compile=True):  # noqa: A002 - Keras' argument name
    """A model from a legacy Keras 2 HDF5 file (written here or by Keras 2/3)."""
    h5py = _h5py()
    filepath = os.fspath(filepath)
    if not os.path.isfile(filepath):
        raise NotFoundError(f"File not found: filepath={filepath}.")
    with h5py.File(filepath, "r") as f:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        model = deserialize_layer(json.loads(_text(raw)), custom_objects)
        group = f.get("model_weights", f)  # Keras 2 files saved with save_weights put the layers at the root
        names = [_text(n) for n in group.attrs["layer_names"]]
        by_name = {lay.name: lay for lay in model.layers}
        with_weights = [lay for lay in model.layers if lay.weights]
        stored = [n for n in names if len(group[n].attrs.get("weight_names", [])) > 0]
        if len(stored) != len(with_weights):
            raise ValueError(f"Layer count mismatch when loading weights from {filepath}: the model has "
                             f"{len(with_weights)} layers with weights, the file {len(stored)}.")
        pairs = []
        for name, lay in zip(stored, with_weights):
            lay = by_name.get(name, lay)
            g = group[name]
            arrays = [np.asarray(g[_text(w)]) for w in g.attrs["weight_names"]]
            if len(arrays) != len(lay.weights):
                raise ValueError(f"Layer {lay.name!r} expects {len(lay.weights)} weights, the file holds "
                                 f"{len(arrays)}.")
            for w, a in zip(lay.weights, arrays):
                if tuple(w.shape.as_list()) != a.shape:
                    raise ValueError(f"Shape mismatch in layer {lay.name!r} for weight {w.name}: the model expects "
                                     f"{tuple(w.shape.as_list())}, the file holds {a.shape}.")
                pairs.append((w, a))
        training = f.attrs.get("training_config")
        opt_group = f.get("optimizer_weights")
        opt_values = [np.asarray(opt_group[_text(n)]) for n in opt_group.attrs["weight_names"]] \
            if opt_group is not None else None
    for w, a in pairs:  # every shape checked before any assignment
        w.assign(a.astype(w.dtype.as_numpy_dtype, copy=False))
    if compile and training is not None:
        tc = json.loads(_text(training))
        cc = {"optimizer": tc.get("optimizer_config"), "loss": tc.get("loss"), "metrics": tc.get("metrics"),
              "loss_weights": tc.get("loss_weights"), "weighted_metrics": tc.get("weighted_metrics")}
        _compile_from_config(model, cc, custom_objects)
        if opt_values is not None and getattr(model, "optimizer", None) is not None:
            _load_optimizer_weights(model, opt_values)
    return model
