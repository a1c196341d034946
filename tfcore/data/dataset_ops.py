"""``tf.data.Dataset``: the base class and its public methods.

A dataset is an immutable description of a pipeline; ``iter(dataset)`` starts a
fresh pass over it. Subclasses implement three things:

- ``_make_iter(ctx)``: a Python iterator yielding elements (nested structures of
  CPU tensors). Synchronous stages are generators; parallel/prefetch stages are
  the threaded iterators of :mod:`.threads`.
- ``element_spec``: the structure of ``TensorSpec`` describing elements.
- ``_cardinality()``: the number of elements, ``INFINITE_CARDINALITY`` (-1) or
  ``UNKNOWN_CARDINALITY`` (-2).

The methods below only build datasets; the classes live in :mod:`.sources`,
:mod:`.transform_basic`, :mod:`.transform_map`, :mod:`.transform_batch`,
:mod:`.transform_shuffle` and :mod:`.readers`.
"""

import numpy as np

from ..framework import dtypes
from ..framework.tensor import Tensor
from . import structure
from .iterators import OwnedIterator
from .options import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Options

# The modules that implement DatasetV2's sources and transformations subclass DatasetV2, so this module
# cannot import them: the package registers them (tfcore.data.__init__) and methods look them up by name.
_IMPLEMENTATION_MODULES = []


def register_implementations(*modules):
    """Make the classes and functions of ``modules`` available to DatasetV2's methods."""
    _IMPLEMENTATION_MODULES.extend(m for m in modules if m not in _IMPLEMENTATION_MODULES)


def _impl(name):
    for m in _IMPLEMENTATION_MODULES:
        obj = getattr(m, name, None)
        if obj is not None:
            return obj
    raise LookupError(f"tf.data: no registered implementation named {name!r}")


