"""``tf.lookup``: static and mutable hash tables (see ``ops/lookup_ops.py``)."""

import types as _types

from .ops.lookup_ops import (
    DenseHashTable,
    KeyValueTensorInitializer,
    MutableHashTable,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

experimental = _types.SimpleNamespace(DenseHashTable=DenseHashTable, MutableHashTable=MutableHashTable)

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "TextFileIndex",
           "TextFileInitializer", "experimental"]
