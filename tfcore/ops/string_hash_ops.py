"""``tf.strings``' hashing: ``to_hash_bucket_fast`` (TF's Fingerprint64, i.e. farmhash's ``Fingerprint64``),
``to_hash_bucket_strong`` (SipHash-2-4) and ``tf.fingerprint``; host (CPU) kernels on object arrays of
bytes, the hash functions themselves in :mod:`tfcore.ops._farmhash`."""

import numpy as np

from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ._farmhash import fingerprint64, siphash24
from .registry import Op, execute
from .string_ops import _string_rule, _strings

# -- hashing (farmhash Fingerprint64, SipHash-2-4: tfcore.ops._farmhash) ---------------------------------

def _hash_bucket_rule(op, inputs, attrs):
    _string_rule(op, inputs, attrs)
    return dtypes.int64


_HASH_FAST = Op("StringToHashBucketFast", rule=_hash_bucket_rule)


@_HASH_FAST.kernel("cpu")
def _hash_fast(b, x, num_buckets):
    out = np.empty(x.shape, np.int64)
    fo = out.reshape(-1)
    for i, v in enumerate(x.reshape(-1)):
        fo[i] = fingerprint64(v) % num_buckets
    return out


@add_dispatch_support
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket_fast``: ``Fingerprint64(s) % num_buckets`` (int64), as TF."""
    n = int(num_buckets)
    if n < 1:
        raise InvalidArgumentError(None, None, f"StringToHashBucketFast: num_buckets must be at least 1, got {n}")
    return execute(_HASH_FAST, (_strings(input, "to_hash_bucket_fast"),), {"num_buckets": n})


_HASH_STRONG = Op("StringToHashBucketStrong", rule=_hash_bucket_rule)


@_HASH_STRONG.kernel("cpu")
def _hash_strong(b, x, num_buckets, key):
    out = np.empty(x.shape, np.int64)
    fo = out.reshape(-1)
    k0, k1 = key
    for i, v in enumerate(x.reshape(-1)):
        fo[i] = siphash24(k0, k1, v) % num_buckets
    return out


@add_dispatch_support
def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket_strong``: SipHash-2-4 of each string under the 128-bit ``key`` (two
    unsigned 64-bit integers) modulo ``num_buckets`` (int64), as TF."""
    n = int(num_buckets)
    if n < 1:
        raise InvalidArgumentError(None, None, f"StringToHashBucketStrong: num_buckets must be at least 1, got {n}")
    key = [int(k) for k in (key.numpy() if hasattr(key, "numpy") else key)]
    if len(key) != 2 or any(k < 0 or k >= 1 << 64 for k in key):
        raise InvalidArgumentError(None, None, f"StringToHashBucketStrong: key must be two unsigned 64-bit "
                                               f"integers, got {key}")
    return execute(_HASH_STRONG, (_strings(input, "to_hash_bucket_strong"),), {"num_buckets": n, "key": tuple(key)})


def _fingerprint_rule(op, inputs, attrs):
    if inputs[0]._array.ndim < 1:
        raise InvalidArgumentError(None, None, "Fingerprint: data must have rank at least 1, got a scalar")
    return dtypes.uint8


_FINGERPRINT = Op("Fingerprint", rule=_fingerprint_rule, output_arg="fingerprint")


@_FINGERPRINT.kernel("cpu")
def _fingerprint(b, data):
    n = data.shape[0]
    out = np.zeros((n, 8), np.uint8)
    if data.dtype == object:
        per_row = data.size // n if n else 0
        fps = [fingerprint64(v) for v in data.reshape(-1)]
        if n and per_row != 1:
            # several strings per row: the fingerprint of the row's string fingerprints (8 little-endian bytes each)
            rows = [b"".join(f.to_bytes(8, "little") for f in fps[i * per_row:(i + 1) * per_row]) for i in range(n)]
            fps = [fingerprint64(r) for r in rows]
    else:
        raw = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<"), copy=False).view(np.uint8)
        raw = raw.reshape(n, -1) if n else raw.reshape(0, 0)
        fps = [fingerprint64(raw[i].tobytes()) for i in range(n)]
    for i, f in enumerate(fps):
        out[i] = np.frombuffer(f.to_bytes(8, "little"), np.uint8)
    return out


@add_dispatch_support
def fingerprint(data, method="farmhash64", name=None):
    """``tf.fingerprint``: uint8 ``[N, 8]`` farmhash Fingerprint64 (little-endian) of each row ``data[i]``'s raw
    bytes; string rows with several strings fingerprint the concatenation of the strings' fingerprints."""
    if method != "farmhash64":
        raise InvalidArgumentError(None, None, f"Fingerprint: method must be 'farmhash64', got {method!r}")
    return execute(_FINGERPRINT, (convert_to_tensor(data),))
