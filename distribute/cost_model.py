"""All-reduce cost model: how long synchronous data parallelism spends communicating (``docs/distributed.md``).

The alpha-beta model (Hockney; Thakur, Rabenseifner & Gropp 2005; the NCCL docs' "algbw/busbw"): sending
a message of ``n`` bytes over a link costs ``alpha + n * beta`` (``alpha``: latency per step, ``beta``:
seconds per byte = 1 / bandwidth). For an all-reduce of ``n`` bytes over ``p`` workers:

- **ring** (reduce-scatter then all-gather, NCCL's and Open MPI's large-message algorithm):
  ``2 (p - 1) alpha + 2 (p - 1) / p * n * beta`` — bandwidth-optimal, latency grows with ``p``.
- **tree** (NCCL's pipelined double binary tree): ``2 ceil(log2 p) alpha + 2 n beta`` — the latency
  grows with ``log p``; the bandwidth term does not shrink with ``p`` (but no longer grows either).
- **hierarchical** (Horovod/NCCL across nodes of ``g`` GPUs: reduce-scatter inside each node over its fast
  link, ring all-reduce of ``n / g`` bytes across the ``p / g`` nodes over the network, all-gather inside):
  ``2 (g - 1) alpha_in + 2 (g - 1) / g * n * beta_in + ring(p / g nodes, n / g bytes, network)``.

:func:`step_time` adds the communication to the compute time of a step, with an overlapped fraction (a
framework that starts reducing the first buckets while backpropagation still runs hides that much).
:data:`LINKS` holds typical links; :func:`fit_ring` calibrates ``alpha``/``beta`` from measured all-reduce
times (``bench/bench_mpi_allreduce.py``).
"""

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Link:
    """A network (or intra-node link): ``latency_s`` per message step, ``bandwidth_Bps`` bytes per second."""

    name: str
    latency_s: float
    bandwidth_Bps: float  # noqa: N815 - the unit in the name


LINKS = {
    # per-direction bandwidth per GPU/NIC; latencies as NCCL/MPI see them (software included)
    "nvlink": Link("NVLink (H100, NVLink 4)", 3e-6, 150e9),
    "infiniband": Link("InfiniBand NDR 400 Gb/s", 5e-6, 50e9),
    "10gbe": Link("10 Gigabit Ethernet (TCP)", 50e-6, 1.25e9),
    "internet": Link("Internet (100 Mb/s, 30 ms)", 30e-3, 12.5e6),
}

RESNET50_GRADIENT_BYTES = 25_557_032 * 4  # ResNet-50's trainable parameters, float32 gradients


def _check(nbytes, workers):
    if nbytes < 0:
        raise ValueError(f"nbytes must be >= 0, got {nbytes}")
    if int(workers) != workers or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")


def ring_allreduce_time(nbytes, workers, link):
    """Seconds for a ring all-reduce of ``nbytes`` over ``workers`` (0 for one worker)."""
    _check(nbytes, workers)
    if workers == 1:
        return 0.0
    p = workers
    return 2 * (p - 1) * link.latency_s + 2 * (p - 1) / p * nbytes / link.bandwidth_Bps


def tree_allreduce_time(nbytes, workers, link):
    """Seconds for a pipelined (double binary) tree all-reduce of ``nbytes`` over ``workers``."""
    _check(nbytes, workers)
    if workers == 1:
        return 0.0
    return 2 * math.ceil(math.log2(workers)) * link.latency_s + 2 * nbytes / link.bandwidth_Bps


