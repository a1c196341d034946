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
from .threads import close_iterator


class ShuffleDataset(UnaryUnchangedStructureDataset):
    """``shuffle(buffer_size, seed, reshuffle_each_iteration)`` with TF's buffer semantics.

    The buffer is first filled with ``buffer_size`` input elements; each output is
    drawn uniformly from the buffer and its slot is refilled with the next input
    element. ``buffer_size=1`` therefore keeps the input order, and the first
    output is always one of the first ``buffer_size`` inputs. With a seed (op or
    global) the sequence of orders is the same run after run; with
    ``reshuffle_each_iteration`` (the default) every new iterator — every epoch
    of a following ``repeat`` — uses a different order.
    """

    def __init__(self, input_dataset, buffer_size, seed=None, reshuffle_each_iteration=None):
        super().__init__(input_dataset)
        self._buffer_size = check_scalar_int(buffer_size, "buffer_size")
        if self._buffer_size <= 0:
            raise InvalidArgumentError(None, None, f"ShuffleDataset: buffer_size must be greater than zero, got "
                                                   f"{self._buffer_size}")
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        self._seeds = SeedStream(None if seed is None else check_scalar_int(seed, "seed"), reshuffle)

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iter(self, ctx):
        rng = self._seeds.next_rng()
        return _ShuffleIterator(self._input._make_iter(ctx), self._buffer_size, rng)


class _ShuffleIterator:
    """TF's shuffle buffer over an upstream iterator, element by element or by chunks.

    Every output draws a uniform slot of the buffer and refills it with the next
    input (once the input is exhausted, the last slot moves into the drawn one).
    ``next_chunk(n)`` pulls up to ``n`` refills in one upstream call and then draws
    exactly as ``n`` calls of ``__next__`` would: the same seed gives the same order
    on both paths. An upstream error surfaces before any draw, so no element is lost.
    """

    __slots__ = ("_up", "_buf", "_size", "_below", "_filled", "_ended")

    def __init__(self, it, buffer_size, rng):
        self._up = chunked(it)
        self._buf = []
        self._size = buffer_size
        # randrange(n) is _randbelow(n) after argument checks (CPython); the draws are identical.
        self._below = getattr(rng, "_randbelow", rng.randrange)
        self._filled = self._ended = False

    def __iter__(self):
        return self

    def _fill(self):
        buf, size, up = self._buf, self._size, self._up
        while len(buf) < size:
            try:
                buf.extend(up.next_chunk(min(size - len(buf), MAX_CHUNK)))
            except StopIteration:
                self._ended = True
                break
        self._filled = True

    def __next__(self):
        if not self._filled:
            self._fill()
        buf = self._buf
        if not buf:
            raise StopIteration
        if not self._ended:
            try:
                x = next(self._up)
            except StopIteration:
                self._ended = True
            else:
                i = self._below(len(buf))
                out = buf[i]
                buf[i] = x
                return out
        i = self._below(len(buf))
        out = buf[i]
        last = buf.pop()
        if i < len(buf):
            buf[i] = last
        return out

    def next_chunk(self, n):
        if not self._filled:
            self._fill()
        buf, below = self._buf, self._below
        if not buf:
            raise StopIteration
        out = []
        append = out.append
        if not self._ended:
            try:
                ins = self._up.next_chunk(n)
            except StopIteration:
                self._ended = True
            else:
                for x in ins:
                    i = below(len(buf))
                    append(buf[i])
                    buf[i] = x
                return out
        for _ in range(min(n, len(buf))):
            i = below(len(buf))
            append(buf[i])
            last = buf.pop()
            if i < len(buf):
                buf[i] = last
        return out

    def close(self):
        self._buf = []
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
