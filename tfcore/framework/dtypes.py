"""``tf.DType`` objects and ``tf.as_dtype``.

A :class:`DType` wraps one NumPy dtype. Instances are singletons, so ``is``
comparison is valid and cheap on the hot op path. bfloat16 exists only when the
optional ``ml_dtypes`` package is installed.
"""

import builtins

import numpy as np

try:  # optional: bfloat16 support
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None


__all__ = [
    "DType", "as_dtype", "float16", "half", "float32", "float64", "double", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string", "bfloat16",
    "qint8", "quint8", "qint16", "quint16", "qint32", "resource", "variant", "QUANTIZED_DTYPES",
]


class DType:
    """A tensor element type, as ``tf.DType``."""

    __slots__ = ("_name", "_np", "_enum")

    def __init__(self, name, np_dtype, enum):
        self._name = name
        self._np = np.dtype(np_dtype) if np_dtype is not None else None
        self._enum = enum

    @property
    def name(self):
        return self._name

    @property
    def as_numpy_dtype(self):
        return self._np if self._np.names else self._np.type  # quantized types: TF's structured np.dtype

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        return self

    @property
    def is_floating(self):
        return self._name in _FLOATING

    @property
    def is_integer(self):
        return self._name in _INTEGER

    @property
    def is_unsigned(self):
        return self._name.startswith("uint")

    @property
    def is_bool(self):
        return self._name == "bool"

    @property
    def is_complex(self):
        return self._name.startswith("complex")

    @property
    def is_numeric(self):
        return self._name not in ("string", "resource", "variant")

    @property
    def is_quantized(self):
        """qint8, quint8, qint16, quint16, qint32 (TF's quantized integer types)."""
        return self._name in _QUANTIZED

    @property
    def size(self):
        return self._np.itemsize

    @property
    def itemsize(self):
        return self._np.itemsize

    @property
    def min(self):
        if self._name in _NO_LIMITS:
            raise TypeError(f"Cannot find minimum value of {self}.")
        if self.is_floating:
            return float(_finfo(self._np).min)
        if self.is_bool:
            return False
        return int(np.iinfo(self._np).min)

    @property
    def max(self):
        if self._name in _NO_LIMITS:
            raise TypeError(f"Cannot find maximum value of {self}.")
        if self.is_floating:
            return float(_finfo(self._np).max)
        if self.is_bool:
            return True
        return int(np.iinfo(self._np).max)

    @property
    def limits(self):
        return (self.min, self.max)

    def is_compatible_with(self, other):
        return as_dtype(other) is self

    def __eq__(self, other):
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return (as_dtype, (self._name,))


def _finfo(np_dtype):
    if _ml_dtypes is not None and np_dtype == _BF16_NP:
        return _ml_dtypes.finfo(np_dtype)
    return np.finfo(np_dtype)


_BF16_NP = np.dtype(_ml_dtypes.bfloat16) if _ml_dtypes is not None else None
_FLOATING = {"float16", "bfloat16", "float32", "float64"}
_QUANTIZED = {"qint8", "quint8", "qint16", "quint16", "qint32"}
_NO_LIMITS = _QUANTIZED | {"string", "resource", "variant", "complex64", "complex128"}
_INTEGER = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}

float16 = DType("float16", np.float16, 19)
half = float16
float32 = DType("float32", np.float32, 1)
float64 = DType("float64", np.float64, 2)
double = float64
int8 = DType("int8", np.int8, 6)
int16 = DType("int16", np.int16, 5)
int32 = DType("int32", np.int32, 3)
int64 = DType("int64", np.int64, 9)
uint8 = DType("uint8", np.uint8, 4)
uint16 = DType("uint16", np.uint16, 17)
uint32 = DType("uint32", np.uint32, 22)
uint64 = DType("uint64", np.uint64, 23)
bool = DType("bool", np.bool_, 10)  # noqa: A001 - TF's public name
complex64 = DType("complex64", np.complex64, 8)
complex128 = DType("complex128", np.complex128, 18)
string = DType("string", np.object_, 7)
bfloat16 = DType("bfloat16", _BF16_NP, 14) if _BF16_NP is not None else None

_ALL = [float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
        bool, complex64, complex128, string] + ([bfloat16] if bfloat16 is not None else [])
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "double": float64, "float": float32, "int": int32})
_BY_NP = {d._np: d for d in _ALL if d is not string}
_BY_NP[np.dtype(np.str_)] = string
_BY_NP[np.dtype(np.bytes_)] = string
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}
# Quantized types hold their integer in a one-field structured NumPy dtype, as TF's ``as_numpy_dtype``; like
# resource and variant they are kept out of ``_ALL`` (no op computes with them).
qint8 = DType("qint8", [("qint8", np.int8)], 11)
quint8 = DType("quint8", [("quint8", np.uint8)], 12)
qint16 = DType("qint16", [("qint16", np.int16)], 15)
quint16 = DType("quint16", [("quint16", np.uint16)], 16)
qint32 = DType("qint32", [("qint32", np.int32)], 13)
resource = DType("resource", [("resource", np.ubyte)], 20)
variant = DType("variant", np.object_, 21)
QUANTIZED_DTYPES = frozenset({qint8, quint8, qint16, quint16, qint32,
                              # TF's set also holds the reference types, which tfcore does not have
                              })
for _d in (qint8, quint8, qint16, quint16, qint32, resource, variant):
    _BY_NAME[_d.name] = _d
    _BY_ENUM[_d.as_datatype_enum] = _d
    if _d is not variant:
        _BY_NP[_d._np] = _d
del _d
_PY_TYPES = {float: float32, int: int32, builtins.bool: bool, str: string, bytes: string,
             complex: complex64}

# The dtypes gradients flow through (tapes record ops and watch tensors of these only): floating and complex.
DIFFERENTIABLE_DTYPES = frozenset(d for d in _ALL if d is not None and (d.is_floating or d.is_complex))


def as_dtype(type_value):
    """Convert a DType, name, NumPy dtype, Python type or enum to a :class:`DType`.

    Python ``float`` maps to float32 and ``int`` to int32, as in TensorFlow.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
    elif isinstance(type_value, type) and type_value in _PY_TYPES:
        return _PY_TYPES[type_value]
    elif isinstance(type_value, int) and not isinstance(type_value, np.generic):
        d = _BY_ENUM.get(type_value)
        if d is not None:
            return d
    try:
        np_dtype = np.dtype(type_value)
    except TypeError:
        np_dtype = None
    if np_dtype is not None:
        d = _BY_NP.get(np_dtype)
        if d is not None:
            return d
    if hasattr(type_value, "dtype") and not isinstance(type_value, type):
        return as_dtype(type_value.dtype)
    raise TypeError(f"Cannot convert {type_value!r} to a dtype.")


_STRING_KINDS = ("O", "S", "U")


def from_numpy(np_dtype):
    """Fast path for backend arrays: the DType of a NumPy/CuPy dtype."""
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        if getattr(np_dtype, "kind", None) in _STRING_KINDS:  # object (how tf.string is stored), bytes_, str_
            return string
        return as_dtype(np_dtype)
