"""Seeding helpers of ``tf.keras.utils``."""

import random

import numpy as np

from ...ops import random_ops


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy's global RNG and tfcore's global seed (``tf.random.set_seed``)."""
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed)

    random_ops.set_seed(seed)
