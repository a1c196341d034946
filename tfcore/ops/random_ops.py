"""Random tensors with TF's global/op seed rules, generated on the host and placed on the device.

Numbers come from NumPy's Philox generator on the host and are copied to the
target device, so a seeded program gives the same values on CPU and GPU.

Seed rules (``tf.random.set_seed`` documentation):
- no global seed, no op seed: nondeterministic;
- global seed only: the op seed is drawn from a counter that ``set_seed``
  resets, so re-running the program gives the same sequence;
- op seed given: the (global seed, op seed) pair names a generator whose state
  advances on every call (a repeated call gives new numbers) and restarts when
  ``set_seed`` is called; without a global seed TF's default global seed is used.
"""

import copy as _copy
import random as _pyrandom
import threading as _threading

import numpy as np

from ..framework import dtypes
from ..framework import tracing as _tracing
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor, is_tensor
from . import math_ops as _m
from ._common import as_tensor, describe, shape_tuple
from .registry import Op, execute

__all__ = [
    "set_seed", "normal", "uniform", "truncated_normal", "shuffle", "categorical",
    "stateless_normal", "stateless_uniform", "stateless_truncated_normal", "Generator",
    "get_global_generator", "set_global_generator",
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


class _SeedState:
    """Process-wide seed state (TF keeps it in the eager context)."""

    def __init__(self):
        self.global_seed = None
        self.op_seed_rng = _pyrandom.Random()
        self.generators = {}          # (global seed, op seed, op name) -> numpy Generator
        self.nondeterministic = np.random.Generator(np.random.Philox())


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
                gen.bit_generator.state = state
        return False


def _noting_preview(gen):
    saved = _preview.saved
    if saved is not None and gen is not _state.nondeterministic and id(gen) not in saved:
        saved[id(gen)] = (gen, _copy.deepcopy(gen.bit_generator.state))
    return gen


def set_seed(seed):
    """``tf.random.set_seed``: set the global seed and restart every seeded sequence."""
    _state.global_seed = None if seed is None else int(seed)
    _state.op_seed_rng = _pyrandom.Random(_state.global_seed)
    _state.generators.clear()


def get_seed(op_seed):
    """``tf.compat.v1.get_seed``: the (global seed, op seed) pair an op with ``op_seed`` uses."""
    g = _state.global_seed
    if g is not None:
        if op_seed is None:
            op_seed = _state.op_seed_rng.randint(0, _MAXINT32)
        seeds = (g, int(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed))
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

def _host_float_dtype(dtype):
    return np.float64 if dtype is dtypes.float64 else np.float32


def _finish(b, host, dtype):
    return b.asarray(host.astype(dtype.as_numpy_dtype, copy=False))


def _float_rule(op, ts, attrs):
    dt = attrs["dtype"]
    if not dt.is_floating:
        raise InvalidArgumentError(None, None, f"{op.name}: dtype must be floating-point, got {dt.name}")
    return dt


_STANDARD_NORMAL = Op("RandomStandardNormal", rule=_float_rule)
_UNIFORM = Op("RandomUniform", rule=_float_rule)
_TRUNCATED = Op("TruncatedNormal", rule=_float_rule)
_UNIFORM_INT = Op("RandomUniformInt", rule=lambda op, ts, attrs: attrs["dtype"])


@_STANDARD_NORMAL.kernel()
def _standard_normal(b, *, shape, dtype, gen):
    return _finish(b, gen.standard_normal(shape, dtype=_host_float_dtype(dtype)), dtype)


@_UNIFORM.kernel()
def _uniform(b, *, shape, dtype, gen):
    return _finish(b, gen.random(shape, dtype=_host_float_dtype(dtype)), dtype)


def _truncated_host(gen, shape, np_dtype):
    """Standard normals with every value beyond two standard deviations redrawn."""
    out = gen.standard_normal(shape, dtype=np_dtype)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()), dtype=np_dtype)
        bad = np.abs(out) > 2
    return out


@_TRUNCATED.kernel()
def _truncated(b, *, shape, dtype, gen):
    return _finish(b, _truncated_host(gen, shape, _host_float_dtype(dtype)), dtype)


@_UNIFORM_INT.kernel()
def _uniform_int(b, *, shape, dtype, gen, minval, maxval):
    return b.asarray(gen.integers(minval, maxval, size=shape, dtype=dtype.as_numpy_dtype))


# -- tf.random.Generator draws inside tf.function: the state variable in, the advanced state out ---------

_GENERATOR_DRAW = Op("GeneratorDraw", rule=lambda op, ts, attrs: (attrs["dtype"], dtypes.int64),
                     multi_output=True)
_DRAW_KERNELS = {"RandomStandardNormal": _standard_normal, "RandomUniform": _uniform,
                 "TruncatedNormal": _truncated, "RandomUniformInt": _uniform_int}


