"""Every public op runs on a GPU device (an emulated GPU made to behave like CuPy) and matches the CPU.

The module gets its own device configuration: one emulated GPU (``TFCORE_EMULATED_GPUS=1``,
``context.reset_for_tests()``, as tests/distribute/conftest.py does) whose backend is put in
``cupy_strict`` mode, so op code that would break under CuPy — NumPy functions CuPy lacks,
host arrays mixed with device arrays, ``add.at`` on dtypes CuPy's atomics miss, ``argsort(kind=)``,
an implementation returning a host array — fails here although no GPU is present.
The op-info table's samples run on such a GPU in tests/opinfo/test_devices.py (and on a real GPU in
tests/gpu/test_ops_gpu.py).
"""

import io
import os
import sys
import warnings

import numpy as np
import pytest

import tfcore as tf
from tfcore.ops.registry import Op, execute

sys.path.insert(0, os.path.dirname(__file__))
import cupy_strict  # noqa: E402

GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.fixture(scope="module", autouse=True)
def strict_gpu():
    """One emulated GPU in strict CuPy mode for this module; the previous configuration restored after."""
    with cupy_strict.strict_emulated_gpu() as backend:
        yield backend


@pytest.fixture
def capture_placement(capsys):
    tf.debugging.set_log_device_placement(True)
    try:
        yield capsys
    finally:
        tf.debugging.set_log_device_placement(False)


def test_strict_mode_catches_cupy_incompatible_code(strict_gpu):
    """The strict backend must refuse what CuPy refuses, or the table above proves nothing."""
    with tf.device("/GPU:0"):
        x = tf.constant(np.arange(6, dtype=np.int64))
    a = x._array
    assert isinstance(a, cupy_strict.StrictArray)
    with pytest.raises(cupy_strict.CupyIncompatible):
        a + np.ones(6, np.int64)                       # host array mixed with a device array
    with pytest.raises(cupy_strict.CupyIncompatible):
        strict_gpu.xp.add.at(a.copy(), np.array([0, 0]), 1)  # CuPy's scatter_add has no int64
    with pytest.raises(cupy_strict.CupyIncompatible):
        strict_gpu.xp.argsort(a, kind="stable")
    with pytest.raises(cupy_strict.CupyIncompatible):
        strict_gpu.adopt(np.zeros(3))                 # an implementation returning a host array
    if cupy_strict._cupy is not None:
        with pytest.raises(AttributeError):
            _ = strict_gpu.xp.errstate                 # not in CuPy's namespace
        with pytest.raises(cupy_strict.CupyIncompatible):
            np.lib.stride_tricks.sliding_window_view(a, 2)


def test_hot_ops_do_not_synchronise_with_the_host():
    """Element-wise ops, matmul, conv, pooling, softmax and their gradients never stall the GPU."""
    x = np.random.default_rng(0).standard_normal((2, 5, 5, 3)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((3, 3, 3, 4)).astype(np.float32)
    with tf.device("/GPU:0"):
        xt, wt = tf.constant(x), tf.constant(w)
        cupy_strict.SYNCS.clear()
        with tf.GradientTape() as tape:
            tape.watch([xt, wt])
            y = tf.nn.relu(tf.nn.conv2d(xt, wt, 1, "SAME"))
            y = tf.nn.max_pool2d(y, 2, 2, "VALID")
            logits = tf.matmul(tf.reshape(y, [2, -1]), tf.ones([16, 3]))
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(logits), logits))
        tape.gradient(loss, [xt, wt])
    assert cupy_strict.SYNCS == []


# -- placement semantics ------------------------------------------------------------------------------

def test_default_placement_is_gpu_and_results_stay_there():
    x = tf.constant([1.0, 2.0])
    assert x.device == GPU0
    y = tf.exp(x)
    assert y.device == GPU0
    np.testing.assert_allclose(y.numpy(), np.exp([1.0, 2.0]).astype(np.float32), rtol=1e-6)


def test_variable_on_gpu_assign_and_gradient():
    with tf.device("/GPU:0"):
        v = tf.Variable([[1.0, -2.0], [3.0, 4.0]])
    assert v.device == GPU0
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(v))
    g = tape.gradient(loss, v)
    assert g.device == GPU0
    np.testing.assert_allclose(g.numpy(), [[2.0, -4.0], [6.0, 8.0]])
    v.assign_sub(g * 0.5)
    v.assign_add(tf.ones([2, 2]))
    assert v.device == GPU0 and v.read_value().device == GPU0
    np.testing.assert_allclose(v.numpy(), [[1.0, 1.0], [1.0, 1.0]])
    with tf.device("/CPU:0"):
        cpu_value = v * 2.0                            # read on GPU, copied to the CPU op
    assert cpu_value.device == CPU0
    np.testing.assert_allclose(cpu_value.numpy(), [[2.0, 2.0], [2.0, 2.0]])


