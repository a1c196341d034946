"""TensorFlow's Philox4x32-10 stream and its distributions, bit for bit, vectorised with NumPy.

TF draws every seeded random number (stateless ops, ``tf.random.Generator``, the legacy seeded ops,
``Dataset.shuffle``) from Philox4x32-10 with a 64-bit key and a 128-bit counter
(``tensorflow/core/lib/random/philox_random.h``); NumPy's ``np.random.Philox`` is the 4x64 variant and
gives other numbers. This module follows TF's sources:

- ``philox_random.h``: ``PhiloxRandom`` (the round function, ``Skip``, the ``(seed, seed2)`` and
  ``(counter, key)`` constructors);
- ``random_distributions.h``: ``Uint32ToFloat``, ``Uint64ToDouble``, ``Uint16ToHalf``, the integer
  range rule of ``UniformDistribution<int>``, ``BoxMullerFloat``/``BoxMullerDouble``,
  ``TruncatedNormalDistribution`` and ``SingleSampleAdapter``;
- ``random_op_cpu.h``: ``FillPhiloxRandomTask`` (group ``i`` of a fixed-sample distribution uses the
  generator skipped by ``i``; a variable-sample one, truncated normal, by ``i * 256 * group / 4``);
- ``stateless_random_ops.cc``: ``GenerateKey`` (a ``[2]`` seed scrambled into key and counter, as
  ``StatelessRandomGetKeyCounter`` returns them).

A 32x32 -> 64-bit multiply is a uint64 product; every value here equals TF 2.21's on CPU.
"""

import numpy as np

from ..backend import native_cpu

__all__ = ["PhiloxStream", "key_counter_from_seed", "fill", "uint32_to_float", "uint64_to_double",
           "box_muller_float", "box_muller_double"]

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)   # kPhiloxM4x32A, kPhiloxM4x32B
_W0, _W1 = 0x9E3779B9, 0xBB67AE85                          # kPhiloxW32A, kPhiloxW32B
_MASK32 = np.uint64(0xFFFFFFFF)
_MASK64 = (1 << 64) - 1
_SHIFT32 = np.uint64(32)
_NATIVE_MIN_BLOCKS = 64  # fewer blocks: NumPy (no call overhead worth saving)
RESERVED_SAMPLES_PER_OUTPUT = 256  # kReservedSamplesPerOutput (random_op_cpu.h / stateful ops)


def _philox_rounds(c0, c1, c2, c3, k0, k1):
    """Ten Philox4x32 rounds on uint64 arrays holding 32-bit lanes; returns four uint32 arrays."""
    k0, k1 = int(k0), int(k1)
    for r in range(10):
        p0 = c0 * _M0
        p1 = c2 * _M1
        hi0, lo0 = p0 >> _SHIFT32, p0 & _MASK32
        hi1, lo1 = p1 >> _SHIFT32, p1 & _MASK32
        key0 = np.uint64((k0 + r * _W0) & 0xFFFFFFFF)
        key1 = np.uint64((k1 + r * _W1) & 0xFFFFFFFF)
        c0, c1, c2, c3 = hi1 ^ c1 ^ key0, lo1, hi0 ^ c3 ^ key1, lo0
    return c0, c1, c2, c3


