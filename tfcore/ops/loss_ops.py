"""Loss ops of ``tf.nn``: softmax / sparse softmax / sigmoid / weighted cross-entropies, ``l2_loss``
and ``compute_average_loss``.

The two softmax cross-entropies are fused ops returning ``(loss, backprop)`` like TF's kernels
(``backprop = softmax(logits) - labels``); their gradients follow TF's, including the second-order
term when ``backprop`` itself receives a gradient, so nested tapes work.

Op contracts (CUDA kernels register on the same objects):
  ``SoftmaxCrossEntropyWithLogits(features [B, C], labels [B, C])`` -> ``(loss [B], backprop [B, C])``.
  ``SparseSoftmaxCrossEntropyWithLogits(features [B, C], labels [B] int32/int64)`` -> same outputs;
  the CPU kernel raises InvalidArgumentError for a label outside ``[0, C)`` (TF's CPU behaviour;
  TF's GPU kernel writes NaN for those rows instead).
  ``L2Loss(t)`` -> ``sum(t ** 2) / 2``.
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.replica_state import num_replicas_in_sync
from ._common import as_tensor, describe, floating_rule, in_accumulation_dtype
from .array_ops import ones_like, reshape, transpose, zeros_like
from .math_ops import (
    abs,
    add,
    cast,
    divide,
    exp,
    greater,
    greater_equal,
    less_equal,
    log,
    log1p,
    logical_and,
    multiply,
    negative,
    scalar_like,
    subtract,
    where,
)
from .nn_ops import log_softmax, operand_like, relu, softmax
from .reduce_ops import reduce_sum
from .registry import Op, execute

__all__ = [
    "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits", "l2_loss",
    "compute_average_loss", "scale_regularization_loss", "log_poisson_loss",
]


def _xent_grad(c, grad_loss, grad_grad, with_labels):
    """TF's gradient: ``grad_loss * backprop`` (+ the term from a gradient on ``backprop``).

    Either output gradient may be None (the op is ``grad_takes_none``: no zeros are built for it).
    """
    logits = c.inputs[0]
    gl = grad = None
    if grad_loss is not None:
        gl = reshape(grad_loss, (-1, 1))
        grad = multiply(gl, c.outputs[1])
    if grad_grad is not None:  # TF: None, or the tape's zeros for an unused output (``_is_zeros_tensor``)
        sm = softmax(logits)
        term = multiply(subtract(grad_grad, reduce_sum(multiply(grad_grad, sm), axis=-1, keepdims=True)), sm)
        grad = term if grad is None else add(grad, term)
    return [grad, multiply(gl, negative(log_softmax(logits))) if with_labels and gl is not None else None]


# -- SoftmaxCrossEntropyWithLogits ---------------------------------------------------------------

def _xent_rule(op, ts, attrs):
    logits, labels = ts
    floating_rule(op, ts, attrs)
    if logits._array.ndim != 2 or logits._array.shape != labels._array.shape:
        raise InvalidArgumentError(None, None, f"{op.name}: logits and labels must be 2-D with the same shape, "
                                   f"got {describe(ts)}")
    return (logits._dtype, logits._dtype)


SOFTMAX_CROSS_ENTROPY = Op("SoftmaxCrossEntropyWithLogits", rule=_xent_rule, multi_output=True,
                           grad=lambda c, gl, gg: _xent_grad(c, gl, gg, True), grad_takes_none=True,
                           output_arg=("loss", "backprop"))


@SOFTMAX_CROSS_ENTROPY.kernel()
def _softmax_xent(b, x, labels):
    out_dtype, x, labels = in_accumulation_dtype(x, labels)  # float16/bfloat16 computed in float32
    if out_dtype != x.dtype:
        loss, backprop = _softmax_xent(b, x, labels)
        return loss.astype(out_dtype), backprop.astype(out_dtype)
    xp = b.xp
    s = x - x.max(axis=-1, keepdims=True)
    logp = s - xp.log(xp.exp(s).sum(axis=-1, keepdims=True))
    loss = -(labels * logp).sum(axis=-1)
    return loss, xp.exp(logp) - labels


# -- SparseSoftmaxCrossEntropyWithLogits ---------------------------------------------------------

def _sparse_xent_rule(op, ts, attrs):
    logits, labels = ts
    if not logits._dtype.is_floating or labels._dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(None, None, f"{op.name}: logits must be floating point and labels int32 or "
                                   f"int64, got {describe(ts)}")
    if logits._array.ndim != 2 or labels._array.ndim != 1 or labels._array.shape[0] != logits._array.shape[0]:
        raise InvalidArgumentError(None, None, f"{op.name}: logits must be 2-D [batch, classes] and labels 1-D "
                                   f"[batch] with the same batch size, got logits and labels {describe(ts)}")
    return (logits._dtype, logits._dtype)


SPARSE_SOFTMAX_CROSS_ENTROPY = Op("SparseSoftmaxCrossEntropyWithLogits", rule=_sparse_xent_rule,
                                  multi_output=True, grad=lambda c, gl, gg: _xent_grad(c, gl, gg, False),
                                  grad_takes_none=True, output_arg=("loss", "backprop"))


_max_reduce = np.maximum.reduce
_ROWS = {}  # batch size -> arange(batch) for the CPU kernel's row indexing


def _sparse_softmax_xent_cpu(x, labels):
    """The CPU kernel: labels checked with one reduction (negative labels wrap to huge unsigned
    values), log-sum-exp per row, the loss gathered and the backprop written in place."""
    n, classes = x.shape
    if labels.size and int(_max_reduce(labels.view(np.uint64 if labels.dtype.itemsize == 8 else np.uint32))) \
            >= classes:
        return None
    s = x - _max_reduce(x, axis=-1, keepdims=True)  # the ufuncs directly: no Python wrappers per call
    e = np.exp(s)
    total = np.add.reduce(e, axis=-1)
    rows = _ROWS.get(n)
    if rows is None:
        rows = _ROWS[n] = np.arange(n)
    loss = np.log(total)
    loss -= s[rows, labels]
    e /= total[:, None]
    e[rows, labels] -= 1
    return loss, e


def _sparse_xent_xp(xp, x, labels, valid):
    """(loss, dlogits) with out-of-range labels read as class 0 (callers decide what those rows become);
    float16/bfloat16 logits are computed in float32 and rounded once."""
    out_dtype, x = in_accumulation_dtype(x)
    n = x.shape[0]
    safe = xp.where(valid, labels, 0)
    s = x - x.max(axis=-1, keepdims=True)
    logp = s - xp.log(xp.exp(s).sum(axis=-1, keepdims=True))
    rows = xp.arange(n)
    loss = -logp[rows, safe]
    backprop = xp.exp(logp)
    backprop[rows, safe] -= 1
    if out_dtype != x.dtype:
        return loss.astype(out_dtype), backprop.astype(out_dtype)
    return loss, backprop


@SPARSE_SOFTMAX_CROSS_ENTROPY.kernel("cpu")
def _sparse_softmax_xent(b, x, labels):
    """TF's CPU kernel: an out-of-range label is an error."""
    if x.ndim == 2 and x.dtype.itemsize >= 4 and labels.flags.c_contiguous:
        out = _sparse_softmax_xent_cpu(x, labels)
        if out is not None:
            return out
    classes = x.shape[1]
    valid = (labels >= 0) & (labels < classes)
    if not bool(valid.all()):
        bad = int(labels[~valid][0])
        raise InvalidArgumentError(
            None, None, f"SparseSoftmaxCrossEntropyWithLogits: Received a label value of {bad} which is outside "
            f"the valid range of [0, {classes}). Label values: {' '.join(map(str, labels.tolist()[:32]))} "
            f"(logits {x.dtype.name}{list(x.shape)}, labels {labels.dtype.name}{list(labels.shape)})")
    return _sparse_xent_xp(np, x, labels, valid)


