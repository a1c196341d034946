"""Activations, Dropout-like layers, Dense, Flatten/Reshape, Rescaling/Normalization, the zoo's scaling
layers (ConvNeXt's LayerScale, Inception-ResNet's CustomScaleLayer), merging layers, Embedding."""

import math

import numpy as np

from ...keras import layers as L
from ...keras.applications import convnext, inception_resnet_v2
from .base import (
    IDENTITY,
    act_tfjs,
    activation_name,
    apply_activation,
    bias_or_zeros,
    converter,
    no_tfjs,
    static,
    tfjs_with_activation,
    unsupported,
    value,
)


def _activation_layer(layer, g, xs, out_shapes):
    return [apply_activation(g, layer, activation_name(layer.activation), xs[0])]


def _tfjs_activation_layer(layer):
    name = act_tfjs(activation_name(layer.activation))
    return None if name is None else ("Activation", {"activation": name}, [])


converter(L.Activation, tfjs=_tfjs_activation_layer)(_activation_layer)


def _relu_layer(layer, g, xs, out_shapes):
    x, shape = xs[0], g.shapes[xs[0]]
    if layer.threshold not in (0, 0.0, None) or (layer.negative_slope and layer.max_value is not None):
        raise unsupported(layer, "a threshold, or a negative slope with a max_value")
    if layer.negative_slope:
        return [g.op("leaky_relu", [x], shape, layer.name, alpha=float(layer.negative_slope))]
    if layer.max_value is None:
        return [g.op("relu", [x], shape, layer.name)]
    if float(layer.max_value) == 6.0:
        return [g.op("relu6", [x], shape, layer.name)]
    top = g.const(np.float32(layer.max_value), layer.name + "/max_value")
    return [g.op("minimum", [g.op("relu", [x], shape, layer.name + "/relu"), top], shape, layer.name)]


def _relu_tfjs(layer):
    if layer.threshold:
        return None
    if layer.negative_slope:
        return None if layer.max_value is not None else ("LeakyReLU", {"alpha": float(layer.negative_slope)}, [])
    return "ReLU", {"max_value": None if layer.max_value is None else float(layer.max_value)}, []


converter(L.ReLU, tfjs=_relu_tfjs)(_relu_layer)


@converter(L.LeakyReLU, tfjs=lambda layer: ("LeakyReLU", {"alpha": float(layer.alpha)}, []))
def _leaky(layer, g, xs, out_shapes):
    return [g.op("leaky_relu", xs, g.shapes[xs[0]], layer.name, alpha=float(layer.alpha))]


@converter(L.ELU, tfjs=lambda layer: ("ELU", {"alpha": float(layer.alpha)}, []))
def _elu(layer, g, xs, out_shapes):
    if float(layer.alpha) != 1.0:
        raise unsupported(layer, "alpha other than 1")
    return [g.op("elu", xs, g.shapes[xs[0]], layer.name)]


def _softmax_axis(layer):
    axis = layer.axis if isinstance(layer.axis, int) else (layer.axis[0] if len(layer.axis) == 1 else None)
    return axis


@converter(L.Softmax, tfjs=lambda layer: ("Softmax", {"axis": _softmax_axis(layer)}, [])
           if _softmax_axis(layer) == -1 else None)
def _softmax(layer, g, xs, out_shapes):
    axis = _softmax_axis(layer)
    rank = len(g.shapes[xs[0]])
    if axis is None or axis % rank != rank - 1:
        raise unsupported(layer, f"softmax over axis {layer.axis} (only the last axis is exported)")
    return [g.op("softmax", xs, g.shapes[xs[0]], layer.name)]


# -- identity at inference -------------------------------------------------------------------------------
def _identity(layer, g, xs, out_shapes):
    return [xs[0]]


converter(L.Dropout, tfjs=lambda layer: ("Dropout", {"rate": float(layer.rate)}, []))(_identity)
for _name in ("SpatialDropout1D", "SpatialDropout2D", "GaussianNoise", "GaussianDropout", "AlphaDropout",
              "ActivityRegularization"):
    if hasattr(L, _name):
        converter(getattr(L, _name), tfjs=lambda layer: IDENTITY)(_identity)


# -- core ------------------------------------------------------------------------------------------------
@converter(L.Dense, tfjs=lambda layer: tfjs_with_activation(layer, "Dense", {
    "units": layer.units, "use_bias": bool(layer.use_bias)}, [("kernel", layer.kernel), ("bias", layer.bias)]))
def _dense(layer, g, xs, out_shapes):
    w = value(layer.kernel)
    shape = tuple(g.shapes[xs[0]][:-1]) + (w.shape[1],)
    y = g.op("matmul", [xs[0], g.const(w, layer.name + "/kernel"), g.const(bias_or_zeros(layer, w.shape[1]),
                                                                           layer.name + "/bias")],
             shape, layer.name + "/matmul")
    return [apply_activation(g, layer, activation_name(layer.activation), y)]


@converter(L.Flatten, tfjs=lambda layer: ("Flatten", {}, []))
def _flatten(layer, g, xs, out_shapes):
    shape = static(layer, g.shapes[xs[0]])
    n = math.prod(shape[1:])
    return [g.op("reshape", xs, (None, n), layer.name, shape=(-1, n))]


