"""``tf.random``: seeded random tensors with TF's global/op seed behaviour."""

from . import random_experimental as experimental  # tf.random.experimental
from .ops.candidate_sampling_ops import (
                                         all_candidate_sampler,
                                         fixed_unigram_candidate_sampler,
                                         log_uniform_candidate_sampler,
                                         uniform_candidate_sampler,
)
from .ops.random_ops import *
from .ops.stateful_random_ops import *
from .ops.stateless_random_ops import *
