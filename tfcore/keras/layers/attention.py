"""Attention layers: ``MultiHeadAttention``, ``Attention`` (dot-product, Luong) and ``AdditiveAttention``
(Bahdanau), with Keras's masks and TensorFlow's weight layout.

``MultiHeadAttention`` projects query, key and value with :class:`EinsumDense` layers whose kernels are
``(d_model, num_heads, key_dim)`` (value: ``value_dim``) and biases ``(num_heads, key_dim)``, and the output
with a ``(num_heads, value_dim, d_model)`` kernel: the same weights, in the same order, as TF, so
``set_weights(tf_layer.get_weights())`` reproduces TF's outputs.
"""

import math
import string

import numpy as np

from ...framework import dtypes
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops, nn_ops, reduce_ops
from .. import initializers
from ..engine.base_layer import Layer
from ._weights import set_weight_args, weights_config
from .einsum_dense import EinsumDense

_CHR_IDX = string.ascii_lowercase


def _build_proj_equation(free_dims, bound_dims, output_dims):
    """The einsum of a projection: keep ``free_dims``, contract ``bound_dims``, add ``output_dims``."""
    letters = iter(_CHR_IDX)
    free = "".join(next(letters) for _ in range(free_dims))
    bound = "".join(next(letters) for _ in range(bound_dims))
    out = "".join(next(letters) for _ in range(output_dims))
    return f"{free}{bound},{bound}{out}->{free}{out}", out, free_dims + output_dims


def _build_attention_equation(rank, attn_axes):
    """(dot-product equation, combine equation) of projected (batch..., seq..., heads, dim) tensors."""
    target = _CHR_IDX[:rank]
    batch_dims = tuple(i for i in range(rank) if i not in attn_axes + (rank - 1,))
    offset = rank
    source = ""
    for i in range(rank):
        if i in batch_dims or i == rank - 1:
            source += target[i]
        else:
            source += _CHR_IDX[offset]
            offset += 1
    product = "".join([target[i] for i in batch_dims] + [target[i] for i in attn_axes]
                      + [source[i] for i in attn_axes])
    return f"{source},{target}->{product}", f"{product},{source}->{target}"


def _large_negative(dtype):
    return -3e4 if dtype == dtypes.float16 else -1e9


def _softmax(x, n_axes):
    if n_axes == 1:
        return nn_ops.softmax(x, axis=-1)
    axes = list(range(x.ndim - n_axes, x.ndim))
    return math_ops.exp(x - reduce_ops.reduce_logsumexp(x, axis=axes, keepdims=True))


def _masked_softmax(scores, mask, n_axes=1):
    """Keras's ``Softmax(mask=...)`` over the last ``n_axes`` axes: masked entries get -1e9 before and
    exactly 0 after the softmax."""
    if mask is None:
        return _softmax(scores, n_axes)
    mask = math_ops.cast(mask, dtypes.bool)
    mask = array_ops.broadcast_to(mask, scores.shape.as_list())
    scores = math_ops.where(mask, scores, array_ops.fill(scores.shape.as_list(),
                                                         np.array(_large_negative(scores.dtype),
                                                                  scores.dtype.as_numpy_dtype)))
    probs = _softmax(scores, n_axes)
    return math_ops.where(mask, probs, array_ops.zeros_like(probs))


def causal_mask(q_len, v_len):
    """(1, T, S) boolean lower-triangular mask: query step i sees value steps j <= i."""
    return array_ops.constant(np.tril(np.ones((q_len, v_len), dtype=bool))[None])


