"""``tfcore selftest``: check this machine's GPU stack and print one table (issue 21 item 10).

Sections, in order: ``stack`` (driver, CUDA runtime, NVRTC, NCCL and whether they fit; the device; a
kernel loading as a cubin), ``kernels`` (every kernel family against float64 references: matmul on each
entry with its fused epilogue, convolution forward / input gradient / filter gradient on SIMT and tensor
cores in float16 and TF32 with odd channels, misaligned inputs and split-K, depthwise, pooling,
reductions, softmax / cross-entropy, bias + activation), ``graphs`` and ``nccl`` (probes in fresh
processes: a CUDA-graph capture and replay, a forced capture failure followed by eager work, the
reduction workspace regrown under a live graph, an explicit ``NcclAllReduce`` on two logical GPUs of
one card), and ``timing`` (our kernels next to cuBLAS / cuDNN / CuPy / PyTorch, real GPUs only).

GPU memory grows as needed (``TF_FORCE_GPU_ALLOW_GROWTH=true`` unless set): the probe processes share
the card with this one. It runs on an emulated GPU too (``TFCORE_EMULATED_GPUS=1``: small shapes, no
timings), which is how CI runs it. The exit status is 1 when any check fails. ``--json PATH`` writes
every row and the versions.
"""

from .runner import run_selftest

__all__ = ["run_selftest"]
