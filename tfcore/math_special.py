"""``tf.math.special``: TF 2.21's special functions, all 17 of its names: the Bessel functions (the modified ones of
the first kind are also in ``tf.math``), Dawson's integral, Spence's function, the Fresnel integrals and the
exponential integral."""

from .ops.bessel_ops import (
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    bessel_j0,
    bessel_j1,
    bessel_k0,
    bessel_k0e,
    bessel_k1,
    bessel_k1e,
    bessel_y0,
    bessel_y1,
)
from .ops.special_function_ops import dawsn, expint, fresnel_cos, fresnel_sin, spence

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0", "bessel_k0e",
           "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "dawsn", "expint",
           "fresnel_cos", "fresnel_sin", "spence"]