@converter(L.Reshape, tfjs=lambda layer: ("Reshape", {"target_shape": list(layer.target_shape)}, []))
def _reshape(layer, g, xs, out_shapes):
    out = static(layer, tuple(out_shapes[0]))
    return [g.op("reshape", xs, out, layer.name, shape=(-1,) + tuple(out[1:]))]


@converter(L.Rescaling, tfjs=lambda layer: ("Rescaling", {"scale": float(layer.scale),
                                                        "offset": float(layer.offset)}, [])
           if np.ndim(layer.scale) == 0 and np.ndim(layer.offset) == 0 else None)
def _rescaling(layer, g, xs, out_shapes):
    shape = g.shapes[xs[0]]
    y = g.op("mul", [xs[0], g.const(np.asarray(layer.scale, np.float32), layer.name + "/scale")], shape,
             layer.name + "/mul")
    return [g.op("add", [y, g.const(np.asarray(layer.offset, np.float32), layer.name + "/offset")], shape,
                 layer.name)]


def _trim_batch(arr, rank):
    """A per-feature constant broadcastable to a tensor of ``rank`` with the batch axis first."""
    arr = np.asarray(arr, np.float32)
    while arr.ndim > 1 and arr.ndim >= rank and arr.shape[0] == 1:
        arr = arr[0]
    return arr


@converter(L.Normalization, tfjs=lambda layer: no_tfjs("Normalization")(layer))
def _normalization(layer, g, xs, out_shapes):
    mean = np.asarray(layer.mean.numpy(), np.float64)
    std = np.maximum(np.sqrt(np.asarray(layer.variance.numpy(), np.float64)), 1e-7)
    shape, rank = g.shapes[xs[0]], len(g.shapes[xs[0]])
    if layer.invert:  # mean + x * std
        y = g.op("mul", [xs[0], g.const(_trim_batch(std, rank), layer.name + "/std")], shape, layer.name + "/mul")
        return [g.op("add", [y, g.const(_trim_batch(mean, rank), layer.name + "/mean")], shape, layer.name)]
    y = g.op("sub", [xs[0], g.const(_trim_batch(mean, rank), layer.name + "/mean")], shape, layer.name + "/sub")
    return [g.op("div", [y, g.const(_trim_batch(std, rank), layer.name + "/std")], shape, layer.name)]


@converter(convnext.LayerScale)
def _layer_scale(layer, g, xs, out_shapes):
    return [g.op("mul", [xs[0], g.const(value(layer.gamma), layer.name + "/gamma")], g.shapes[xs[0]], layer.name)]


@converter(inception_resnet_v2.CustomScaleLayer)
def _custom_scale(layer, g, xs, out_shapes):
    """Inception-ResNet's ``inputs[0] + inputs[1] * scale``."""
    shape = tuple(out_shapes[0])
    scaled = g.op("mul", [xs[1], g.const(np.float32(layer.scale), layer.name + "/scale")], shape, layer.name + "/mul")
    return [g.op("add", [xs[0], scaled], shape, layer.name)]


# -- merging ---------------------------------------------------------------------------------------------
def _merge(kind, scale=None):
    def lower(layer, g, xs, out_shapes):
        shape = tuple(out_shapes[0])
        y = xs[0]
        for i, x in enumerate(xs[1:]):
            y = g.op(kind, [y, x], shape, f"{layer.name}/{kind}{i}" if i < len(xs) - 2 or scale else layer.name)
        if scale:
            y = g.op("mul", [y, g.const(np.float32(1.0 / len(xs)), layer.name + "/scale")], shape, layer.name)
        return [y]
    return lower


converter(L.Add, tfjs=lambda layer: ("Add", {}, []))(_merge("add"))
converter(L.Subtract, tfjs=no_tfjs("Subtract"))(_merge("sub"))
converter(L.Multiply, tfjs=lambda layer: ("Multiply", {}, []))(_merge("mul"))
converter(L.Average, tfjs=lambda layer: ("Average", {}, []))(_merge("add", scale=True))
converter(L.Maximum, tfjs=lambda layer: ("Maximum", {}, []))(_merge("maximum"))
converter(L.Minimum, tfjs=lambda layer: ("Minimum", {}, []))(_merge("minimum"))


@converter(L.Concatenate, tfjs=lambda layer: ("Concatenate", {"axis": int(layer.axis)}, []))
def _concat(layer, g, xs, out_shapes):
    rank = len(g.shapes[xs[0]])
    return [g.op("concat", xs, tuple(out_shapes[0]), layer.name, axis=int(layer.axis) % rank)]


# -- embeddings ------------------------------------------------------------------------------------------
@converter(L.Embedding, tfjs=lambda layer: ("Embedding", {
    "input_dim": layer.input_dim, "output_dim": layer.output_dim, "mask_zero": False},
    [("embeddings", layer.embeddings)]) if not layer.mask_zero else None)
def _embedding(layer, g, xs, out_shapes):
    if layer.mask_zero:
        raise unsupported(layer, "mask_zero=True (masks are not exported)")
    table = g.const(value(layer.embeddings), layer.name + "/embeddings")
    return [g.op("gather", [table, xs[0]], tuple(out_shapes[0]), layer.name)]
