"""``tf.nn.ctc_loss`` (the forward-backward recursion in log space, composed of registered ops so that it
differentiates to the logits) and ``tf.nn.collapse_repeated``."""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor as _convert
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor

__all__ = ["ctc_loss", "collapse_repeated"]


_NEG = -1e30


def _logsumexp(*terms):
    m = terms[0]
    for t in terms[1:]:
        m = _m.maximum(m, t)
    m = _a.stop_gradient(m)
    total = None
    for t in terms:
        e = _m.exp(_m.subtract(t, m))
        total = e if total is None else _m.add(total, e)
    return _m.add(_m.log(total), m)


def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
             name=None):
    """``tf.nn.ctc_loss`` (dense labels): per-sequence negative log-likelihood of ``labels`` ``[B, L]`` given
    unnormalised ``logits`` (``[T, B, K]``, or ``[B, T, K]`` with ``logits_time_major=False``), via the CTC
    forward algorithm in log space. ``blank_index`` defaults to 0 (negative values count from the end)."""
    lg = as_tensor(logits)
    if not lg.dtype.is_floating:
        lg = _m.cast(lg, dtypes.float32)
    if not logits_time_major:
        lg = _a.transpose(lg, [1, 0, 2])
    t_max, batch, k = lg.shape.as_list()
    blank = 0 if blank_index is None else int(blank_index) % k
    lab = np.asarray(as_tensor(labels).numpy(), np.int64)
    lab_len = np.asarray(as_tensor(label_length).numpy(), np.int64).reshape(-1)
    log_len = np.asarray(as_tensor(logit_length).numpy(), np.int64).reshape(-1)
    if lab.ndim != 2 or lab.shape[0] != batch or lab_len.shape[0] != batch or log_len.shape[0] != batch:
        raise InvalidArgumentError(None, None, f"CTCLoss: labels [batch, max_label_length], label_length [batch] "
                                               f"and logit_length [batch] must match logits' batch {batch}")
    s = 2 * lab.shape[1] + 1
    ext = np.full((batch, s), blank, np.int64)  # blank, l1, blank, l2, ..., blank
    ext[:, 1::2] = lab
    valid = np.arange(s)[None, :] < (2 * lab_len[:, None] + 1)
    skip = np.zeros((batch, s), bool)  # a transition from s-2 is allowed to a label that differs from s-2's
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    logp = _m.subtract(lg, _r.reduce_logsumexp(lg, axis=-1, keepdims=True))  # [T, B, K]
    dev = lg._device
    dt = lg.dtype.as_numpy_dtype
    gather_idx = _convert(ext, device=dev)
    neg = _convert(np.full((batch, s), _NEG, dt), device=dev)
    valid_t = _convert(valid, device=dev)
    skip_t = _convert(skip, device=dev)
    init = np.full((batch, s), False)
    init[:, 0] = True
    init[:, 1] = lab_len > 0
    emit0 = _a.gather(logp[0], gather_idx, axis=1, batch_dims=1)
    alpha = _m.where(_convert(init & valid, device=dev), emit0, neg)
    for t in range(1, t_max):
        emit = _a.gather(logp[t], gather_idx, axis=1, batch_dims=1)
        prev1 = _a.pad(alpha[:, :-1], [[0, 0], [1, 0]], constant_values=_NEG)
        prev2 = _m.where(skip_t, _a.pad(alpha[:, :-2], [[0, 0], [2, 0]], constant_values=_NEG), neg)
        new = _m.add(_logsumexp(alpha, prev1, prev2), emit)
        new = _m.where(valid_t, new, neg)
        active = _convert((t < log_len)[:, None].repeat(s, axis=1), device=dev)
        alpha = _m.where(active, new, alpha)
    last = _convert(np.stack([2 * lab_len, np.maximum(2 * lab_len - 1, 0)], axis=1), device=dev)
    ends = _a.gather(alpha, last, axis=1, batch_dims=1)
    e0, e1 = _a.unstack(ends, axis=1)
    e1 = _m.where(_convert(lab_len > 0, device=dev), e1, _convert(np.full(batch, _NEG, dt), device=dev))
    return _m.negative(_logsumexp(e0, e1))


def collapse_repeated(labels, seq_length, name=None):
    """``tf.nn.collapse_repeated``: merge repeated labels in each row; ``(collapsed, new_seq_length)``."""
    lab = np.asarray(as_tensor(labels).numpy())
    lens = np.asarray(as_tensor(seq_length).numpy()).reshape(-1)
    rows = []
    for row, n in zip(lab, lens):
        kept = [v for i, v in enumerate(row[:n]) if i == 0 or v != row[i - 1]]
        rows.append(kept)
    width = max((len(r) for r in rows), default=0)
    out = np.zeros((len(rows), width), lab.dtype)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return _convert(out), _convert(np.asarray([len(r) for r in rows], lens.dtype))
