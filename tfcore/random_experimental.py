"""``tf.random.experimental``: the names TF 2.21 exports there (seed splitting, the Generator API)."""

from .ops.stateful_random_ops import (
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
from .ops.stateless_random_ops import stateless_fold_in, stateless_split

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator",
           "stateless_fold_in", "stateless_split"]
