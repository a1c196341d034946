"""``tf.random``: seeded random tensors with TF's global/op seed behaviour."""

from .ops.candidate_sampling_ops import (
                                         all_candidate_sampler,
                                         fixed_unigram_candidate_sampler,
                                         log_uniform_candidate_sampler,
                                         uniform_candidate_sampler,
)
from .ops.random_extra_ops import *
from .ops.random_ops import *
