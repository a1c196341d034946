"""TF32 for float32 matmul through the public API (tf.config.experimental.enable_tensor_float_32_execution):
the op registry picks ``matmul_f32_tf32`` on an sm_80+ GPU (the emulated one reports 8.0) when TF32 is on
(TF's default), the strict ``matmul_f32`` when it is off; the CPU ignores it (NumPy float32), as TF does.
TF's own example: 1.0001 is 1.0 in TF32, so fill(1.0001) @ fill(1.0) sums to exactly n with TF32.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework.context import context
from tfcore.ops import conv_ops
from tfcore.ops.math_ops import MATMUL
from tfcore.ops.registry import kernel_for

pytestmark = pytest.mark.emulator

N = 64


@pytest.fixture
def emulated_gpu(monkeypatch, tf32_allowed):
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    yield
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
    context.reset_for_tests()


def _product(device):
    with tf.device(device):
        x = tf.fill((N, N), 1.0001)
        y = tf.fill((N, N), 1.0)
        return float(tf.linalg.matmul(x, y)[0, 0].numpy()), kernel_for(MATMUL, (x, y), {
            "transpose_a": False, "transpose_b": False}).name


def test_tf32_is_on_by_default_as_in_tf():
    context.reset_for_tests()
    assert tf.config.experimental.tensor_float_32_execution_enabled() is True


def test_tf32_choice_on_an_emulated_sm80_gpu(emulated_gpu):
    strict = np.float32(1.0001) * N
    value, kernel = _product("/GPU:0")
    assert kernel == "cuda_kernels.matmul.matmul_f32_tf32" and value == N
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        assert not tf.config.experimental.tensor_float_32_execution_enabled()
        value, kernel = _product("/GPU:0")
        assert kernel == "cuda_kernels.matmul.matmul_f32|matmul_f16_simt"
        assert value == pytest.approx(strict, rel=1e-6)
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(True)


def test_cpu_ignores_tf32(emulated_gpu):
    value, kernel = _product("/CPU:0")
    assert kernel == "_matmul" and value == pytest.approx(np.float32(1.0001) * N, rel=1e-6)


def test_float16_takes_the_tensor_core_candidate(emulated_gpu):
    with tf.device("/GPU:0"):
        x = tf.cast(tf.fill((8, 8), 0.5), tf.float16)
        cand = kernel_for(MATMUL, (x, x), {"transpose_a": False, "transpose_b": False})
    assert cand.name == "cuda_kernels.matmul.matmul_f16"


def test_tf32_candidate_needs_sm80(monkeypatch, tf32_allowed):
    from tfcore.ops.cuda_kernels import _util, matmul

    a = np.ones((4, 4), np.float32)
    assert matmul.tf32(a, a, transpose_a=False, transpose_b=False)
    monkeypatch.setattr(_util, "device_arch", lambda x: 75)  # the one place the sm_80 rule reads the arch
    assert not matmul.tf32(a, a, transpose_a=False, transpose_b=False)
    assert not matmul.tensor_cores_f16(a, a, transpose_a=False, transpose_b=False)


def test_nvidia_tf32_override_turns_tf32_off(monkeypatch, emulated_gpu):
    """NVIDIA_TF32_OVERRIDE=0 disables TF32 whatever tf.config says, as it does in cuBLAS/cuDNN (and TF)."""
    monkeypatch.setenv("NVIDIA_TF32_OVERRIDE", "0")
    assert tf.config.experimental.tensor_float_32_execution_enabled() is True
    value, kernel = _product("/GPU:0")
    assert kernel == "cuda_kernels.matmul.matmul_f32|matmul_f16_simt" and value == pytest.approx(64.0064, rel=1e-6)


# -- convolutions: the same TF32 rule (TF uses TF32 for convolutions too) ----------------------------------

CONV_ATTRS = {"strides": [1, 1, 1, 1], "padding": "SAME", "explicit_paddings": [], "dilations": [1, 1, 1, 1]}


def _conv_choice(dtype=np.float32):
    """The kernel each of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter picks on /GPU:0."""
    with tf.device("/GPU:0"):
        x = tf.cast(tf.fill((1, 5, 5, 8), 1.0), dtype)
        w = tf.cast(tf.fill((3, 3, 8, 8), 1.0), dtype)
        dy = tf.cast(tf.fill((1, 5, 5, 8), 1.0), dtype)
        return (kernel_for(conv_ops.CONV2D, (x, w), CONV_ATTRS).name,
                kernel_for(conv_ops.CONV2D_BACKPROP_INPUT, (w, dy), dict(CONV_ATTRS, input_sizes=(1, 5, 5, 8))).name,
                kernel_for(conv_ops.CONV2D_BACKPROP_FILTER, (x, dy), dict(CONV_ATTRS, filter_sizes=(3, 3, 8, 8))).name)


TC = ("cuda_kernels.conv.conv2d_fwd_tc", "cuda_kernels.conv.conv2d_input_grad_tc",
      "cuda_kernels.conv.conv2d_filter_grad_tc")
SIMT = ("cuda_kernels.conv.Conv2D", "cuda_kernels.conv.Conv2DBackpropInput", "cuda_kernels.conv.Conv2DBackpropFilter")


def test_conv_tf32_choice_on_an_emulated_sm80_gpu(emulated_gpu):
    assert _conv_choice() == tuple(f"{t}_tf32" for t in TC)
    tf.config.experimental.enable_tensor_float_32_execution(False)
    try:
        assert _conv_choice() == SIMT
        assert _conv_choice(np.float16) == tuple(f"{t}_f16" for t in TC)  # float16 does not depend on TF32
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(True)


def test_conv_nvidia_tf32_override_turns_tf32_off(monkeypatch, emulated_gpu):
    monkeypatch.setenv("NVIDIA_TF32_OVERRIDE", "0")
    assert _conv_choice() == SIMT
    assert _conv_choice(np.float16) == tuple(f"{t}_f16" for t in TC)


def test_conv_tensor_core_candidates_need_sm80(monkeypatch, emulated_gpu):
    from tfcore.ops.cuda_kernels import _util

    monkeypatch.setattr(_util, "device_arch", lambda x: 75)
    assert _conv_choice() == SIMT and _conv_choice(np.float16) == SIMT


def test_conv_tf32_through_the_public_api(emulated_gpu):
    """tf.nn.conv2d on the GPU with TF32 on is the TF32 product (1.0001 is 1.0 in TF32), off it is strict."""
    x = np.full((1, 3, 3, 8), 1.0001, np.float32)
    w = np.ones((3, 3, 8, 4), np.float32)
    with tf.device("/GPU:0"):
        tf32 = tf.nn.conv2d(x, w, 1, "SAME").numpy()
        tf.config.experimental.enable_tensor_float_32_execution(False)
        try:
            strict = tf.nn.conv2d(x, w, 1, "SAME").numpy()
        finally:
            tf.config.experimental.enable_tensor_float_32_execution(True)
    assert tf32[0, 1, 1, 0] == 72.0
    assert strict[0, 1, 1, 0] == pytest.approx(72 * 1.0001, rel=1e-6)
