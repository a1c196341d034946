"""Randomised transformations: shuffle, sample_from_datasets, choose_from_datasets."""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from . import structure
from ._runtime import SeedStream
from .chunks import MAX_CHUNK, chunked
from .dataset_ops import DatasetV2, UnaryUnchangedStructureDataset, check_scalar_int
from .options import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from .shuffle_seeds import ShuffleSeedGenerator
from .threads import close_iterator

MAX_RING = 1 << 16  # slots allocated up front; a larger buffer grows as it fills


class ShuffleDataset(UnaryUnchangedStructureDataset):
    """``shuffle(buffer_size, seed, reshuffle_each_iteration)`` with TF's buffer and TF's random stream.

    The buffer is first filled with ``buffer_size`` input elements; then each output is drawn
    uniformly from the buffer and the next input element joins it, so ``buffer_size=1`` keeps the
    input order and the first output is one of the first ``buffer_size`` inputs. The draw, the
    buffer's arrangement and the seeds are TF's (``shuffle_seeds.py``), so a seeded shuffle gives
    TF 2.21's order; with ``reshuffle_each_iteration`` (the default) every new iterator (every
    epoch of a following ``repeat``) takes new seeds from the dataset's seed generator.
    """

    def __init__(self, input_dataset, buffer_size, seed=None, reshuffle_each_iteration=None):
        super().__init__(input_dataset)
        self._buffer_size = check_scalar_int(buffer_size, "buffer_size")
        if self._buffer_size <= 0:
            raise InvalidArgumentError(None, None, f"ShuffleDataset: buffer_size must be greater than zero, got "
                                                   f"{self._buffer_size}")
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        self._seeds = ShuffleSeedGenerator(None if seed is None else check_scalar_int(seed, "seed"), reshuffle)

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iter(self, ctx):
        rng = self._seeds.next_rng()
        return _ShuffleIterator(self._input._make_iter(ctx), self._buffer_size, rng)


class _ShuffleIterator:
    """TF's shuffle buffer (``ShuffleDatasetBase::Iterator``) over an upstream iterator.

    The buffer is a ring of ``buffer_size`` slots holding the live elements at positions
    ``start..end``: each output first tops the buffer up from the input, then takes the element at
    ``start + Random() % (end - start)``, moves the element at ``start`` into its slot and advances
    ``start``. ``next_chunk(n)`` pulls up to ``n`` inputs in one upstream call and then draws exactly
    as ``n`` calls of ``__next__`` would. An upstream error surfaces before any draw of its chunk.
    """

    __slots__ = ("_up", "_ring", "_size", "_below", "_start", "_end", "_filled", "_ended")

    def __init__(self, it, buffer_size, rng):
        self._up = chunked(it)
        self._ring = [None] * min(buffer_size, MAX_RING)
        self._size = buffer_size
        self._below = rng._randbelow
        self._start = self._end = 0
        self._filled = self._ended = False

    def __iter__(self):
        return self

    def _push(self, x):
        ring = self._ring
        if self._end - self._start == len(ring):  # a large buffer grows as it fills
            live = [ring[(self._start + k) % len(ring)] for k in range(len(ring))]
            ring = self._ring = live + [None] * min(len(live), self._size - len(live))
            self._start, self._end = 0, len(live)
        ring[self._end % len(ring)] = x
        self._end += 1

    def _draw(self):
        ring, n = self._ring, len(self._ring)
        i = (self._start + self._below(self._end - self._start)) % n
        s = self._start % n
        out = ring[i]
        ring[i] = ring[s]
        ring[s] = None
        self._start += 1
        return out

    def _fill(self):
        up = self._up
        while self._end - self._start < self._size:
            try:
                chunk = up.next_chunk(min(self._size - (self._end - self._start), MAX_CHUNK))
            except StopIteration:
                self._ended = True
                break
            for x in chunk:
                self._push(x)
        self._filled = True

    def __next__(self):
        if not self._filled:
            self._fill()
        elif not self._ended:
            try:
                self._push(next(self._up))
            except StopIteration:
                self._ended = True
        if self._start == self._end:
            raise StopIteration
        return self._draw()

    def next_chunk(self, n):
        out = []
        if not self._filled:
            out.append(next(self))
        want = n - len(out)
        if want > 0 and not self._ended:
            try:
                ins = self._up.next_chunk(want)
            except StopIteration:
                self._ended = True
            else:
                for x in ins:
                    self._push(x)
                    out.append(self._draw())
                return out
        while len(out) < n and self._start < self._end:
            out.append(self._draw())
        if not out:
            raise StopIteration
        return out

    def close(self):
        self._ring = []
        self._start = self._end = 0
        close_iterator(self._up)


