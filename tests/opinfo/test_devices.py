"""Every sample of the table on a GPU device matches the CPU, runs the op its entry names, and launches
the entry's CUDA kernels.

The module gets one emulated GPU (``TFCORE_EMULATED_GPUS=1``) whose backend is in ``cupy_strict`` mode, so
op code that would break under CuPy (NumPy functions CuPy lacks, host arrays mixed with device arrays,
``add.at`` on dtypes CuPy's atomics miss, an implementation returning a host array) fails here although
no GPU is present. ``tests/gpu/test_ops_gpu.py`` runs the same samples on a real GPU.
"""

import contextlib
import io
import os
import re
import sys

import pytest

import tfcore as tf

from . import table  # noqa: F401  (fills OPS)
from .core import RecordingKernels, all_samples, assert_kernels_launched, assert_same, run_sample

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "ops"))
import cupy_strict  # noqa: E402

GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
SAMPLES = all_samples()


@pytest.fixture(scope="module")
def gpu_kernels():
    """One emulated GPU in strict CuPy mode whose kernel launches are recorded; configuration restored after."""
    with cupy_strict.strict_emulated_gpu() as backend:
        rec = RecordingKernels(backend.kernels)
        backend.kernels = rec
        try:
            yield rec
        finally:
            backend.kernels = rec._lib


def _ops_run(c, device):
    """``run_sample`` plus the names of the registry ops it executed (TF's device-placement log)."""
    buf = io.StringIO()
    tf.debugging.set_log_device_placement(True)
    try:
        with contextlib.redirect_stdout(buf):
            result = run_sample(c, device)
    finally:
        tf.debugging.set_log_device_placement(False)
    return result, set(re.findall(r"Executing op (\S+) in", buf.getvalue()))


@pytest.mark.parametrize("c", SAMPLES, ids=[f"{c.op or 'composite'}:{c.id}" for c in SAMPLES])
def test_sample_on_gpu_matches_cpu(gpu_kernels, c):
    (want, cpu_devices, want_grads), ran = _ops_run(c, "/CPU:0")
    assert all(d == CPU0 for d in cpu_devices)
    assert c.op is None or c.op in ran, f"{c.id}: the entry's op {c.op} never ran (ran {sorted(ran)})"
    gpu_kernels.names.clear()
    got, devices, grads = run_sample(c, "/GPU:0")
    expected = CPU0 if c.host else GPU0
    assert devices == [expected] * len(devices), f"{c.id}: outputs or gradients on {devices}"
    assert_same(c, got, want, "output")
    assert_same(c, grads, want_grads, "gradient")
    if c.grad:
        assert any(g is not None for g in grads), f"{c.id}: no gradient reached any input"
    assert_kernels_launched(c, gpu_kernels.names)


def test_table_covers_every_op_family():
    ids = {c.id for c in SAMPLES}
    for family_member in ["add", "nn.conv2d_same_stride2", "nn.max_pool2d", "reduce_sum", "nn.softmax",
                          "nn.sparse_softmax_xent", "gather", "random.stateless", "image.resize_bilinear",
                          "train.adam", "unsorted_segment_sum_int64", "scatter_nd_int64"]:
        assert family_member in ids
    assert len(SAMPLES) >= 246
