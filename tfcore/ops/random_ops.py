"""Random tensors with TF's global/op seed rules, generated on the host and placed on the device.

``uniform``, ``normal``, ``truncated_normal`` (and the stateless and ``tf.random.Generator`` draws,
``stateless_random_ops.py`` and ``stateful_random_ops.py``) come from TF's Philox4x32-10 stream and
distributions (``philox.py``) on the host and are copied to the target device, so a seeded program
gives TF 2.21's values on CPU and GPU. A seeded op holds TF's ``GuardedPhiloxRandom``: the stream
``PhiloxRandom(seed, seed2)``, of which each call reserves ``256 * size`` blocks, one stream per
(op, dtype, seeds) as TF's eager runtime keeps one kernel per attribute set. ``shuffle``,
``categorical``, ``gamma``, ``poisson`` and the stateless gamma, Poisson, binomial, categorical and
parameterized truncated normal draws (``RandomDraw``: sampled on the host, placed on the op's device;
no gradient in tfcore, TF differentiates ``gamma`` with respect to ``alpha``) use NumPy generators under
the same seeds.

Seed rules (``tf.random.set_seed`` documentation):
- no global seed, no op seed: nondeterministic;
- global seed only: the op seed is drawn from a counter that ``set_seed``
  resets, so re-running the program gives the same sequence;
- op seed given: the (global seed, op seed) pair names a generator whose state
  advances on every call (a repeated call gives new numbers) and restarts when
  ``set_seed`` is called; without a global seed TF's default global seed is used.
"""

import copy as _copy
import math as _math
import os as _os
import random as _pyrandom
import threading as _threading

import numpy as np

from ..framework import dtypes, replica_state
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_conversion import convert_to_tensor
from . import math_ops as _m
from . import philox
from ._common import as_tensor, describe, shape_tuple
from .registry import Op, execute

__all__ = ["set_seed", "normal", "uniform", "truncated_normal", "shuffle", "categorical", "gamma", "poisson"]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


class _SeedState:
    """Process-wide seed state (TF keeps it in the eager context)."""

    def __init__(self):
        self.global_seed = None
        self.op_seed_rng = _pyrandom.Random()
        self.generators = {}          # (global seed, op seed, op name) -> numpy Generator
        self.guarded = {}             # (op name, dtype, seed, seed2) -> _GuardedPhilox
        self.nondeterministic = np.random.Generator(np.random.Philox())
        self.lock = _threading.Lock()


_state = _SeedState()


class _Preview(_threading.local):
    saved = None  # while previewing on this thread: {id(generator): (generator, its state before)}


_preview = _Preview()


class previewing:  # noqa: N801 - used like a function
    """``with previewing():`` random ops run, but the seeded generators they use end as they were.

    tf.data traces a dataset function by running it once before any element (TF traces it
    symbolically); the graph's random nodes keep their generators, whose numbers then start
    with the first element, as the same op's would eagerly. The unseeded (nondeterministic)
    generator is shared by every thread and is left alone. Per thread; nests.
    """

    __slots__ = ("_outer",)

    def __enter__(self):
        self._outer = _preview.saved
        if self._outer is None:
            _preview.saved = {}
        return self

    def __exit__(self, *exc):
        if self._outer is None:
            saved, _preview.saved = _preview.saved, None
            for gen, state in saved.values():
                if isinstance(gen, _GuardedPhilox):
                    gen.stream.counter = state
                else:
                    gen.bit_generator.state = state
        return False


def _noting_preview(gen):
    saved = _preview.saved
    if saved is not None and gen is not _state.nondeterministic and id(gen) not in saved:
        saved[id(gen)] = (gen, _copy.deepcopy(gen.bit_generator.state))
    return gen


