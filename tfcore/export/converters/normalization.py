"""BatchNormalization (folded to one multiply and one add) and LayerNormalization (its moments as ops)."""

import numpy as np

from ...keras import layers as L
from .base import (
    converter,
    value,
)


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
