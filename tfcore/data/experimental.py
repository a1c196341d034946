"""``tf.data.experimental``: TF's experimental names that tfcore supports.

Transformation factories (``assert_cardinality``, ``enumerate_dataset``...)
return a function to pass to ``Dataset.apply``, as TF's do.
"""

from ..framework import dtypes
from ..framework.errors import OpError
from ._runtime import enable_debug_mode
from .csv_readers import CsvDataset, make_csv_dataset
from .dataset_ops import DatasetV2, UnaryUnchangedStructureDataset
from .iterators import Optional
from .options import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    AutoShardPolicy,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)
from .sources import ListDataset
from .structure import DatasetSpec, normalize_element
from .threads import close_iterator
from .transform_basic import AssertCardinalityDataset

__all__ = [
    "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AutoShardPolicy", "AutotuneOptions",
    "DistributeOptions", "ExternalStatePolicy", "OptimizationOptions", "ThreadingOptions", "Optional", "DatasetSpec",
    "cardinality", "assert_cardinality", "enumerate_dataset", "shuffle_and_repeat", "ignore_errors", "scan",
    "unbatch", "take_while", "unique", "get_single_element", "sample_from_datasets", "choose_from_datasets",
    "rejection_resample",
    "from_list", "map_and_batch", "dense_to_ragged_batch", "Counter", "enable_debug_mode", "CsvDataset",
    "make_csv_dataset",
]


def cardinality(dataset):
    """The cardinality of ``dataset`` as an int64 tensor (-1 infinite, -2 unknown)."""
    return dataset.cardinality()


def assert_cardinality(expected_cardinality):
    """Declare the number of elements; iteration fails with FailedPreconditionError if it differs."""

    return lambda ds: AssertCardinalityDataset(ds, expected_cardinality)


def enumerate_dataset(start=0):
    return lambda ds: ds.enumerate(start)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    return lambda ds: ds.shuffle(buffer_size, seed=seed).repeat(count)


def scan(initial_state, scan_func):
    return lambda ds: ds.scan(initial_state, scan_func)


def unbatch():
    return lambda ds: ds.unbatch()


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=None):
    """``tf.data.experimental.dense_to_ragged_batch``: ``Dataset.ragged_batch`` as an ``apply`` function."""
    return lambda ds: ds.ragged_batch(batch_size, drop_remainder=drop_remainder, row_splits_dtype=row_splits_dtype)


def take_while(predicate):
    return lambda ds: ds.take_while(predicate)


def unique():
    return lambda ds: ds.unique()


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """Fused map + batch (here: the two transformations in sequence)."""
    return lambda ds: ds.map(map_func, num_parallel_calls).batch(batch_size, drop_remainder)


def get_single_element(dataset):
    return dataset.get_single_element()


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """``tf.data.experimental.rejection_resample``: for ``dataset.apply``."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    return DatasetV2.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    return DatasetV2.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def from_list(elements, name=None):
    """A dataset whose elements are ``elements`` (each may be a nested structure)."""

    elements = [normalize_element(e) for e in elements]
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    return ListDataset(elements)


def Counter(start=0, step=1, dtype=None):  # noqa: N802 - TF's public name
    """An infinite int64 count ``start, start + step, ...``."""
    import sys


    stop = sys.maxsize if step > 0 else -sys.maxsize
    return DatasetV2.range(start, stop, step, output_type=dtype or dtypes.int64)


class _IgnoreErrorsDataset(UnaryUnchangedStructureDataset):
    """Drops elements whose production raised a tf.errors.OpError (TF's ``ignore_errors``)."""

    def _cardinality(self):
        from .options import UNKNOWN_CARDINALITY as unknown

        return unknown

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        try:
            while True:
                try:
                    x = next(it)
                except StopIteration:
                    return
                except OpError:
                    continue
                yield x
        finally:
            close_iterator(it)


def ignore_errors(log_warning=False):
    return lambda ds: _IgnoreErrorsDataset(ds)
