"""The data-only file format of ``Dataset.cache(filename)``: tensors as bytes, framed and checksummed.

A cache file is data, never code: reading one runs nothing from it (the format used to be
pickle, where a crafted file runs arbitrary code when loaded). TF writes its cache as a tensor
bundle; tfcore's bundle writer needs the ``checkpoint`` extra (protobuf) and holds the whole pass
in memory, so the cache streams its own small format instead, with NumPy and ``zlib`` only:

``<filename>.data-00000-of-00001``: ``MAGIC``, then one record per element::

    uint64 payload length | uint32 crc32(length) | payload | uint32 crc32(payload)

A payload is ``uint32 count`` then per component ``uint32 DataType enum | uint32 rank |
uint64 dims[rank] | uint64 nbytes | bytes``; a string component's bytes are ``uint64
lengths[n]`` followed by the strings. Integers are little-endian.

``<filename>.index``: ``INDEX_MAGIC``, ``uint64 elements | uint64 data bytes | uint32 crc32 of
those 16 bytes``. It is written after the data, so an unfinished pass has no index; a reader
checks the data file against it and every record's checksums, so a damaged or truncated cache
raises ``DataLossError`` naming the file, never fewer elements in silence. Every size read from a
file is compared with the bytes present before anything is allocated.
"""

import struct
import zlib

import numpy as np

from ..framework import dtypes
from ..framework.errors import DataLossError

MAGIC = b"tfcore-cache-data-v2\n"
INDEX_MAGIC = b"tfcore-cache-index-v2\n"
_LEN = struct.Struct("<QI")
_CRC = struct.Struct("<I")
_INDEX = struct.Struct("<QQ")


def _crc(b):
    return zlib.crc32(b) & 0xFFFFFFFF


def encode_element(leaves):
    """The record (bytes) of one element given its flat list of host ``(DType, ndarray)`` leaves."""
    parts = [struct.pack("<I", len(leaves))]
    for dtype, array in leaves:
        array = np.asarray(array)
        if dtype == dtypes.string:
            items = [x if isinstance(x, bytes) else str(x).encode() for x in array.ravel().tolist()]
            raw = np.asarray([len(x) for x in items], dtype="<u8").tobytes() + b"".join(items)
        else:
            a = np.ascontiguousarray(array, dtype=dtype.as_numpy_dtype)
            if dtype.name == "bfloat16":
                a = a.view(np.uint16)
            raw = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
        parts.append(struct.pack(f"<II{array.ndim}QQ", dtype.as_datatype_enum, array.ndim, *array.shape, len(raw)))
        parts.append(raw)
    payload = b"".join(parts)
    head = struct.pack("<Q", len(payload))
    return head + _CRC.pack(_crc(head)) + payload + _CRC.pack(_crc(payload))


def encode_index(count, data_size):
    body = _INDEX.pack(count, data_size)
    return INDEX_MAGIC + body + _CRC.pack(_crc(body))


def read_index(path):
    """``(elements, data bytes)`` recorded in the index file at ``path``."""
    with open(path, "rb") as f:
        raw = f.read(len(INDEX_MAGIC) + _INDEX.size + _CRC.size + 1)
    if raw.startswith(b"tfcore-cache-v1"):
        raise DataLossError(f"Cache file {path} was written by an older tfcore in an unsafe format (pickle) and is "
                            f"not read; delete {path} and the files beside it to rebuild the cache")
    body = raw[len(INDEX_MAGIC):len(INDEX_MAGIC) + _INDEX.size]
    if not raw.startswith(INDEX_MAGIC) or len(raw) != len(INDEX_MAGIC) + _INDEX.size + _CRC.size \
            or _CRC.unpack_from(raw, len(INDEX_MAGIC) + _INDEX.size)[0] != _crc(body):
        raise DataLossError(f"Corrupted cache index {path}: not a tfcore cache index, or damaged")
    return _INDEX.unpack(body)


