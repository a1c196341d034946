"""Write a TensorFlow.js layers model: ``model.json`` plus binary weight shards.

A TF.js layers model is a Keras model topology (tf.keras 2 config names: ``batch_input_shape``,
``inbound_nodes`` as ``[[layer, node, tensor, kwargs]]``) and a weights manifest; ``tf.loadLayersModel``
rebuilds the layers and assigns weights by ``layer_name/weight_name``. Each layer's entry comes from
its converter's ``tfjs`` half (:mod:`.converters`); the walk (:mod:`.walk`) flattens nested models into
one functional ``Model``. With ``float16=True`` the shards hold float16 values, marked in the manifest
as TF.js's float16 quantization (widened to float32 at load).
"""

import json
import math
import os

import numpy as np

from .converters import CONVERTERS, IDENTITY, UnsupportedLayerError
from .walk import check_supported, layer_calls

SHARD_BYTES = 4 * 1024 * 1024  # the tensorflowjs converter's default shard size


def _entry(layer):
    tfjs = CONVERTERS[type(layer)][1]
    entry = tfjs(layer) if tfjs is not None else None
    if entry is None:
        raise UnsupportedLayerError(f"Cannot export layer '{layer.name}' ({type(layer).__name__}) to TF.js: "
                                    "TensorFlow.js has no layer computing it the same way")
    return entry


def topology_and_weights(model):
    """The ``modelTopology`` dict and ``[(name, float32 array)]`` of ``model``."""
    net, calls, aliases = layer_calls(model)
    check_supported(calls)
    entries, weights, produced, calls_of = [], [], {}, {}
    used = set()

    def source(kt):
        while id(kt) not in produced and id(kt) in aliases:
            kt = aliases[id(kt)]
        return produced[id(kt)]

    input_layers = []
    for kt, layer in zip(net.inputs, net.input_layers):
        shape = [None] + list(kt.shape.as_list()[1:])
        entries.append({"class_name": "InputLayer", "name": layer.name, "inbound_nodes": [],
                        "config": {"batch_input_shape": shape, "dtype": kt._dtype.name, "sparse": False,
                                   "name": layer.name}})
        produced[id(kt)] = [layer.name, 0, 0]
        input_layers.append([layer.name, 0, 0])
        used.add(layer.name)
    for layer, kins, kouts, _node in calls:
        entry = _entry(layer)
        if entry == IDENTITY:  # GaussianNoise, SpatialDropout2D, ...: consumers read the layer's input
            produced[id(kouts[0])] = source(kins[0])
            continue
        class_name, config, layer_weights = entry
        index = calls_of.get(layer.name)
        inbound = [source(k) + [{}] for k in kins]
        if index is None:
            if layer.name in used:
                raise UnsupportedLayerError(f"Cannot export to TF.js: two layers are named '{layer.name}'")
            used.add(layer.name)
            config = {"name": layer.name, "trainable": bool(layer.trainable), "dtype": "float32", **config}
            entries.append({"class_name": class_name, "name": layer.name, "config": config,
                            "inbound_nodes": [inbound]})
            weights += [(f"{layer.name}/{n}", np.asarray(w.numpy(), np.float32)) for n, w in layer_weights]
            index = 0
        else:
            index += 1
            next(e for e in entries if e["name"] == layer.name)["inbound_nodes"].append(inbound)
        calls_of[layer.name] = index
        for i, kt in enumerate(kouts):
            produced[id(kt)] = [layer.name, index, i]
    outputs = [source(kt) for kt in net.outputs]
    if any(out in input_layers for out in outputs):
        raise UnsupportedLayerError("Cannot export to TF.js: a model output is one of its inputs")
    topology = {"class_name": "Model", "keras_version": "2.15.0", "backend": "tensorflow",
                "config": {"name": model.name, "layers": entries, "input_layers": input_layers,
                           "output_layers": outputs}}
    return topology, weights


def write_tfjs(model, directory, float16=False, version="0"):
    """Write ``model.json`` and ``group1-shard{i}of{n}.bin`` into ``directory`` (which must exist)."""
    topology, weights = topology_and_weights(model)
    specs, blob = [], bytearray()
    for name, arr in weights:
        spec = {"name": name, "shape": list(arr.shape), "dtype": "float32"}
        if float16:
            spec["quantization"] = {"dtype": "float16", "original_dtype": "float32"}
            blob += arr.astype("<f2").tobytes()
        else:
            blob += arr.astype("<f4").tobytes()
        specs.append(spec)
    n = max(1, math.ceil(len(blob) / SHARD_BYTES))
    paths = [f"group1-shard{i + 1}of{n}.bin" for i in range(n)]
    for i, p in enumerate(paths):
        with open(os.path.join(directory, p), "wb") as f:
            f.write(blob[i * SHARD_BYTES:(i + 1) * SHARD_BYTES])
    manifest = {"format": "layers-model", "generatedBy": f"tfcore {version}", "convertedBy": "tfcore.export",
                "modelTopology": topology, "weightsManifest": [{"paths": paths, "weights": specs}]}
    with open(os.path.join(directory, "model.json"), "w") as f:
        json.dump(manifest, f)
    return len(blob)
