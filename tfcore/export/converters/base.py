"""The converter registry and what every converter shares: errors, weights, activations."""

import numpy as np

CONVERTERS = {}
IDENTITY = "identity"  # a ``tfjs`` half's answer for a layer that is the identity at inference (left out)


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


def act_tfjs(name):
    return name if name in ("linear", "relu", "relu6", "sigmoid", "tanh", "softmax", "elu", "swish", "gelu") \
        else None  # TF.js's activations that compute what Keras's of the same name do


def tfjs_with_activation(layer, class_name, config, weights):
    act = act_tfjs(activation_name(layer.activation))
    if act is None:
        return None
    config["activation"] = act
    return class_name, config, [(n, w) for n, w in weights if w is not None]


def bias_or_zeros(layer, n):
    b = getattr(layer, "bias", None)
    return value(b) if b is not None else np.zeros((n,), np.float32)


def no_tfjs(what):
    def tfjs(layer):
        raise unsupported(layer, f"TF.js has no {what} layer")
    return tfjs


def channels_last(layer):
    if getattr(layer, "data_format", "channels_last") != "channels_last":
        raise unsupported(layer, "data_format='channels_first' (export takes channels_last models)")
