"""``tf.nn``: activations, convolution, pooling, softmax, normalization and losses."""

from .ops.candidate_sampling_ops import (
                                         all_candidate_sampler,
                                         compute_accidental_hits,
                                         fixed_unigram_candidate_sampler,
                                         nce_loss,
                                         sampled_softmax_loss,
)
from .ops.conv_nd_ops import *
from .ops.conv_ops import (
                                         conv1d,
                                         conv2d,
                                         conv2d_backprop_filter,
                                         conv2d_backprop_input,
                                         conv2d_transpose,
                                         convolution,
                                         depthwise_conv2d,
                                         depthwise_conv2d_backprop_filter,
                                         depthwise_conv2d_backprop_input,
                                         separable_conv2d,
)
from .ops.ctc_ops import *
from .ops.loss_ops import (
                                         compute_average_loss,
                                         l2_loss,
                                         log_poisson_loss,
                                         scale_regularization_loss,
                                         sigmoid_cross_entropy_with_logits,
                                         softmax_cross_entropy_with_logits,
                                         sparse_softmax_cross_entropy_with_logits,
                                         weighted_cross_entropy_with_logits,
)
from .ops.math_ops import sigmoid, softplus, softsign, tanh
from .ops.math_reduction_ops import approx_max_k, approx_min_k, zero_fraction
from .ops.misc_ops import space_to_batch
from .ops.moments_ops import *
from .ops.nn_ops import (
                                         batch_normalization,
                                         bias_add,
                                         crelu,
                                         depth_to_space,
                                         dropout,
                                         elu,
                                         embedding_lookup,
                                         fused_batch_norm,
                                         gelu,
                                         l2_normalize,
                                         leaky_relu,
                                         log_softmax,
                                         moments,
                                         relu,
                                         relu6,
                                         selu,
                                         silu,
                                         softmax,
                                         space_to_depth,
                                         swish,
)
from .ops.pool_nd_ops import *
from .ops.pool_ops import avg_pool, avg_pool1d, avg_pool2d, max_pool, max_pool1d, max_pool2d
from .ops.reduce_ops import in_top_k, top_k