class PhiloxStream:
    """``random::PhiloxRandom``: a key (two uint32 words) and a 128-bit counter, as TF holds them.

    ``blocks(n)`` returns the next ``n`` outputs of 4 uint32 words (shape ``[n, 4]``) and advances
    the counter by ``n`` (TF's ``operator()`` then ``SkipOne``); ``skip(n)`` is TF's ``Skip``.
    """

    __slots__ = ("key", "counter")

    def __init__(self, key=0, counter=0):
        self.key = int(key) & _MASK64          # key_[0] | key_[1] << 32
        self.counter = int(counter) & ((1 << 128) - 1)  # counter_[0] | ... | counter_[3] << 96

    @classmethod
    def from_seeds(cls, seed, seed2=0):
        """``PhiloxRandom(seed_lo, seed_hi)``: the key is ``seed``, the counter's high 64 bits ``seed2``."""
        return cls(int(seed) & _MASK64, (int(seed2) & _MASK64) << 64)

    @classmethod
    def from_words(cls, counter_words, key_words):
        """From TF's ``ResultType counter`` (4 uint32) and ``Key`` (2 uint32)."""
        c = sum((int(w) & 0xFFFFFFFF) << (32 * i) for i, w in enumerate(counter_words))
        k = sum((int(w) & 0xFFFFFFFF) << (32 * i) for i, w in enumerate(key_words))
        return cls(k, c)

    def copy(self):
        return PhiloxStream(self.key, self.counter)

    def skip(self, n):
        """TF's ``Skip(count)``: advance the 128-bit counter by ``n`` blocks."""
        self.counter = (self.counter + int(n)) & ((1 << 128) - 1)
        return self

    def blocks_at(self, offsets):
        """The blocks at ``counter + offsets`` (uint64 array), without advancing: ``[len, 4]`` uint32.

        Many blocks are computed by the native kernel ``tfc_philox`` when it is built, else with NumPy.
        """
        offsets = np.ascontiguousarray(offsets, np.uint64).reshape(-1)
        lib = native_cpu.library() if offsets.size >= _NATIVE_MIN_BLOCKS else None
        if lib is not None:
            out = np.empty((offsets.size, 4), np.uint32)
            lib.fn("tfc_philox")(self.key, self.counter & _MASK64, self.counter >> 64, native_cpu.ptr(offsets),
                                 offsets.size, native_cpu.ptr(out))
            return out
        return self.blocks_at_numpy(offsets)

    def blocks_at_numpy(self, offsets):
        """:meth:`blocks_at` in NumPy (the reference the native kernel is tested against)."""
        offsets = np.asarray(offsets, np.uint64)
        lo = np.uint64(self.counter & _MASK64)
        hi = self.counter >> 64
        c_lo = lo + offsets                      # wraps modulo 2**64
        carry = (c_lo < offsets).astype(np.uint64)
        c_hi = np.uint64(hi & _MASK64) + carry
        c0, c1 = c_lo & _MASK32, c_lo >> _SHIFT32
        c2, c3 = c_hi & _MASK32, c_hi >> _SHIFT32
        out = _philox_rounds(c0, c1, c2, c3, self.key & 0xFFFFFFFF, self.key >> 32)
        return np.stack(out, axis=-1).astype(np.uint32)

    def blocks(self, n):
        """The next ``n`` blocks (``[n, 4]`` uint32); the counter advances by ``n``."""
        out = self.blocks_at(np.arange(int(n), dtype=np.uint64))
        self.skip(n)
        return out

    def uint32s(self, n):
        """The next ``n`` uint32 samples of a fresh ``SingleSampleAdapter`` (whole blocks are consumed)."""
        return self.blocks(-(-int(n) // 4)).reshape(-1)[:int(n)]


def key_counter_from_seed(seed0, seed1):
    """``GenerateKey``: the Philox stream a stateless op uses for the ``[2]`` seed ``(seed0, seed1)``.

    The seed words (sign-extended to 64 bits, as TF copies an int32 seed) form a counter that is
    hashed under a fixed key; the hash gives the key and the counter's high half.
    """
    s0, s1 = int(seed0) & _MASK64, int(seed1) & _MASK64
    scramble = PhiloxStream(0x02461E29 << 32 | 0x3EC8F720, s0 | s1 << 64)
    mix = [int(w) for w in scramble.blocks_at([0])[0]]
    return PhiloxStream.from_words([0, 0, mix[2], mix[3]], [mix[0], mix[1]])


# -- conversions (random_distributions.h) ------------------------------------------------------------

def uint32_to_float(x):
    """``Uint32ToFloat``: 23 random mantissa bits with exponent 127, minus 1: a float32 in [0, 1)."""
    bits = (np.asarray(x, np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1.0)


def uint64_to_double(x0, x1):
    """``Uint64ToDouble``: 20 mantissa bits from ``x0`` and 32 from ``x1``, exponent 1023, minus 1."""
    man = (np.asarray(x0, np.uint64) & np.uint64(0xFFFFF)) << _SHIFT32 | np.asarray(x1, np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def uint16_to_half(x):
    """``Uint16ToHalf``: 10 mantissa bits, exponent 15, minus 1: a float16 in [0, 1)."""
    bits = (np.asarray(x, np.uint32).astype(np.uint16) & np.uint16(0x3FF)) | np.uint16(15 << 10)
    return bits.view(np.float16) - np.float16(1.0)


def _native_box_muller(words, np_dtype):
    """TF's Box-Muller in C (``tfc_box_muller_*`` of ``kernels/cpu_kernels.cc``), or None without it."""
    lib = native_cpu.library()
    if lib is None:
        return None
    words = np.ascontiguousarray(words, np.uint32)
    out = np.empty(words.size // (4 if np_dtype == np.float64 else 2) * 2, np_dtype)
    lib.fn("tfc_box_muller", np_dtype)(native_cpu.ptr(words), out.size // 2, native_cpu.ptr(out))
    return out


def box_muller_float(x0, x1):
    """``BoxMullerFloat``: two float32 normals from two uint32 arrays.

    TF computes ``u1 = max(Uint32ToFloat(x0), 1e-7f)``, ``v1 = 2 * M_PI * Uint32ToFloat(x1)`` (in
    double, rounded to float), ``u2 = sqrtf(-2 * logf(u1))`` and ``sincosf(v1)`` with glibc. The
    native kernel calls the same functions; without it NumPy evaluates them in double and rounds to
    float32, which differs from glibc by one ulp in about 1.5% of the values.
    """
    x0, x1 = np.broadcast_arrays(np.asarray(x0, np.uint32), np.asarray(x1, np.uint32))
    out = _native_box_muller(np.stack([x0, x1], axis=-1), np.float32)
    if out is not None:
        pairs = out.reshape(x0.shape + (2,))
        return pairs[..., 0], pairs[..., 1]
    u1 = np.maximum(uint32_to_float(x0), np.float32(1.0e-7))
    v1 = (2.0 * np.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32).astype(np.float64)
    lg = np.log(u1.astype(np.float64)).astype(np.float32)
    u2 = np.sqrt((np.float32(-2.0) * lg).astype(np.float64)).astype(np.float32)
    return np.sin(v1).astype(np.float32) * u2, np.cos(v1).astype(np.float32) * u2


def box_muller_double(x0, x1, x2, x3):
    """``BoxMullerDouble``: two float64 normals from four uint32 arrays (glibc's ``log``, ``sqrt`` and
    ``sincos`` in the native kernel; NumPy's, which differ in the last bit now and then, without it)."""
    xs = np.broadcast_arrays(*(np.asarray(x, np.uint32) for x in (x0, x1, x2, x3)))
    out = _native_box_muller(np.stack(xs, axis=-1), np.float64)
    if out is not None:
        pairs = out.reshape(xs[0].shape + (2,))
        return pairs[..., 0], pairs[..., 1]
    u1 = np.maximum(uint64_to_double(xs[0], xs[1]), 1.0e-7)
    v1 = 2 * np.pi * uint64_to_double(xs[2], xs[3])
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


# -- FillPhiloxRandom: a distribution over an output of `size` elements ------------------------------

def _interleave(a, b):
    out = np.empty(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    out[..., 0::2] = a
    out[..., 1::2] = b
    return out


def _fixed(stream, size, kind, np_dtype, lo=0, span=0):
    """A fixed-sample distribution: output group ``i`` comes from block ``i``."""
    per64 = np.dtype(np_dtype).itemsize == 8
    per_block = 2 if per64 else 4
    groups = -(-size // per_block)
    blk = stream.blocks_at(np.arange(groups, dtype=np.uint64))
    if kind == "uniform":
        if np_dtype == np.float64:
            out = uint64_to_double(blk[:, 0::2], blk[:, 1::2])
        elif np_dtype == np.float16:
            out = uint16_to_half(blk)
        else:
            out = uint32_to_float(blk)
    elif kind == "normal":
        if np_dtype == np.float64:
            out = np.stack(box_muller_double(blk[:, 0], blk[:, 1], blk[:, 2], blk[:, 3]), axis=-1)
        else:
            f0, f1 = box_muller_float(blk[:, 0::2], blk[:, 1::2])
            out = _interleave(f0, f1)
            if np_dtype != np.float32:
                out = out.astype(np_dtype)
    elif kind in ("int", "full_int"):
        if per64:
            bits = blk[:, 0::2].astype(np.uint64) | blk[:, 1::2].astype(np.uint64) << _SHIFT32
        else:
            bits = blk
        if kind == "int":
            wide = np.uint64 if per64 else np.uint32
            bits = (bits % wide(span)).astype(wide) + np.asarray(lo).astype(np_dtype).view(wide)
        out = bits.view(np.dtype(np_dtype)) if bits.dtype.itemsize == np.dtype(np_dtype).itemsize else \
            bits.astype(np_dtype)
    else:
        raise ValueError(f"unknown distribution {kind!r}")
    return out.reshape(-1)[:size]


def _truncated(stream, size, np_dtype, native=True):
    """``TruncatedNormalDistribution`` filled as ``FillPhiloxRandomTask<..., true>`` fills it.

    Group ``i`` (4 float32 or 2 float64 outputs) reads a ``SingleSampleAdapter`` over the stream
    skipped by ``i * 256 * group / 4`` blocks and keeps the normals with ``|x| < 2`` until the group
    is full. Vectorised: every group reads ``m`` blocks at once; the rare groups that need more
    are read again with twice as many.
    """
    f64 = np_dtype == np.float64
    group = 2 if f64 else 4
    skip = group * RESERVED_SAMPLES_PER_OUTPUT // 4
    groups = -(-size // group)
    lib = native_cpu.library() if native else None
    if lib is not None:  # the same loop in C (kernels/cpu_kernels.cc)
        out = np.empty(groups * group, np.float64 if f64 else np.float32)
        lib.fn("tfc_truncated_normal", out.dtype)(stream.key, stream.counter & _MASK64, stream.counter >> 64, groups,
                                                  native_cpu.ptr(out))
        out = out[:size]
        return out if out.dtype == np_dtype else out.astype(np_dtype)
    out = np.empty((groups, group), np.float64 if f64 else np.float32)
    todo = np.arange(groups, dtype=np.uint64)
    m = 2
    while todo.size:
        offsets = (todo * np.uint64(skip))[:, None] + np.arange(m, dtype=np.uint64)[None, :]
        blk = stream.blocks_at(offsets.reshape(-1)).reshape(todo.size, m, 4)
        if f64:
            d0, d1 = box_muller_double(blk[..., 0], blk[..., 1], blk[..., 2], blk[..., 3])
            cand = np.stack([d0, d1], axis=-1).reshape(todo.size, -1)
        else:
            f0, f1 = box_muller_float(blk[..., 0::2], blk[..., 1::2])
            cand = _interleave(f0, f1).reshape(todo.size, -1)
        ok = np.abs(cand) < 2.0
        enough = ok.sum(axis=1) >= group
        rows = np.nonzero(enough)[0]
        if rows.size:
            sel = ok[rows]
            rank = np.cumsum(sel, axis=1)
            take = sel & (rank <= group)
            out[todo[rows].astype(np.intp)] = cand[rows][take].reshape(rows.size, group)
        todo = todo[~enough]
        m *= 2
        if m > RESERVED_SAMPLES_PER_OUTPUT * group // 4 * 4 and todo.size:
            raise RuntimeError("truncated normal: no group should need this many samples")
    out = out.reshape(-1)[:size]
    return out if out.dtype == np_dtype else out.astype(np_dtype)


def fill(stream, size, kind, np_dtype, lo=0, span=0):
    """``size`` values of distribution ``kind`` from ``stream`` (not advanced), as TF's CPU kernels fill them.

    ``kind``: ``"uniform"`` (float16/32/64 in [0, 1)), ``"normal"``, ``"truncated_normal"``,
    ``"int"`` (``lo + bits % span``, TF's ``UniformDistribution<int>``), ``"full_int"`` (the raw bits).
    """
    size = int(size)
    if size == 0:
        return np.zeros(0, np_dtype)
    if kind == "truncated_normal":
        return _truncated(stream, size, np.dtype(np_dtype).type)
    return _fixed(stream, size, kind, np.dtype(np_dtype).type, lo, span)


class Uint32Sampler:
    """``SingleSampleAdapter<PhiloxRandom>`` as a Python iterator of uint32 values (buffered by blocks).

    ``_randbelow(n)`` is ``sample % n``, the draw of TF's shuffle buffer (``Random() % size``).
    """

    __slots__ = ("_stream", "_buf", "_pos")

    def __init__(self, stream):
        self._stream = stream
        self._buf = []
        self._pos = 0

    def __call__(self):
        if self._pos == len(self._buf):
            self._buf = self._stream.blocks(256).reshape(-1).tolist()
            self._pos = 0
        v = self._buf[self._pos]
        self._pos += 1
        return v

    def _randbelow(self, n):
        return self() % n
