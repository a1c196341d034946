"""More of ``tf.random``: gamma and Poisson draws (stateful and stateless), stateless binomial, categorical
and parameterized truncated normal, and ``Algorithm`` (``split``, ``fold_in`` and ``create_rng_state`` live
with the stateless and stateful ops).

Samples are drawn on the host from the same Philox generators as ``tf.random.uniform`` (TF's seed
rules for the stateful ops; the ``[2]`` seed for the stateless ones) and placed on the op's device.
These draws have no gradient in tfcore (TF differentiates ``gamma`` with respect to ``alpha``).
"""

import enum

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ._common import as_tensor, shape_tuple
from .random_ops import _generator, _stateless_gen
from .registry import Op, execute

__all__ = ["gamma", "poisson", "stateless_gamma", "stateless_poisson", "stateless_binomial", "stateless_categorical",
           "stateless_parameterized_truncated_normal", "Algorithm"]


class Algorithm(enum.Enum):
    """``tf.random.Algorithm``: the counter-based generator (tfcore draws with Philox for every choice)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_DRAW = Op("RandomDraw")


@_DRAW.kernel()
def _draw(b, *params, sample, dtype):
    host = [np.asarray(b.to_numpy(p)) for p in params]
    return b.asarray(np.asarray(sample(*host)).astype(dtype.as_numpy_dtype, copy=False))


def _run(sample, params, dtype):
    return execute(_DRAW, tuple(params), {"sample": sample, "dtype": dtypes.as_dtype(dtype)})


def _params(*values, dtype=dtypes.float64):
    return [as_tensor(v) if hasattr(v, "numpy") else convert_to_tensor(np.asarray(v, dtype.as_numpy_dtype))
            for v in values]


def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.gamma``: ``shape + broadcast(alpha, beta).shape`` draws from Gamma(alpha, rate=beta)."""
    gen = _generator("RandomGamma", seed)
    shp = shape_tuple(shape, "RandomGamma")
    a, bt = _params(alpha, 1.0 if beta is None else beta)

    def sample(al, be):
        al, be = np.broadcast_arrays(al, be)
        if np.any(al <= 0):
            raise ValueError("alpha must be positive")
        return gen.gamma(al, size=shp + al.shape) / be

    return _run(sample, [a, bt], dtype)


def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.poisson``: ``shape + lam.shape`` Poisson draws."""
    gen = _generator("RandomPoissonV2", seed)
    shp = shape_tuple(shape, "RandomPoissonV2")
    (rate,) = _params(lam)
    return _run(lambda r: gen.poisson(r, size=shp + r.shape), [rate], dtype)


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
    a, bt = _params(alpha, 1.0 if beta is None else beta)

    def sample(al, be):
        al, be = _broadcast_to_shape(shp, al, be)
        return gen.gamma(al) / be

    return _run(sample, [a, bt], dtype)


def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """``tf.random.stateless_poisson``: ``lam`` broadcast to ``shape``."""
    gen = _stateless_gen(seed)
    shp = shape_tuple(shape, "StatelessRandomPoisson")
    (rate,) = _params(lam)
    return _run(lambda r: gen.poisson(_broadcast_to_shape(shp, r)[0]), [rate], dtype)


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """``tf.random.stateless_binomial``: ``counts``/``probs`` broadcast to ``shape``."""
    gen = _stateless_gen(seed)
    shp = shape_tuple(shape, "StatelessRandomBinomial")
    n, p = _params(counts, probs)

    def sample(cnt, pr):
        cnt, pr = _broadcast_to_shape(shp, cnt, pr)
        return gen.binomial(cnt.astype(np.int64), pr)

    return _run(sample, [n, p], output_dtype)


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

    return _run(sample, [lg], dtype)


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None):
    """``tf.random.stateless_parameterized_truncated_normal``: normal draws restricted to ``[minvals, maxvals]``
    (parameters broadcast to ``shape``), by rejection."""
    gen = _stateless_gen(seed)
    shp = shape_tuple(shape, "StatelessParameterizedTruncatedNormal")
    params = _params(means, stddevs, minvals, maxvals, dtype=dtypes.float32)

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

    return _run(sample, params, params[0].dtype)
