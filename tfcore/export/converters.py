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
from ..keras.applications import convnext, inception_resnet_v2

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


@converter(L.Normalization, tfjs=lambda layer: _no_tfjs("Normalization")(layer))
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
        raise unsupported(layer, "TF.js's convolutions do not implement padding='causal'")
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


@converter(L.SeparableConv2D, tfjs=lambda layer: _conv_tfjs(
    layer, "SeparableConv2D", [("depthwise_kernel", layer.depthwise_kernel),
                               ("pointwise_kernel", layer.pointwise_kernel), ("bias", layer.bias)],
    {"filters": layer.filters, "depth_multiplier": layer.depth_multiplier}))
def _separable(layer, g, xs, out_shapes):
    """A depthwise convolution (no bias) then a 1x1 convolution with the bias, as ``nn.separable_conv2d``."""
    _channels_last(layer)
    static(layer, g.shapes[xs[0]])
    dw, pw = value(layer.depthwise_kernel), value(layer.pointwise_kernel)
    out = tuple(out_shapes[0])
    mid = g.op("depthwise_conv2d", [xs[0], g.const(dw, layer.name + "/depthwise_kernel"),
                                    g.const(np.zeros(dw.shape[2] * dw.shape[3], np.float32), layer.name + "/no_bias")],
               out[:3] + (dw.shape[2] * dw.shape[3],), layer.name + "/depthwise", **_conv_common(layer))
    y = g.op("conv2d", [mid, g.const(pw, layer.name + "/pointwise_kernel"), g.const(_bias(layer, pw.shape[3]),
                                                                                   layer.name + "/bias")],
             out, layer.name + "/pointwise", groups=1, strides=(1, 1), dilations=(1, 1), padding="VALID")
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


# -- recurrent layers (unrolled over the static time steps) ------------------------------------------------
def _rnn_checks(layer, shape):
    if layer.stateful or getattr(layer, "time_major", False) or layer.cell.__class__ not in _CELLS:
        raise unsupported(layer, "stateful, time-major or custom-cell RNNs")
    if shape[1] is None:
        raise unsupported(layer, f"its input shape {tuple(shape)} has no static number of time steps")


def _slice_last(g, x, start, size, hint):
    """``x[..., start:start + size]`` of a rank-2 tensor."""
    return g.op("slice", [x], (g.shapes[x][0], size), hint, begin=(0, start), size=(-1, size))


