"""``tfcore.export``: hand a Keras model to the runtimes people deploy with, without TensorFlow.

``export(model, path, format="onnx" | "tflite" | "tfjs", float16=False)`` writes

- ``onnx``: one ``.onnx`` file (opset 20, NHWC interface, checked by ``onnx.checker`` with full checks);
- ``tflite``: one ``.tflite`` flatbuffer built with LiteRT's schema classes;
- ``tfjs``: a directory with ``model.json`` (a TF.js layers model) and binary weight shards.

One walk over the model's layer graph (:mod:`.walk`) and one converter per layer class
(:mod:`.converters`) serve all three. A layer without a converter raises
:class:`UnsupportedLayerError` naming the layer and its class before anything is written; the
result is written to a temporary path in the same folder and renamed into place, so a failure never
leaves a half-written export. ``float16=True`` stores the weights as float16 (computation stays
float32). :mod:`.runtimes` runs an export in onnxruntime, LiteRT or TF.js on Node.
"""

import os
import shutil
import tempfile

from ..keras.engine.model import register_exporter
from .converters import CONVERTERS, UnsupportedLayerError

FORMATS = ("onnx", "tflite", "tfjs")

__all__ = ["export", "FORMATS", "UnsupportedLayerError", "supported_layers"]


def supported_layers():
    """Names of the layer classes with a converter."""
    return sorted({cls.__name__ for cls in CONVERTERS})


def export(model, path, format="onnx", float16=False):
    """Export ``model`` (a built Sequential or functional Keras model, or a subclassed model whose ``call`` is
    made of layer calls and whose input shape is known) to ``path`` in ``format``.

    ``path`` is the ``.onnx`` / ``.tflite`` file, or the TF.js directory. Returns ``path``.
    """
    if not hasattr(model, "layers") or not callable(getattr(model, "get_weights", None)):
        raise TypeError(f"export: model must be a Keras model, got {type(model).__name__}")
    if format not in FORMATS:
        raise ValueError(f"export: format={format!r} is not one of {', '.join(map(repr, FORMATS))}")
    if not isinstance(float16, bool):
        raise TypeError(f"export: float16 must be a bool, got {float16!r}")
    path = os.fspath(path)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"export: the folder of path={path!r} does not exist")
    if format == "tfjs":
        from .._version import __version__
        from .tfjs_writer import write_tfjs

        tmp = tempfile.mkdtemp(prefix=".tfjs-", dir=parent)
        try:
            write_tfjs(model, tmp, float16=float16, version=__version__)
            if os.path.isdir(path):
                _replace_tfjs_files(tmp, path)
            else:
                os.replace(tmp, path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return path
    from .walk import lower

    graph = lower(model)
    if format == "onnx":
        from .onnx_writer import write_onnx as write
    else:
        from .tflite_writer import write_tflite as write
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + "-", dir=parent)
    os.close(fd)
    try:
        write(graph, tmp, float16=float16)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def _replace_tfjs_files(tmp, path):
    """Move a finished TF.js export into an existing folder: shards first, ``model.json`` last (one rename),
    then drop shards of an earlier export that the new ``model.json`` no longer names. Other files stay."""
    new = set(os.listdir(tmp))
    for name in sorted(new - {"model.json"}):
        os.replace(os.path.join(tmp, name), os.path.join(path, name))
    os.replace(os.path.join(tmp, "model.json"), os.path.join(path, "model.json"))
    for name in os.listdir(path):
        if name.startswith("group1-shard") and name.endswith(".bin") and name not in new:
            os.remove(os.path.join(path, name))


register_exporter(export)
