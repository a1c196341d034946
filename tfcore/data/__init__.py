"""``tf.data``: input pipelines (Dataset sources, transformations, threaded map and prefetch).

See README "Input pipelines (tf.data)". The base class lives in ``dataset_ops``;
sources in ``sources``/``readers``; transformations in ``transform_*``; the
background threads in ``threads``; the Python iterator in ``iterators``.
"""

from . import experimental
from . import (dataset_ops, readers, sources, transform_basic, transform_batch, transform_cache, transform_map,
               transform_ragged, transform_shuffle)
from .dataset_ops import Dataset, DatasetV2
from .iterators import OwnedIterator as Iterator
from .options import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Options, ThreadingOptions
from .readers import TextLineDataset, TFRecordDataset
from .structure import DatasetSpec

dataset_ops.register_implementations(sources, readers, transform_basic, transform_batch, transform_cache,
                                     transform_map, transform_ragged, transform_shuffle)

__all__ = ["Dataset", "DatasetSpec", "Iterator", "Options", "ThreadingOptions", "TextLineDataset", "TFRecordDataset",
           "AUTOTUNE",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental"]
