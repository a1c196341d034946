"""CSV sources: ``tf.data.experimental.CsvDataset`` and ``tf.data.experimental.make_csv_dataset``.

Both are compositions of tfcore's own pieces, with TF's arguments and semantics: each file's lines
(``TextLineDataset``, the header line skipped per file) are parsed by ``tf.io.decode_csv``, one scalar
tensor per selected column. ``make_csv_dataset`` reads column names from the first file's header,
infers column types from its first rows (int32, int64, float32, float64, else string, as TF), repeats,
shuffles and batches, and gives ``(features dict, label)`` batches as the CSV tutorial uses them.
"""

import collections
import csv
import glob
import os

import numpy as np

from ..framework import dtypes
from ..framework.tensor_conversion import convert_to_tensor
from ..io.codec_ops import decode_csv
from .options import AUTOTUNE
from .readers import TextLineDataset, _open

__all__ = ["CsvDataset", "make_csv_dataset"]


def _filenames(filenames):
    if isinstance(filenames, str | bytes | os.PathLike):
        names = [filenames]
    elif hasattr(filenames, "numpy"):
        names = list(np.asarray(filenames.numpy()).reshape(-1))
    else:
        names = list(filenames)
    return [os.fsdecode(n) for n in names]


def _record_default(d):
    """A dtype (a required column) as an empty tensor of it; a value as its scalar default."""
    if isinstance(d, dtypes.DType) or (isinstance(d, type) and issubclass(d, np.generic)):
        dt = dtypes.as_dtype(d)
        return convert_to_tensor(np.zeros(0, dt.as_numpy_dtype if dt is not dtypes.string else object), dtype=dt)
    return d


def _select(record_defaults, select_cols, exclude_cols):
    if select_cols is not None and exclude_cols is not None:
        raise ValueError("Either select_cols or exclude_cols should be empty")
    if exclude_cols is None:
        return select_cols
    exclude = sorted(int(c) for c in exclude_cols)
    total = len(record_defaults) + len(exclude)
    return [c for c in range(total) if c not in exclude]


def CsvDataset(filenames, record_defaults, compression_type=None, buffer_size=None, header=False,  # noqa: N802
               field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None):
    """``tf.data.experimental.CsvDataset``: each CSV line of ``filenames`` as a tuple of scalar tensors.

    ``record_defaults``: one entry per (selected) column, a dtype (the column is required) or a default
    value; ``header=True`` skips each file's first line; ``select_cols`` / ``exclude_cols`` pick columns.
    """
    names = _filenames(filenames)
    defaults = [_record_default(d) for d in record_defaults]
    cols = _select(defaults, select_cols, exclude_cols)

    def lines(name):
        ds = TextLineDataset(name, compression_type=compression_type, buffer_size=buffer_size)
        return ds.skip(1) if header else ds

    ds = lines(names[0])
    for name in names[1:]:
        ds = ds.concatenate(lines(name))
    return ds.map(lambda line: tuple(decode_csv(line, defaults, field_delim=field_delim,
                                                use_quote_delim=use_quote_delim, na_value=na_value,
                                                select_cols=cols)))


_INFERENCE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _fits(value, dt):
    if value == "":
        return True
    try:
        if dt.is_integer:
            v = int(value)
            return dt.min <= v <= dt.max
        float(value)
        return True
    except ValueError:
        return False


def _open_text(filename, compression_type, encoding):
    """A CSV file as text, decompressed as ``compression_type`` ('GZIP', 'ZLIB', None/'') says: the
    header and type inference read it as ``CsvDataset`` does."""
    import io

    return io.TextIOWrapper(_open(filename, compression_type), encoding=encoding, newline="")


def _infer_types(filename, n_columns, field_delim, na_value, header, rows, encoding, compression_type=None):
    """TF's inference: the first of int32, int64, float32, float64 that parses every value, else string."""
    best = [0] * n_columns  # index into _INFERENCE_ORDER; len() means string
    with _open_text(filename, compression_type, encoding) as f:
        reader = csv.reader(f, delimiter=field_delim)
        if header:
            next(reader, None)
        for i, row in enumerate(reader):
            if i >= rows:
                break
            for c, value in enumerate(row[:n_columns]):
                value = "" if value == na_value else value
                while best[c] < len(_INFERENCE_ORDER) and not _fits(value, _INFERENCE_ORDER[best[c]]):
                    best[c] += 1
    return [_INFERENCE_ORDER[b] if b < len(_INFERENCE_ORDER) else dtypes.string for b in best]


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """``tf.data.experimental.make_csv_dataset``: batches of ``(OrderedDict of column -> tensor, label)``
    (just the dict without ``label_name``), read from the files matching ``file_pattern``.

    Column names come from the first file's header unless given; types from ``column_defaults`` or
    inferred from the first ``num_rows_for_inference`` rows. ``num_epochs=None`` repeats forever and then
    drops a short last batch, as TF does.
    """
    patterns = _filenames(file_pattern)
    files = sorted({f for p in patterns for f in (glob.glob(p) or ([p] if os.path.exists(p) else []))})
    if not files:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    if batch_size is None or int(batch_size) <= 0:
        raise ValueError(f"`batch_size` must be a positive integer, got {batch_size!r}")
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` argument to be set.")
        with _open_text(files[0], compression_type, encoding) as f:
            column_names = next(csv.reader(f, delimiter=field_delim), [])
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Expected `column_names` to be unique.")
    if select_columns is not None:
        picked = [column_names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
        if any(isinstance(c, str) and c not in column_names for c in select_columns):
            raise ValueError(f"`select_columns` {select_columns} must be names in {column_names} or indices")
        picked = sorted(set(picked))
    else:
        picked = list(range(len(column_names)))
    names = [column_names[i] for i in picked]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. Received: {label_name}.")
    if column_defaults is None:
        types = _infer_types(files[0], len(column_names), field_delim, na_value, header, num_rows_for_inference,
                             encoding, compression_type)
        column_defaults = [_record_default(types[i]) for i in picked]
    elif len(column_defaults) != len(picked):
        raise ValueError(f"The number of `column_defaults` ({len(column_defaults)}) must match the number of "
                         f"selected columns ({len(picked)}).")
    ds = CsvDataset(files, column_defaults, compression_type=compression_type, header=header,
                    field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                    select_cols=picked if len(picked) != len(column_names) else None)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.batch(int(batch_size), drop_remainder=num_epochs is None)

    def to_features(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    ds = ds.map(to_features)
    return ds.prefetch(prefetch_buffer_size or AUTOTUNE) if prefetch_buffer_size != 0 else ds

