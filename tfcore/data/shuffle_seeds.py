"""The seeds of ``Dataset.shuffle`` as TF derives them, so a seeded shuffle gives TF's order.

TF 2.21 (``tensorflow/python/data/util/random_seed.py``, ``core/kernels/data/shuffle_dataset_op.cc``,
``random_seed_ops.cc``): the dataset's ``(seed, seed2)`` is ``tf.compat.v1.get_seed(seed)`` with
None read as 0 (and ``(0, 0)`` from a given pair made ``(0, 2**31 - 1)``); ``(0, 0)`` means
nondeterministic. With ``reshuffle_each_iteration`` each new iterator takes two uint32 samples of
``PhiloxRandom(seed, seed2)`` as its seeds (``RandomSeedGenerator``); without, every iterator uses
``(seed, seed2)`` (``FixedSeedGenerator``). An iterator draws ``Random() % n`` from
``PhiloxRandom(its seed, its seed2)``.
"""

import os
import threading

from ..ops.philox import PhiloxStream, Uint32Sampler
from ._runtime import get_seed

_MAXINT32 = 2**31 - 1


def dataset_seeds(op_seed):
    """The ``(seed, seed2)`` pair a shuffle dataset op receives (0, 0: nondeterministic)."""
    g, o = get_seed(op_seed)
    seed = 0 if g is None else int(g)
    if o is None:
        return seed, 0
    o = int(o)
    return seed, (_MAXINT32 if seed == 0 and o == 0 else o)


class ShuffleSeedGenerator:
    """One per shuffle dataset: the seeds of each iterator made from it, in TF's order."""

    __slots__ = ("_seed", "_seed2", "_reshuffle", "_parent", "_lock")

    def __init__(self, op_seed, reshuffle):
        seed, seed2 = dataset_seeds(op_seed)
        if seed == 0 and seed2 == 0:  # RandomSeeds: nondeterministic
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self._seed, self._seed2 = seed, seed2
        self._reshuffle = bool(reshuffle)
        self._parent = Uint32Sampler(PhiloxStream.from_seeds(seed, seed2)) if reshuffle else None
        self._lock = threading.Lock()

    def next_seeds(self):
        if not self._reshuffle:
            return self._seed, self._seed2
        with self._lock:
            return self._parent(), self._parent()

    def next_rng(self):
        """The sampler of the next iterator: ``_randbelow(n)`` draws as TF's shuffle buffer does."""
        return Uint32Sampler(PhiloxStream.from_seeds(*self.next_seeds()))