@SPARSE_SOFTMAX_CROSS_ENTROPY.kernel("cuda")
def _sparse_softmax_xent_gpu(b, x, labels):
    """TF's GPU behaviour: NaN rows for out-of-range labels instead of an error (no host sync)."""
    xp = b.xp
    valid = (labels >= 0) & (labels < x.shape[1])
    loss, backprop = _sparse_xent_xp(xp, x, labels, valid)
    loss = xp.where(valid, loss, xp.nan).astype(x.dtype, copy=False)
    backprop = xp.where(valid[:, None], backprop, xp.nan).astype(x.dtype, copy=False)
    return loss, backprop


# -- public API -----------------------------------------------------------------------------------

def _move_last(t, axis):
    nd = t._array.ndim
    axis = axis % nd
    if axis == nd - 1:
        return t, None
    perm = list(range(nd))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(t, perm), perm


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """``tf.nn.softmax_cross_entropy_with_logits``: ``-sum(labels * log_softmax(logits), axis)``.

    Gradients flow into both logits and labels (TF2 semantics).
    """
    logits = as_tensor(logits)
    labels = operand_like(labels, logits)
    if logits.shape != labels.shape or logits._array.ndim < 1:
        raise InvalidArgumentError(None, None, f"SoftmaxCrossEntropyWithLogits: logits and labels must have the "
                                   f"same shape, got logits and labels {describe([logits, labels])}")
    if labels.dtype is not logits.dtype:
        labels = cast(labels, logits.dtype)
    x, perm = _move_last(logits, axis)
    y, _ = _move_last(labels, axis)
    if x._array.ndim == 2:  # already [batch, classes]: no Reshape ops
        return execute(SOFTMAX_CROSS_ENTROPY, (x, y))[0]
    batch_shape = x._array.shape[:-1]
    c = x._array.shape[-1]
    loss, _ = execute(SOFTMAX_CROSS_ENTROPY, (reshape(x, (-1, c)), reshape(y, (-1, c))))
    return reshape(loss, batch_shape)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """``tf.nn.sparse_softmax_cross_entropy_with_logits``: labels ``[...]`` int, logits ``[..., classes]``."""
    logits = as_tensor(logits)
    labels = as_tensor(labels)
    lr, xr = labels._array.ndim, logits._array.ndim
    if xr == 0 or lr != xr - 1 or labels._array.shape != logits._array.shape[:-1]:
        raise InvalidArgumentError(
            None, None, f"SparseSoftmaxCrossEntropyWithLogits: rank of labels (received {lr}) should equal rank "
            f"of logits minus 1 (received {xr}) and their shapes must match: labels and logits "
            f"{describe([labels, logits])}")
    if xr == 2:  # already [batch, classes] and [batch]: no Reshape ops (and none to differentiate)
        return execute(SPARSE_SOFTMAX_CROSS_ENTROPY, (logits, labels))[0]
    c = logits._array.shape[-1]
    loss, _ = execute(SPARSE_SOFTMAX_CROSS_ENTROPY, (reshape(logits, (-1, c)), reshape(labels, (-1,))))
    return reshape(loss, labels._array.shape)


