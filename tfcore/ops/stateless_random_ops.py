"""``tf.random.stateless_*`` and ``tf.random.experimental.stateless_split``/``stateless_fold_in``: TF's values.

A ``[2]`` seed names a Philox stream as TF's ``StatelessRandomGetKeyCounter`` derives it
(``philox.key_counter_from_seed``); the ops draw from it with TF's distributions, so
``tf.random.stateless_normal([2, 3], seed=[1, 2])`` equals TF 2.21's tensor bit for bit
(``tensorflow/python/ops/stateless_random_ops.py`` is the Python side followed here).
"""

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ._common import as_tensor
from .array_ops import stack
from .random_ops import _normal_from, _SeedInput, _truncated_from, _uniform_from, uniform_full_int_from

__all__ = ["stateless_normal", "stateless_uniform", "stateless_truncated_normal", "stateless_split",
           "stateless_fold_in", "split", "fold_in"]

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
