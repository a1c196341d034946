"""Convolutions (2-D, depthwise, separable; 1-D as 2-D), poolings, padding, cropping, upsampling,
Permute and RepeatVector."""

import numpy as np

from ...keras import layers as L
from .base import (
    activation_name,
    apply_activation,
    bias_or_zeros,
    channels_last,
    converter,
    static,
    tfjs_with_activation,
    unsupported,
    value,
)


# -- convolution and pooling -----------------------------------------------------------------------------
def _conv_common(layer):
    return {"strides": tuple(layer.strides), "dilations": tuple(layer.dilation_rate),
            "padding": layer.padding.upper()}


def _conv_tfjs(layer, class_name, weight_names, extra):
    if layer.padding == "causal":
        raise unsupported(layer, "TF.js's convolutions do not implement padding='causal'")
    config = {"kernel_size": list(layer.kernel_size), "strides": list(layer.strides),
              "padding": layer.padding, "data_format": "channels_last",
              "dilation_rate": list(layer.dilation_rate), "use_bias": bool(layer.use_bias), **extra}
    return tfjs_with_activation(layer, class_name, config, weight_names)


@converter(L.Conv2D, tfjs=lambda layer: _conv_tfjs(layer, "Conv2D", [("kernel", layer.kernel),
                                                                      ("bias", layer.bias)],
                                                    {"filters": layer.filters})
           if layer.groups == 1 else None)
def _conv2d(layer, g, xs, out_shapes):
    channels_last(layer)
    if layer.padding not in ("same", "valid"):
        raise unsupported(layer, f"padding='{layer.padding}'")
    static(layer, g.shapes[xs[0]])
    w = value(layer.kernel)
    y = g.op("conv2d", [xs[0], g.const(w, layer.name + "/kernel"), g.const(bias_or_zeros(layer, w.shape[3]),
                                                                           layer.name + "/bias")],
             tuple(out_shapes[0]), layer.name + "/conv", groups=int(layer.groups), **_conv_common(layer))
    return [apply_activation(g, layer, activation_name(layer.activation), y)]


@converter(L.DepthwiseConv2D, tfjs=lambda layer: _conv_tfjs(
    layer, "DepthwiseConv2D", [("depthwise_kernel", layer.depthwise_kernel), ("bias", layer.bias)],
    {"depth_multiplier": layer.depth_multiplier}))
def _depthwise(layer, g, xs, out_shapes):
    channels_last(layer)
    static(layer, g.shapes[xs[0]])
    w = value(layer.depthwise_kernel)
    y = g.op("depthwise_conv2d", [xs[0], g.const(w, layer.name + "/depthwise_kernel"),
                                  g.const(bias_or_zeros(layer, w.shape[2] * w.shape[3]), layer.name + "/bias")],
             tuple(out_shapes[0]), layer.name + "/conv", **_conv_common(layer))
    return [apply_activation(g, layer, activation_name(layer.activation), y)]


@converter(L.SeparableConv2D, tfjs=lambda layer: _conv_tfjs(
    layer, "SeparableConv2D", [("depthwise_kernel", layer.depthwise_kernel),
                               ("pointwise_kernel", layer.pointwise_kernel), ("bias", layer.bias)],
    {"filters": layer.filters, "depth_multiplier": layer.depth_multiplier}))
def _separable(layer, g, xs, out_shapes):
    """A depthwise convolution (no bias) then a 1x1 convolution with the bias, as ``nn.separable_conv2d``."""
    channels_last(layer)
    static(layer, g.shapes[xs[0]])
    dw, pw = value(layer.depthwise_kernel), value(layer.pointwise_kernel)
    out = tuple(out_shapes[0])
    mid = g.op("depthwise_conv2d", [xs[0], g.const(dw, layer.name + "/depthwise_kernel"),
                                    g.const(np.zeros(dw.shape[2] * dw.shape[3], np.float32), layer.name + "/no_bias")],
               out[:3] + (dw.shape[2] * dw.shape[3],), layer.name + "/depthwise", **_conv_common(layer))
    y = g.op("conv2d", [mid, g.const(pw, layer.name + "/pointwise_kernel"), g.const(bias_or_zeros(layer, pw.shape[3]),
                                                                                   layer.name + "/bias")],
             out, layer.name + "/pointwise", groups=1, strides=(1, 1), dilations=(1, 1), padding="VALID")
    return [apply_activation(g, layer, activation_name(layer.activation), y)]


