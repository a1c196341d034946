"""TFRecord files: TF's record framing with masked CRC32C checksums, uncompressed, GZIP or ZLIB.

A record is ``uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)``
(little endian); ``masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8``. GZIP and ZLIB files are
the same byte stream inside one gzip or zlib container. Readers check both checksums and raise
``DataLossError`` naming the file and the record's offset; writers are used by
``tf.io.TFRecordWriter`` and by the summary writer's event files.
"""

import gzip
import io
import os
import struct
import zlib

from ..framework.errors import DataLossError, FailedPreconditionError, InvalidArgumentError, NotFoundError
from . import _deps

_MASK_DELTA = 0xA282EAD8
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_HEADER = struct.Struct("<QI")
_crc = [None]


def crc32c(data):
    f = _crc[0]
    if f is None:
        f = _crc[0] = _deps.crc32c_value()
    return f(data)


def masked_crc32c(data):
    """TFRecord's masked CRC32C of ``data`` (what the file stores)."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


class TFRecordCompressionType:
    """``tf.io.TFRecordCompressionType`` (the values of the deprecated enum)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {None: "", "": "", "NONE": "", "ZLIB": "ZLIB", "GZIP": "GZIP",
          TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
          TFRecordCompressionType.GZIP: "GZIP"}


def compression_name(compression_type, what="compression_type"):
    """'' / 'ZLIB' / 'GZIP' for any of TF's spellings; ValueError otherwise."""
    key = compression_type.upper() if isinstance(compression_type, str) else compression_type
    try:
        return _NAMES[key]
    except (KeyError, TypeError):
        raise ValueError(f"{what} must be one of None, '', 'ZLIB' or 'GZIP'; got {compression_type!r}") from None