class _GuardedPhilox:
    """TF's ``GuardedPhiloxRandom``: ``PhiloxRandom(seed, seed2)`` (random when both are 0), from which
    each call of the op reserves ``256 * size`` blocks (``ReserveRandomOutputs(size, 256)``)."""

    __slots__ = ("stream", "_lock")

    def __init__(self, seed, seed2):
        if seed == 0 and seed2 == 0:
            seed, seed2 = (int.from_bytes(_os.urandom(8), "little") for _ in range(2))
        self.stream = philox.PhiloxStream.from_seeds(seed, seed2)
        self._lock = _threading.Lock()

    def stream_for(self, size):
        """The stream of one call drawing ``size`` values: ``256 * size`` blocks reserved."""
        return self.reserve(philox.RESERVED_SAMPLES_PER_OUTPUT * int(size))

    def reserve(self, blocks):
        """TF's ``ReserveSamples128(blocks)``: a copy of the stream, which then skips ``blocks``."""
        with self._lock:
            saved = _preview.saved
            if saved is not None and id(self) not in saved:
                saved[id(self)] = (self, self.stream.counter)
            local = self.stream.copy()
            self.stream.skip(int(blocks))
            return local


class FixedStream:
    """A draw source that hands out one given Philox stream (a stateless op's, a Generator's)."""

    __slots__ = ("stream",)

    def __init__(self, stream):
        self.stream = stream

    def stream_for(self, size):
        return self.stream


def _guarded(op_name, dtype, seed):
    """The guarded stream of a legacy seeded op call under TF's seed rules (``get_seed``)."""
    explicit = seed is not None
    g_seed, o_seed = get_seed(seed)
    pair = (0, 0) if g_seed is None else (int(g_seed), int(o_seed))
    if not explicit and g_seed is not None:
        return _GuardedPhilox(*pair)  # a fresh op seed from the counter: a new kernel in TF
    key = (op_name, dtypes.as_dtype(dtype).name, *pair)
    with _state.lock:
        g = _state.guarded.get(key)
        if g is None:
            g = _state.guarded[key] = _GuardedPhilox(*pair)
    return g


def set_seed(seed):
    """``tf.random.set_seed``: set the global seed and restart every seeded sequence."""
    _state.global_seed = None if seed is None else int(seed)
    _state.op_seed_rng = _pyrandom.Random(_state.global_seed)
    _state.generators.clear()
    _state.guarded.clear()


def get_seed(op_seed):
    """``tf.compat.v1.get_seed``: the (global seed, op seed) pair an op with ``op_seed`` uses."""
    g = _state.global_seed
    if g is not None:
        if op_seed is None:
            op_seed = _state.op_seed_rng.randint(0, _MAXINT32)
        seeds = (g % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        return None, None
    if seeds == (0, 0):
        seeds = (0, _MAXINT32)  # TF: (0, 0) would mean "nondeterministic"
    return seeds


def _philox(seed_pair):
    key = np.array([int(s) % (1 << 64) for s in seed_pair], dtype=np.uint64)
    return np.random.Generator(np.random.Philox(key=key))


def _generator(op_name, seed):
    """The host generator for one random op call under TF's seed rules."""
    explicit = seed is not None
    g_seed, o_seed = get_seed(seed)
    if g_seed is None:
        return _state.nondeterministic
    if not explicit:
        return _noting_preview(_philox((g_seed, o_seed)))  # a fresh op seed from the counter each call
    key = (g_seed, o_seed, op_name)
    gen = _state.generators.get(key)
    if gen is None:
        gen = _state.generators[key] = _philox((g_seed, o_seed))
    return _noting_preview(gen)


# -- kernels: draw on the host, place on the op's device -------------------------------------

_HOST_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int32": np.int32,
                "int64": np.int64, "uint32": np.uint32, "uint64": np.uint64}


def _host_dtype(dtype):
    """The dtype TF's kernel draws in (bfloat16 goes through float32 here)."""
    return _HOST_DTYPES.get(dtype.name, np.float32)


