"""``tf.random.Generator``: TF's Philox generator, its 3-word state and its counter, bit for bit.

Follows ``tensorflow/python/ops/stateful_random_ops.py`` (TF 2.21): the state is an int64 variable
``[counter_lo, counter_hi, key]``; ``from_seed(s)`` chops the Python integer into 64-bit words (so
``from_seed(1).state`` is ``[1, 0, 0]``); every draw of ``n`` values reads the state, skips the
counter by ``256 * n`` blocks (``RngReadAndSkip``) and draws with the stateless kernels from the
state it read; ``make_seeds``/``split`` draw full-range int64 keys; ``skip(d)`` moves the counter
by ``256 * d``. A checkpoint of a generator therefore carries its stream to and from TensorFlow.
"""

import enum
import os as _os
import threading as _threading

import numpy as np

from ..framework import dtypes, replica_state
from ..framework import tracing as _tracing
from ..framework.variables import Variable, VariableAggregation, variable_creators_scope
from .array_ops import constant, stack, zeros_like
from .random_ops import (
    _normal_from,
    _StateStream,
    _truncated_from,
    _uniform_from,
    advance_words,
    generator_stream,
    uniform_full_int_from,
)

__all__ = ["Generator", "get_global_generator", "set_global_generator", "create_rng_state", "Algorithm"]


class Algorithm(enum.Enum):
    """``tf.random.Algorithm``: the counter-based generator (tfcore draws with Philox for every choice)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3

PHILOX = 1          # tf.random.Algorithm.PHILOX.value
_STATE_SIZE = 3     # PHILOX_STATE_SIZE
_MASK64 = (1 << 64) - 1


def _alg_int(alg):
    """TF's ``convert_alg_to_int`` for the Philox choices (the only algorithm tfcore implements)."""
    if alg is None:
        return PHILOX
    value = getattr(alg, "value", alg)
    if isinstance(value, str):
        value = value.lower()
    if value in (1, "philox", 3, "auto_select"):
        return PHILOX
    raise ValueError(f"Argument `alg` got unsupported value {alg}: tfcore implements Philox "
                     f"(\"philox\", \"auto_select\", tf.random.Algorithm.PHILOX)")


def _make_state(seed):
    """``_make_1d_state``: a Python int chopped into 64-bit words (low word first), or the first 3 values
    of a tensor/list of seeds, zero-padded on the left."""
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        seed = int(seed)
        words = []
        for _ in range(_STATE_SIZE):
            words.append(seed & _MASK64)
            seed >>= 64
    else:
        arr = np.asarray(seed.numpy() if hasattr(seed, "numpy") else seed).reshape(-1)[:_STATE_SIZE]
        words = [int(x) & _MASK64 for x in arr]
        words = [0] * (_STATE_SIZE - len(words)) + words
    return np.array(words, np.uint64).view(np.int64)


def create_rng_state(seed, alg):
    """``tf.random.create_rng_state``: the state a Generator seeded with ``seed`` starts from."""

    _alg_int(alg)
    return constant(_make_state(seed), dtype=dtypes.int64)


def _state_words(state):
    words = np.asarray(state.numpy() if hasattr(state, "numpy") else state)
    if words.shape != (_STATE_SIZE,):  # TF's message, and what it means
        raise ValueError(f"Shapes {tuple(words.shape)} and [{_STATE_SIZE}] are incompatible (tf.random.Generator: "
                         f"a Philox state has {_STATE_SIZE} int64 words)")
    return np.asarray(words).astype(np.int64)


class _CounterSource:
    """A draw source over a Generator's words: hands out the stream, then skips ``256 * size``."""

    __slots__ = ("words", "replica")

    def __init__(self, words, replica=None):
        self.words = words
        self.replica = replica

    def stream_for(self, size):
        stream = generator_stream(self.words, self.replica)
        self.words = advance_words(self.words, size)
        return stream


