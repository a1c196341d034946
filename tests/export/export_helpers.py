"""Helpers of the export tests: export a model, run the file in its real runtime, compare with tfcore.

Models are built and run on ``CPU:0`` (the reference); the exported files run in onnxruntime, LiteRT
and TF.js on Node. The TF.js tests skip, saying why, only where Node or ``@tensorflow/tfjs`` is missing
(``.ci/run`` installs it into ``~/.cache/tfcore/tfjs-node-check``).
"""

import os

import numpy as np
import pytest

import tfcore as tf
from tfcore.export import export
from tfcore.export.runtimes import run_onnx, run_tfjs, run_tflite, tfjs_node_modules

pytest.importorskip("onnxruntime", reason="the export tests need the `export` extra (onnxruntime)")
pytest.importorskip("ai_edge_litert", reason="the export tests need the `export` extra (ai-edge-litert)")

FORMATS = ("onnx", "tflite", "tfjs")
NO_TFJS = "TF.js check needs Node and `npm install @tensorflow/tfjs` (.ci/run does it)"


def export_and_run(model, x, fmt, tmp_path, float16=False):
    """Export ``model`` to ``fmt`` under ``tmp_path`` and return the runtime's prediction for ``x``."""
    if fmt == "tfjs" and tfjs_node_modules() is None:
        pytest.skip(NO_TFJS)
    path = os.path.join(tmp_path, {"onnx": "m.onnx", "tflite": "m.tflite", "tfjs": "m_tfjs"}[fmt])
    export(model, path, format=fmt, float16=float16)
    return {"onnx": run_onnx, "tflite": run_tflite, "tfjs": run_tfjs}[fmt](path, x)


def reference(model, x):
    with tf.device("/CPU:0"):
        return np.asarray(model(x, training=False).numpy())


def assert_close(got, want, rtol=1e-4):
    """Max absolute difference within ``rtol`` of the reference's largest magnitude."""
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(float(np.abs(want).max()), 1e-6)
    err = float(np.abs(got.astype(np.float64) - want).max()) / scale
    assert err <= rtol, f"relative difference {err:.3g} > {rtol}"