def philox_sample(stream, kind, shape, dtype, minval=0, span=0):
    """``shape`` values of ``kind`` from ``stream`` as TF's CPU kernel fills them, as a host array of ``dtype``."""
    host = philox.fill(stream, _math.prod(shape), kind, _host_dtype(dtype), minval, span).reshape(shape)
    return host.astype(dtype.as_numpy_dtype, copy=False)


def _float_rule(op, ts, attrs):
    dt = attrs["dtype"]
    if not dt.is_floating:
        raise InvalidArgumentError(None, None, f"{op.name}: dtype must be floating-point, got {dt.name}")
    return dt


def _int_rule(op, ts, attrs):
    return attrs["dtype"]


_KINDS = {}


def _random_op(name, kind, rule):
    op = Op(name, rule=rule)
    _KINDS[name] = kind

    @op.kernel()
    def _kernel(b, *seed, shape, dtype, source=None, minval=0, span=0):
        if seed:  # a stateless op: the [2] seed tensor names the stream (GenerateKey)
            s = np.asarray(b.to_numpy(seed[0])).reshape(-1)
            stream = philox.key_counter_from_seed(int(s[0]), int(s[1]))
        else:
            stream = source.stream_for(_math.prod(shape))
        try:
            return b.asarray(philox_sample(stream, kind, shape, dtype, minval, span))
        except MemoryError:  # name the tensor the op makes, as TF's OOM does, not an intermediate counter array
            dims = ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")
            raise MemoryError(f"Unable to allocate an array with shape ({dims}) and data type "
                              f"{np.dtype(dtype.as_numpy_dtype).name}") from None

    return op


_STANDARD_NORMAL = _random_op("RandomStandardNormal", "normal", _float_rule)
_UNIFORM = _random_op("RandomUniform", "uniform", _float_rule)
_TRUNCATED = _random_op("TruncatedNormal", "truncated_normal", _float_rule)
_UNIFORM_INT = _random_op("RandomUniformInt", "int", _int_rule)
_UNIFORM_FULL_INT = _random_op("RandomUniformFullInt", "full_int", _int_rule)
STATELESS_OPS = {
    "RandomStandardNormal": _random_op("StatelessRandomNormal", "normal", _float_rule),
    "RandomUniform": _random_op("StatelessRandomUniform", "uniform", _float_rule),
    "TruncatedNormal": _random_op("StatelessTruncatedNormal", "truncated_normal", _float_rule),
    "RandomUniformInt": _random_op("StatelessRandomUniformInt", "int", _int_rule),
    "RandomUniformFullInt": _random_op("StatelessRandomUniformFullInt", "full_int", _int_rule),
}


# -- tf.random.Generator draws inside tf.function: the state variable in, the advanced state out ---------

_GENERATOR_DRAW = Op("GeneratorDraw", rule=lambda op, ts, attrs: (attrs["dtype"], dtypes.int64),
                     multi_output=True)


def generator_stream(words, replica=None):
    """The Philox stream of a ``tf.random.Generator`` state ``[counter_lo, counter_hi, key]`` (int64 words).

    In replica ``r`` of a strategy the key is first hashed with ``r`` (TF's ``_preprocess_key``: the
    full-range uint64 drawn with that key at counter ``[r, 0]``), so replicas draw different numbers.
    """
    w = [int(x) & ((1 << 64) - 1) for x in np.asarray(words, np.int64).reshape(-1)[:3]]
    key = w[2]
    if replica is not None:
        block = philox.PhiloxStream(key, int(replica)).blocks_at([0])[0]
        key = int(block[0]) | int(block[1]) << 32
    return philox.PhiloxStream(key, w[0] | w[1] << 64)


def advance_words(words, size):
    """The state after a draw of ``size`` values: the counter skipped by ``256 * size`` (``RngReadAndSkip``)."""
    stream = generator_stream(words).skip(philox.RESERVED_SAMPLES_PER_OUTPUT * int(size))
    c = stream.counter
    return np.array([c & ((1 << 64) - 1), c >> 64, stream.key], np.uint64).view(np.int64)