class DatasetV2:
    """Represents a potentially large set of elements (``tf.data.Dataset``)."""

    _inputs_list = ()
    _own_options = None

    # -- to implement ------------------------------------------------------------
    def _make_iter(self, ctx):
        raise NotImplementedError

    @property
    def element_spec(self):
        """The structure of ``tf.TensorSpec`` (or ``DatasetSpec``) describing one element."""
        raise NotImplementedError

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _trace_element(self):
        """A representative element that dataset functions over this dataset are traced with.

        A real element where getting one is cheap and runs no user function: by default the
        first element (zeros shaped like ``element_spec`` for an empty dataset); stages that
        keep their input's elements return their input's, ``map`` the result of its own trace.
        """
        return _impl("first_element")(self)

    # -- iteration ---------------------------------------------------------------
    def __iter__(self):
        """A new iterator: each call starts a new pass over the data."""
        return OwnedIterator(self)

    def _tfc_dataset_iter(self, ctx=None):
        """Iterate as a nested dataset (window / flat_map results) under ``ctx``."""
        if ctx is None:
            return iter(self)
        return self._make_iter(ctx)

    def __bool__(self):
        return True

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    _tf_class_name = None  # the name of TF's class for this dataset where it is not "_" + ours

    def __repr__(self):
        """TF 2.21's repr: its dataset classes are private (``<_MapDataset element_spec=...>``); a subclass a
        program defines keeps its own name."""
        cls = type(self)
        name = cls.__name__
        if cls.__module__.startswith(__package__ + "."):
            name = cls._tf_class_name or (name if name.startswith("_") else "_" + name)
        return f"<{name} element_spec={self.element_spec!r}>"

    def as_numpy_iterator(self):
        """An iterator of NumPy values: arrays, NumPy scalars, ``bytes`` for strings."""
        numpy_iterator = _impl("numpy_iterator")

        return numpy_iterator(self)

    def cardinality(self):
        """The number of elements as an int64 scalar tensor (-1: infinite, -2: unknown)."""
        return Tensor(np.asarray(self._cardinality(), dtype=np.int64), dtypes.int64, structure.cpu_device())

    # -- options -----------------------------------------------------------------
    def options(self):
        """The ``tf.data.Options`` of this pipeline (inputs' options merged, later ones win)."""
        opts = Options()
        for ds in self._inputs_list:
            opts = opts.merge(ds.options())
        if self._own_options is not None:
            opts = opts.merge(self._own_options)
        return opts

    def with_options(self, options, name=None):
        OptionsDataset = _impl("OptionsDataset")

        return OptionsDataset(self, options)

    # -- sources -----------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per row of the leading dimension of every component of ``tensors``."""
        if any(isinstance(x, structure.RaggedTensor | structure.SparseTensor) for x in structure.flatten(tensors)):
            return _impl("RaggedSliceDataset")(tensors)  # rows of a RaggedTensor / SparseTensor component
        TensorSliceDataset = _impl("TensorSliceDataset")

        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset with one element: ``tensors``."""
        TensorDataset = _impl("TensorDataset")

        return TensorDataset(tensors)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None):
        """``range(stop)``, ``range(start, stop[, step])`` as scalar ``output_type`` tensors."""
        RangeDataset = _impl("RangeDataset")

        return RangeDataset(*args, output_type=output_type)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """Elements produced by calling ``generator(*args)`` (a callable returning an iterable)."""
        GeneratorDataset = _impl("GeneratorDataset")

        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Tuples (or the given nesting) of elements of several datasets, in lockstep."""
        ZipDataset = _impl("ZipDataset")

        if datasets is not None:
            if args:
                raise TypeError("Both `*args` and `datasets` cannot be set.")
            return ZipDataset(datasets)
        if not args:
            raise TypeError("Must pass at least one dataset to `zip`.")
        return ZipDataset(args[0] if len(args) == 1 else tuple(args))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """File names matching glob pattern(s), shuffled by default (``shuffle=None`` -> True)."""
        list_files = _impl("list_files")

        return list_files(file_pattern, shuffle, seed)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements picked at random from ``datasets`` with probabilities ``weights``."""
        SampleFromDatasets = _impl("SampleFromDatasets")

        return SampleFromDatasets(datasets, weights, seed, stop_on_empty_dataset)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Element ``i`` comes from ``datasets[choice_dataset[i]]``."""
        ChooseFromDatasets = _impl("ChooseFromDatasets")

        return ChooseFromDatasets(datasets, choice_dataset, stop_on_empty_dataset)

    # -- element-wise transformations ------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Apply ``map_func`` to each element (a tuple element is splatted into arguments).

        ``num_parallel_calls`` (int or ``tf.data.AUTOTUNE``) runs calls on a thread
        pool; ``deterministic=False`` lets results come out in completion order.
        """
        MapDataset = _impl("MapDataset")

        return MapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate, name=None):
        """Keep the elements for which ``predicate`` returns a true scalar boolean."""
        FilterDataset = _impl("FilterDataset")

        return FilterDataset(self, predicate)

    def flat_map(self, map_func, name=None):
        """Map each element to a dataset and concatenate those datasets."""
        InterleaveDataset = _impl("InterleaveDataset")

        return InterleaveDataset(self, map_func, cycle_length=1, block_length=1)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """Map elements to datasets and interleave them (``cycle_length`` open, ``block_length`` each)."""
        InterleaveDataset = _impl("InterleaveDataset")

        return InterleaveDataset(self, map_func, cycle_length, block_length, num_parallel_calls, deterministic)

    def enumerate(self, start=0, name=None):
        """Pairs ``(index, element)`` with int64 indices from ``start``."""
        EnumerateDataset = _impl("EnumerateDataset")

        return EnumerateDataset(self, start)

    def take_while(self, predicate, name=None):
        TakeWhileDataset = _impl("TakeWhileDataset")

        return TakeWhileDataset(self, predicate)

    def scan(self, initial_state, scan_func, name=None):
        """Like ``map`` with a state: ``scan_func(state, element) -> (new_state, output)``."""
        ScanDataset = _impl("ScanDataset")

        return ScanDataset(self, initial_state, scan_func)

    # -- structural transformations --------------------------------------------------
    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Stack ``batch_size`` consecutive elements; the last batch may be smaller."""
        BatchDataset = _impl("BatchDataset")

        return BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batch elements of different shapes, padding each component to ``padded_shapes``."""
        PaddedBatchDataset = _impl("PaddedBatchDataset")

        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=None, name=None):
        """Batch elements of different shapes: statically unknown shapes become ``tf.RaggedTensor``s."""
        RaggedBatchDataset = _impl("RaggedBatchDataset")

        return RaggedBatchDataset(self, batch_size, drop_remainder)

    def unbatch(self, name=None):
        """Split each element's leading dimension into separate elements."""
        UnbatchDataset = _impl("UnbatchDataset")

        return UnbatchDataset(self)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows, each a (nest of) dataset(s) of ``size`` elements."""
        WindowDataset = _impl("WindowDataset")

        return WindowDataset(self, size, shift, stride, drop_remainder)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Sample uniformly from a buffer of ``buffer_size`` elements, refilling it from the input."""
        ShuffleDataset = _impl("ShuffleDataset")

        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """Repeat the dataset ``count`` times (None or -1: forever)."""
        RepeatDataset = _impl("RepeatDataset")

        return RepeatDataset(self, count)

    def take(self, count, name=None):
        TakeDataset = _impl("TakeDataset")

        return TakeDataset(self, count)

    def skip(self, count, name=None):
        SkipDataset = _impl("SkipDataset")

        return SkipDataset(self, count)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element starting at ``index``."""
        ShardDataset = _impl("ShardDataset")

        return ShardDataset(self, num_shards, index)

    def concatenate(self, dataset, name=None):
        ConcatenateDataset = _impl("ConcatenateDataset")

        return ConcatenateDataset(self, dataset)

    def prefetch(self, buffer_size, name=None):
        """Prepare up to ``buffer_size`` elements ahead on a background thread."""
        PrefetchDataset = _impl("PrefetchDataset")

        return PrefetchDataset(self, buffer_size)

    def cache(self, filename="", name=None):
        """Keep elements after the first full pass, in memory (``filename=''``) or in files."""
        CacheDataset = _impl("CacheDataset")

        return CacheDataset(self, filename)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        """``Dataset.rejection_resample``: ``(class, element)`` pairs resampled so that classes follow
        ``target_dist`` (``initial_dist`` is the input's class distribution, estimated when None)."""
        from .resampling import rejection_resample

        return rejection_resample(self, class_func, target_dist, initial_dist, seed)

    def snapshot(self, path, compression="AUTO", reader_func=None, shard_func=None, name=None):
        """``Dataset.snapshot``: persist the elements of the first complete pass under the directory
        ``path``; later iterations (also in another process) read them from there instead of the input.

        tfcore writes the snapshot as one file-cache shard in ``path`` (the checksummed format of
        ``cache(filename)``; ``compression`` 'AUTO', 'GZIP', 'SNAPPY' or None is accepted and the data are
        stored uncompressed). TF keys snapshots by the input pipeline's fingerprint; tfcore keeps one per
        ``path``, so a different pipeline needs its own directory. Custom ``reader_func``/``shard_func``
        are refused with NotImplementedError rather than ignored.
        """
        import os

        if compression not in ("AUTO", "GZIP", "SNAPPY", "NONE", None, ""):
            raise ValueError(f"snapshot: unsupported compression {compression!r}; expected 'AUTO', 'GZIP', "
                             "'SNAPPY' or None")
        if reader_func is not None or shard_func is not None:
            raise NotImplementedError("snapshot: custom reader_func/shard_func are not supported by tfcore")
        path = os.fsdecode(path)
        os.makedirs(path, exist_ok=True)
        CacheDataset = _impl("CacheDataset")

        return CacheDataset(self, os.path.join(path, "snapshot"))

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a dataset."""
        ds = transformation_func(self)
        if not isinstance(ds, DatasetV2):
            raise TypeError(f"`transformation_func` must return a tf.data.Dataset, got {type(ds).__name__}")
        return ds

    # -- consumers ---------------------------------------------------------------------
    def reduce(self, initial_state, reduce_func, name=None):
        """Fold the dataset: ``state = reduce_func(state, element)``; returns the final state."""
        reduce_dataset = _impl("reduce_dataset")

        return reduce_dataset(self, initial_state, reduce_func)

    def get_single_element(self, name=None):
        """The only element of a one-element dataset (InvalidArgumentError otherwise)."""
        get_single_element = _impl("get_single_element")

        return get_single_element(self)

    def unique(self, name=None):
        """Drop elements equal to one already seen (scalar int/string elements)."""
        UniqueDataset = _impl("UniqueDataset")

        return UniqueDataset(self)


Dataset = DatasetV2


class UnaryDataset(DatasetV2):
    """A dataset with one input whose options it inherits."""

    def __init__(self, input_dataset):
        if not isinstance(input_dataset, DatasetV2):
            raise TypeError(f"Expected a tf.data.Dataset, got {type(input_dataset).__name__}")
        self._input = input_dataset
        self._inputs_list = (input_dataset,)


class UnaryUnchangedStructureDataset(UnaryDataset):
    """A unary dataset whose elements have the input's element_spec."""

    @property
    def element_spec(self):
        return self._input.element_spec

    def _trace_element(self):
        return self._input._trace_element()


def check_scalar_int(value, what):
    """An int from a Python int or an integer scalar tensor/array (TF accepts both)."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    try:
        return int(np.asarray(value).item()) if not isinstance(value, int) else value
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a scalar integer, got {value!r}") from None
