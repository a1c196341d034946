"""Image and audio codecs of ``tf.io``: PNG encoding (zlib only), PNG/JPEG/GIF/BMP decoding (Pillow), WAV.

``encode_png`` writes PNG itself (one IDAT of zlib-compressed, unfiltered rows), so summaries
need no imaging library; decoding uses Pillow (``pip install 'tfcore[images]'``). Every codec is
a registered op on host tensors: encoded images are scalar ``tf.string`` tensors.
"""

import io as _pyio
import struct
import zlib

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ..ops.image_ops import convert_image_dtype
from ..ops.registry import Op, execute
from . import _deps

_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type (gray, gray+alpha, RGB, RGBA)


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bytes(image, compression=-1):
    """PNG file bytes of a ``[height, width, channels]`` uint8/uint16 NumPy array."""
    h, w, c = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    rows = image.astype(">u2" if depth == 16 else np.uint8, copy=False).reshape(h, w * c)
    raw = np.zeros((h, rows.nbytes // max(h, 1) + 1 if h else 1), dtype=np.uint8)
    if h:
        raw[:, 1:] = np.ascontiguousarray(rows).view(np.uint8).reshape(h, -1)
    ihdr = struct.pack(">IIBBBBB", w, h, depth, _COLOR_TYPE[c], 0, 0, 0)
    level = -1 if compression is None or compression < 0 else min(int(compression), 9)
    return b"".join((_PNG_SIG, _chunk(b"IHDR", ihdr), _chunk(b"IDAT", zlib.compress(raw[:h].tobytes(), level)),
                     _chunk(b"IEND", b"")))


def _scalar_bytes(value):
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _encode_png_rule(op, inputs, attrs):
    t = inputs[0]
    if t._dtype not in (dtypes.uint8, dtypes.uint16):
        raise InvalidArgumentError(None, None, f"EncodePng: image must be uint8 or uint16, got {t._dtype.name}")
    if t._array.ndim != 3 or t._array.shape[2] not in _COLOR_TYPE:
        raise InvalidArgumentError(None, None, f"EncodePng: image must be [height, width, channels] with 1-4 "
                                               f"channels, got shape {list(t._array.shape)}")
    return dtypes.string


_ENCODE_PNG = Op("EncodePng", rule=_encode_png_rule, output_arg="contents")
_ENCODE_PNG.kernel("cpu")(lambda b, image, compression: _scalar_bytes(png_bytes(np.asarray(image), compression)))


def encode_png(image, compression=-1, name=None):
    """``tf.io.encode_png``: PNG-encode a ``[h, w, c]`` uint8/uint16 image (c in 1..4)."""
    return execute(_ENCODE_PNG, (convert_to_tensor(image),), {"compression": compression})


def _wav_bytes(audio, sample_rate):
    samples = np.clip(np.round(np.asarray(audio, np.float32) * np.float32(32768.0)), -32768, 32767).astype("<i2")
    frames, channels = samples.shape
    data = samples.tobytes()
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * channels * 2, channels * 2, 16)
    return b"".join((b"RIFF", struct.pack("<I", 36 + len(data)), b"WAVE", b"fmt ", struct.pack("<I", 16), fmt,
                     b"data", struct.pack("<I", len(data)), data))


def _encode_wav_rule(op, inputs, attrs):
    a, rate = inputs
    if not a._dtype.is_floating or a._array.ndim != 2:
        raise InvalidArgumentError(None, None, f"EncodeWav: audio must be a float [frames, channels] tensor, got "
                                               f"{a._dtype.name}{list(a._array.shape)}")
    if rate._array.ndim != 0 or not rate._dtype.is_integer:
        raise InvalidArgumentError(None, None, "EncodeWav: sample_rate must be an integer scalar")
    return dtypes.string


_ENCODE_WAV = Op("EncodeWav", rule=_encode_wav_rule, output_arg="contents")
_ENCODE_WAV.kernel("cpu")(lambda b, audio, rate: _scalar_bytes(_wav_bytes(audio, int(rate))))


def encode_wav(audio, sample_rate, name=None):
    """``tf.audio.encode_wav``: 16-bit PCM WAV bytes of a float ``[frames, channels]`` tensor in [-1, 1]."""
    return execute(_ENCODE_WAV, (convert_to_tensor(audio), convert_to_tensor(sample_rate, dtype=dtypes.int32)))


# -- decoding (Pillow) ------------------------------------------------------------
_CHANNEL_MODES = {1: "L", 3: "RGB", 4: "RGBA"}


def _kind(data):
    if data[:8] == _PNG_SIG:
        return "png"
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


def decode_array(data, channels, dtype, what, expect=None, expand_animations=True):
    """Decode image bytes to a ``[h, w, c]`` (GIF: ``[frames, h, w, c]``) NumPy array."""
    kind = _kind(data)
    if kind is None or (expect is not None and kind not in expect):
        raise InvalidArgumentError(None, None, f"{what}: Unknown image file format. One of JPEG, PNG, GIF, BMP "
                                               "required." if expect is None else
                                   f"{what}: the data is not a {' or '.join(e.upper() for e in expect)} image")
    image_mod = _deps.pil_image()
    try:
        img = image_mod.open(_pyio.BytesIO(data))
        if kind == "jpeg" and channels == 1:
            img.draft("L", img.size)  # libjpeg's own grayscale output (the Y channel), as TF decodes it
        img.load()
    except Exception as e:  # Pillow raises OSError/SyntaxError/ValueError on damaged files
        raise InvalidArgumentError(None, None, f"{what}: invalid {kind.upper()} data: {e}") from e
    if kind == "gif":
        frames = []
        for i in range(getattr(img, "n_frames", 1) if expand_animations else 1):
            img.seek(i)
            frames.append(_to_array(img.convert("RGB"), channels or 3, np.uint8))
        arr = np.stack(frames)
        return arr if expand_animations else arr[0]
    wide = img.mode in ("I;16", "I;16B", "I") and dtype is dtypes.uint16
    if channels == 0:
        channels = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "P": 4 if "transparency" in img.info else 3,
                    "I;16": 1, "I;16B": 1, "I": 1, "1": 1, "CMYK": 3, "YCbCr": 3}.get(img.mode, 3)
    if wide:
        arr = np.asarray(img, dtype=np.uint16)
        arr = arr[..., None] if arr.ndim == 2 else arr
        return np.repeat(arr, channels, axis=2) if channels in (3, 4) and arr.shape[2] == 1 else arr
    if kind == "png" and channels in (1, 2) and img.mode not in ("L", "LA", "1", "I;16", "I;16B", "I"):
        arr = _png_gray(np.asarray(img.convert("RGBA")), channels)
    else:
        arr = _to_array(img, channels, np.uint8)
    if dtype is dtypes.uint16:
        arr = arr.astype(np.uint16) * 257
    return arr