def hierarchical_allreduce_time(nbytes, workers, gpus_per_node, intra, inter):
    """Seconds for reduce-scatter inside nodes of ``gpus_per_node`` (over ``intra``), ring all-reduce of the
    shards across nodes (over ``inter``), all-gather inside nodes."""
    _check(nbytes, workers)
    g = min(int(gpus_per_node), workers)
    if g < 1 or workers % g:
        raise ValueError(f"workers ({workers}) must be a multiple of gpus_per_node ({gpus_per_node})")
    inside = 0.0 if g == 1 else 2 * (g - 1) * intra.latency_s + 2 * (g - 1) / g * nbytes / intra.bandwidth_Bps
    return inside + ring_allreduce_time(nbytes / g, workers // g, inter)


def allreduce_time(nbytes, workers, link, algorithm="ring", gpus_per_node=8, intra=None):
    """All-reduce seconds by ``algorithm``: ``"ring"``, ``"tree"``, ``"hierarchical"`` (nodes of
    ``gpus_per_node`` joined by ``intra``, NVLink by default, across ``link``) or ``"best"`` (the fastest)."""
    if algorithm == "ring":
        return ring_allreduce_time(nbytes, workers, link)
    if algorithm == "tree":
        return tree_allreduce_time(nbytes, workers, link)
    if algorithm == "hierarchical":
        g = min(gpus_per_node, workers)
        return hierarchical_allreduce_time(nbytes, workers, g, intra or LINKS["nvlink"], link)
    if algorithm == "best":
        names = ["ring", "tree"] + (["hierarchical"] if workers % min(gpus_per_node, workers) == 0 else [])
        return min(allreduce_time(nbytes, workers, link, a, gpus_per_node, intra) for a in names)
    raise ValueError(f"algorithm must be 'ring', 'tree', 'hierarchical' or 'best', got {algorithm!r}")


def step_time(compute_s, nbytes, workers, link, algorithm="best", overlap=0.0, gpus_per_node=8, intra=None):
    """Predicted seconds per training step: ``compute_s`` plus the part of the gradient all-reduce not hidden
    behind backpropagation (``overlap``: 0 = none, 1 = all of it up to the compute time)."""
    if not 0.0 <= overlap <= 1.0:
        raise ValueError(f"overlap must be in [0, 1], got {overlap}")
    comm = allreduce_time(nbytes, workers, link, algorithm, gpus_per_node, intra)
    hidden = min(comm, overlap * compute_s)
    return compute_s + comm - hidden


def scaling_efficiency(compute_s, nbytes, workers, link, **kwargs):
    """Throughput of ``workers`` relative to ``workers`` times one worker's: ``compute_s / step_time``."""
    return compute_s / step_time(compute_s, nbytes, workers, link, **kwargs)


def fit_ring(sizes, seconds, workers):
    """``(alpha, beta)`` of the ring model fitted to measured all-reduce ``seconds`` of messages of ``sizes``
    bytes over ``workers`` ranks: least squares on relative errors, so that small messages (which fix alpha)
    count as much as large ones (which fix beta)."""
    if workers < 2:
        raise ValueError("fit_ring needs measurements over at least 2 workers")
    p = workers
    t = np.asarray(seconds, float)
    a = np.column_stack([np.full(len(sizes), 2.0 * (p - 1)), 2.0 * (p - 1) / p * np.asarray(sizes, float)])
    (alpha, beta), *_ = np.linalg.lstsq(a / t[:, None], np.ones_like(t), rcond=None)
    return float(max(alpha, 0.0)), float(beta)


def prediction_table(compute_s, nbytes=RESNET50_GRADIENT_BYTES, workers=(2, 8, 64, 256, 1024), links=None,
                     bytes_per_element=4, gpus_per_node=8):
    """Rows ``(link name, workers, ring ms, tree ms, hierarchical ms, step ms, efficiency)``: the all-reduce of
    ``nbytes`` float32 gradients (``bytes_per_element=2``: float16) with every worker on its own host over the
    link (ring, tree), or ``gpus_per_node`` workers per host on NVLink (hierarchical); the step takes the best
    of the three, without overlap."""
    rows = []
    n = nbytes * bytes_per_element / 4
    for key in links or LINKS:
        link = LINKS[key] if isinstance(key, str) else key
        for w in workers:
            ring, tree = ring_allreduce_time(n, w, link), tree_allreduce_time(n, w, link)
            hier = allreduce_time(n, w, link, "hierarchical", gpus_per_node)
            step = compute_s + min(ring, tree, hier)
            rows.append((link.name, w, ring * 1e3, tree * 1e3, hier * 1e3, step * 1e3, compute_s / step))
    return rows


def markdown_rows(rows):
    """``prediction_table`` rows as the Markdown table lines ``docs/distributed.md`` shows."""
    return [f"| {name} | {w} | {ring:.3g} | {tree:.3g} | {hier:.3g} | {step:.3g} | {eff:.0%} |"
            for name, w, ring, tree, hier, step, eff in rows]