def _rnn_lower(layer, g, xs, out_shapes):
    """SimpleRNN / LSTM / GRU as the cell's matmuls and gates, one step per time step (no masks).

    The input projection of all steps is one matmul; step 0 starts from zero states, so its recurrent
    terms are left out.
    """
    x, shape = xs[0], g.shapes[xs[0]]
    _rnn_checks(layer, shape)
    cell, n = layer.cell, layer.name
    u, steps = cell.units, shape[1]
    kind = type(cell).__name__
    gates = {"SimpleRNNCell": 1, "LSTMCell": 4, "GRUCell": 3}[kind]
    kernel, rec = value(cell.kernel), value(cell.recurrent_kernel)
    bias = value(cell.bias) if cell.bias is not None else None
    reset_after = kind == "GRUCell" and cell.reset_after
    b_in = (bias[0] if reset_after else bias) if bias is not None else np.zeros(gates * u, np.float32)
    b_rec = bias[1] if reset_after and bias is not None else None
    proj = g.op("matmul", [x, g.const(kernel, n + "/kernel"), g.const(b_in, n + "/bias")],
                (None, steps, gates * u), n + "/input_projection")
    act = activation_name(cell.activation)
    ract = activation_name(getattr(cell, "recurrent_activation", None))
    zero_bias = g.const(np.zeros(gates * u, np.float32), n + "/no_bias")
    rec_c = g.const(rec, n + "/recurrent_kernel")
    one = g.const(np.float32(1.0), n + "/one")
    h = c = None
    outputs = []
    order = range(steps - 1, -1, -1) if layer.go_backwards else range(steps)
    for i, t in enumerate(order):
        s = f"{n}/t{i}"
        xt = g.op("reshape", [g.op("slice", [proj], (None, 1, gates * u), s + "/slice", begin=(0, t, 0),
                                   size=(-1, 1, gates * u))], (None, gates * u), s + "/x", shape=(-1, gates * u))

        def act_on(name, v, hint):
            return apply_activation(g, layer, name, v) if name != "linear" else v

        if kind == "SimpleRNNCell":
            z = xt if h is None else g.op("add", [xt, g.op("matmul", [h, rec_c, zero_bias], (None, u), s + "/rec")],
                                          (None, u), s + "/z")
            h = act_on(act, z, s)
        elif kind == "LSTMCell":
            z = xt if h is None else g.op("add", [xt, g.op("matmul", [h, rec_c, zero_bias], (None, 4 * u),
                                                            s + "/rec")], (None, 4 * u), s + "/z")
            zi, zf, zc, zo = (_slice_last(g, z, k * u, u, f"{s}/{name}") for k, name in enumerate("ifco"))
            i_g, o_g = act_on(ract, zi, s), act_on(ract, zo, s)
            ic = g.op("mul", [i_g, act_on(act, zc, s)], (None, u), s + "/i_times_g")
            c = ic if c is None else g.op("add", [g.op("mul", [act_on(ract, zf, s), c], (None, u), s + "/f_times_c"),
                                                  ic], (None, u), s + "/c")
            h = g.op("mul", [o_g, act_on(act, c, s)], (None, u), s + "/h")
        else:  # GRU, gates z, r, h
            xz, xr, xh = (_slice_last(g, xt, k * u, u, f"{s}/x{name}") for k, name in enumerate("zrh"))
            if h is None:  # step 0: the recurrent term is the recurrent bias alone (reset_after) or nothing
                rz, rr, rh = (None, None, None) if b_rec is None else (
                    g.const(b_rec[:u], s + "/rb_z"), g.const(b_rec[u:2 * u], s + "/rb_r"),
                    g.const(b_rec[2 * u:], s + "/rb_h"))
            elif reset_after:
                mi = g.op("matmul", [h, rec_c, g.const(b_rec if b_rec is not None else np.zeros(3 * u, np.float32),
                                                       s + "/recurrent_bias")], (None, 3 * u), s + "/rec")
                rz, rr, rh = (_slice_last(g, mi, k * u, u, f"{s}/r{name}") for k, name in enumerate("zrh"))
            else:
                mi = g.op("matmul", [h, g.const(rec[:, :2 * u], n + f"/rk_zr{i}"),
                                     g.const(np.zeros(2 * u, np.float32), s + "/nb")], (None, 2 * u), s + "/rec")
                rz, rr = _slice_last(g, mi, 0, u, s + "/rz"), _slice_last(g, mi, u, u, s + "/rr")
                rh = None

            def plus(a, b, hint):
                return a if b is None else g.op("add", [a, b], (None, u), hint)

            zg = act_on(ract, plus(xz, rz, s + "/zsum"), s)
            r = act_on(ract, plus(xr, rr, s + "/rsum"), s)
            if reset_after:
                cand = xh if rh is None else g.op("add", [xh, g.op("mul", [r, rh], (None, u), s + "/r_rh")],
                                                  (None, u), s + "/hsum")
            elif h is None:
                cand = xh
            else:
                rh_in = g.op("mul", [r, h], (None, u), s + "/r_h")
                cand = g.op("add", [xh, g.op("matmul", [rh_in, g.const(rec[:, 2 * u:], n + f"/rk_h{i}"),
                                                        g.const(np.zeros(u, np.float32), s + "/nbh")],
                                             (None, u), s + "/rec_h")], (None, u), s + "/hsum")
            hh = act_on(act, cand, s)
            keep = g.op("sub", [one, zg], (None, u), s + "/one_minus_z")
            new = g.op("mul", [keep, hh], (None, u), s + "/new")
            h = new if h is None else g.op("add", [g.op("mul", [zg, h], (None, u), s + "/z_h"), new], (None, u),
                                           s + "/h")
        outputs.append(h)
    if layer.return_sequences:
        seq = [g.op("reshape", [o], (None, 1, u), f"{n}/seq{i}", shape=(-1, 1, u)) for i, o in enumerate(outputs)]
        out = seq[0] if len(seq) == 1 else g.op("concat", seq, (None, steps, u), n + "/sequences", axis=1)
    else:
        out = outputs[-1]
    if layer.return_state:
        return [out, h] + ([c] if kind == "LSTMCell" else [])
    return [out]


