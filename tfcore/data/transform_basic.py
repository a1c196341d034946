"""Order-preserving transformations: repeat, take, skip, shard, concatenate, enumerate,
prefetch, with_options, assert_cardinality; and the NumPy iterator."""

import itertools

import numpy as np

from ..framework import dtypes
from ..framework.errors import FailedPreconditionError, InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from . import structure
from .dataset_ops import DatasetV2, UnaryDataset, UnaryUnchangedStructureDataset, check_scalar_int
from .options import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Options
from .threads import PrefetchIterator, close_iterator


class OptionsDataset(UnaryUnchangedStructureDataset):
    """``with_options``: same elements, pipeline options merged in."""

    def __init__(self, input_dataset, options):
        super().__init__(input_dataset)
        if not isinstance(options, Options):
            raise TypeError(f"with_options expects tf.data.Options, got {type(options).__name__}")
        self._own_options = options

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iter(self, ctx):
        return self._input._make_iter(ctx)

    def _slice_source(self):
        src = getattr(self._input, "_slice_source", None)
        return src() if src is not None else None


class RepeatDataset(UnaryUnchangedStructureDataset):
    """``repeat(count)``: ``count`` passes (None/-1: forever); each pass re-iterates the input."""

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else check_scalar_int(count, "count")

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count == -1:
            return 0 if n == 0 else (UNKNOWN_CARDINALITY if n == UNKNOWN_CARDINALITY else INFINITE_CARDINALITY)
        if n in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return n if self._count != 0 else 0
        return n * max(self._count, 0)

    def _make_iter(self, ctx):
        inp, count = self._input, self._count
        epoch = 0
        while count < 0 or epoch < count:
            it = inp._make_iter(ctx)
            produced = False
            try:
                for x in it:
                    produced = True
                    yield x
            finally:
                close_iterator(it)
            if not produced:  # an empty input repeated forever is still empty (TF)
                return
            epoch += 1


class TakeDataset(UnaryUnchangedStructureDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = check_scalar_int(count, "count")

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0:
            return n
        if n == UNKNOWN_CARDINALITY:
            return UNKNOWN_CARDINALITY
        return self._count if n == INFINITE_CARDINALITY else min(n, self._count)

    def _make_iter(self, ctx):
        if self._count < 0:
            return self._input._make_iter(ctx)
        return _take(self._input._make_iter(ctx), self._count)


def _take(it, count):
    try:
        if count > 0:
            yield from itertools.islice(it, count)
    finally:
        close_iterator(it)


class SkipDataset(UnaryUnchangedStructureDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = check_scalar_int(count, "count")

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._count < 0:
            return 0
        return max(n - self._count, 0)

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        try:
            if self._count < 0:
                for _ in it:
                    pass
                return
            for _ in itertools.islice(it, self._count):
                pass
            yield from it
        finally:
            close_iterator(it)


class ShardDataset(UnaryUnchangedStructureDataset):
    """``shard(num_shards, index)``: elements ``index, index + num_shards, ...``."""

    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        self._n = check_scalar_int(num_shards, "num_shards")
        self._i = check_scalar_int(index, "index")
        if self._n <= 0:
            raise InvalidArgumentError(None, None, f"ShardDataset: num_shards must be > 0, got {self._n}")
        if not 0 <= self._i < self._n:
            raise InvalidArgumentError(
                None, None, f"ShardDataset: index must be between 0 and {self._n - 1} (num_shards - 1), got {self._i}")

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._n + (1 if n % self._n > self._i else 0)

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        try:
            yield from itertools.islice(it, self._i, None, self._n)
        finally:
            close_iterator(it)


class ConcatenateDataset(DatasetV2):
    """``a.concatenate(b)``: all of ``a`` then all of ``b`` (compatible structures and dtypes)."""

    def __init__(self, first, second):
        if not isinstance(second, DatasetV2):
            raise TypeError(f"concatenate expects a tf.data.Dataset, got {type(second).__name__}")
        try:
            self._spec = structure.relax_spec(first.element_spec, second.element_spec)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Incompatible dataset elements:\n  {first.element_spec} vs.\n  "
                            f"{second.element_spec}") from e
        self._first, self._second = first, second
        self._inputs_list = (first, second)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        a, b = self._first._cardinality(), self._second._cardinality()
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (a, b):
            return UNKNOWN_CARDINALITY
        return a + b

    def _trace_element(self):
        return self._first._trace_element()

    def _make_iter(self, ctx):
        for ds in (self._first, self._second):
            it = ds._make_iter(ctx)
            try:
                yield from it
            finally:
                close_iterator(it)


class EnumerateDataset(UnaryDataset):
    """``enumerate(start)``: ``(int64 index, element)`` pairs."""

    _tf_class_name = "_ZipDataset"  # its repr names TF's class

    def __init__(self, input_dataset, start):
        super().__init__(input_dataset)
        self._start = check_scalar_int(start, "start")

    @property
    def element_spec(self):
        return (TensorSpec(TensorShape([]), dtypes.int64), self._input.element_spec)

    def _cardinality(self):
        return self._input._cardinality()

    def _trace_element(self):
        return (Tensor(np.asarray(self._start, dtype=np.int64), dtypes.int64, structure.cpu_device()),
                self._input._trace_element())

    def _make_iter(self, ctx):
        dev, i64 = structure.cpu_device(), dtypes.int64
        it = self._input._make_iter(ctx)
        try:
            for i, x in enumerate(it, self._start):
                yield (Tensor(np.asarray(i, dtype=np.int64), i64, dev), x)
        finally:
            close_iterator(it)


class PrefetchDataset(UnaryUnchangedStructureDataset):
    """``prefetch(buffer_size)``: a background thread keeps up to ``buffer_size`` elements ready.

    ``tf.data.AUTOTUNE`` sizes the buffer from the first element (2 to 64 elements
    within a 64 MiB budget); ``buffer_size=0`` disables prefetching.
    """

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        size = check_scalar_int(buffer_size, "buffer_size")
        if size < 0 and size != AUTOTUNE:
            raise InvalidArgumentError(None, None, f"PrefetchDataset: buffer_size must be >= 0 or AUTOTUNE, got {size}")
        self._buffer_size = None if size == AUTOTUNE else size

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iter(self, ctx):
        upstream = self._input._make_iter(ctx)
        if self._buffer_size == 0:
            return upstream
        return PrefetchIterator(upstream, self._buffer_size)


class AssertCardinalityDataset(UnaryUnchangedStructureDataset):
    """``tf.data.experimental.assert_cardinality``: fail if the real count differs."""

    def __init__(self, input_dataset, expected):
        super().__init__(input_dataset)
        self._expected = check_scalar_int(expected, "expected_cardinality")

    def _cardinality(self):
        return self._expected

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        expected, n = self._expected, 0
        try:
            for x in it:
                n += 1
                if expected != INFINITE_CARDINALITY and n > expected:
                    raise FailedPreconditionError(
                        None, None, f"Input dataset was expected to contain {_elements(expected)} but contained "
                                    f"at least {_elements(n)}.")
                yield x
        finally:
            close_iterator(it)
        if expected == INFINITE_CARDINALITY or n < expected:
            raise FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {_elements(expected)} but contained only "
                            f"{_elements(n)}.")


def _elements(n):
    if n == INFINITE_CARDINALITY:
        return "an infinite number of elements"
    return f"{n} element" + ("" if n == 1 else "s")


def numpy_iterator(dataset):
    """``as_numpy_iterator``: elements as NumPy values (scalars as NumPy scalars, strings as bytes)."""
    return _NumpyIterator(iter(dataset))


class _NumpyIterator:
    __slots__ = ("_it",)

    def __init__(self, it):
        self._it = it

    def __iter__(self):
        return self

    def __next__(self):
        x = next(self._it)
        if type(x) is Tensor:
            return to_numpy(x)
        return structure.map_structure(to_numpy, x)


def to_numpy(t):
    if type(t) is not Tensor:
        raise TypeError("Dataset.as_numpy_iterator() is not supported for datasets that produce values of type "
                        f"{type(t).__name__}")
    arr = t._device.backend.to_numpy(t._array)
    if arr.ndim == 0:
        return arr[()]
    return np.array(arr, copy=True)


def get_single_element(dataset):
    it = iter(dataset)
    try:
        first = next(it)
    except StopIteration:
        raise InvalidArgumentError(None, None, "Dataset was empty.") from None
    try:
        next(it)
    except StopIteration:
        return first
    finally:
        it._close()
    raise InvalidArgumentError(None, None, "Dataset had more than one element.")
