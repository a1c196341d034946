"""Run an exported model in the runtime that deploys it: onnxruntime, LiteRT, or TensorFlow.js on Node.

These helpers are what the tests and the README use to check an export against the tfcore model:
each takes the exported file (or TF.js directory) and a batch (a list of batches for a model with
several inputs, in the model's input order), and returns the output (a list for several outputs).
TF.js runs the pure-JS ``@tensorflow/tfjs`` package under Node (``tfjs-node`` downloads a native
binary at install); :func:`tfjs_node_modules` finds it (``TFCORE_TFJS_NODE_MODULES``, else
``~/.cache/tfcore/tfjs-node-check/node_modules``, where ``.ci/run`` installs it).
"""

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np


def _inputs(x):
    return [np.asarray(v) for v in x] if isinstance(x, list | tuple) else [np.asarray(x)]


def _outputs(ys):
    return ys[0] if len(ys) == 1 else ys


def run_onnx(path, x):
    import onnxruntime as ort

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return _outputs(sess.run(None, {i.name: v for i, v in zip(sess.get_inputs(), _inputs(x))}))


def run_tflite(path, x):
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(model_path=str(path))
    details, xs = it.get_input_details(), _inputs(x)
    for d, v in zip(details, xs):
        it.resize_tensor_input(d["index"], v.shape)
    it.allocate_tensors()
    for d, v in zip(details, xs):
        it.set_tensor(d["index"], v.astype(d["dtype"]))
    it.invoke()
    return _outputs([it.get_tensor(d["index"]).copy() for d in it.get_output_details()])


def tfjs_node_modules():
    """The ``node_modules`` folder holding ``@tensorflow/tfjs``, or None when Node or the package is missing."""
    if shutil.which("node") is None:
        return None
    folder = os.environ.get("TFCORE_TFJS_NODE_MODULES") or os.path.expanduser(
        "~/.cache/tfcore/tfjs-node-check/node_modules")
    return folder if os.path.isdir(os.path.join(folder, "@tensorflow", "tfjs")) else None


_NODE_SCRIPT = r"""
const fs = require('fs'), path = require('path');
const tf = require('@tensorflow/tfjs');
const [dir, inputFile, outputFile] = process.argv.slice(2);
const handler = {load: async () => {
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  return tf.io.getModelArtifactsForJSON(json, async (manifest) => {
    const specs = [], buffers = [];
    for (const group of manifest) {
      specs.push(...group.weights);
      for (const p of group.paths) buffers.push(fs.readFileSync(path.join(dir, p)));
    }
    const all = Buffer.concat(buffers);
    return [specs, all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength)];
  });
}};
(async () => {
  const model = await tf.loadLayersModel(handler);
  const inputs = JSON.parse(fs.readFileSync(inputFile, 'utf8'));
  const xs = inputs.map((i) => tf.tensor(i.data, i.shape, i.dtype));
  const y = model.predict(xs.length === 1 ? xs[0] : xs);
  const ys = Array.isArray(y) ? y : [y];
  const out = [];
  for (const t of ys) out.push({shape: t.shape, data: Array.from(await t.data())});
  fs.writeFileSync(outputFile, JSON.stringify(out));
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
"""


def run_tfjs(directory, x, timeout=300):
    """Load ``directory/model.json`` with ``tf.loadLayersModel`` in Node and predict ``x``."""
    modules = tfjs_node_modules()
    if modules is None:
        raise RuntimeError("TF.js check needs Node and `npm install @tensorflow/tfjs` in "
                           "~/.cache/tfcore/tfjs-node-check (or TFCORE_TFJS_NODE_MODULES)")
    xs = _inputs(x)
    with tempfile.TemporaryDirectory() as tmp:
        script, inp, out = (os.path.join(tmp, n) for n in ("check.js", "in.json", "out.json"))
        with open(script, "w") as f:
            f.write(_NODE_SCRIPT)
        with open(inp, "w") as f:
            json.dump([{"shape": list(v.shape), "data": v.ravel().tolist(),
                        "dtype": "int32" if v.dtype.kind in "iu" else "float32"} for v in xs], f)
        env = dict(os.environ, NODE_PATH=modules)
        proc = subprocess.run(["node", script, os.path.abspath(directory), inp, out], env=env,
                              capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"tf.loadLayersModel/predict failed in Node:\n{proc.stderr[-4000:]}")
        with open(out) as f:
            res = json.load(f)
    return _outputs([np.asarray(r["data"], np.float32).reshape(r["shape"]) for r in res])