def _rnn_tfjs(layer):
    cell = layer.cell
    if layer.stateful or layer.return_state or type(cell) not in _CELLS:
        return None
    act, ract = activation_name(cell.activation), activation_name(getattr(cell, "recurrent_activation", None))
    if _act_tfjs(act) is None or (type(cell) is not L.SimpleRNNCell and _act_tfjs(ract) is None):
        return None
    config = {"units": cell.units, "activation": act, "use_bias": bool(cell.use_bias),
              "return_sequences": bool(layer.return_sequences), "return_state": False,
              "go_backwards": bool(layer.go_backwards), "stateful": False, "unroll": False}
    if type(cell) is not L.SimpleRNNCell:
        config["recurrent_activation"] = ract
    if type(cell) is L.GRUCell:
        if cell.reset_after:
            raise unsupported(layer, "TF.js's GRU has no reset_after=True (Keras's default); build the GRU with "
                                     "reset_after=False to export it to TF.js")
        config["reset_after"] = False
    weights = [("kernel", cell.kernel), ("recurrent_kernel", cell.recurrent_kernel)]
    if cell.bias is not None:
        weights.append(("bias", cell.bias))
    return type(layer).__name__, config, weights


_CELLS = (L.SimpleRNNCell, L.LSTMCell, L.GRUCell)
converter(L.SimpleRNN, L.LSTM, L.GRU, tfjs=_rnn_tfjs)(_rnn_lower)


# -- attention -------------------------------------------------------------------------------------------
def _mha_lower(layer, g, xs, out_shapes, node=None):
    """MultiHeadAttention on (batch, steps, features) inputs: projections, per-head scaled dot products
    (batch matmuls), softmax over the value steps, the output projection. Masks other than
    ``use_causal_mask`` are not exported."""
    kwargs = dict(node.call_kwargs) if node is not None else {}
    args = list(node.call_args) if node is not None else []
    extra = {k for k, v in kwargs.items() if v is not None and k not in ("key", "value", "use_causal_mask",
                                                                           "training", "query")}
    if extra or kwargs.get("return_attention_scores"):
        raise unsupported(layer, f"call arguments {sorted(extra) or ['return_attention_scores']}")
    if len(layer._attention_axes or ()) > 1 or len(g.shapes[xs[0]]) != 3:
        raise unsupported(layer, "inputs other than (batch, steps, features) or several attention axes")
    named = dict(zip(("query", "value", "key"), args))
    named.update({k: kwargs[k] for k in ("query", "value", "key") if kwargs.get(k) is not None})
    by_id = {id(kt): x for kt, x in zip(node.keras_inputs, xs)} if node is not None else {}
    query, value_in = by_id.get(id(named.get("query")), xs[0]), by_id.get(id(named.get("value")), xs[1])
    key_in = by_id.get(id(named["key"])) if named.get("key") is not None else value_in
    n, heads = layer.name, layer._num_heads
    kd, vd = layer._key_dim, layer._value_dim
    t, s = g.shapes[query][1], g.shapes[value_in][1]

    def project(x, dense, dim, hint, steps):
        w = value(dense.kernel)
        b = value(dense.bias) if dense.bias is not None else np.zeros(w.shape[1:], np.float32)
        y = g.op("matmul", [x, g.const(w.reshape(w.shape[0], -1), f"{n}/{hint}/kernel"),
                            g.const(b.reshape(-1), f"{n}/{hint}/bias")], (None, steps, heads * dim), f"{n}/{hint}")
        y = g.op("reshape", [y], (None, steps, heads, dim), f"{n}/{hint}/split", shape=(-1, steps, heads, dim))
        return g.op("transpose", [y], (None, heads, steps, dim), f"{n}/{hint}/heads", perm=(0, 2, 1, 3))

    q = project(query, layer._query_dense, kd, "query", t)
    q = g.op("mul", [q, g.const(np.float32(1.0 / math.sqrt(float(kd))), n + "/scale")], g.shapes[q], n + "/q_scaled")
    k = project(key_in, layer._key_dense, kd, "key", s)
    v = project(value_in, layer._value_dense, vd, "value", s)
    scores = g.op("batch_matmul", [q, k], (None, heads, t, s), n + "/scores", transpose_b=True)
    if kwargs.get("use_causal_mask"):
        mask = np.where(np.tril(np.ones((t, s), bool)), 0.0, -1e9).astype(np.float32)
        scores = g.op("add", [scores, g.const(mask, n + "/causal_mask")], (None, heads, t, s), n + "/masked")
    probs = g.op("softmax", [scores], (None, heads, t, s), n + "/probs")
    out = g.op("batch_matmul", [probs, v], (None, heads, t, vd), n + "/context")
    out = g.op("transpose", [out], (None, t, heads, vd), n + "/merge", perm=(0, 2, 1, 3))
    out = g.op("reshape", [out], (None, t, heads * vd), n + "/merged", shape=(-1, t, heads * vd))
    od = layer._output_dense
    w = value(od.kernel)
    b = value(od.bias) if od.bias is not None else np.zeros(w.shape[-1], np.float32)
    return [g.op("matmul", [out, g.const(w.reshape(heads * vd, -1), n + "/output/kernel"),
                            g.const(b, n + "/output/bias")], tuple(out_shapes[0]), n)]


