"""``tf.bitwise``: element-wise bit operations on integer tensors (TF's ``BitwiseAnd``, ``LeftShift`` ...)."""

from ..framework.errors import InvalidArgumentError
from ._common import as_tensor, binary_args, describe
from .registry import Op, execute

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _int_rule(op, ts, attrs):
    d = ts[0]._dtype
    for t in ts:
        if t._dtype is not d:
            raise InvalidArgumentError(None, None, f"{op.name}: inputs must have the same dtype, got {describe(ts)}")
    if not d.is_integer:
        raise InvalidArgumentError(None, None, f"{op.name}: expected integer tensors, got {describe(ts)}")
    return d


def _binary(name, fn):
    op = Op(name, rule=_int_rule, output_arg="z")  # TF's binary ops output "z"

    @op.kernel()
    def _impl(b, x, y):
        return fn(b.xp, x, y)

    return op


def _shift(xp, x, y, left):
    bits = x.dtype.itemsize * 8
    y = xp.clip(y, 0, bits - 1).astype(x.dtype)  # TF: shifts outside [0, bits) are implementation-defined
    return xp.left_shift(x, y) if left else xp.right_shift(x, y)


BITWISE_AND = _binary("BitwiseAnd", lambda xp, x, y: xp.bitwise_and(x, y))
BITWISE_OR = _binary("BitwiseOr", lambda xp, x, y: xp.bitwise_or(x, y))
BITWISE_XOR = _binary("BitwiseXor", lambda xp, x, y: xp.bitwise_xor(x, y))
LEFT_SHIFT = _binary("LeftShift", lambda xp, x, y: _shift(xp, x, y, True))
RIGHT_SHIFT = _binary("RightShift", lambda xp, x, y: _shift(xp, x, y, False))
INVERT = Op("Invert", rule=_int_rule, output_arg="y")


@INVERT.kernel()
def _invert(b, x):
    return b.xp.invert(x)


def bitwise_and(x, y, name=None):
    """``tf.bitwise.bitwise_and``."""
    return execute(BITWISE_AND, binary_args(x, y))


def bitwise_or(x, y, name=None):
    """``tf.bitwise.bitwise_or``."""
    return execute(BITWISE_OR, binary_args(x, y))


def bitwise_xor(x, y, name=None):
    """``tf.bitwise.bitwise_xor``."""
    return execute(BITWISE_XOR, binary_args(x, y))


def left_shift(x, y, name=None):
    """``tf.bitwise.left_shift``."""
    return execute(LEFT_SHIFT, binary_args(x, y))


def right_shift(x, y, name=None):
    """``tf.bitwise.right_shift`` (arithmetic for signed types)."""
    return execute(RIGHT_SHIFT, binary_args(x, y))


def invert(x, name=None):
    """``tf.bitwise.invert``: flip every bit."""

    return execute(INVERT, (as_tensor(x),))