class MultiHeadAttention(Layer):
    """``tf.keras.layers.MultiHeadAttention`` (Vaswani et al.): scaled dot-product attention over
    ``num_heads`` projected heads, with query/value/key masks, ``attention_mask``, ``use_causal_mask``,
    attention dropout and ``return_attention_scores``."""

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for arg, value in (("num_heads", num_heads), ("key_dim", key_dim)):
            if not isinstance(value, int | np.integer) or value <= 0:
                raise ValueError(f"MultiHeadAttention: `{arg}` must be a positive integer. Received: {arg}={value}")
        if not 0 <= dropout <= 1:
            raise ValueError(f"MultiHeadAttention: `dropout` must be in [0, 1]. Received: dropout={dropout}")
        self.supports_masking = True
        self._num_heads = int(num_heads)
        self._key_dim = int(key_dim)
        self._value_dim = int(value_dim) if value_dim else self._key_dim
        self._dropout = float(dropout)
        self._use_bias = use_bias
        self._output_shape = output_shape
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        self._attention_axes = tuple(attention_axes) if attention_axes is not None else None
        self._seed = seed
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self._projections_built = False

    num_heads = property(lambda self: self._num_heads)
    key_dim = property(lambda self: self._key_dim)
    value_dim = property(lambda self: self._value_dim)
    dropout = property(lambda self: self._dropout)
    use_bias = property(lambda self: self._use_bias)
    attention_axes = property(lambda self: self._attention_axes)

    def _dense(self, equation, output_shape, bias_axes, name):
        return EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes if self._use_bias else None,
                           kernel_initializer=initializers.get(initializers.serialize(self.kernel_initializer)),
                           bias_initializer=initializers.get(initializers.serialize(self.bias_initializer)),
                           kernel_regularizer=self.kernel_regularizer, bias_regularizer=self.bias_regularizer,
                           kernel_constraint=self.kernel_constraint, bias_constraint=self.bias_constraint,
                           name=name, dtype=self.dtype)

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the four projections (needs the value's shape: deferred to the first call otherwise)."""
        if value_shape is None:
            return
        query_shape = TensorShape(query_shape).as_list()
        value_shape = TensorShape(value_shape).as_list()
        key_shape = TensorShape(key_shape).as_list() if key_shape is not None else value_shape
        if query_shape[-1] is None or value_shape[-1] is None or key_shape[-1] is None:
            raise ValueError("MultiHeadAttention: the last dimension of query, value and key must be defined; "
                             f"got {query_shape}, {value_shape}, {key_shape}")
        q_rank, k_rank, v_rank = len(query_shape), len(key_shape), len(value_shape)
        eq, bias, out_rank = _build_proj_equation(q_rank - 1, 1, 2)
        self._query_dense = self._dense(eq, [None] * (out_rank - 3) + [self._num_heads, self._key_dim], bias,
                                        "query")
        self._query_dense._maybe_build(TensorShape(query_shape))
        eq, bias, out_rank = _build_proj_equation(k_rank - 1, 1, 2)
        self._key_dense = self._dense(eq, [None] * (out_rank - 3) + [self._num_heads, self._key_dim], bias, "key")
        self._key_dense._maybe_build(TensorShape(key_shape))
        eq, bias, out_rank = _build_proj_equation(v_rank - 1, 1, 2)
        self._value_dense = self._dense(eq, [None] * (out_rank - 3) + [self._num_heads, self._value_dim], bias,
                                        "value")
        self._value_dense._maybe_build(TensorShape(value_shape))
        rank = out_rank  # rank of the projected tensors: (batch, seq..., heads, dim)
        if self._attention_axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:
            self._attention_axes = tuple(a % (rank - 1) for a in self._attention_axes)
        self._dot_product_equation, self._combine_equation = _build_attention_equation(rank, self._attention_axes)
        out = self._output_shape
        out = [query_shape[-1]] if not out else ([out] if isinstance(out, int) else list(out))
        eq, bias, out_rank = _build_proj_equation(q_rank - 1, 2, len(out))
        self._output_dense = self._dense(eq, [None] * (out_rank - 1 - len(out)) + out, bias, "attention_output")
        self._output_dense._maybe_build(TensorShape(query_shape[:-1] + [self._num_heads, self._value_dim]))
        self._projections_built = True
        self.built = True

    def _attention_mask(self, query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask):
        """Merge the masks (query (B,T)->(B,T,1), value/key (B,S)->(B,1,S), causal (1,T,S)) with AND."""
        auto = None
        for m, axis in ((query_mask, -1), (value_mask, -2), (key_mask, -2)):
            if m is not None:
                m = array_ops.expand_dims(math_ops.cast(m, dtypes.bool), axis)
                auto = m if auto is None else math_ops.logical_and(auto, m)
        if use_causal_mask:
            m = causal_mask(query.shape[1], value.shape[1])
            auto = m if auto is None else math_ops.logical_and(auto, m)
        if attention_mask is not None:
            attention_mask = math_ops.cast(attention_mask, dtypes.bool)
            return attention_mask if auto is None else math_ops.logical_and(attention_mask, auto)
        return auto

    def _compute_attention(self, query, key, value, attention_mask=None, training=None):
        """Projected (B, T, N, H) query and (B, S, N, H) key/value -> (output (B, T, N, Hv), scores (B, N, T, S))."""
        query = query * math_ops.cast(1.0 / math.sqrt(float(self._key_dim)), query.dtype)
        scores = math_ops.einsum(self._dot_product_equation, key, query)
        if attention_mask is not None:
            expand_axis = -len(self._attention_axes) * 2 - 1
            for _ in range(scores.ndim - attention_mask.ndim):
                attention_mask = array_ops.expand_dims(attention_mask, expand_axis)
        scores = _masked_softmax(scores, attention_mask, len(self._attention_axes))
        probs = scores
        if training and self._dropout > 0:
            probs = nn_ops.dropout(scores, rate=self._dropout, seed=self._seed)
        return math_ops.einsum(self._combine_equation, probs, value), scores

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        # As Keras 3 (TF 2.21): the query's mask is the one it carries (e.g. from Embedding(mask_zero=True));
        # an explicit ``query_mask=`` argument is ignored.
        query_mask = getattr(query, "_keras_mask", None)
        if key is None:
            key = value
            key_mask = None
        if not self._projections_built:
            self.build(query.shape, value.shape, key.shape)
        attention_mask = self._attention_mask(query, value, query_mask, value_mask, key_mask, attention_mask,
                                              use_causal_mask)
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        out, scores = self._compute_attention(q, k, v, attention_mask, training)
        out = self._output_dense(out)
        if return_attention_scores:
            return out, scores
        return out

    def compute_mask(self, inputs, mask=None):
        return mask  # the query's mask (Keras)

    def get_config(self):
        config = super().get_config()
        config.update({"num_heads": self._num_heads, "key_dim": self._key_dim, "value_dim": self._value_dim,
                       "dropout": self._dropout, "use_bias": self._use_bias, "output_shape": self._output_shape,
                       "attention_axes": self._attention_axes, "seed": self._seed})
        config.update(weights_config(self, ("kernel", "bias")))
        return config


class _BaseDenseAttention(Layer):
    """Shared by ``Attention`` and ``AdditiveAttention``: inputs ``[query, value]`` or ``[query, value, key]``,
    masks ``[query_mask, value_mask]``; softmax over the value steps, then a weighted sum of the values."""

    def __init__(self, use_scale=False, dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= dropout <= 1:
            raise ValueError(f"{type(self).__name__}: `dropout` must be in [0, 1]. Received: dropout={dropout}")
        self.use_scale = use_scale
        self.dropout = dropout
        self.seed = seed
        self.supports_masking = True

    def _validate(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, list | tuple):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, value] or "
                             f"[query, value, key]. Received: inputs={inputs}.")
        if not 2 <= len(inputs) <= 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or "
                             f"[query, value, key]. Received length: {len(inputs)}.")
        if mask is not None and (not isinstance(mask, list | tuple) or not 2 <= len(mask) <= 3):
            raise ValueError(f"{name} layer mask must be a list, namely [query_mask, value_mask]. "
                             f"Received: mask={mask}.")

    def build(self, input_shape):
        self._validate(input_shape)
        self._build_scale([TensorShape(s).as_list() for s in input_shape])
        self.built = True

    def call(self, inputs, mask=None, training=None, return_attention_scores=False, use_causal_mask=False):
        self._validate(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(q, k)
        scores_mask = None
        if v_mask is not None:
            scores_mask = array_ops.expand_dims(math_ops.cast(v_mask, dtypes.bool), -2)
        if use_causal_mask:
            c = causal_mask(scores.shape[-2], scores.shape[-1])
            scores_mask = c if scores_mask is None else math_ops.logical_and(scores_mask, c)
        if scores_mask is not None:
            big = 65504.0 if scores.dtype == dtypes.float16 else 1.0e9
            scores_mask = array_ops.broadcast_to(scores_mask, scores.shape.as_list())
            scores = math_ops.where(scores_mask, scores, scores - math_ops.cast(big, scores.dtype))
        weights = nn_ops.softmax(scores, axis=-1)
        applied = weights
        if training and self.dropout > 0:
            applied = nn_ops.dropout(weights, rate=self.dropout, seed=self.seed)
        out = math_ops.matmul(applied, v)
        if q_mask is not None:
            qm = array_ops.expand_dims(math_ops.cast(q_mask, dtypes.bool), -1)
            out = math_ops.where(array_ops.broadcast_to(qm, out.shape.as_list()), out, array_ops.zeros_like(out))
        if return_attention_scores:
            return out, weights
        return out

    def compute_mask(self, inputs, mask=None):
        if mask is None or mask[0] is None:
            return None
        return mask[0]

    def get_config(self):
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "dropout": self.dropout, "seed": self.seed})
        return config