def _png_gray(rgba, channels):
    """libpng's rgb_to_gray as TF calls it: (9798 R + 19235 G + 3735 B) >> 15, truncated."""
    a = rgba.astype(np.int64)
    gray = ((9798 * a[..., 0] + 19235 * a[..., 1] + 3735 * a[..., 2]) >> 15).astype(np.uint8)
    return gray[..., None] if channels == 1 else np.stack([gray, rgba[..., 3]], axis=-1)


def _to_array(img, channels, np_dt):
    if channels == 2:
        return np.asarray(img.convert("LA"), dtype=np_dt)
    if img.mode in ("I;16", "I;16B", "I"):
        img = img.point(lambda v: v / 257).convert("L")
    arr = np.asarray(img.convert(_CHANNEL_MODES[channels]), dtype=np_dt)
    return arr[..., None] if arr.ndim == 2 else arr


def _decode_rule(op, inputs, attrs):
    c = inputs[0]
    if c._dtype is not dtypes.string or c._array.ndim != 0:
        raise InvalidArgumentError(None, None, f"{op.name}: contents must be a scalar string, got "
                                               f"{c._dtype.name}{list(c._array.shape)}")
    if attrs["channels"] not in (0, 1, 2, 3, 4):
        raise InvalidArgumentError(None, None, f"{op.name}: channels must be 0, 1, 3 or 4, got {attrs['channels']}")
    return attrs["dtype"]


