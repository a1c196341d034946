"""``tf.linalg.experimental``."""

from .ops.linalg_solve_ops import conjugate_gradient

__all__ = ["conjugate_gradient"]
