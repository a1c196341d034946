"""Probabilistic metrics: cross-entropies, KL divergence, Poisson, focal cross-entropies (Keras 3's
``probabilistic_metrics.py``); the functions are the losses'."""

from .. import losses as losses_mod
from .reduction_metrics import MeanMetricWrapper, _wrapper

binary_crossentropy = losses_mod.binary_crossentropy
categorical_crossentropy = losses_mod.categorical_crossentropy
sparse_categorical_crossentropy = losses_mod.sparse_categorical_crossentropy
kl_divergence = losses_mod.kl_divergence
poisson = losses_mod.poisson
kld = KLD = kullback_leibler_divergence = losses_mod.kl_divergence
binary_focal_crossentropy = losses_mod.binary_focal_crossentropy
categorical_focal_crossentropy = losses_mod.categorical_focal_crossentropy


class BinaryCrossentropy(MeanMetricWrapper):
    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(losses_mod.binary_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


class CategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0):
        super().__init__(losses_mod.categorical_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, axis=-1):
        super().__init__(losses_mod.sparse_categorical_crossentropy, name, dtype=dtype, from_logits=from_logits,
                         axis=axis)


Poisson = _wrapper("Poisson", poisson, "poisson", "Mean of ``poisson``.", __name__)
KLDivergence = _wrapper("KLDivergence", kld, "kl_divergence", "Mean of ``kl_divergence``.", __name__)
