"""``Dataset.cache``: keep the elements of the first complete pass, in memory or in files.

Memory: the first iterator to finish a full pass publishes its elements; later
iterators replay them (an abandoned partial pass publishes nothing, as in TF).
File: elements are written to ``<filename>.data-00000-of-00001`` in a data-only format with
checksums (cache_format.py: never pickle, so a cache file cannot run code) and the pass is
committed by writing ``<filename>.index``; an existing index is read instead of the input, even
from another process, and a damaged or truncated cache raises ``DataLossError``. A
``<filename>.lockfile`` guards against two writers, with TF's ``AlreadyExistsError``.
"""

import os
import threading

import numpy as np

from ..framework.errors import AlreadyExistsError, DataLossError
from ..framework.tensor import Tensor
from . import cache_format, structure
from .dataset_ops import UnaryUnchangedStructureDataset
from .threads import close_iterator


class CacheDataset(UnaryUnchangedStructureDataset):
    _tf_class_name = "CacheDataset"  # TF's class of the same name is public: no underscore in its repr

    def __init__(self, input_dataset, filename=""):
        super().__init__(input_dataset)
        if isinstance(filename, Tensor):
            filename = filename._array.item()
        self._filename = os.fsdecode(filename) if filename else ""
        self._memory = None
        self._lock = threading.Lock()

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iter(self, ctx):
        if self._filename:
            if os.path.exists(self._filename + ".index"):
                return _read_file(self._filename, self.element_spec)
            return self._write_file(ctx)
        cached = self._memory
        if cached is not None:
            return iter(cached)
        return self._record_memory(ctx)

    def _record_memory(self, ctx):
        it = self._input._make_iter(ctx)
        seen = []
        try:
            for x in it:
                seen.append(x)
                yield x
        finally:
            close_iterator(it)
        with self._lock:
            if self._memory is None:
                self._memory = seen

    def _data_path(self):
        return self._filename + ".data-00000-of-00001"

    def _write_file(self, ctx):
        lock = self._filename + ".lockfile"
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise AlreadyExistsError(
                None, None, f"There appears to be a concurrent caching iterator running - cache lockfile already "
                            f"exists ('{lock}'). If you are sure no other running TF computations are using this "
                            f"cache prefix, delete the lockfile and re-initialize the iterator.") from None
        os.close(fd)
        it = self._input._make_iter(ctx)
        try:
            count = 0
            with open(self._data_path(), "wb") as f:
                f.write(cache_format.MAGIC)
                for x in it:
                    f.write(cache_format.encode_element(
                        [(t._dtype, np.asarray(t._array)) for t in structure.flatten(x)]))
                    count += 1
                    yield x
                size = f.tell()
            with open(self._filename + ".index", "wb") as f:
                f.write(cache_format.encode_index(count, size))
        finally:
            close_iterator(it)
            os.remove(lock)


def _read_file(filename, spec):
    """Yield the cached elements of ``filename``'s files, shaped as ``spec``; damage is ``DataLossError``."""
    dev = structure.cpu_device()
    count, size = cache_format.read_index(filename + ".index")
    path = filename + ".data-00000-of-00001"
    specs = structure.flatten(spec)
    for leaves in cache_format.read_records(path, count, size):
        if len(leaves) != len(specs) or any(d != s.dtype for (d, _), s in zip(leaves, specs)):
            raise DataLossError(
                f"Cache file {path} holds elements of dtypes {[d.name for d, _ in leaves]}; this dataset's "
                f"elements have {[s.dtype.name for s in specs]} (a cache written by another pipeline?)")
        yield structure.pack_as(spec, [Tensor(a, d, dev) for d, a in leaves])
