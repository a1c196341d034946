"""Candidate samplers (``tf.random.*_candidate_sampler``, also in ``tf.nn``) and ``tf.nn.compute_accidental_hits``.

Each sampler draws ``num_sampled`` class ids from a fixed distribution over ``[0, range_max)`` and reports the
expected count of every true and sampled class, as TF's ``RangeSampler``: ``p * num_sampled`` without
``unique``; with ``unique`` (draws repeated until ``num_sampled`` distinct ids came up after ``num_tries`` draws)
``-expm1(num_tries * log1p(-p))``. Draws come from the same host Philox generators as ``tf.random.uniform``
(TF's seed rules), so a seed gives reproducible candidates (not TF's exact ones).
"""

import collections

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from . import array_ops as _a
from . import loss_ops as _loss
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor
from .random_ops import _generator
from .registry import Op, execute

__all__ = ["uniform_candidate_sampler", "log_uniform_candidate_sampler", "all_candidate_sampler", "nce_loss",
           "sampled_softmax_loss",
           "fixed_unigram_candidate_sampler", "compute_accidental_hits"]


def _sampler_rule(op, ts, attrs):
    tc = ts[0]
    if not tc._dtype.is_integer or tc._array.ndim != 2:
        raise InvalidArgumentError(None, None, f"{attrs['name']}: true_classes must be a rank-2 int64 tensor, got "
                                               f"{tc._dtype.name}{list(tc._array.shape)}")
    if tc._array.shape[1] != attrs["num_true"]:
        raise InvalidArgumentError(None, None, f"true_classes must have num_true columns, expected: "
                                               f"{tc._array.shape[1]} was: {attrs['num_true']}")
    return dtypes.int64, dtypes.float32, dtypes.float32


CANDIDATE_SAMPLER = Op("CandidateSampler", rule=_sampler_rule, multi_output=True)


@CANDIDATE_SAMPLER.kernel()
def _candidate_sampler(b, true_classes, *, name, num_true, sample):
    sampled, true_expected, sampled_expected = sample(np.asarray(b.to_numpy(true_classes)).astype(np.int64))
    return (b.asarray(sampled.astype(np.int64)), b.asarray(true_expected.astype(np.float32)),
            b.asarray(sampled_expected.astype(np.float32)))


CandidateSamplerResult = collections.namedtuple("CandidateSamplerResult",
                                                ["sampled_candidates", "true_expected_count",
                                                 "sampled_expected_count"])


