"""File-based sources: ``Dataset.list_files``, ``tf.data.TextLineDataset`` and ``tf.data.TFRecordDataset``."""

import glob
import gzip
import os
import zlib

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..io import tf_record
from . import structure
from .dataset_ops import DatasetV2
from .options import UNKNOWN_CARDINALITY


def _string_list(value, what):
    """File names/patterns given as str, bytes, a list of them, or a string tensor -> list[str]."""
    if isinstance(value, str | bytes | os.PathLike):
        values = [value]
    elif isinstance(value, DatasetV2):
        raise TypeError(f"{what} must be strings, not a dataset")
    else:
        arr = np.asarray(value._array if isinstance(value, Tensor) else value, dtype=object).reshape(-1)
        values = list(arr)
    return [os.fsdecode(v) for v in values]


def list_files(file_pattern, shuffle=None, seed=None):
    """Files matching ``file_pattern`` (glob; str or list), sorted, then shuffled unless ``shuffle=False``."""
    patterns = _string_list(file_pattern, "file_pattern")
    files = []
    for p in patterns:
        files.extend(sorted(glob.glob(p)))
    if not files:
        raise InvalidArgumentError(None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                                               f"Summarized data: b'No files matched pattern: {', '.join(patterns)}'")
    ds = DatasetV2.from_tensor_slices(np.array([f.encode() for f in files], dtype=object))
    if shuffle is None or shuffle:
        ds = ds.shuffle(max(len(files), 1), seed=seed)
    return ds


def _open(path, compression_type):
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path}; No such file or directory")
    if compression_type in (None, ""):
        return open(path, "rb")
    kind = compression_type.upper()
    if kind == "GZIP":
        return gzip.open(path, "rb")
    if kind == "ZLIB":
        import io

        with open(path, "rb") as f:
            return io.BytesIO(zlib.decompress(f.read()))
    raise InvalidArgumentError(None, None, f"Unsupported compression_type: {compression_type!r}")


class _FileDataset(DatasetV2):
    """Scalar string elements read from a list of files (or a dataset of file names), file by file.

    Subclasses define ``_read(path)`` yielding the ``bytes`` of each element of one file.
    ``num_parallel_reads > 1`` interleaves that many files, as TF does.
    """

    _SPEC = TensorSpec(TensorShape([]), dtypes.string)

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        if isinstance(filenames, DatasetV2):
            self._files_ds = filenames
            self._files = None
        else:
            self._files_ds = None
            self._files = _string_list(filenames, "filenames")
        self._compression = compression_type
        self._buffer_size = buffer_size
        self._num_parallel_reads = num_parallel_reads

    @property
    def element_spec(self):
        return self._SPEC

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _file_names(self, ctx):
        if self._files is not None:
            return iter(self._files)
        return (os.fsdecode(structure.to_cpu_tensor(t)._array.item()) for t in self._files_ds._make_iter(ctx))

    def _make_iter(self, ctx):
        if self._num_parallel_reads and self._num_parallel_reads != 1:
            files = DatasetV2.from_tensor_slices(np.array([f.encode() for f in self._file_names(ctx)], dtype=object))
            cls, comp, size = type(self), self._compression, self._buffer_size
            inner = files.interleave(lambda f: cls(f, comp, size),
                                     cycle_length=self._num_parallel_reads,
                                     num_parallel_calls=self._num_parallel_reads)
            yield from inner._make_iter(ctx)
            return
        dev, string = structure.cpu_device(), dtypes.string
        for path in self._file_names(ctx):
            for item in self._read(path):
                arr = np.empty((), dtype=object)
                arr[()] = item
                yield Tensor(arr, string, dev)


class TextLineDataset(_FileDataset):
    """``tf.data.TextLineDataset``: the lines of text files as scalar string tensors (no line ending)."""

    _tf_class_name = "TextLineDatasetV2"  # its repr names TF's class

    def _read(self, path):
        with _open(path, self._compression) as f:
            for line in f:
                if line.endswith(b"\n"):
                    line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
                yield line


class TFRecordDataset(_FileDataset):
    """``tf.data.TFRecordDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None)``.

    The records of TFRecord files as scalar string tensors. ``compression_type`` is None/'',
    'ZLIB' or 'GZIP'; a damaged record raises ``tf.errors.DataLossError`` naming the file.
    """

    _tf_class_name = "TFRecordDatasetV2"  # its repr names TF's class

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        tf_record.compression_name(compression_type)
        if buffer_size is not None and buffer_size < 0:
            raise ValueError(f"buffer_size must be >= 0, got {buffer_size}")
        if num_parallel_reads is not None and num_parallel_reads != -1 and num_parallel_reads < 1:
            raise ValueError(f"num_parallel_reads must be positive or tf.data.AUTOTUNE, got {num_parallel_reads}")
        if num_parallel_reads == -1:
            num_parallel_reads = os.cpu_count() or 1
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads, name)

    def _read(self, path):
        return tf_record.iter_records(path, self._compression, self._buffer_size or None)
