"""tf.qint8 ... tf.qint32, tf.resource, tf.variant as DTypes (TF's enums, names, NumPy types, limits)."""

import numpy as np
import pytest

import tfcore as tf


@pytest.mark.parametrize("name,enum,np_base", [("qint8", 11, np.int8), ("quint8", 12, np.uint8),
                                                ("qint16", 15, np.int16), ("quint16", 16, np.uint16),
                                                ("qint32", 13, np.int32)])
def test_quantized_dtypes(name, enum, np_base):
    d = getattr(tf, name)
    assert d is getattr(tf.dtypes, name) and d.name == name and d.as_datatype_enum == enum
    assert d.is_quantized and not d.is_integer and not d.is_floating
    assert d.as_numpy_dtype == np.dtype([(name, np_base)])
    assert tf.as_dtype(name) is d and tf.as_dtype(enum) is d and tf.as_dtype(d.as_numpy_dtype) is d
    assert d in tf.dtypes.QUANTIZED_DTYPES
    with pytest.raises(TypeError, match="minimum"):
        _ = d.min


def test_resource_variant_and_plain_types_unaffected():
    assert tf.resource.as_datatype_enum == 20 and tf.variant.as_datatype_enum == 21
    assert tf.as_dtype("resource") is tf.resource and tf.as_dtype(21) is tf.dtypes.variant
    assert not tf.float32.is_quantized and tf.int8.min == -128


def test_unsigned_64_limits():
    assert tf.dtypes.uint64.max == 2 ** 64 - 1 and tf.dtypes.uint64.min == 0 and tf.uint64.is_unsigned