def _same_shape(fn_name, labels, logits):
    logits = as_tensor(logits)
    labels = operand_like(labels, logits)
    if labels.dtype is not logits.dtype:
        raise InvalidArgumentError(None, None, f"{fn_name}: labels and logits must have the same dtype, got "
                                   f"{describe([labels, logits])}")
    if labels.shape != logits.shape:
        raise ValueError(f"{fn_name}: logits and labels must have the same shape ({logits.shape} vs "
                         f"{labels.shape}); labels and logits {describe([labels, logits])}")
    return labels, logits


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """``tf.nn.sigmoid_cross_entropy_with_logits``: ``max(x, 0) - x * z + log(1 + exp(-|x|))`` (stable)."""
    labels, logits = _same_shape("sigmoid_cross_entropy_with_logits", labels, logits)
    zeros = zeros_like(logits)
    cond = greater_equal(logits, zeros)
    relu_logits = where(cond, logits, zeros)
    neg_abs_logits = where(cond, negative(logits), logits)
    return add(subtract(relu_logits, multiply(logits, labels)), log1p(exp(neg_abs_logits)))


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """``tf.nn.weighted_cross_entropy_with_logits``: positives weighted by ``pos_weight``."""
    labels, logits = _same_shape("weighted_cross_entropy_with_logits", labels, logits)
    pw = operand_like(pos_weight, logits)
    one = scalar_like(1, logits)
    log_weight = add(one, multiply(subtract(pw, one), labels))
    return add(multiply(subtract(one, labels), logits),
               multiply(log_weight, add(log1p(exp(negative(abs(logits)))), relu(negative(logits)))))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``tf.nn.log_poisson_loss``: ``exp(log_input) - targets * log_input`` (+ Stirling's term if full)."""
    log_input = as_tensor(log_input)
    targets = operand_like(targets, log_input)
    if targets.shape != log_input.shape:
        raise ValueError(f"log_poisson_loss: log_input and targets must have the same shape "
                         f"({log_input.shape} vs {targets.shape})")
    result = subtract(exp(log_input), multiply(log_input, targets))
    if compute_full_loss:
        safe = where(greater(targets, zeros_like(targets)), targets, ones_like(targets))
        two_pi = scalar_like(2 * np.pi, targets)
        stirling = add(subtract(multiply(safe, log(safe)), safe),
                       multiply(scalar_like(0.5, targets), log(multiply(two_pi, safe))))
        one = scalar_like(1, targets)
        small = logical_and(greater_equal(targets, zeros_like(targets)), less_equal(targets, one))
        result = add(result, where(small, zeros_like(targets), stirling))
    return result


L2_LOSS = Op("L2Loss", rule=floating_rule, grad=lambda c, g: [multiply(c.inputs[0], g)])


@L2_LOSS.kernel()
def _l2_loss(b, x):
    return (b.xp.sum(x * x, dtype=x.dtype) / x.dtype.type(2)).astype(x.dtype, copy=False)


def l2_loss(t, name=None):
    """``tf.nn.l2_loss``: ``sum(t ** 2) / 2``."""
    return execute(L2_LOSS, (t,))


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None, name=None):
    """``tf.nn.compute_average_loss``: ``sum(per_example_loss * sample_weight) / global_batch_size``.

    ``global_batch_size`` defaults to ``per_example_loss.shape[0] * num_replicas_in_sync``.
    """
    loss = as_tensor(per_example_loss)
    if sample_weight is not None:
        w = as_tensor(sample_weight)
        w = cast(w, loss.dtype) if w.dtype is not loss.dtype else w
        loss = multiply(loss, w)
    if global_batch_size is None:
        per_replica = loss._array.shape[0] if loss._array.ndim else 1
        global_batch_size = per_replica * num_replicas_in_sync()
    else:
        if hasattr(global_batch_size, "numpy"):
            gbs = global_batch_size.numpy()
            if not np.issubdtype(gbs.dtype, np.integer) or gbs.ndim:
                raise InvalidArgumentError(None, None, f"compute_average_loss: global_batch_size must be an "
                                           f"integer scalar, got {describe([global_batch_size])}")
            global_batch_size = int(gbs)
        if int(global_batch_size) <= 0:
            raise InvalidArgumentError(None, None, f"compute_average_loss: global_batch_size must be positive, "
                                       f"got {global_batch_size}")
    total = reduce_sum(loss)
    if global_batch_size == 0:  # an empty batch averages to 0 (div_no_nan), not NaN
        return total
    return divide(total, scalar_like(global_batch_size, total))


def scale_regularization_loss(regularization_loss, name=None):
    """``tf.nn.scale_regularization_loss``: ``sum(losses) / num_replicas_in_sync``."""
    loss = as_tensor(regularization_loss)
    total = reduce_sum(loss)
    n = num_replicas_in_sync()
    return total if n == 1 else multiply(total, scalar_like(1.0 / n, total))