def test_device_scopes_nest_and_restore():
    with tf.device("/CPU:0"):
        a = tf.constant(1.0)
        with tf.device("/GPU:0"):
            b = tf.constant(2.0)
            with tf.device("/CPU:0"):
                c = a + b
            d = a + b
        e = b * 3.0
    f = tf.constant(4.0)
    assert (a.device, b.device, c.device, d.device, e.device, f.device) == (CPU0, GPU0, CPU0, GPU0, CPU0, GPU0)
    assert float(c) == 3.0 and float(d) == 3.0 and float(e) == 6.0


def test_implicit_copies_between_cpu_and_gpu_inputs():
    with tf.device("/CPU:0"):
        cpu = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with tf.device("/GPU:0"):
        gpu = tf.constant(np.ones((3, 2), np.float32))
    # without a scope the op runs on its first input's device; the other input is copied there
    on_cpu, on_gpu = tf.matmul(cpu, gpu), tf.matmul(tf.transpose(gpu), tf.transpose(cpu))
    assert on_cpu.device == CPU0 and on_gpu.device == GPU0
    np.testing.assert_allclose(on_cpu.numpy(), [[3, 3], [12, 12]])
    np.testing.assert_allclose(on_gpu.numpy(), [[3, 12], [3, 12]])
    # python values and numpy arrays are converted onto the op's device
    mixed = gpu + np.float32(1.0)
    assert mixed.device == GPU0 and float(tf.reduce_sum(mixed)) == 12.0


def test_gradient_flows_back_across_an_implicit_copy():
    with tf.device("/CPU:0"):
        cpu = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with tf.device("/GPU:0"):
        gpu = tf.constant(np.ones((3, 2), np.float32))
    with tf.GradientTape() as tape:
        tape.watch([cpu, gpu])
        loss = tf.reduce_sum(tf.matmul(cpu, gpu))      # runs on the CPU: gpu is copied there
    g_cpu, g_gpu = tape.gradient(loss, [cpu, gpu])
    np.testing.assert_allclose(g_cpu.numpy(), np.full((2, 3), 2.0))
    np.testing.assert_allclose(g_gpu.numpy(), [[3, 3], [5, 5], [7, 7]])


_CPU_ONLY = Op("TestGpuPlacementCpuOnly")


@_CPU_ONLY.kernel("cpu")
def _cpu_only(b, x):
    return b.xp.add(x, x)


def test_soft_placement_of_an_op_without_a_gpu_kernel(capture_placement):
    with tf.device("/GPU:0"):
        x = tf.constant([1.0, 2.0])
        y = execute(_CPU_ONLY, (x,))
        execute(_CPU_ONLY, (x,))
    assert y.device == CPU0
    np.testing.assert_allclose(y.numpy(), [2.0, 4.0])
    out = capture_placement.readouterr().out
    assert out.count("Op TestGpuPlacementCpuOnly has no kernel for") == 1  # said once
    assert "running it on " + CPU0 in out


def test_log_device_placement_names_each_op_and_device(capture_placement):
    with tf.device("/GPU:0"):
        x = tf.constant([1.0, 4.0])
        tf.sqrt(x)
    with tf.device("/CPU:0"):
        tf.exp(x)
    out = capture_placement.readouterr().out
    assert f"Executing op Sqrt in device {GPU0}" in out
    assert f"Executing op Exp in device {CPU0}" in out


def test_print_of_a_gpu_tensor_matches_cpu():
    values = np.array([[1.5, -2.0, 3.25], [4.0, 5.0, 6.0]], np.float32)
    texts = []
    for dev in ("/CPU:0", "/GPU:0"):
        with tf.device(dev):
            buf = io.StringIO()
            tf.print("x:", tf.constant(values), output_stream=buf, summarize=2)
            texts.append(buf.getvalue())
    assert texts[0] == texts[1] == "x: [[1.5 -2 3.25]\n [4 5 6]]\n"


@pytest.mark.parametrize("device", ["/CPU:0", "/GPU:0"])
def test_log_like_ops_are_silent_on_zero_and_negative_inputs(device):
    """TF returns -inf / nan without a warning; NumPy would warn (divide by zero, invalid value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with tf.device(device):
            x = tf.constant([0.0, -1.0, 4.0])
            got = [tf.math.log(x), tf.math.log1p(x - 1.0), tf.math.sqrt(x), tf.math.rsqrt(x), tf.math.reciprocal(x)]
    np.testing.assert_array_equal(got[0].numpy(), [-np.inf, np.nan, np.log(np.float32(4))])
    np.testing.assert_array_equal(got[1].numpy()[:2], [-np.inf, np.nan])
    np.testing.assert_array_equal(got[2].numpy(), [0.0, np.nan, 2.0])
    np.testing.assert_array_equal(got[3].numpy(), [np.inf, np.nan, 0.5])
    np.testing.assert_array_equal(got[4].numpy(), [np.inf, -1.0, 0.25])


def test_string_constants_stay_on_the_host_under_a_gpu_scope():
    with tf.device("/GPU:0"):
        s = tf.constant(["a", "bc"])
    assert s.device.endswith("CPU:0") and s.dtype == tf.string