@_GENERATOR_DRAW.kernel()
def _generator_draw(b, state, *, draw, shape, dtype, minval=0, span=0, per_replica=False):
    """``(sample, next state)``: one ``draw`` from the Philox stream of the 3 int64 words ``state``.

    A pure function of the state: a traced function reads the generator's state variable, draws with
    this op and assigns the next state back (TF's ``RngReadAndSkip`` on its resource input), so the
    graph (and a SavedModel of it) keeps advancing the stream on every call. ``per_replica`` (a generator
    made in a strategy) hashes the key with the id of the replica that runs the op, read when it runs:
    a SavedModel loaded without a strategy draws as TF's (which saves the function unreplicated).
    """
    words = b.to_numpy(state)
    replica = replica_state.replica_id() if per_replica else None  # the replica running the graph now
    out = philox_sample(generator_stream(words, replica), _KINDS[draw], shape, dtype, minval, span)
    return b.asarray(out), b.asarray(advance_words(words, _math.prod(shape)))


class _StateStream:
    """What a Generator hands its draw functions while a tf.function traces: its state variable."""

    def __init__(self, variable, per_replica=False):
        self.variable = variable
        self.per_replica = per_replica

    def draw(self, op, attrs):
        state = self.variable.read_value()
        out, new_state = execute(_GENERATOR_DRAW, (state,), {"draw": op.name, "per_replica": self.per_replica,
                                                             **attrs})
        self.variable.assign(new_state)
        return out


class _SeedInput:
    """What a stateless op hands its draw functions: the ``[2]`` seed tensor, an input of the op."""

    def __init__(self, seed):
        self.seed = seed

    def draw(self, op, attrs):
        return execute(STATELESS_OPS[op.name], (self.seed,), attrs)


def _run_draw(op, attrs):
    """One random op: on a guarded/fixed stream, a Generator's state variable or a stateless seed."""
    source = attrs["source"]
    if isinstance(source, _StateStream | _SeedInput):
        return source.draw(op, {k: v for k, v in attrs.items() if k != "source"})
    return execute(op, (), attrs)


# -- public API ------------------------------------------------------------------------------

def _shape(shape, op_name):
    shp = shape_tuple(shape, op_name)
    if any(d < 0 for d in shp):
        raise InvalidArgumentError(None, None, f"{op_name}: shape must be non-negative, got {list(shp)}")
    return shp


def _affine(rnd, scale, shift):
    """``rnd * scale + shift`` with Python or tensor parameters (as TF builds it)."""
    dt = rnd.dtype
    if not (isinstance(scale, int | float) and scale == 1):
        rnd = _m.multiply(rnd, _m.cast(as_tensor(scale), dt) if _is_tensor(scale) else _m.scalar_like(scale, rnd))
    if not (isinstance(shift, int | float) and shift == 0):
        rnd = _m.add(rnd, _m.cast(as_tensor(shift), dt) if _is_tensor(shift) else _m.scalar_like(shift, rnd))
    return rnd


def _is_tensor(x):
    return is_tensor(x) or isinstance(x, np.ndarray)


def _normal_from(gen, shape, mean, stddev, dtype):
    dt = dtypes.as_dtype(dtype)
    rnd = _run_draw(_STANDARD_NORMAL, {"shape": _shape(shape, "RandomStandardNormal"), "dtype": dt, "source": gen})
    return _affine(rnd, stddev, mean)


def _truncated_from(gen, shape, mean, stddev, dtype):
    dt = dtypes.as_dtype(dtype)
    rnd = _run_draw(_TRUNCATED, {"shape": _shape(shape, "TruncatedNormal"), "dtype": dt, "source": gen})
    return _affine(rnd, stddev, mean)