class Generator:
    """``tf.random.Generator``: an explicit Philox stream, independent of the global seed.

    The state is a ``tf.Variable`` (``g.state``: int64 ``[counter_lo, counter_hi, key]``, created on
    first use) so that a ``tf.train.Checkpoint`` holding the generator saves and restores where the
    stream is (tracked as ``_state_var``); draws inside a ``tf.function`` read and advance it.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        self._state_var = None
        self._synced = None  # the words last written to (or read from) _state_var
        self._lock = _threading.RLock()  # replica threads of a strategy draw from one generator
        self._in_strategy = replica_state.in_strategy()
        # made in a strategy's scope (not in a replica function): a mirrored state, one copy per replica
        self._mirrored = self._in_strategy and replica_state.replica_id() is None
        self._replica_words = {}  # replica id -> that replica's copy (a generator made in a replica function)
        if copy_from is not None:
            self._alg = copy_from._alg
            self._words = copy_from._current_words().copy()
        elif state is not None:
            self._alg = _alg_int(alg)
            self._words = _state_words(state)
        else:
            self._alg = _alg_int(alg)
            self._words = np.frombuffer(_os.urandom(8 * _STATE_SIZE), np.int64).copy()
        if self._mirrored:
            self._state_variable()  # created now, under the strategy: a mirrored variable

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state is ``create_rng_state(seed, alg)``."""
        return cls(state=_make_state(seed), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(alg=alg)

    @classmethod
    def from_state(cls, state, alg=None):
        """A generator continuing from ``state`` (a value of another generator's ``g.state``)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg=None):
        """A generator with the given key (a scalar) and counter (2 words)."""
        counter = np.asarray(counter.numpy() if hasattr(counter, "numpy") else counter).reshape(-1)
        key = np.asarray(key.numpy() if hasattr(key, "numpy") else key).reshape(-1)
        return cls(state=np.concatenate([counter, key]).astype(np.int64), alg=alg)

    def reset(self, state):
        """Continue from ``state`` (a value of ``g.state``)."""
        with self._lock:
            self._replica_words = {}
            self._words = _state_words(state)
            self._write_state()

    def reset_from_seed(self, seed):
        """Restart as ``Generator.from_seed(seed)`` would."""
        self.reset(_make_state(seed))

    def reset_from_key_counter(self, key, counter):
        self.reset(Generator.from_key_counter(key, counter)._words)

    @property
    def algorithm(self):
        """The algorithm's integer value (1: Philox), as TF returns it."""
        return self._alg

    @property
    def key(self):
        """The current key (``state[2]``)."""

        return constant(self._current_words()[2])

    @property
    def state(self):
        """The stream's state, an int64 ``tf.Variable`` (created on first use; a checkpoint restores it)."""
        with self._lock:
            return self._state_variable()

    def _state_variable(self):
        if self._state_var is None:
            if self._mirrored:  # replicas advance their copies alike; the first replica's value is written to all
                self._state_var = Variable(self._words.copy(), trainable=False, dtype=dtypes.int64, name="StateVar",
                                           aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
            else:
                with variable_creators_scope(()):  # one stream, not a per-replica mirror
                    self._state_var = Variable(self._words.copy(), trainable=False, dtype=dtypes.int64,
                                               name="StateVar")
            self._synced = self._words.copy()
        else:
            self._current_words()
            self._write_state()
        return self._state_var

    def _tfc_checkpoint_children(self):
        return [("_state_var", self.state)]

    def _current_words(self):
        """The words, first reloaded from ``_state_var`` if something (a restore, a traced draw) assigned it."""
        if self._state_var is not None:
            words = np.asarray(self._state_var.numpy(), np.int64)
            if not np.array_equal(words, self._synced):
                self._words = words.copy()
                self._synced = words
                self._replica_words = {}
        return self._words

    def _write_state(self):
        if self._state_var is not None and not np.array_equal(self._words, self._synced):
            self._state_var.assign(self._words)
            self._synced = self._words.copy()

    def _draw(self, fn, *args):
        replica = replica_state.replica_id() if self._in_strategy else None
        if self._mirrored:  # each replica reads and advances its copy of the mirrored variable (no lock:
            out = fn(_StateStream(self._state_var, True), *args)  # the replicas meet in the assign)
            if not _tracing.is_tracing():
                with self._lock:
                    self._current_words()
            return out
        if _tracing.is_tracing():
            with self._lock:
                with _tracing.suspended():  # outside the graph: the variable and its current value
                    var = self._state_variable()
                return fn(_StateStream(var, self._in_strategy), *args)
        with self._lock:
            words = self._current_words()
            if replica is None:
                self._replica_words = {}
            else:  # mirrored: every replica starts from the state as it was when the replicas began
                if not self._replica_words:
                    n = replica_state.num_replicas_in_sync()
                    self._replica_words = {r: words.copy() for r in range(max(n, replica + 1))}
                words = self._replica_words.setdefault(replica, words.copy())
            source = _CounterSource(words, replica)
            out = fn(source, *args)
            if replica is not None:
                self._replica_words[replica] = source.words
            if replica in (None, 0):
                self._words = source.words
                self._write_state()
            return out

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return self._draw(_normal_from, shape, mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return self._draw(_truncated_from, shape, mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Floats or integers in [minval, maxval); an integer dtype with ``minval=None`` gives the full range."""
        dt = dtypes.as_dtype(dtype)
        if dt.is_integer and minval is None:
            return self.uniform_full_int(shape, dt)
        return self._draw(_uniform_from, shape, minval, maxval, dt)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers over the whole range of ``dtype`` (int32, int64, uint32, uint64)."""
        return self._draw(uniform_full_int_from, shape, dtype)

    def skip(self, delta):
        """Advance the counter as ``delta`` draws would (``256 * delta`` blocks); returns the old state."""

        with self._lock:
            old = self._current_words().copy()
            self._replica_words = {}
            self._words = advance_words(old, int(delta.numpy() if hasattr(delta, "numpy") else delta))
            self._write_state()
        return constant(old)

    def make_seeds(self, count=1):
        """An int64 ``[2, count]`` tensor of seeds for stateless ops: full-range keys over a row of zeros."""

        keys = self.uniform_full_int([int(count)], dtypes.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count=1):
        """``count`` new generators, each with state ``[0, 0, key]`` for a full-range key drawn here."""
        keys = self.uniform_full_int([int(count)], dtypes.int64).numpy()
        return [Generator(state=np.array([0, 0, k], np.int64), alg=self._alg) for k in keys]


_global_generator = None


def get_global_generator():
    """``tf.random.get_global_generator`` (created nondeterministically on first use)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator):
    """``tf.random.set_global_generator``: later ``get_global_generator()`` calls return ``generator``."""
    global _global_generator
    _global_generator = generator
