"""TF's tensor bundle (checkpoint V2): ``<prefix>.index`` + ``<prefix>.data-00000-of-00001``.

The index is an SSTable (table.py) whose empty key holds a ``BundleHeaderProto`` and whose other
keys (sorted) hold one ``BundleEntryProto`` each: dtype, shape, shard, offset and size in the data
file and the masked CRC32C of the tensor's bytes. Numeric tensors are stored as their
little-endian bytes; string tensors as varint64 lengths, the masked CRC32C of those lengths (as
uint32s), then the bytes (``tensor_bundle.cc``). Files are written to temporaries and renamed in
place, data first and index last (``atomic_files.write_files``): a writer killed mid-save leaves no
``.index`` for a bundle it did not finish, and one killed while overwriting a bundle leaves a backup
of the old data that the next reader or writer puts back. The reader checks every index entry's
shape against the bytes it records before any tensor is read.
"""

import math
import os
import struct

import numpy as np

from ..framework import dtypes
from ..framework.errors import DataLossError, NotFoundError
from ..io import atomic_files
from ..io.tf_record import crc32c
from . import _protos, table

_MASK_DELTA = 0xA282EAD8


def _mask(c):
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def data_path(prefix, shard=0, num_shards=1):
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _size_bytes(n):
    """A string length as TF checksums it: uint32 (uint64 above 4 GiB), little-endian."""
    return struct.pack("<I", n) if n <= 0xFFFFFFFF else struct.pack("<Q", n)


def _encode(array, dtype):
    """(bytes, masked crc) of one tensor's payload."""
    if dtype == dtypes.string:
        items = [x if isinstance(x, bytes) else str(x).encode() for x in np.asarray(array, dtype=object).ravel()]
        lengths = b"".join(_varint(len(x)) for x in items)
        c = crc32c(b"".join(_size_bytes(len(x)) for x in items))
        # the masked length checksum is written and then folded into the running checksum
        length_crc = struct.pack("<I", _mask(c))
        raw = lengths + length_crc + b"".join(items)
        return raw, _mask(_crc_extend(c, length_crc + b"".join(items)))
    a = np.ascontiguousarray(array, dtype=dtype.as_numpy_dtype)
    if dtype.name == "bfloat16":
        a = a.view(np.uint16)
    raw = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
    return raw, _mask(crc32c(raw))


def _crc_extend(c, data):
    try:
        import google_crc32c

        return google_crc32c.extend(c, data)
    except ImportError:
        import crc32c as _c

        return _c.crc32c(data, c)


class BundleWriter:
    """Collects named tensors and writes one bundle atomically (``write``)."""

    def __init__(self, prefix):
        _protos.require()
        self.prefix = os.fspath(prefix)
        self._tensors = {}

    def add(self, key, array, dtype):
        if key in self._tensors:
            raise ValueError(f"Duplicate checkpoint key {key!r}")
        self._tensors[key] = (array, dtypes.as_dtype(dtype))

    def write(self):
        Entry, Header = _protos.message_class("BundleEntryProto"), _protos.message_class("BundleHeaderProto")
        parent = os.path.dirname(self.prefix) or "."
        os.makedirs(parent, exist_ok=True)
        data = bytearray()
        items = []
        header = Header(num_shards=1, endianness=0)
        header.version.producer = 1
        items.append((b"", header.SerializeToString()))
        for key in sorted(self._tensors, key=lambda k: k.encode()):
            array, dtype = self._tensors[key]
            raw, crc = _encode(array, dtype)
            e = Entry(dtype=dtype.as_datatype_enum, shard_id=0, offset=len(data), size=len(raw), crc32c=crc)
            for d in np.shape(array):
                e.shape.dim.add(size=int(d))
            data += raw
            items.append((key.encode(), e.SerializeToString()))
        index = table.build_table(items)
        # data first, the index last (the commit point): a checkpoint written over an existing prefix is the
        # old one or the new one whenever the writer dies (atomic_files keeps the old data until the commit)
        atomic_files.write_files([(data_path(self.prefix), bytes(data)), (self.prefix + ".index", index)])
        return self.prefix


def _check_entry(key, e, index):
    """``DataLossError`` unless the entry's dtype and shape agree with the byte count it records.

    Run when the index is read, so that a shape from the file is never trusted for an allocation
    (a restore compares shapes before reading any tensor).
    """
    try:
        dtype = dtypes.as_dtype(e.dtype)
    except (TypeError, ValueError, KeyError):
        raise DataLossError(f"Corrupted checkpoint index {index}: tensor {key!r} has unknown dtype {e.dtype}") from None
    shape = [int(d.size) for d in e.shape.dim]
    if any(d < 0 for d in shape) or e.offset < 0 or e.size < 0:
        raise DataLossError(f"Corrupted checkpoint index {index}: tensor {key!r} has shape {shape}, offset {e.offset}, "
                            f"size {e.size}")
    n = math.prod(shape)
    if dtype == dtypes.string:
        ok = e.size >= n + 4 if n else e.size in (0, 4)
    else:
        itemsize = 2 if dtype.name == "bfloat16" else np.dtype(dtype.as_numpy_dtype).itemsize
        ok = e.size == n * itemsize
    if not ok:
        raise DataLossError(f"Corrupted checkpoint index {index}: tensor {key!r} of shape {shape} {dtype.name} "
                            f"cannot be stored in the {e.size} bytes its entry records")


