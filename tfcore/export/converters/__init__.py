"""One converter per Keras layer class, shared by every export format (grouped by layer family).

A converter has two halves:

- ``lower(layer, g, xs, out_shapes)`` appends format-neutral ops (:mod:`.graph`) computing the layer's
  inference-mode output from the input tensor names ``xs``; the ONNX and TFLite writers lower those ops;
- ``tfjs(layer)`` returns the layer's TensorFlow.js layers-model entry ``(class_name, config, weights)``,
  since a TF.js layers model is a list of Keras layers, not of ops; ``None`` where TF.js lacks the layer
  (or computes it differently, as its ``hard_sigmoid``).

Converters are looked up by the layer's exact class (a subclass may change ``call``).
"""

from . import attention, convolution, core, normalization, recurrent  # each registers its converters
from .base import CONVERTERS, IDENTITY, UnsupportedLayerError