@_GENERATOR_DRAW.kernel()
def _generator_draw(b, state, *, draw, shape, dtype, minval=None, maxval=None):
    """``(sample, next state)``: one ``draw`` from the Philox stream in the 13 int64 words ``state``.

    A pure function of the state: a traced function reads the generator's state variable, draws with
    this op and assigns the next state back (TF's stateful RNG ops do that to their resource input),
    so the graph (and a SavedModel of it) keeps advancing the stream on every call.
    """
    gen = _unpack_philox(b.to_numpy(state))
    extra = {} if minval is None else {"minval": minval, "maxval": maxval}
    out = _DRAW_KERNELS[draw](b, shape=shape, dtype=dtype, gen=gen, **extra)
    return out, b.asarray(_pack_philox(gen))


class _StateStream:
    """What a Generator hands its draw functions while a tf.function traces: its state variable."""

    def __init__(self, variable):
        self.variable = variable

    def draw(self, op, attrs):
        state = self.variable.read_value()
        out, new_state = execute(_GENERATOR_DRAW, (state,), {"draw": op.name, **attrs})
        self.variable.assign(new_state)
        return out


def _run_draw(op, attrs):
    """One random op: on a NumPy generator (eager, global-seed ops) or on a Generator's state variable."""
    gen = attrs["gen"]
    if isinstance(gen, _StateStream):
        return gen.draw(op, {k: v for k, v in attrs.items() if k != "gen"})
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
    rnd = _run_draw(_STANDARD_NORMAL, {"shape": _shape(shape, "RandomStandardNormal"), "dtype": dt, "gen": gen})
    return _affine(rnd, stddev, mean)


def _truncated_from(gen, shape, mean, stddev, dtype):
    dt = dtypes.as_dtype(dtype)
    rnd = _run_draw(_TRUNCATED, {"shape": _shape(shape, "TruncatedNormal"), "dtype": dt, "gen": gen})
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
        return _run_draw(_UNIFORM_INT, {"shape": shp, "dtype": dt, "gen": gen, "minval": lo, "maxval": hi})
    if not dt.is_floating:
        raise ValueError(f"Invalid dtype {dt!r} for tf.random.uniform")
    maxval = 1 if maxval is None else maxval
    rnd = _run_draw(_UNIFORM, {"shape": shp, "dtype": dt, "gen": gen})
    if _is_tensor(minval) or _is_tensor(maxval):
        lo = _m.cast(as_tensor(minval), dt) if _is_tensor(minval) else _m.scalar_like(minval, rnd)
        hi = _m.cast(as_tensor(maxval), dt) if _is_tensor(maxval) else _m.scalar_like(maxval, rnd)
        return _m.add(_m.multiply(rnd, _m.subtract(hi, lo)), lo)
    return _affine(rnd, float(maxval) - float(minval), minval)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.normal``."""
    return _normal_from(_generator("RandomStandardNormal", seed), shape, mean, stddev, dtype)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.truncated_normal``: normal values more than 2 stddev from the mean are redrawn."""
    return _truncated_from(_generator("TruncatedNormal", seed), shape, mean, stddev, dtype)


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.uniform``: [minval, maxval); integer dtypes need ``maxval``."""
    dt = dtypes.as_dtype(dtype)
    op_name = "RandomUniformInt" if dt.is_integer else "RandomUniform"
    return _uniform_from(_generator(op_name, seed), shape, minval, maxval, dt)


_SHUFFLE = Op("RandomShuffle")


@_SHUFFLE.kernel()
def _shuffle(b, x, *, gen):
    if x.ndim == 0 or x.shape[0] <= 1:
        return x
    perm = gen.permutation(x.shape[0])
    return x[b.xp.asarray(perm)]


def shuffle(value, seed=None, name=None):
    """``tf.random.shuffle``: permute along the first dimension."""
    return execute(_SHUFFLE, (as_tensor(value),), {"gen": _generator("RandomShuffle", seed)})


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


# -- stateless ops: the same seed always gives the same numbers ----------------------------------

def _stateless_gen(seed):
    s = as_tensor(seed).numpy().reshape(-1) if _is_tensor(seed) else np.asarray(seed).reshape(-1)
    if s.size != 2:
        raise InvalidArgumentError(None, None, f"seed must have shape [2], got {list(np.shape(seed))}")
    return _philox((int(s[0]), int(s[1])))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """``tf.random.stateless_normal``."""
    return _normal_from(_stateless_gen(seed), shape, mean, stddev, dtype)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    """``tf.random.stateless_truncated_normal``."""
    return _truncated_from(_stateless_gen(seed), shape, mean, stddev, dtype)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """``tf.random.stateless_uniform``."""
    return _uniform_from(_stateless_gen(seed), shape, minval, maxval, dtype)


# -- tf.random.Generator ----------------------------------------------------------------------

_PHILOX_STATE_WORDS = 13  # counter (4), key (2), buffer (4), buffer_pos, has_uint32, uinteger


def _pack_philox(gen):
    """A NumPy Philox generator's full state as 13 int64 words (the bits of its uint64 words)."""
    s = gen.bit_generator.state
    words = np.concatenate([np.asarray(s["state"]["counter"], np.uint64), np.asarray(s["state"]["key"], np.uint64),
                            np.asarray(s["buffer"], np.uint64),
                            np.array([s["buffer_pos"], s["has_uint32"], s["uinteger"]], np.uint64)])
    return words.view(np.int64)