class BundleReader:
    """Reads a bundle's index eagerly and tensors on demand (checksums verified)."""

    def __init__(self, prefix):
        _protos.require()
        self.prefix = os.fspath(prefix)
        index = self.prefix + ".index"
        for path in (index, data_path(self.prefix)):  # put back a bundle whose overwrite was killed before its commit
            atomic_files.clean_stale(path)
        if not os.path.isfile(index):
            raise NotFoundError(f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for "
                                f"{self.prefix} (no file {index})")
        with open(index, "rb") as f:
            raw = f.read()
        Entry, Header = _protos.message_class("BundleEntryProto"), _protos.message_class("BundleHeaderProto")
        self._entries = {}
        header = None
        try:
            for key, value in table.read_table(raw, index):
                if key == b"":
                    header = Header.FromString(value)
                else:
                    self._entries[key.decode()] = Entry.FromString(value)
        except DataLossError:
            raise
        except Exception as e:  # a protobuf decode error
            raise DataLossError(f"Corrupted checkpoint index {index}: {e}") from e
        if header is None:
            raise DataLossError(f"Corrupted checkpoint index {index}: no bundle header")
        for key, e in self._entries.items():
            _check_entry(key, e, index)
        if header.endianness != 0:
            raise DataLossError(f"Checkpoint {index} is big-endian; only little-endian bundles are supported")
        self.num_shards = max(1, header.num_shards)
        self._data = {}

    def names(self):
        """Every tensor key in the bundle."""
        return list(self._entries)

    def has(self, key):
        return key in self._entries

    def shape(self, key):
        return [int(d.size) for d in self._entries[key].shape.dim]

    def dtype(self, key):
        return dtypes.as_dtype(self._entries[key].dtype)

    def _shard(self, shard):
        if shard not in self._data:
            path = data_path(self.prefix, shard, self.num_shards)
            if not os.path.isfile(path):
                raise NotFoundError(f"Checkpoint data file {path} not found (the index {self.prefix}.index names it)")
            with open(path, "rb") as f:
                self._data[shard] = (path, f.read())
        return self._data[shard]

    def read(self, key):
        if key not in self._entries:
            raise NotFoundError(f"Key {key} not found in checkpoint {self.prefix}")
        e = self._entries[key]
        path, data = self._shard(e.shard_id)
        if e.offset + e.size > len(data):
            raise DataLossError(f"Truncated checkpoint data file {path}: tensor {key!r} needs bytes "
                                f"{e.offset}..{e.offset + e.size}, the file has {len(data)}")
        raw = data[e.offset:e.offset + e.size]
        dtype = dtypes.as_dtype(e.dtype)
        shape = self.shape(key)
        if any(d < 0 for d in shape):
            raise DataLossError(f"Corrupted checkpoint {self.prefix}.index: tensor {key!r} has shape {shape}")
        if dtype == dtypes.string:
            return self._strings(raw, shape, key, path, e)
        if _mask(crc32c(raw)) != e.crc32c:
            raise DataLossError(f"Checksum does not match: stored {e.crc32c} vs. calculated on the restored bytes "
                                f"{_mask(crc32c(raw))} for tensor {key!r} in {path}")
        np_dtype = np.dtype(np.uint16) if dtype.name == "bfloat16" else np.dtype(dtype.as_numpy_dtype)
        a = np.frombuffer(raw, dtype=np_dtype.newbyteorder("<")).astype(np_dtype)
        if a.size != math.prod(shape):
            raise DataLossError(f"Corrupted checkpoint {path}: tensor {key!r} has {a.size} elements, "
                                f"its shape {shape} needs {math.prod(shape)}")
        if dtype.name == "bfloat16":
            a = a.view(dtype.as_numpy_dtype)
        return a.reshape(shape)

    def _strings(self, raw, shape, key, path, e):
        n = math.prod(shape)
        if n > len(raw):  # every string needs at least its one-byte length
            raise DataLossError(f"Corrupted checkpoint {path}: string tensor {key!r} of shape {shape} cannot fit in "
                                f"{len(raw)} bytes")
        pos, lengths = 0, []
        try:
            for _ in range(n):
                v = s = 0
                while True:
                    b = raw[pos]
                    pos += 1
                    v |= (b & 0x7F) << s
                    s += 7
                    if b < 0x80:
                        break
                lengths.append(v)
            pos += 4
        except IndexError:
            raise DataLossError(f"Corrupted checkpoint data file {path}: string tensor {key!r}") from None
        items = []
        for n_ in lengths:
            items.append(bytes(raw[pos:pos + n_]))
            pos += n_
        if pos != len(raw):
            raise DataLossError(f"Corrupted checkpoint data file {path}: string tensor {key!r} has the wrong size")
        c = _crc_extend(crc32c(b"".join(_size_bytes(x) for x in lengths)), raw[pos - sum(lengths) - 4:pos])
        if _mask(c) != e.crc32c:
            raise DataLossError(f"Checksum does not match for string tensor {key!r} in {path}")
        out = np.empty(n, dtype=object)
        out[:] = items
        return out.reshape(shape)
