"""``tf.random.stateless_*`` and ``tf.random.experimental.stateless_split``/``stateless_fold_in``: TF's values.

A ``[2]`` seed names a Philox stream as TF's ``StatelessRandomGetKeyCounter`` derives it
(``philox.key_counter_from_seed``); the ops draw from it with TF's distributions, so
``tf.random.stateless_normal([2, 3], seed=[1, 2])`` equals TF 2.21's tensor bit for bit
(``tensorflow/python/ops/stateless_random_ops.py`` is the Python side followed here).
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ._common import as_tensor, shape_tuple
from .array_ops import stack
from .random_ops import (
    _normal_from,
    _SeedInput,
    _stateless_gen,
    _truncated_from,
    _uniform_from,
    draw_params,
    run_host_draw,
    uniform_full_int_from,
)

__all__ = ["stateless_normal", "stateless_uniform", "stateless_truncated_normal", "stateless_split",
           "stateless_fold_in", "split", "fold_in", "stateless_gamma", "stateless_poisson", "stateless_binomial",
           "stateless_categorical", "stateless_parameterized_truncated_normal"]

_UNIFORM_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint32", "uint64")


def _seed_tensor(seed, op_name):
    """The seed as an int32/int64 tensor of shape [2] (InvalidArgumentError naming the op otherwise)."""
    t = as_tensor(seed) if hasattr(seed, "numpy") or hasattr(seed, "_array") else convert_to_tensor(seed)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(None, None, f"{op_name}: seed must be int32 or int64, got {t.dtype.name}")
    if t.shape.as_list() != [2]:
        raise InvalidArgumentError(None, None, f"{op_name}: seed must have shape [2], not {t.shape.as_list()}")
    return t


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """``tf.random.stateless_normal``: the same ``[2]`` seed always gives the same (TF's) values."""
    return _normal_from(_SeedInput(_seed_tensor(seed, "StatelessRandomNormalV2")), shape, mean, stddev, dtype)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    """``tf.random.stateless_truncated_normal``: normals within two standard deviations (TF's rejection)."""
    return _truncated_from(_SeedInput(_seed_tensor(seed, "StatelessTruncatedNormalV2")), shape, mean, stddev,
                           dtype)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """``tf.random.stateless_uniform``: floats in [minval, maxval), integers in [minval, maxval), or, for an
    integer dtype with ``minval`` and ``maxval`` both None, integers over the dtype's whole range."""
    dt = dtypes.as_dtype(dtype)
    if dt.name not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dt!r}. Accepted dtypes are "
                         f"{', '.join('tf.' + d for d in _UNIFORM_DTYPES)}.")
    source = _SeedInput(_seed_tensor(seed, "StatelessRandomUniformV2"))
    if dt.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dt!r}, argument `minval` and `maxval` must be both "
                             f"None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is None:
            return uniform_full_int_from(source, shape, dt)
        if dt.name in ("uint32", "uint64"):
            raise ValueError(f"Argument `dtype` got invalid value {dt!r} when argument `minval` is not None. "
                             f"Please don't use unsigned integers in this case.")
    return _uniform_from(source, shape, minval, maxval, dt)


def stateless_split(seed, num=2, alg="auto_select"):
    """``tf.random.experimental.stateless_split``: ``num`` new seeds (shape ``[num, 2]``, the seed's dtype),
    full-range integers drawn with ``seed``."""
    t = _seed_tensor(seed, "stateless_split")
    return stateless_uniform([int(num), 2], t, minval=None, maxval=None, dtype=t.dtype, alg=alg)


def stateless_fold_in(seed, data, alg="auto_select"):
    """``tf.random.experimental.stateless_fold_in``: ``[a full-range integer drawn with seed, data]``."""
    d = as_tensor(data) if hasattr(data, "numpy") else convert_to_tensor(data)
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=d.dtype, alg=alg)
    return stack([first, d])


split = stateless_split      # tf.random.split (TF 2.21's name for the same function)
fold_in = stateless_fold_in  # tf.random.fold_in


# -- gamma, Poisson, binomial, categorical, truncated normal: host draws from the seed's stream -----

def _broadcast_to_shape(shp, *params):
    out = []
    for p in params:
        try:
            out.append(np.broadcast_to(p, shp))
        except ValueError as e:
            raise InvalidArgumentError(None, None, f"parameters of shape {list(np.shape(p))} do not broadcast to "
                                                   f"the output shape {list(shp)}") from e
    return out


def stateless_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None):
    """``tf.random.stateless_gamma``: ``alpha``/``beta`` broadcast to ``shape``; same seed, same draws."""
    gen = _stateless_gen(seed)
    shp = shape_tuple(shape, "StatelessRandomGammaV2")
    a, bt = draw_params(alpha, 1.0 if beta is None else beta)

    def sample(al, be):
        al, be = _broadcast_to_shape(shp, al, be)
        return gen.gamma(al) / be

    return run_host_draw(sample, [a, bt], dtype)


def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """``tf.random.stateless_poisson``: ``lam`` broadcast to ``shape``."""
    gen = _stateless_gen(seed)
    shp = shape_tuple(shape, "StatelessRandomPoisson")
    (rate,) = draw_params(lam)
    return run_host_draw(lambda r: gen.poisson(_broadcast_to_shape(shp, r)[0]), [rate], dtype)


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """``tf.random.stateless_binomial``: ``counts``/``probs`` broadcast to ``shape``."""
    gen = _stateless_gen(seed)
    shp = shape_tuple(shape, "StatelessRandomBinomial")
    n, p = draw_params(counts, probs)

    def sample(cnt, pr):
        cnt, pr = _broadcast_to_shape(shp, cnt, pr)
        return gen.binomial(cnt.astype(np.int64), pr)

    return run_host_draw(sample, [n, p], output_dtype)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """``tf.random.stateless_categorical``: ``[batch, num_samples]`` class indices drawn from ``logits``."""
    gen = _stateless_gen(seed)
    lg = as_tensor(logits)
    if lg.ndim != 2:
        raise InvalidArgumentError(None, None, f"logits should be a matrix, got shape {lg.shape.as_list()}")
    k = int(num_samples)

    def sample(x):
        x = x.astype(np.float64)
        p = np.exp(x - x.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return np.stack([gen.choice(p.shape[1], size=k, p=row) for row in p]) if len(p) else np.zeros((0, k))

    return run_host_draw(sample, [lg], dtype)


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None):
    """``tf.random.stateless_parameterized_truncated_normal``: normal draws restricted to ``[minvals, maxvals]``
    (parameters broadcast to ``shape``), by rejection."""
    gen = _stateless_gen(seed)
    shp = shape_tuple(shape, "StatelessParameterizedTruncatedNormal")
    params = draw_params(means, stddevs, minvals, maxvals, dtype=dtypes.float32)

    def sample(mu, sd, lo, hi):
        mu, sd, lo, hi = (a.astype(np.float64) for a in _broadcast_to_shape(shp, mu, sd, lo, hi))
        if np.any(lo >= hi):
            raise ValueError("minvals must be less than maxvals")
        out = gen.normal(mu, sd)
        bad = (out < lo) | (out > hi)
        for _ in range(1000):
            if not bad.any():
                break
            out[bad] = gen.normal(mu[bad], sd[bad])
            bad = (out < lo) | (out > hi)
        return np.clip(out, lo, hi)

    return run_host_draw(sample, params, params[0].dtype)
