"""One converter per Keras layer class, shared by every export format.

A converter has two halves:

- ``lower(layer, g, xs, out_shapes)`` appends format-neutral ops (:mod:`.graph`) computing the layer's
  inference-mode output from the input tensor names ``xs``; the ONNX and TFLite writers lower those ops;
- ``tfjs(layer)`` returns the layer's TensorFlow.js layers-model entry ``(class_name, config, weights)``,
  since a TF.js layers model is a list of Keras layers, not of ops; ``None`` where TF.js lacks the layer
  (or computes it differently, as its ``hard_sigmoid``).

Converters are looked up by the layer's exact class (a subclass may change ``call``).
"""

import math

import numpy as np

from ..keras import layers as L
from ..keras.applications import convnext

CONVERTERS = {}


class UnsupportedLayerError(ValueError):
    """A layer (or one of its settings) that an export format cannot express."""


def converter(*classes, tfjs=None):
    def deco(lower):
        for cls in classes:
            CONVERTERS[cls] = (lower, tfjs)
        return lower
    return deco


def unsupported(layer, why):
    return UnsupportedLayerError(f"Cannot export layer '{layer.name}' ({type(layer).__name__}): {why}")


def value(var):
    return np.asarray(var.numpy(), dtype=np.float32)


def static(layer, shape):
    if any(d is None for d in shape[1:]):
        raise unsupported(layer, f"its input shape {tuple(shape)} has unknown dimensions besides the batch; "
                                 "give the model's Input a full shape")
    return shape


# -- activations ---------------------------------------------------------------------------------------
_SIMPLE = {"relu": "relu", "relu6": "relu6", "sigmoid": "sigmoid", "tanh": "tanh", "exponential": "exp",
           "hard_sigmoid": "hard_sigmoid", "hard_silu": "hard_swish", "hard_swish": "hard_swish",
           "elu": "elu", "softmax": "softmax"}


def activation_name(fn):
    return getattr(fn, "__name__", str(fn)) if fn is not None else "linear"


def apply_activation(g, layer, name, x):
    """Ops for Keras activation ``name`` on ``x``; ``x`` itself for ``linear``."""
    shape = g.shapes[x]
    hint = f"{layer.name}/{name}"
    if name in ("linear", None):
        return x
    if name in _SIMPLE:
        return g.op(_SIMPLE[name], [x], shape, hint)
    if name in ("swish", "silu"):
        return g.op("mul", [x, g.op("sigmoid", [x], shape, hint + "/sigmoid")], shape, hint)
    if name == "gelu":
        return g.op("gelu", [x], shape, hint, approximate=False)
    if name == "leaky_relu":
        return g.op("leaky_relu", [x], shape, hint, alpha=0.2)
    raise unsupported(layer, f"activation '{name}' has no exporter")


def _activation_layer(layer, g, xs, out_shapes):
    return [apply_activation(g, layer, activation_name(layer.activation), xs[0])]


def _act_tfjs(name):
    return name if name in ("linear", "relu", "relu6", "sigmoid", "tanh", "softmax", "elu", "swish", "gelu",
                            "exponential") else None


def _tfjs_activation_layer(layer):
    name = _act_tfjs(activation_name(layer.activation))
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
    if layer.negative_slope or layer.threshold:
        return None
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
        converter(getattr(L, _name))(_identity)


# -- core ------------------------------------------------------------------------------------------------
def _bias(layer, n):
    b = getattr(layer, "bias", None)
    return value(b) if b is not None else np.zeros((n,), np.float32)


@converter(L.Dense, tfjs=lambda layer: _tfjs_with_activation(layer, "Dense", {
    "units": layer.units, "use_bias": bool(layer.use_bias)}, [("kernel", layer.kernel), ("bias", layer.bias)]))
def _dense(layer, g, xs, out_shapes):
    w = value(layer.kernel)
    shape = tuple(g.shapes[xs[0]][:-1]) + (w.shape[1],)
    y = g.op("matmul", [xs[0], g.const(w, layer.name + "/kernel"), g.const(_bias(layer, w.shape[1]),
                                                                           layer.name + "/bias")],
             shape, layer.name + "/matmul")
    return [apply_activation(g, layer, activation_name(layer.activation), y)]


def _tfjs_with_activation(layer, class_name, config, weights):
    act = _act_tfjs(activation_name(layer.activation))
    if act is None:
        return None
    config["activation"] = act
    return class_name, config, [(n, w) for n, w in weights if w is not None]


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


