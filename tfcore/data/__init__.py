"""``tf.data``: input pipelines (Dataset sources, transformations, threaded map and prefetch).

See README "Input pipelines (tf.data)". The base class lives in ``dataset_ops``;
sources in ``sources``/``readers``; transformations in ``transform_*``; the
background threads in ``threads``; the Python iterator in ``iterators``.
"""

from . import experimental
from .dataset_ops import Dataset, DatasetV2
from .iterators import OwnedIterator as Iterator
from .options import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Options, ThreadingOptions
from .readers import TextLineDataset, TFRecordDataset
from .structure import DatasetSpec

__all__ = ["Dataset", "DatasetSpec", "Iterator", "Options", "ThreadingOptions", "TextLineDataset", "TFRecordDataset",
           "AUTOTUNE",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental"]