def _scalar_int(v, what):
    if _is_tensor(v):
        t = as_tensor(v) if not isinstance(v, np.ndarray) else None
        arr = t.numpy() if t is not None else v
        if np.ndim(arr) != 0:
            raise InvalidArgumentError(None, None, f"RandomUniformInt: {what} must be a scalar, got shape "
                                       f"{list(np.shape(arr))}")
        return int(arr)
    return int(v)


def _uniform_from(gen, shape, minval, maxval, dtype):
    dt = dtypes.as_dtype(dtype)
    shp = _shape(shape, "RandomUniform")
    if dt.is_integer:
        if maxval is None:
            raise ValueError(f"Must specify maxval for integer dtype {dt!r}")
        lo, hi = _scalar_int(minval, "minval"), _scalar_int(maxval, "maxval")
        if lo >= hi:
            raise InvalidArgumentError(None, None, f"RandomUniformInt: Need minval < maxval: {lo} >= {hi}")
        return _run_draw(_UNIFORM_INT, {"shape": shp, "dtype": dt, "source": gen, "minval": lo, "span": hi - lo})
    if not dt.is_floating:
        raise ValueError(f"Invalid dtype {dt!r} for tf.random.uniform")
    maxval = 1 if maxval is None else maxval
    rnd = _run_draw(_UNIFORM, {"shape": shp, "dtype": dt, "source": gen})
    if _is_tensor(minval) or _is_tensor(maxval):
        lo = _m.cast(as_tensor(minval), dt) if _is_tensor(minval) else _m.scalar_like(minval, rnd)
        hi = _m.cast(as_tensor(maxval), dt) if _is_tensor(maxval) else _m.scalar_like(maxval, rnd)
        return _m.add(_m.multiply(rnd, _m.subtract(hi, lo)), lo)
    return _affine(rnd, float(maxval) - float(minval), minval)


