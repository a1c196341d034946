"""``tf.math.special``: TF 2.21's special functions that tfcore implements, so far the modified Bessel functions
(of the first kind, which ``tf.math`` also exports, and of the second kind)."""

from .ops.bessel_ops import (
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    bessel_k0,
    bessel_k0e,
    bessel_k1,
    bessel_k1e,
)

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e"]