def _unpack_philox(words):
    """The inverse of :func:`_pack_philox`: a NumPy Philox generator in exactly that state."""
    w = np.asarray(words, np.int64).reshape(-1)
    if w.shape != (_PHILOX_STATE_WORDS,):
        raise InvalidArgumentError(None, None, f"tf.random.Generator: a Philox state has {_PHILOX_STATE_WORDS} int64 "
                                               f"words, got shape {tuple(np.shape(words))}")
    u = w.view(np.uint64)
    gen = np.random.Generator(np.random.Philox())
    gen.bit_generator.state = {"bit_generator": "Philox", "state": {"counter": u[0:4].copy(), "key": u[4:6].copy()},
                               "buffer": u[6:10].copy(), "buffer_pos": int(u[10]), "has_uint32": int(u[11]),
                               "uinteger": int(u[12])}
    return gen


class Generator:
    """``tf.random.Generator``: an explicit random stream (Philox), independent of the global seed.

    The stream's state is a ``tf.Variable`` (``g.state``, int64) so that a ``tf.train.Checkpoint``
    holding the generator saves and restores where the stream is, as in TF (tracked as ``_state_var``).
    tfcore draws with NumPy's Philox, whose full state is 13 words (TF's Philox state has 3), so
    checkpoints carry the stream between tfcore programs, not to or from TensorFlow.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        self._state_var = None
        self._synced = None  # the words last written to (or read from) _state_var
        self._lock = _threading.RLock()  # replica threads of a strategy draw from one generator
        if copy_from is not None:
            self._seed = copy_from._seed
            self._gen = np.random.Generator(np.random.Philox())
            self._gen.bit_generator.state = copy_from._rng().bit_generator.state
        elif state is not None:
            self._seed = None
            self._gen = _unpack_philox(state.numpy() if hasattr(state, "numpy") else state)
        else:
            self._seed = None
            self._gen = np.random.Generator(np.random.Philox())

    @classmethod
    def from_seed(cls, seed, alg=None):
        g = cls()
        g.reset_from_seed(seed)
        return g

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls()

    @classmethod
    def from_state(cls, state, alg=None):
        """A generator continuing from ``state`` (a value of another generator's ``g.state``)."""
        return cls(state=state, alg=alg)

    def reset_from_seed(self, seed):
        self._seed = int(seed)
        self._gen = _philox((int(seed), 0))
        self._write_state()

    def reset(self, state):
        """Continue from ``state`` (a value of ``g.state``)."""
        self._gen = _unpack_philox(state.numpy() if hasattr(state, "numpy") else state)
        self._write_state()

    @property
    def algorithm(self):
        return "philox"

    @property
    def state(self):
        """The stream's state, an int64 ``tf.Variable`` (created on first use; a checkpoint restores it)."""
        with self._lock:
            return self._state_variable()

    def _state_variable(self):
        if self._state_var is None:
            from ..framework.variables import Variable, variable_creators_scope

            words = _pack_philox(self._gen)
            with variable_creators_scope(()):  # one stream for all replicas, not a per-replica mirror
                self._state_var = Variable(words, trainable=False, dtype=dtypes.int64, name="StateVar")
            self._synced = words
        else:
            self._rng()
            self._write_state()
        return self._state_var

    def _tfc_checkpoint_children(self):
        return [("_state_var", self.state)]

    def _rng(self):
        """The NumPy generator, first reloaded from ``_state_var`` if something (a restore) assigned it."""
        if self._state_var is not None:
            words = np.asarray(self._state_var.numpy(), np.int64)
            if not np.array_equal(words, self._synced):
                self._gen = _unpack_philox(words)
                self._synced = words
        return self._gen

    def _write_state(self):
        if self._state_var is not None:
            words = _pack_philox(self._gen)
            if not np.array_equal(words, self._synced):
                self._state_var.assign(words)
                self._synced = words

    def _draw(self, fn, *args, traceable=True):
        if traceable and _tracing.is_tracing():
            with self._lock:
                with _tracing.suspended():  # outside the graph: the variable and its current value
                    var = self._state_variable()
                return fn(_StateStream(var), *args)
        with self._lock:
            out = fn(self._rng(), *args)
            self._write_state()
            return out

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return self._draw(_normal_from, shape, mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return self._draw(_truncated_from, shape, mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        return self._draw(_uniform_from, shape, minval, maxval, dtype)

    def make_seeds(self, count=1):
        """An int64 [2, count] tensor of seeds for stateless ops."""
        from .array_ops import constant

        return constant(self._draw(lambda g: g.integers(0, 2**63 - 1, size=(2, int(count)), dtype=np.int64),
                                   traceable=False))

    def split(self, count=1):
        """``count`` new generators seeded from this one (advances this one)."""
        seeds = self._draw(lambda g: g.integers(0, 2**63 - 1, size=int(count), dtype=np.int64), traceable=False)
        return [Generator.from_seed(int(s)) for s in seeds]


_global_generator = None


def get_global_generator():
    """``tf.random.get_global_generator`` (created nondeterministically on first use)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator):
    global _global_generator
    _global_generator = generator
