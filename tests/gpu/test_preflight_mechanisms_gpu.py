"""Issue 21's mechanisms on a real GPU, beside their CPU tests (items 6, 7, 9).

- every kernel family loads as a cubin for the device's sm_XX (CPU: tests/backend/test_cubin_loading.py);
- ``_MultiTensorApply`` leaves every variable 16-byte aligned in device memory (CPU:
  tests/ops/test_cpu_fast_paths.py);
- an explicit ``NcclAllReduce`` on two logical GPUs of the card reduces right, through the selftest's probe in
  a fresh process (CPU: tests/distribute/test_nccl_split_card.py).

The CUDA-graph probes run in ``tfcore selftest`` (bench/gpu_run.sh runs it before these tests).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfcore as tf
from tfcore.ops import training_ops

pytestmark = pytest.mark.usefixtures("real_gpu0")  # tests/gpu/conftest.py: skip unless GPU:0 is real
REPO = Path(__file__).resolve().parents[2]


def test_every_family_loads_as_a_cubin_and_runs(real_gpu0):
    from tfcore.backend import nvrtc
    from tfcore.backend.kernel_library import CupyKernelLibrary, kernel_families

    lib = CupyKernelLibrary(0)
    for family in kernel_families():
        lib.module(family)
    want = "cubin" if int(lib.arch) in nvrtc.supported_archs() else "ptx"
    assert set(lib.loaded_kind.values()) == {want}, lib.loaded_kind
    with tf.device("/GPU:0"):
        y = tf.nn.bias_add(tf.ones((4, 3)), tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(y.numpy(), np.tile([2.0, 3.0, 4.0], (4, 1)))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_multi_tensor_apply_keeps_variables_aligned_on_the_gpu(real_gpu0, dtype):
    sizes = [3, 5, 8, 1, 7]
    rng = np.random.default_rng(0)
    with tf.device("/GPU:0"):
        state = tuple([tf.constant(np.abs(rng.standard_normal(s)).astype(dtype)) for s in sizes] for _ in range(3))
        grads = [tf.constant(rng.standard_normal(s).astype(dtype)) for s in sizes]
        for _ in range(2):
            state = training_ops.apply(training_ops.ADAM, (*state, grads), alpha=0.01, beta_1=0.9, beta_2=0.999,
                                       epsilon=1e-7)
            for column in state:
                for t in column:
                    assert t._array.__cuda_array_interface__["data"][0] % 16 == 0, (dtype, t.shape)


@pytest.mark.parametrize("probe", ["split_card_nccl"])
def test_selftest_probe_on_the_gpu(real_gpu0, probe):
    env = {**os.environ, "PYTHONPATH": str(REPO), "TFCORE_CUDA_GRAPHS": "1"}
    proc = subprocess.run([sys.executable, "-m", "tfcore.selftest.probes", probe], capture_output=True, text=True,
                          timeout=120, env=env, cwd=REPO)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("SELFTEST-PROBE ")), None)
    assert line is not None, proc.stderr[-3000:]
    result = json.loads(line[len("SELFTEST-PROBE "):])
    assert result["status"] == "PASS", result