_NONE = object()


def _check_datasets(datasets):
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    spec = datasets[0].element_spec
    for d in datasets[1:]:
        if not isinstance(d, DatasetV2):
            raise TypeError(f"Expected a list of datasets, got {type(d).__name__}")
        spec = structure.relax_spec(spec, d.element_spec)
    return datasets, spec


class SampleFromDatasets(DatasetV2):
    """``Dataset.sample_from_datasets``: each element from a dataset picked with probability ``weights``."""

    _tf_class_name = "_DirectedInterleaveDataset"  # its repr names TF's class

    def __init__(self, datasets, weights, seed, stop_on_empty_dataset):
        self._datasets, self._spec = _check_datasets(datasets)
        self._inputs_list = tuple(self._datasets)
        n = len(self._datasets)
        if weights is None:
            w = np.full(n, 1.0 / n)
        else:
            w = np.asarray(weights._array if isinstance(weights, Tensor) else weights, dtype=np.float64).reshape(-1)
            if w.shape[0] != n:
                raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with `[len("
                                 f"datasets)]` but is {list(w.shape)}.")
        self._weights = w
        self._seeds = SeedStream(seed, True)
        self._stop = bool(stop_on_empty_dataset)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        cards = [d._cardinality() for d in self._datasets]
        if all(c == INFINITE_CARDINALITY for c in cards):
            return INFINITE_CARDINALITY
        return UNKNOWN_CARDINALITY

    def _make_iter(self, ctx):
        rng = self._seeds.next_rng()
        its = [d._make_iter(ctx) for d in self._datasets]
        w = self._weights.copy()
        try:
            while w.sum() > 0:
                r, acc, k = rng.random() * w.sum(), 0.0, len(w) - 1
                for j, wj in enumerate(w):
                    acc += wj
                    if r < acc:
                        k = j
                        break
                x = next(its[k], _NONE)
                if x is _NONE:
                    if self._stop:
                        return
                    w[k] = 0.0
                    continue
                yield x
        finally:
            for it in its:
                close_iterator(it)


class ChooseFromDatasets(DatasetV2):
    """``Dataset.choose_from_datasets``: element ``i`` from ``datasets[choice_dataset[i]]``."""

    def __init__(self, datasets, choice_dataset, stop_on_empty_dataset):
        self._datasets, self._spec = _check_datasets(datasets)
        spec = choice_dataset.element_spec
        if not (getattr(spec, "dtype", None) is dtypes.int64 and spec.shape.rank == 0):
            raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
                            f"tensors but are {spec}.")
        self._choice = choice_dataset
        self._inputs_list = tuple(self._datasets) + (choice_dataset,)
        self._stop = bool(stop_on_empty_dataset)

    @property
    def element_spec(self):
        return self._spec

    def _make_iter(self, ctx):
        its = [d._make_iter(ctx) for d in self._datasets]
        choices = self._choice._make_iter(ctx)
        empty = [False] * len(its)
        try:
            for c in choices:
                k = int(c._array)
                if not 0 <= k < len(its):
                    raise InvalidArgumentError(None, None, f"Selected index {k} must be in [0, {len(its)}).")
                if empty[k]:
                    continue
                x = next(its[k], _NONE)
                if x is _NONE:
                    if self._stop:
                        return
                    empty[k] = True
                    continue
                yield x
        finally:
            for it in its + [choices]:
                close_iterator(it)