@converter(L.Normalization)
def _normalization(layer, g, xs, out_shapes):
    mean = np.asarray(layer.mean.numpy(), np.float64)
    std = np.maximum(np.sqrt(np.asarray(layer.variance.numpy(), np.float64)), 1e-7)
    shape, rank = g.shapes[xs[0]], len(g.shapes[xs[0]])
    if layer.invert:  # mean + x * std
        y = g.op("mul", [xs[0], g.const(_trim_batch(std, rank), layer.name + "/std")], shape, layer.name + "/mul")
        return [g.op("add", [y, g.const(_trim_batch(mean, rank), layer.name + "/mean")], shape, layer.name)]
    y = g.op("sub", [xs[0], g.const(_trim_batch(mean, rank), layer.name + "/mean")], shape, layer.name + "/sub")
    return [g.op("div", [y, g.const(_trim_batch(std, rank), layer.name + "/std")], shape, layer.name)]


# -- convolution and pooling -----------------------------------------------------------------------------
def _channels_last(layer):
    if getattr(layer, "data_format", "channels_last") != "channels_last":
        raise unsupported(layer, "data_format='channels_first' (export takes channels_last models)")


def _conv_common(layer):
    return {"strides": tuple(layer.strides), "dilations": tuple(layer.dilation_rate),
            "padding": layer.padding.upper()}


def _conv_tfjs(layer, class_name, weight_names, extra):
    if layer.padding == "causal":
        return None
    config = {"kernel_size": list(layer.kernel_size), "strides": list(layer.strides),
              "padding": layer.padding, "data_format": "channels_last",
              "dilation_rate": list(layer.dilation_rate), "use_bias": bool(layer.use_bias), **extra}
    return _tfjs_with_activation(layer, class_name, config, weight_names)


@converter(L.Conv2D, tfjs=lambda layer: _conv_tfjs(layer, "Conv2D", [("kernel", layer.kernel),
                                                                      ("bias", layer.bias)],
                                                    {"filters": layer.filters})
           if layer.groups == 1 else None)
def _conv2d(layer, g, xs, out_shapes):
    _channels_last(layer)
    if layer.padding not in ("same", "valid"):
        raise unsupported(layer, f"padding='{layer.padding}'")
    static(layer, g.shapes[xs[0]])
    w = value(layer.kernel)
    y = g.op("conv2d", [xs[0], g.const(w, layer.name + "/kernel"), g.const(_bias(layer, w.shape[3]),
                                                                           layer.name + "/bias")],
             tuple(out_shapes[0]), layer.name + "/conv", groups=int(layer.groups), **_conv_common(layer))
    return [apply_activation(g, layer, activation_name(layer.activation), y)]


@converter(L.DepthwiseConv2D, tfjs=lambda layer: _conv_tfjs(
    layer, "DepthwiseConv2D", [("depthwise_kernel", layer.depthwise_kernel), ("bias", layer.bias)],
    {"depth_multiplier": layer.depth_multiplier}))
def _depthwise(layer, g, xs, out_shapes):
    _channels_last(layer)
    static(layer, g.shapes[xs[0]])
    w = value(layer.depthwise_kernel)
    y = g.op("depthwise_conv2d", [xs[0], g.const(w, layer.name + "/depthwise_kernel"),
                                  g.const(_bias(layer, w.shape[2] * w.shape[3]), layer.name + "/bias")],
             tuple(out_shapes[0]), layer.name + "/conv", **_conv_common(layer))
    return [apply_activation(g, layer, activation_name(layer.activation), y)]


def _pool(kind):
    def lower(layer, g, xs, out_shapes):
        _channels_last(layer)
        static(layer, g.shapes[xs[0]])
        return [g.op(kind, xs, tuple(out_shapes[0]), layer.name, ksize=tuple(layer.pool_size),
                     strides=tuple(layer.strides), padding=layer.padding.upper())]
    return lower


def _pool_tfjs(class_name):
    return lambda layer: (class_name, {"pool_size": list(layer.pool_size), "strides": list(layer.strides),
                                       "padding": layer.padding, "data_format": "channels_last"}, [])


converter(L.MaxPooling2D, tfjs=_pool_tfjs("MaxPooling2D"))(_pool("max_pool"))
converter(L.AveragePooling2D, tfjs=_pool_tfjs("AveragePooling2D"))(_pool("avg_pool"))


def _global_pool(kind):
    def lower(layer, g, xs, out_shapes):
        _channels_last(layer)
        shape = g.shapes[xs[0]]
        axes = tuple(range(1, len(shape) - 1))
        if kind == "mean":
            return [g.op("mean", xs, tuple(out_shapes[0]), layer.name, axes=axes, keepdims=bool(layer.keepdims))]
        raise unsupported(layer, "global max pooling")
    return lower


def _global_tfjs(class_name):
    return lambda layer: None if layer.keepdims else (class_name, {"data_format": "channels_last"}, [])


converter(L.GlobalAveragePooling2D, tfjs=_global_tfjs("GlobalAveragePooling2D"))(_global_pool("mean"))
converter(L.GlobalAveragePooling1D, tfjs=_global_tfjs("GlobalAveragePooling1D"))(_global_pool("mean"))