def uniform_full_int_from(gen, shape, dtype):
    """Integers over the whole range of ``dtype`` (the raw Philox bits)."""
    dt = dtypes.as_dtype(dtype)
    if dt.name not in ("int32", "int64", "uint32", "uint64"):
        raise InvalidArgumentError(None, None, f"RandomUniformFullInt: dtype must be int32, int64, uint32 or "
                                               f"uint64, got {dt.name}")
    return _run_draw(_UNIFORM_FULL_INT, {"shape": _shape(shape, "RandomUniformFullInt"), "dtype": dt, "source": gen})


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.normal``: TF's values for a seeded call (``RandomStandardNormal`` times stddev plus mean)."""
    return _normal_from(_guarded("RandomStandardNormal", dtype, seed), shape, mean, stddev, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.truncated_normal``: normal values more than 2 stddev from the mean are redrawn."""
    return _truncated_from(_guarded("TruncatedNormal", dtype, seed), shape, mean, stddev, dtype)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.uniform``: [minval, maxval); integer dtypes need ``maxval``."""
    dt = dtypes.as_dtype(dtype)
    op_name = "RandomUniformInt" if dt.is_integer else "RandomUniform"
    return _uniform_from(_guarded(op_name, dt, seed), shape, minval, maxval, dt)


_SHUFFLE = Op("RandomShuffle")


@_SHUFFLE.kernel()
def _shuffle(b, x, *, source):
    """TF's ``RandomShuffleOp``: a forward Fisher-Yates pass (``j = i + sample % (n - i)``) over ``n - 1``
    uint32 samples, ``ceil((n - 1) / 4)`` blocks reserved from the op's guarded stream."""
    n = 0 if x.ndim == 0 else x.shape[0]
    if n <= 1:
        return x
    samples = source.reserve(-(-(n - 1) // 4)).uint32s(n - 1).tolist()
    perm = list(range(n))
    for i in range(n - 1):
        j = i + samples[i] % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return x[b.xp.asarray(np.asarray(perm, np.int64))]


def shuffle(value, seed=None, name=None):
    """``tf.random.shuffle``: permute along the first dimension (TF's permutation for a seed)."""
    t = as_tensor(value)
    return execute(_SHUFFLE, (t,), {"source": _guarded("RandomShuffle", t.dtype, seed)})


_MULTINOMIAL = Op("Multinomial", rule=lambda op, ts, attrs: attrs["dtype"])


@_MULTINOMIAL.kernel()
def _multinomial(b, logits, *, num_samples, dtype, gen):
    host = b.to_numpy(logits).astype(np.float64)
    batch, classes = host.shape
    # Gumbel-max: argmax(logits + Gumbel noise) is a draw from softmax(logits).
    gumbel = -np.log(-np.log(gen.random((batch, num_samples, classes)) + 1e-300) + 1e-300)
    draws = np.argmax(host[:, None, :] + gumbel, axis=-1)
    return b.asarray(draws.astype(dtype.as_numpy_dtype))


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``tf.random.categorical``: [batch, num_samples] class draws from unnormalised log-probabilities."""
    t = as_tensor(logits)
    if t._array.ndim != 2:
        raise InvalidArgumentError(None, None, f"Multinomial: logits should be a matrix, got {describe([t])}")
    if t._array.shape[1] == 0:
        raise InvalidArgumentError(None, None, "Multinomial: num_classes should be positive, got 0")
    dt = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    n = int(num_samples.numpy()) if isinstance(num_samples, Tensor) else int(num_samples)
    return execute(_MULTINOMIAL, (t,), {"num_samples": n, "dtype": dt, "gen": _generator("Multinomial", seed)})


# -- gamma and Poisson: NumPy's distributions on the op's stream, drawn on the host -----------------

_DRAW = Op("RandomDraw")


@_DRAW.kernel()
def _draw(b, *params, sample, dtype):
    host = [np.asarray(b.to_numpy(p)) for p in params]
    return b.asarray(np.asarray(sample(*host)).astype(dtype.as_numpy_dtype, copy=False))


def run_host_draw(sample, params, dtype):
    """Run ``sample(*host arrays of params)`` as the ``RandomDraw`` op: the draw on the host, its result cast
    to ``dtype`` and placed on the op's device."""
    return execute(_DRAW, tuple(params), {"sample": sample, "dtype": dtypes.as_dtype(dtype)})


def draw_params(*values, dtype=dtypes.float64):
    """The distribution parameters of a host draw as tensors (NumPy values as ``dtype``)."""
    return [as_tensor(v) if hasattr(v, "numpy") else convert_to_tensor(np.asarray(v, dtype.as_numpy_dtype))
            for v in values]


def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.gamma``: ``shape + broadcast(alpha, beta).shape`` draws from Gamma(alpha, rate=beta)."""
    gen = _generator("RandomGamma", seed)
    shp = shape_tuple(shape, "RandomGamma")
    a, bt = draw_params(alpha, 1.0 if beta is None else beta)

    def sample(al, be):
        al, be = np.broadcast_arrays(al, be)
        if np.any(al <= 0):
            raise ValueError("alpha must be positive")
        return gen.gamma(al, size=shp + al.shape) / be

    return run_host_draw(sample, [a, bt], dtype)


def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.poisson``: ``shape + lam.shape`` Poisson draws."""
    gen = _generator("RandomPoissonV2", seed)
    shp = shape_tuple(shape, "RandomPoissonV2")
    (rate,) = draw_params(lam)
    return run_host_draw(lambda r: gen.poisson(r, size=shp + r.shape), [rate], dtype)


# -- stateless ops: the same seed always gives the same numbers ----------------------------------

def _stateless_gen(seed):
    s = as_tensor(seed).numpy().reshape(-1) if _is_tensor(seed) else np.asarray(seed).reshape(-1)
    if s.size != 2:
        raise InvalidArgumentError(None, None, f"seed must have shape [2], got {list(np.shape(seed))}")
    return _philox((int(s[0]), int(s[1])))