def _no_tfjs(what):
    def tfjs(layer):
        raise unsupported(layer, f"TF.js has no {what} layer")
    return tfjs


_mha_lower.wants_node = True
converter(L.MultiHeadAttention, tfjs=_no_tfjs("MultiHeadAttention"))(_mha_lower)


# -- 1-D convolution and pooling (as their 2-D forms on a (batch, 1, steps, channels) view) -------------------
def _as_2d(g, layer, x):
    steps, ch = static(layer, g.shapes[x])[1:]
    return g.op("reshape", [x], (None, 1, steps, ch), layer.name + "/as_2d", shape=(-1, 1, steps, ch))


def _from_2d(g, layer, y, out_shape):
    return g.op("reshape", [y], (None,) + tuple(out_shape[1:]), layer.name + "/as_1d",
                shape=(-1,) + tuple(out_shape[1:]))


@converter(L.Conv1D, tfjs=lambda layer: _conv_tfjs(layer, "Conv1D", [("kernel", layer.kernel), ("bias", layer.bias)],
                                                    {"filters": layer.filters}) if layer.groups == 1 else None)
def _conv1d(layer, g, xs, out_shapes):
    _channels_last(layer)
    x = xs[0]
    w = value(layer.kernel)  # (k, cin, cout)
    padding = layer.padding.upper()
    if padding == "CAUSAL":
        left = layer.dilation_rate[0] * (layer.kernel_size[0] - 1)
        shape = g.shapes[x]
        x = g.op("pad", [x], (None, shape[1] + left, shape[2]), layer.name + "/causal_pad",
                 pads=((0, 0), (left, 0), (0, 0)))
        padding = "VALID"
    out = tuple(out_shapes[0])
    y = g.op("conv2d", [_as_2d(g, layer, x), g.const(w[None], layer.name + "/kernel"),
                        g.const(_bias(layer, w.shape[2]), layer.name + "/bias")],
             (None, 1, out[1], out[2]), layer.name + "/conv", groups=int(layer.groups), strides=(1, layer.strides[0]),
             dilations=(1, layer.dilation_rate[0]), padding=padding)
    return [apply_activation(g, layer, activation_name(layer.activation), _from_2d(g, layer, y, out))]


def _pool1d(kind):
    def lower(layer, g, xs, out_shapes):
        _channels_last(layer)
        out = tuple(out_shapes[0])
        y = g.op(kind, [_as_2d(g, layer, xs[0])], (None, 1, out[1], out[2]), layer.name + "/pool",
                 ksize=(1, layer.pool_size[0]), strides=(1, layer.strides[0]), padding=layer.padding.upper())
        return [_from_2d(g, layer, y, out)]
    return lower


def _pool1d_tfjs(class_name):
    return lambda layer: (class_name, {"pool_size": [layer.pool_size[0]], "strides": [layer.strides[0]],
                                       "padding": layer.padding}, [])