@converter(L.GlobalMaxPooling2D, tfjs=_global_tfjs("GlobalMaxPooling2D"))
def _global_max2d(layer, g, xs, out_shapes):
    _channels_last(layer)
    shape = static(layer, g.shapes[xs[0]])
    y = g.op("max_pool", xs, (shape[0], 1, 1, shape[3]), layer.name + "/pool", ksize=tuple(shape[1:3]),
             strides=(1, 1), padding="VALID")
    if layer.keepdims:
        return [y]
    return [g.op("reshape", [y], (None, shape[3]), layer.name, shape=(-1, shape[3]))]


@converter(L.ZeroPadding2D, tfjs=lambda layer: ("ZeroPadding2D", {
    "padding": [list(p) for p in layer.padding], "data_format": "channels_last"}, []))
def _zero_pad(layer, g, xs, out_shapes):
    _channels_last(layer)
    (t, b), (lft, r) = layer.padding
    return [g.op("pad", xs, tuple(out_shapes[0]), layer.name, pads=((0, 0), (t, b), (lft, r), (0, 0)))]


# -- normalization ---------------------------------------------------------------------------------------
@converter(L.BatchNormalization, tfjs=lambda layer: ("BatchNormalization", {
    "axis": layer.axis if isinstance(layer.axis, int) else list(layer.axis)[0],
    "momentum": float(layer.momentum), "epsilon": float(layer.epsilon), "center": bool(layer.center),
    "scale": bool(layer.scale)}, [(n, getattr(layer, a)) for n, a in (("gamma", "gamma"), ("beta", "beta"),
                                                                      ("moving_mean", "moving_mean"),
                                                                      ("moving_variance", "moving_variance"))
                                 if getattr(layer, a) is not None]) if len(layer._axes) == 1 else None)
def _batch_norm(layer, g, xs, out_shapes):
    """Inference batch norm folded into one multiply and one add per channel."""
    shape = g.shapes[xs[0]]
    rank = len(shape)
    var = value(layer.moving_variance).astype(np.float64)
    scale = 1.0 / np.sqrt(var + layer.epsilon)
    if layer.gamma is not None:
        scale = scale * value(layer.gamma)
    offset = -value(layer.moving_mean).astype(np.float64) * scale
    if layer.beta is not None:
        offset = offset + value(layer.beta)
    bshape = [shape[i] if i in layer._axes else 1 for i in range(1, rank)]
    y = g.op("mul", [xs[0], g.const(scale.reshape(bshape), layer.name + "/scale")], shape, layer.name + "/mul")
    return [g.op("add", [y, g.const(offset.reshape(bshape), layer.name + "/offset")], shape, layer.name)]


@converter(L.LayerNormalization, tfjs=lambda layer: ("LayerNormalization", {
    "axis": -1, "epsilon": float(layer.epsilon), "center": bool(layer.center), "scale": bool(layer.scale)},
    [(n, w) for n, w in (("gamma", layer.gamma), ("beta", layer.beta)) if w is not None])
    if layer._axes == [len(layer._broadcast_shape) - 1] else None)
def _layer_norm(layer, g, xs, out_shapes):
    """(x - mean) * rsqrt(var + eps) * gamma + beta, with the moments over the layer's axes."""
    x, shape = xs[0], g.shapes[xs[0]]
    axes = tuple(layer._axes)
    kshape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    n = layer.name
    mean = g.op("mean", [x], kshape, n + "/mean", axes=axes, keepdims=True)
    centered = g.op("sub", [x, mean], shape, n + "/centered")
    var = g.op("mean", [g.op("mul", [centered, centered], shape, n + "/square")], kshape, n + "/variance",
               axes=axes, keepdims=True)
    inv = g.op("rsqrt", [g.op("add", [var, g.const(np.float32(layer.epsilon), n + "/epsilon")], kshape,
                              n + "/var_eps")], kshape, n + "/rsqrt")
    y = g.op("mul", [centered, inv], shape, n + "/normalized")
    bshape = layer._broadcast_shape[1:]
    if layer.gamma is not None:
        y = g.op("mul", [y, g.const(value(layer.gamma).reshape(bshape), n + "/gamma")], shape, n + "/scaled")
    if layer.beta is not None:
        y = g.op("add", [y, g.const(value(layer.beta).reshape(bshape), n + "/beta")], shape, n)
    return [y]


@converter(convnext.LayerScale)
def _layer_scale(layer, g, xs, out_shapes):
    return [g.op("mul", [xs[0], g.const(value(layer.gamma), layer.name + "/gamma")], g.shapes[xs[0]], layer.name)]


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
converter(L.Subtract, tfjs=lambda layer: None)  # TF.js has no Subtract layer
(_merge("sub"))
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