class Attention(_BaseDenseAttention):
    """Dot-product (Luong) attention: ``scores = query @ key^T`` (times a learned scalar ``scale`` when
    ``use_scale``); ``score_mode="concat"`` uses ``sum(tanh(query + key))`` instead."""

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                             f"Received: score_mode={score_mode}")
        self.score_mode = score_mode

    def _build_scale(self, shapes):
        self.scale = self.add_weight("scale", shape=(), initializer="ones") if self.use_scale else None
        self.concat_score_weight = (self.add_weight("concat_score_weight", shape=(), initializer="ones")
                                    if self.score_mode == "concat" else None)

    def _calculate_scores(self, query, key):
        if self.score_mode == "dot":
            scores = math_ops.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        q = array_ops.expand_dims(query, -2)
        k = array_ops.expand_dims(key, -3)
        s = q + k if self.scale is None else self.scale * (q + k)
        return self.concat_score_weight * reduce_ops.reduce_sum(math_ops.tanh(s), axis=-1)

    def get_config(self):
        config = super().get_config()
        config["score_mode"] = self.score_mode
        return config


class AdditiveAttention(_BaseDenseAttention):
    """Additive (Bahdanau) attention: ``scores = sum(scale * tanh(query + key), -1)`` with a learned
    ``scale`` of shape (dim,) when ``use_scale`` (the default)."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def _build_scale(self, shapes):
        dim = shapes[0][-1]
        self.scale = self.add_weight("scale", shape=(dim,), initializer="glorot_uniform") if self.use_scale else None

    def _calculate_scores(self, query, key):
        q = array_ops.expand_dims(query, -2)
        k = array_ops.expand_dims(key, -3)
        t = math_ops.tanh(q + k)
        return reduce_ops.reduce_sum(self.scale * t if self.scale is not None else t, axis=-1)