def _run_sampler(name, true_classes, num_true, num_sampled, unique, probs, seed, draw=None):
    """Sample from ``probs`` (a ``[range_max]`` array) with TF's expected-count rules."""
    range_max = len(probs)
    num_sampled = int(num_sampled)
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(None, None, "Sampler's range is too small.")
    if num_sampled < 0:
        raise InvalidArgumentError(None, None, f"num_sampled must be >= 0, got {num_sampled}")
    gen = _generator(name, seed)
    probs = np.asarray(probs, np.float64)

    def expected(p, tries):
        if not unique or tries == num_sampled:
            return p * num_sampled
        return -np.expm1(tries * np.log1p(-p))

    def sample(tc):
        if draw is not None:
            sampled, tries = draw()
        elif not unique:
            sampled = gen.choice(range_max, size=num_sampled, p=probs)
            tries = num_sampled
        else:
            seen, out, tries = set(), [], 0
            while len(out) < num_sampled:
                c = int(gen.choice(range_max, p=probs))
                tries += 1
                if c not in seen:
                    seen.add(c)
                    out.append(c)
            sampled = np.asarray(out, np.int64)
        tc_probs = np.where((tc >= 0) & (tc < range_max), probs[np.clip(tc, 0, max(range_max - 1, 0))], 0.0)
        return np.asarray(sampled, np.int64), expected(tc_probs, tries), expected(probs[sampled], tries)

    out = execute(CANDIDATE_SAMPLER, (as_tensor(true_classes, dtypes.int64),),
                  {"name": name, "num_true": int(num_true), "sample": sample})
    return CandidateSamplerResult(*out)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """``tf.random.uniform_candidate_sampler``: candidates drawn uniformly from ``[0, range_max)``."""
    probs = np.full(int(range_max), 1.0 / int(range_max))
    return _run_sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, probs, seed)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """``tf.random.log_uniform_candidate_sampler``: Zipfian ``P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)``."""
    k = np.arange(int(range_max), dtype=np.float64)
    probs = (np.log(k + 2) - np.log(k + 1)) / np.log(int(range_max) + 1)
    return _run_sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, probs, seed)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """``tf.random.all_candidate_sampler``: every class ``0 .. num_sampled - 1``, each with expected count 1."""
    n = int(num_sampled)
    probs = np.full(n, 1.0 / n) if n else np.zeros(0)
    res = _run_sampler("AllCandidateSampler", true_classes, num_true, n, False, probs, seed,
                       draw=lambda: (np.arange(n, dtype=np.int64), n))
    ones_t = as_tensor(np.ones(res.true_expected_count.shape.as_list(), np.float32))
    return CandidateSamplerResult(res.sampled_candidates, ones_t, as_tensor(np.ones(n, np.float32)))


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """``tf.random.fixed_unigram_candidate_sampler``: ``P(k)`` proportional to ``unigrams[k] ** distortion``
    (counts from ``unigrams`` or ``vocab_file``, one ``word,count`` per line; the first ``num_reserved_ids`` ids
    get weight 0; with ``num_shards`` only this ``shard``'s ids ``k % num_shards == shard`` are sampled)."""
    if vocab_file:
        with open(vocab_file) as f:
            counts = [float(line.rsplit(",", 1)[-1]) for line in f if line.strip()]
    else:
        counts = [float(u) for u in unigrams]
    counts = [0.0] * int(num_reserved_ids) + counts
    if len(counts) != int(range_max):
        raise InvalidArgumentError(None, None, f"Range max {int(range_max)} must equal the number of unigrams "
                                               f"plus reserved ids ({len(counts)})")
    weights = np.asarray(counts, np.float64) ** float(distortion)
    weights[: int(num_reserved_ids)] = 0.0
    if int(num_shards) > 1:
        weights[np.arange(len(weights)) % int(num_shards) != int(shard)] = 0.0
    probs = weights / weights.sum()
    return _run_sampler("FixedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique, probs, seed)


def _hits_rule(op, ts, attrs):
    tc, sampled = ts
    if tc._array.ndim != 2 or tc._array.shape[1] != attrs["num_true"]:
        raise InvalidArgumentError(None, None, f"true_classes must be [batch, num_true={attrs['num_true']}], got "
                                               f"{list(tc._array.shape)}")
    if sampled._array.ndim != 1:
        raise InvalidArgumentError(None, None, "sampled_candidates must be a vector")
    return dtypes.int32, dtypes.int64, dtypes.float32


COMPUTE_ACCIDENTAL_HITS = Op("ComputeAccidentalHits", rule=_hits_rule, multi_output=True)


@COMPUTE_ACCIDENTAL_HITS.kernel()
def _accidental_hits(b, true_classes, sampled, *, num_true):
    tc = np.asarray(b.to_numpy(true_classes))
    sc = np.asarray(b.to_numpy(sampled))
    positions = collections.defaultdict(list)
    for j, c in enumerate(sc.tolist()):
        positions[c].append(j)
    idx, ids = [], []
    for i, row in enumerate(tc.tolist()):
        for c in row:
            for j in positions.get(c, ()):
                idx.append(i)
                ids.append(j)
    weights = np.full(len(idx), -np.finfo(np.float32).max, np.float32)
    return b.asarray(np.asarray(idx, np.int32)), b.asarray(np.asarray(ids, np.int64)), b.asarray(weights)


AccidentalHits = collections.namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """``tf.nn.compute_accidental_hits``: ``(indices, ids, weights)`` for every sampled candidate (position ``ids``)
    equal to one of row ``indices``' true classes, with weight ``-FLOAT_MAX`` (to mask its logit)."""
    out = execute(COMPUTE_ACCIDENTAL_HITS, (as_tensor(true_classes, dtypes.int64),
                                            as_tensor(sampled_candidates, dtypes.int64)), {"num_true": int(num_true)})
    return AccidentalHits(*out)


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                            subtract_log_q, remove_accidental_hits, seed):
    """TF's ``_compute_sampled_logits``: logits of the true classes and the sampled candidates, and their labels."""

    if isinstance(weights, (list, tuple)):
        weights = _a.concat(list(weights), axis=0)  # 'div' partitioning: shards are consecutive row blocks
    if isinstance(biases, (list, tuple)):
        biases = _a.concat(list(biases), axis=0)
    weights, inputs = as_tensor(weights), as_tensor(inputs)
    biases = as_tensor(biases, weights.dtype)
    labels = _m.cast(as_tensor(labels), dtypes.int64)
    if labels.ndim == 1:
        labels = _a.reshape(labels, [-1, num_true])
    labels_flat = _a.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (_a.stop_gradient(as_tensor(s)) for s in sampled_values)
    sampled = _m.cast(sampled, dtypes.int64)
    n_true = labels_flat.shape[0]
    all_ids = _a.concat([labels_flat, sampled], axis=0)
    all_w = _a.gather(weights, all_ids)
    all_b = _a.gather(biases, all_ids)
    true_w, sampled_w = all_w[:n_true], all_w[n_true:]
    true_b, sampled_b = all_b[:n_true], all_b[n_true:]
    sampled_logits = _m.add(_m.matmul(inputs, sampled_w, transpose_b=True), sampled_b)
    dim = true_w.shape[-1]
    dots = _m.multiply(_a.expand_dims(inputs, 1), _a.reshape(true_w, [-1, num_true, dim]))
    true_logits = _m.add(_r.reduce_sum(dots, axis=-1), _a.reshape(true_b, [-1, num_true]))
    if remove_accidental_hits:
        idx, ids, w = compute_accidental_hits(labels, sampled, num_true)
        pos = _a.stack([_m.cast(idx, dtypes.int64), ids], axis=1)
        mask = _a.scatter_nd(pos, _m.cast(w, sampled_logits.dtype), [labels.shape[0], int(num_sampled)])
        sampled_logits = _m.add(sampled_logits, mask)
    if subtract_log_q:
        true_logits = _m.subtract(true_logits, _m.log(_m.cast(true_expected, true_logits.dtype)))
        sampled_logits = _m.subtract(sampled_logits, _m.log(_m.cast(sampled_expected, sampled_logits.dtype)))
    out_logits = _a.concat([true_logits, sampled_logits], axis=1)
    out_labels = _a.concat([_m.divide(_a.ones_like(true_logits), float(num_true)), _a.zeros_like(sampled_logits)],
                           axis=1)
    return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, name="nce_loss"):
    """``tf.nn.nce_loss``: noise-contrastive estimation loss per example (sigmoid cross-entropy of the true and
    sampled logits, corrected by ``log`` of their expected counts). ``weights``: ``[num_classes, dim]`` (or a list
    of row shards), ``labels``: ``[batch, num_true]`` int64; candidates from ``log_uniform_candidate_sampler``
    unless ``sampled_values`` is given."""

    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                             sampled_values, True, remove_accidental_hits, None)
    losses = _loss.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return _r.reduce_sum(losses, axis=1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, seed=None, name="sampled_softmax_loss"):
    """``tf.nn.sampled_softmax_loss``: softmax cross-entropy over the true class(es) and ``num_sampled``
    candidates (accidental hits masked by default), per example."""

    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                             sampled_values, True, remove_accidental_hits, seed)
    return _loss.softmax_cross_entropy_with_logits(labels=_a.stop_gradient(labels), logits=logits)