converter(L.MaxPooling1D, tfjs=_pool1d_tfjs("MaxPooling1D"))(_pool1d("max_pool"))
converter(L.AveragePooling1D, tfjs=_pool1d_tfjs("AveragePooling1D"))(_pool1d("avg_pool"))


@converter(L.GlobalMaxPooling1D, tfjs=lambda layer: None if layer.keepdims else ("GlobalMaxPooling1D", {}, []))
def _global_max1d(layer, g, xs, out_shapes):
    _channels_last(layer)
    steps, ch = static(layer, g.shapes[xs[0]])[1:]
    y = g.op("max_pool", [_as_2d(g, layer, xs[0])], (None, 1, 1, ch), layer.name + "/pool", ksize=(1, steps),
             strides=(1, 1), padding="VALID")
    return [_from_2d(g, layer, y, tuple(out_shapes[0]))]


# -- reshaping layers ------------------------------------------------------------------------------------
def _crop(layer, g, xs, out_shapes):
    _channels_last(layer)
    shape = static(layer, g.shapes[xs[0]])
    begin, size = [0] * len(shape), [-1] * len(shape)
    for axis, (a, b) in enumerate(layer.cropping, start=1):
        begin[axis], size[axis] = a, shape[axis] - a - b
    return [g.op("slice", xs, tuple(out_shapes[0]), layer.name, begin=tuple(begin), size=tuple(size))]


converter(L.Cropping1D)(_crop)
converter(L.Cropping2D, tfjs=lambda layer: ("Cropping2D", {"cropping": [list(p) for p in layer.cropping],
                                                           "data_format": "channels_last"}, []))(_crop)


@converter(L.ZeroPadding1D)
def _zero_pad1d(layer, g, xs, out_shapes):
    (a, b), = layer.cropping  # the (start, end) pairs of _ZeroPadding are kept as ``cropping``
    return [g.op("pad", xs, tuple(out_shapes[0]), layer.name, pads=((0, 0), (a, b), (0, 0)))]


def _repeat(g, x, axis, times, hint):
    """Repeat every entry of ``x`` ``times`` times along ``axis`` (a reshape, a concat, a reshape)."""
    shape = g.shapes[x]
    if times == 1:
        return x
    expanded = shape[:axis + 1] + (1,) + shape[axis + 1:]
    y = g.op("reshape", [x], expanded, hint + "/expand", shape=(-1,) + tuple(expanded[1:]))
    stacked = shape[:axis + 1] + (times,) + shape[axis + 1:]
    y = g.op("concat", [y] * times, stacked, hint + "/copies", axis=axis + 1)
    out = shape[:axis] + (shape[axis] * times,) + shape[axis + 1:]
    return g.op("reshape", [y], out, hint, shape=(-1,) + tuple(out[1:]))


def _upsampling(layer, g, xs, out_shapes):
    _channels_last(layer)
    if getattr(layer, "interpolation", "nearest") != "nearest":
        raise unsupported(layer, f"interpolation='{layer.interpolation}' (nearest is exported)")
    static(layer, g.shapes[xs[0]])
    y = xs[0]
    for axis, size in enumerate(layer.size, start=1):
        y = _repeat(g, y, axis, int(size), f"{layer.name}/axis{axis}")
    return [y]


converter(L.UpSampling1D)(_upsampling)
converter(L.UpSampling2D, tfjs=lambda layer: ("UpSampling2D", {
    "size": list(layer.size), "data_format": "channels_last", "interpolation": "nearest"}, [])
    if layer.interpolation == "nearest" else None)(_upsampling)


@converter(L.Permute, tfjs=lambda layer: ("Permute", {"dims": list(layer.dims)}, []))
def _permute(layer, g, xs, out_shapes):
    return [g.op("transpose", xs, tuple(out_shapes[0]), layer.name, perm=(0,) + tuple(layer.dims))]


@converter(L.RepeatVector, tfjs=lambda layer: ("RepeatVector", {"n": int(layer.n)}, []))
def _repeat_vector(layer, g, xs, out_shapes):
    features = static(layer, g.shapes[xs[0]])[1]
    y = g.op("reshape", xs, (None, 1, features), layer.name + "/expand", shape=(-1, 1, features))
    if layer.n == 1:
        return [y]
    return [g.op("concat", [y] * int(layer.n), tuple(out_shapes[0]), layer.name, axis=1)]
