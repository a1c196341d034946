"""``tf.keras.initializers``: callables ``init(shape, dtype)`` returning a tensor of initial values.

Random initializers draw from ``tf.random`` so ``tf.random.set_seed`` makes model
initialisation reproducible, as in TF. Defaults follow TF2 (glorot_uniform kernels,
RandomUniform/RandomNormal with 0.05 ranges, TruncatedNormal stddev 0.05).
"""

import math

import numpy as np

from ..framework import dtypes
from ..ops import array_ops, random_ops
from . import _serialization

__all__ = [
    "Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal", "TruncatedNormal",
    "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeNormal", "HeUniform", "LecunNormal", "LecunUniform",
    "Orthogonal", "Identity", "get", "serialize", "deserialize",
]


def _dtype(dtype):
    return dtypes.as_dtype(dtype if dtype is not None else "float32")


def compute_fans(shape):
    """(fan_in, fan_out) of a weight shape: dense (in, out) or conv (..., in, out)."""
    shape = tuple(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: subclasses implement ``__call__(shape, dtype=None, **kwargs)``."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(Initializer):
    def __call__(self, shape, dtype=None, **kwargs):
        return array_ops.zeros(tuple(shape), dtype=_dtype(dtype))


class Ones(Initializer):
    def __call__(self, shape, dtype=None, **kwargs):
        return array_ops.ones(tuple(shape), dtype=_dtype(dtype))


class Constant(Initializer):
    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        return array_ops.constant(np.broadcast_to(np.asarray(self.value), tuple(shape)), dtype=_dtype(dtype))

    def get_config(self):
        return {"value": self.value}


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return random_ops.uniform(tuple(shape), self.minval, self.maxval, dtype=_dtype(dtype), seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None, **kwargs):
        return random_ops.normal(tuple(shape), self.mean, self.stddev, dtype=_dtype(dtype), seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
    def __call__(self, shape, dtype=None, **kwargs):
        return random_ops.truncated_normal(tuple(shape), self.mean, self.stddev, dtype=_dtype(dtype),
                                          seed=self.seed)


class VarianceScaling(Initializer):
    """Scale ``scale / n`` with n = fan_in, fan_out or their average; normal or uniform draws."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if scale <= 0.0:
            raise ValueError(f"`scale` must be positive float. Received: scale={scale}.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in {"uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=None, **kwargs):
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        dt = _dtype(dtype)
        if self.distribution == "truncated_normal":
            stddev = math.sqrt(scale) / 0.87962566103423978  # stddev of a unit normal truncated at +-2
            return random_ops.truncated_normal(tuple(shape), 0.0, stddev, dtype=dt, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.normal(tuple(shape), 0.0, math.sqrt(scale), dtype=dt, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.uniform(tuple(shape), -limit, limit, dtype=dt, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


class _VarianceScalingPreset(VarianceScaling):
    """A named VarianceScaling with fixed ``_preset = (scale, mode, distribution)``; only ``seed`` is an
    argument (and the whole config), as in Keras."""

    _preset = None

    def __init__(self, seed=None):
        super().__init__(*self._preset, seed)

    def get_config(self):
        return {"seed": self.seed}


class GlorotUniform(_VarianceScalingPreset):
    _preset = (1.0, "fan_avg", "uniform")


class GlorotNormal(_VarianceScalingPreset):
    _preset = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_VarianceScalingPreset):
    _preset = (2.0, "fan_in", "truncated_normal")


class HeUniform(_VarianceScalingPreset):
    _preset = (2.0, "fan_in", "uniform")


class LecunNormal(_VarianceScalingPreset):
    _preset = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_VarianceScalingPreset):
    _preset = (1.0, "fan_in", "uniform")


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR decomposition of a normal draw, times ``gain``."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None, **kwargs):
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"The tensor to initialize must be at least two-dimensional. Received: shape={shape}")
        rows = math.prod(shape[:-1])
        cols = shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = random_ops.normal(flat, dtype=dtypes.float32, seed=self.seed).numpy().astype(np.float64)
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return array_ops.constant((self.gain * q).reshape(shape), dtype=_dtype(dtype))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return array_ops.constant(self.gain * np.eye(*shape), dtype=_dtype(dtype))

    def get_config(self):
        return {"gain": self.gain}


_TABLE = {
    "zeros": Zeros, "Zeros": Zeros, "ones": Ones, "Ones": Ones, "constant": Constant, "Constant": Constant,
    "random_uniform": RandomUniform, "uniform": RandomUniform, "RandomUniform": RandomUniform,
    "random_normal": RandomNormal, "normal": RandomNormal, "RandomNormal": RandomNormal,
    "truncated_normal": TruncatedNormal, "TruncatedNormal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "VarianceScaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "GlorotUniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "GlorotNormal": GlorotNormal,
    "he_normal": HeNormal, "HeNormal": HeNormal, "he_uniform": HeUniform, "HeUniform": HeUniform,
    "lecun_normal": LecunNormal, "LecunNormal": LecunNormal, "lecun_uniform": LecunUniform,
    "LecunUniform": LecunUniform, "orthogonal": Orthogonal, "Orthogonal": Orthogonal,
    "identity": Identity, "Identity": Identity,
    "IdentityInitializer": Identity, "OrthogonalInitializer": Orthogonal,  # Keras 3's aliases
}

# TF's lower-case aliases
zeros, ones, constant = Zeros, Ones, Constant
glorot_uniform, glorot_normal, he_normal, he_uniform = GlorotUniform, GlorotNormal, HeNormal, HeUniform
lecun_normal, lecun_uniform, orthogonal = LecunNormal, LecunUniform, Orthogonal
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal
identity, variance_scaling = Identity, VarianceScaling
IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal  # Keras 3's aliases


def get(identifier):
    """An initializer from a name, config dict, instance or callable (None -> None)."""
    if identifier is None:
        return None
    return _serialization.lookup(identifier, _TABLE, "initializer")


def serialize(initializer):
    return _serialization.serialize(initializer)


def deserialize(config, custom_objects=None):
    return get(config)
