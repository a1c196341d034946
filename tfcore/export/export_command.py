"""``tfcore export --model PATH --format onnx|tflite|tfjs --out DIR [--float16]``.

Loads a saved Keras model (a ``.keras`` file) and writes ``DIR/<name>.onnx``, ``DIR/<name>.tflite``
or a TF.js layers model in ``DIR`` (``model.json`` + shards), ``<name>`` being the model file's stem.
"""

import os

from ..framework.commands import command
from ..keras.saving.saving_api import load_model
from . import FORMATS, UnsupportedLayerError, export


def _arguments(p):
    p.add_argument("--model", required=True, metavar="PATH", help="a saved Keras model (.keras file)")
    p.add_argument("--format", required=True, choices=FORMATS, help="onnx, tflite or tfjs")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created when missing)")
    p.add_argument("--float16", action="store_true", help="store the weights as float16 (compute stays float32)")


@command("export", "export a saved Keras model to ONNX, TFLite or TensorFlow.js", _arguments)
def run(args):
    if not os.path.isfile(args.model):
        raise SystemExit(f"tfcore export: error: --model {args.model}: no such file")
    try:
        model = load_model(args.model, compile=False)
    except Exception as e:  # a file that is not a Keras model: say so without a traceback
        raise SystemExit(f"tfcore export: error: --model {args.model}: cannot load a Keras model: {e}") from e
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise SystemExit(f"tfcore export: error: --out {args.out}: {e.strerror or e}") from e
    stem = os.path.splitext(os.path.basename(args.model))[0]
    target = args.out if args.format == "tfjs" else os.path.join(args.out, f"{stem}.{args.format}")
    try:
        export(model, target, format=args.format, float16=args.float16)
    except (UnsupportedLayerError, ImportError) as e:
        raise SystemExit(f"tfcore export: error: {e}") from e
    shown = os.path.join(target, "model.json") if args.format == "tfjs" else target
    print(f"Exported {model.name} ({model.count_params():,} parameters) to {shown}")
    return 0