class _Payload:
    """Bounds-checked reads from one record's payload; any overrun is a ``DataLossError``."""

    def __init__(self, data, path, element):
        self.data, self.pos, self.path, self.element = data, 0, path, element

    def fail(self, what):
        raise DataLossError(f"Corrupted cache file {self.path}: element {self.element}: {what}")

    def take(self, n):
        if n > len(self.data) - self.pos:
            self.fail(f"needs {n} bytes at offset {self.pos}, the record has {len(self.data) - self.pos} left")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt):
        s = struct.Struct(fmt)
        return s.unpack(self.take(s.size))


def decode_payload(payload, path, element):
    """The flat list of ``(DType, ndarray)`` of one element's payload."""
    p = _Payload(payload, path, element)
    (count,) = p.unpack("<I")
    if count > len(payload):
        p.fail(f"{count} components in a record of {len(payload)} bytes")
    leaves = []
    for _ in range(count):
        enum, rank = p.unpack("<II")
        try:
            dtype = dtypes.as_dtype(enum)
        except (TypeError, ValueError, KeyError):
            p.fail(f"unknown dtype enum {enum}")
        if rank > 254:
            p.fail(f"rank {rank} is more than a tensor can have")
        shape = p.unpack(f"<{rank}Q")
        (nbytes,) = p.unpack("<Q")
        raw = p.take(nbytes)  # checked against the bytes present before any array is made
        n = 1
        for d in shape:
            n *= d
        if dtype == dtypes.string:
            if 8 * n > nbytes:
                p.fail(f"string tensor of shape {list(shape)} in {nbytes} bytes")
            lengths = np.frombuffer(raw, dtype="<u8", count=n)
            if int(lengths.sum(dtype=np.uint64)) != nbytes - 8 * n:
                p.fail(f"string lengths do not add up to the {nbytes - 8 * n} bytes stored")
            items, pos = [], 8 * n
            for length in lengths.tolist():
                items.append(bytes(raw[pos:pos + length]))
                pos += length
            a = np.empty(n, dtype=object)
            a[:] = items
            leaves.append((dtype, a.reshape(shape)))
            continue
        np_dtype = np.dtype(np.uint16) if dtype.name == "bfloat16" else np.dtype(dtype.as_numpy_dtype)
        if n * np_dtype.itemsize != nbytes:
            p.fail(f"{dtype.name} tensor of shape {list(shape)} needs {n * np_dtype.itemsize} bytes, has {nbytes}")
        a = np.frombuffer(raw, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(shape)
        if dtype.name == "bfloat16":
            a = a.view(dtype.as_numpy_dtype)
        leaves.append((dtype, a))
    if p.pos != len(payload):
        p.fail(f"{len(payload) - p.pos} bytes left over after the last component")
    return leaves


def read_records(path, expected_count, expected_size):
    """Yield each element's flat ``(DType, ndarray)`` list from the data file, verifying everything."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        if size != expected_size:
            raise DataLossError(f"Truncated or damaged cache file {path}: {size} bytes, its index records "
                                f"{expected_size}")
        f.seek(0)
        if f.read(len(MAGIC)) != MAGIC:
            raise DataLossError(f"Corrupted cache file {path}: not a tfcore cache data file")
        for i in range(expected_count):
            head = f.read(_LEN.size)
            if len(head) != _LEN.size:
                raise DataLossError(f"Truncated cache file {path}: element {i} of {expected_count} is missing")
            length, crc = _LEN.unpack(head)
            if crc != _crc(head[:8]):
                raise DataLossError(f"Corrupted cache file {path}: element {i}: length checksum does not match")
            if length + _CRC.size > size - f.tell():
                raise DataLossError(f"Truncated cache file {path}: element {i} claims {length} bytes, "
                                    f"{size - f.tell()} remain")
            payload = f.read(length)
            (crc,) = _CRC.unpack(f.read(_CRC.size))
            if crc != _crc(payload):
                raise DataLossError(f"Corrupted cache file {path}: element {i}: checksum does not match")
            yield decode_payload(payload, path, i)
        if f.tell() != size:
            raise DataLossError(f"Corrupted cache file {path}: {size - f.tell()} bytes after the last element")