class TFRecordOptions:
    """``tf.io.TFRecordOptions``: compression of a TFRecord file and its zlib settings."""

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB", TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        self.compression_type = compression_name(compression_type)
        if compression_level is not None and not -1 <= compression_level <= 9:
            raise ValueError(f"compression_level must be in [-1, 9]; got {compression_level}")
        if window_bits is not None and not 8 <= window_bits <= 15:
            raise ValueError(f"window_bits must be in [8, 15]; got {window_bits}")
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """'' / 'ZLIB' / 'GZIP' for a TFRecordOptions, a string or None."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return compression_name(options, "options")


def _options(options):
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(compression_name(options, "options"))


class RecordWriter:
    """Appends records to a file (uncompressed or inside one GZIP/ZLIB stream)."""

    def __init__(self, path, options=None, mode="wb"):
        opts = _options(options)
        self.path = os.fspath(path)
        try:
            self._file = open(self.path, mode)  # noqa: SIM115 - closed by close()
        except FileNotFoundError as e:
            raise NotFoundError(None, None, f"{self.path}; No such file or directory") from e
        kind = opts.compression_type
        if kind:
            level = -1 if opts.compression_level is None else opts.compression_level
            bits = 15 if opts.window_bits is None else opts.window_bits
            self._z = zlib.compressobj(level, zlib.DEFLATED, bits + 16 if kind == "GZIP" else bits,
                                       opts.mem_level or 8, opts.compression_strategy or 0)
        else:
            self._z = None

    def write(self, record):
        if self._file is None:
            raise FailedPreconditionError(None, None, f"TFRecordWriter for {self.path} is closed.")
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif not isinstance(record, bytes):
            record = bytes(record)
        length = _U64.pack(len(record))
        chunk = b"".join((length, _U32.pack(masked_crc32c(length)), record, _U32.pack(masked_crc32c(record))))
        self._file.write(self._z.compress(chunk) if self._z is not None else chunk)

    def flush(self):
        if self._file is None:
            raise FailedPreconditionError(None, None, f"TFRecordWriter for {self.path} is closed.")
        if self._z is not None:
            self._file.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        if self._file is None:
            return
        if self._z is not None:
            self._file.write(self._z.flush(zlib.Z_FINISH))
        self._file.close()
        self._file = None


class TFRecordWriter(RecordWriter):
    """``tf.io.TFRecordWriter(path, options=None)``: writes serialized records to a TFRecord file.

    ``options`` is a :class:`TFRecordOptions` or a compression type ('', 'ZLIB', 'GZIP').
    Use as a context manager, or call ``close()``.
    """

    def __init__(self, path, options=None):
        super().__init__(path, options)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _ZlibStream(io.RawIOBase):
    """A readable stream of the bytes inside a zlib container, decompressed as they are read."""

    def __init__(self, raw, chunk=1 << 16):
        self._raw, self._chunk = raw, chunk
        self._z = zlib.decompressobj()
        self._pending = b""

    def readable(self):
        return True

    def readinto(self, b):
        while not self._pending:
            if self._z.eof:
                return 0
            data = self._raw.read(self._chunk)
            if not data:
                raise EOFError("zlib stream ended before the end-of-stream marker was reached")
            self._pending = self._z.decompress(data, len(b))
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        if not self._pending and self._z.unconsumed_tail:
            self._pending = self._z.decompress(self._z.unconsumed_tail, len(b))
        return n

    def close(self):
        self._raw.close()
        super().close()


def open_records(path, compression_type=None, buffer_size=None):
    """A buffered binary stream of the record bytes in ``path`` (decompressed as read)."""
    path = os.fspath(path)
    kind = compression_name(compression_type)
    size = buffer_size or 256 * 1024
    try:
        raw = open(path, "rb", buffering=0)  # noqa: SIM115 - owned by the returned stream
    except FileNotFoundError as e:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from e
    except IsADirectoryError as e:
        raise InvalidArgumentError(None, None, f"{path} is a directory, not a TFRecord file") from e
    if kind == "GZIP":
        return io.BufferedReader(gzip.GzipFile(fileobj=io.BufferedReader(raw, size), mode="rb"), size)
    if kind == "ZLIB":
        return io.BufferedReader(_ZlibStream(raw), size)
    return io.BufferedReader(raw, size)


_CHUNKED_ABOVE = 64 << 20  # longer records are read piecewise: memory follows the bytes actually present


def _read_chunked(read, n):
    """Up to ``n`` bytes from ``read``, never asking for more than 64 MiB at once (a length field can lie)."""
    parts, got = [], 0
    while got < n:
        part = read(min(n - got, _CHUNKED_ABOVE))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def iter_records(path, compression_type=None, buffer_size=None, verify=True):
    """Yield the records of a TFRecord file as ``bytes``.

    Raises DataLossError naming ``path`` when a record is truncated, a checksum does not match
    or the compressed stream is damaged.
    """
    path = os.fspath(path)
    # an uncompressed file's size bounds every length field; a compressed stream is read in chunks instead
    file_size = os.path.getsize(path) if compression_name(compression_type) == "" and os.path.isfile(path) else None
    with open_records(path, compression_type, buffer_size) as f:
        read = f.read
        unpack = _HEADER.unpack
        crc = masked_crc32c
        offset = 0
        try:
            while True:
                header = read(12)
                if len(header) < 12:
                    if header:
                        raise DataLossError(None, None, f"{path}: truncated record at {offset} "
                                                        f"(a record header needs 12 bytes, the file has {len(header)})")
                    return
                length, length_crc = unpack(header)
                if verify and crc(header[:8]) != length_crc:
                    raise DataLossError(None, None, f"{path}: corrupted record at {offset} (length checksum mismatch)")
                if file_size is not None and length + 4 > file_size - offset - 12:
                    raise DataLossError(None, None, f"{path}: truncated record at {offset} (its length field says "
                                                    f"{length} data bytes, the file has "
                                                    f"{max(file_size - offset - 16, 0)} left)")
                body = read(length + 4) if length <= _CHUNKED_ABOVE else _read_chunked(read, length + 4)
                if len(body) < length + 4:
                    raise DataLossError(None, None, f"{path}: truncated record at {offset} (expected {length} "
                                                    f"data bytes and a checksum, the file has {len(body)} bytes left)")
                data = body[:length]
                if verify and crc(data) != _U32.unpack_from(body, length)[0]:
                    raise DataLossError(None, None, f"{path}: corrupted record at {offset} (data checksum mismatch)")
                offset += length + 16
                yield data
        except (EOFError, zlib.error, OSError) as e:  # gzip.BadGzipFile is an OSError
            raise DataLossError(None, None, f"{path}: corrupted or truncated compressed stream after record "
                                            f"offset {offset}: {e}") from e