def _decode_kernel(name, expect):
    def kernel(b, contents, channels, dtype, expand_animations=True):
        return decode_array(contents.reshape(()).item(), channels, dtype, name, expect, expand_animations)

    return kernel


_DECODE_IMAGE = Op("DecodeImage", rule=_decode_rule, output_arg="image")
_DECODE_IMAGE.kernel("cpu")(_decode_kernel("DecodeImage", None))
_DECODE_PNG = Op("DecodePng", rule=_decode_rule, output_arg="image")
_DECODE_PNG.kernel("cpu")(_decode_kernel("DecodePng", ("png",)))
_DECODE_JPEG = Op("DecodeJpeg", rule=_decode_rule, output_arg="image")
_DECODE_JPEG.kernel("cpu")(_decode_kernel("DecodeJpeg", ("jpeg",)))


def _contents(contents):
    return convert_to_tensor(contents, dtype=dtypes.string)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """``tf.io.decode_png``: a ``[h, w, c]`` uint8 (or uint16) image; ``channels=0`` keeps the file's."""
    return execute(_DECODE_PNG, (_contents(contents),), {"channels": channels, "dtype": dtypes.as_dtype(dtype)})


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """``tf.io.decode_jpeg``: a ``[h, w, c]`` uint8 image."""
    return execute(_DECODE_JPEG, (_contents(contents),), {"channels": channels, "dtype": dtypes.uint8})


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """``tf.io.decode_image``: PNG, JPEG, GIF (``[frames, h, w, 3]``) or BMP, by the file's signature.

    A float ``dtype`` rescales to [0, 1] as ``tf.image.convert_image_dtype`` does.
    """
    dt = dtypes.as_dtype(dtype)
    raw_dt = dtypes.uint16 if dt is dtypes.uint16 else dtypes.uint8
    out = execute(_DECODE_IMAGE, (_contents(contents),),
                  {"channels": channels or 0, "dtype": raw_dt, "expand_animations": expand_animations})
    if dt.is_floating:
        out = convert_image_dtype(out, dt)
    return out


def _encode_jpeg_kernel(b, image, quality):
    image_mod = _deps.pil_image()
    arr = np.asarray(image)
    img = image_mod.fromarray(arr[..., 0] if arr.shape[2] == 1 else arr, "L" if arr.shape[2] == 1 else "RGB")
    buf = _pyio.BytesIO()
    img.save(buf, format="JPEG", quality=int(quality))
    return _scalar_bytes(buf.getvalue())


def _encode_jpeg_rule(op, inputs, attrs):
    t = inputs[0]
    if t._dtype is not dtypes.uint8 or t._array.ndim != 3 or t._array.shape[2] not in (1, 3):
        raise InvalidArgumentError(None, None, f"EncodeJpeg: image must be a uint8 [h, w, 1 or 3] tensor, got "
                                               f"{t._dtype.name}{list(t._array.shape)}")
    return dtypes.string


_ENCODE_JPEG = Op("EncodeJpeg", rule=_encode_jpeg_rule, output_arg="contents")
_ENCODE_JPEG.kernel("cpu")(_encode_jpeg_kernel)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="",
                name=None):
    """``tf.io.encode_jpeg``: JPEG-encode a uint8 ``[h, w, 1 or 3]`` image (Pillow)."""
    if not 0 <= int(quality) <= 100:
        raise InvalidArgumentError(None, None, f"EncodeJpeg: quality must be in [0, 100], got {quality}")
    return execute(_ENCODE_JPEG, (convert_to_tensor(image),), {"quality": int(quality)})