def _pool(kind):
    def lower(layer, g, xs, out_shapes):
        channels_last(layer)
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
        channels_last(layer)
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
    channels_last(layer)
    shape = static(layer, g.shapes[xs[0]])
    y = g.op("max_pool", xs, (shape[0], 1, 1, shape[3]), layer.name + "/pool", ksize=tuple(shape[1:3]),
             strides=(1, 1), padding="VALID")
    if layer.keepdims:
        return [y]
    return [g.op("reshape", [y], (None, shape[3]), layer.name, shape=(-1, shape[3]))]


@converter(L.ZeroPadding2D, tfjs=lambda layer: ("ZeroPadding2D", {
    "padding": [list(p) for p in layer.padding], "data_format": "channels_last"}, []))
def _zero_pad(layer, g, xs, out_shapes):
    channels_last(layer)
    (t, b), (lft, r) = layer.padding
    return [g.op("pad", xs, tuple(out_shapes[0]), layer.name, pads=((0, 0), (t, b), (lft, r), (0, 0)))]


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
    channels_last(layer)
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
                        g.const(bias_or_zeros(layer, w.shape[2]), layer.name + "/bias")],
             (None, 1, out[1], out[2]), layer.name + "/conv", groups=int(layer.groups), strides=(1, layer.strides[0]),
             dilations=(1, layer.dilation_rate[0]), padding=padding)
    return [apply_activation(g, layer, activation_name(layer.activation), _from_2d(g, layer, y, out))]


def _pool1d(kind):
    def lower(layer, g, xs, out_shapes):
        channels_last(layer)
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
    channels_last(layer)
    steps, ch = static(layer, g.shapes[xs[0]])[1:]
    y = g.op("max_pool", [_as_2d(g, layer, xs[0])], (None, 1, 1, ch), layer.name + "/pool", ksize=(1, steps),
             strides=(1, 1), padding="VALID")
    return [_from_2d(g, layer, y, tuple(out_shapes[0]))]


# -- reshaping layers ------------------------------------------------------------------------------------
def _crop(layer, g, xs, out_shapes):
    channels_last(layer)
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
    channels_last(layer)
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


def _conv_transpose_tfjs(layer):
    if layer.output_padding is not None:
        raise unsupported(layer, "TF.js's Conv2DTranspose has no output_padding")
    return _conv_tfjs(layer, "Conv2DTranspose", [("kernel", layer.kernel), ("bias", layer.bias)],
                     {"filters": layer.filters})


@converter(L.Conv2DTranspose, tfjs=_conv_transpose_tfjs)
def _conv2d_transpose(layer, g, xs, out_shapes):
    """``nn.conv2d_transpose`` to the layer's output size (its SAME/VALID padding taken as TF does)."""
    channels_last(layer)
    static(layer, g.shapes[xs[0]])
    w = value(layer.kernel)  # (kh, kw, filters, cin)
    out = tuple(out_shapes[0])
    y = g.op("conv2d_transpose", [xs[0], g.const(w, layer.name + "/kernel"),
                                  g.const(bias_or_zeros(layer, w.shape[2]), layer.name + "/bias")],
             out, layer.name + "/conv_transpose", out_hw=tuple(out[1:3]), **_conv_common(layer))
    return [apply_activation(g, layer, activation_name(layer.activation), y)]
