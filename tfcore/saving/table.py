"""LevelDB's immutable table (SSTable) format, as TF writes a tensor bundle's ``.index`` file.

Layout (``tensorflow/core/lib/io/format.h``, from LevelDB): data blocks of prefix-compressed
``key -> value`` entries with a restart array every 16 entries, an (empty) meta-index block, an
index block mapping a separator key of each data block to its ``BlockHandle`` (varint64 offset,
varint64 size), and a 48-byte footer (the two handles, zero padded, then the magic number). Every
block is followed by a 1-byte compression type (0: none; TF writes bundles uncompressed) and the
masked CRC32C of the block and that byte. Readers verify every checksum.
"""

import struct

from ..framework.errors import DataLossError
from ..io.tf_record import crc32c, masked_crc32c

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_RESTART_INTERVAL = 16
_BLOCK_SIZE = 1 << 16
_MASK_DELTA = 0xA282EAD8


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_varint(buf, pos, path):
    result = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise DataLossError(f"Corrupted table {path}: bad varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _unmask(m):
    rot = (m - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


class _Block:
    def __init__(self):
        self.buf = bytearray()
        self.restarts = [0]
        self.count = 0
        self.last = b""

    def add(self, key, value):
        shared = 0
        if self.count < _RESTART_INTERVAL:
            n = min(len(key), len(self.last))
            while shared < n and key[shared] == self.last[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.count = 0
        self.buf += _varint(shared) + _varint(len(key) - shared) + _varint(len(value))
        self.buf += key[shared:] + value
        self.last = key
        self.count += 1

    def finish(self):
        return bytes(self.buf) + b"".join(struct.pack("<I", r) for r in self.restarts) + \
            struct.pack("<I", len(self.restarts))


def build_table(items):
    """The bytes of a table holding ``items`` (``(key bytes, value bytes)``, keys strictly increasing)."""
    out = bytearray()

    def emit(contents):
        handle = _varint(len(out)) + _varint(len(contents))
        trailer = b"\x00"
        out.extend(contents + trailer + struct.pack("<I", masked_crc32c(contents + trailer)))
        return handle

    index = _Block()
    block = _Block()
    prev = None
    for key, value in items:
        if prev is not None and key <= prev:
            raise ValueError(f"table keys must be strictly increasing: {key!r} after {prev!r}")
        block.add(key, value)
        prev = key
        if len(block.buf) >= _BLOCK_SIZE:
            index.add(key, emit(block.finish()))
            block = _Block()
    if block.count or not index.count:
        index.add(prev if prev is not None else b"", emit(block.finish()))
    meta = emit(_Block().finish())
    idx = emit(index.finish())
    footer = meta + idx
    footer += b"\x00" * (FOOTER_SIZE - 8 - len(footer)) + struct.pack("<Q", MAGIC)
    out.extend(footer)
    return bytes(out)


def _read_block(data, handle, path):
    offset, size = handle
    end = offset + size + 5
    if offset < 0 or end > len(data):
        raise DataLossError(f"Corrupted or truncated table {path}: block at {offset} (+{size}) runs past the "
                            f"end of the file ({len(data)} bytes)")
    contents = data[offset:offset + size]
    kind = data[offset + size]
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    if crc32c(contents + bytes([kind])) != _unmask(stored):
        raise DataLossError(f"Corrupted table {path}: checksum mismatch in block at offset {offset}")
    if kind != 0:
        raise DataLossError(f"Table {path}: unsupported block compression type {kind}")
    return contents


def _block_entries(contents, path):
    if len(contents) < 4:
        raise DataLossError(f"Corrupted table {path}: block too short")
    n_restarts = struct.unpack_from("<I", contents, len(contents) - 4)[0]
    limit = len(contents) - 4 * (n_restarts + 1)
    if limit < 0:
        raise DataLossError(f"Corrupted table {path}: bad restart array")
    pos, key = 0, b""
    while pos < limit:
        shared, pos = _read_varint(contents, pos, path)
        unshared, pos = _read_varint(contents, pos, path)
        vlen, pos = _read_varint(contents, pos, path)
        if shared > len(key) or pos + unshared + vlen > limit:
            raise DataLossError(f"Corrupted table {path}: bad entry in block")
        key = key[:shared] + contents[pos:pos + unshared]
        pos += unshared
        yield key, contents[pos:pos + vlen]
        pos += vlen


def read_table(data, path):
    """All ``(key, value)`` pairs of a table file's bytes, checksums verified."""
    if len(data) < FOOTER_SIZE:
        raise DataLossError(f"Truncated table {path}: {len(data)} bytes is shorter than the footer")
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != MAGIC:
        raise DataLossError(f"Corrupted table {path}: not an sstable (bad magic number)")
    pos = 0
    handles = []
    for _ in range(2):
        off, pos = _read_varint(footer, pos, path)
        size, pos = _read_varint(footer, pos, path)
        handles.append((off, size))
    body = data[:-FOOTER_SIZE]
    out = []
    for _, handle in _block_entries(_read_block(body, handles[1], path), path):
        off, p = _read_varint(handle, 0, path)
        size, _ = _read_varint(handle, p, path)
        out.extend(_block_entries(_read_block(body, (off, size), path), path))
    return out
