"""The CUDA op registrations end to end: tf ops on an emulated '/GPU:0' run OUR kernels and match CPU.

Devices initialise once per process, so the GPU run happens in a subprocess with
``TFCORE_EMULATED_GPUS=1``; it records every kernel launched and returns, per case, the
max |GPU - CPU| difference and the kernels used. Shapes are tiny (the emulator is slow).
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.emulator

_SCRIPT = textwrap.dedent(r"""
    import json
    import numpy as np
    import tfcore as tf
    from tfcore.backend import kernel_library as kl

    launched = []
    _orig = kl.EmulatorKernelLibrary.launch
    def _spy(self, name, *a, **k):
        launched.append(name)
        return _orig(self, name, *a, **k)
    kl.EmulatorKernelLibrary.launch = _spy

    rng = np.random.default_rng(0)
    def r(*s):
        return rng.standard_normal(s).astype(np.float32)
    x4, w4, wd, v, bias = r(2, 7, 6, 3), r(3, 3, 3, 5), r(3, 3, 3, 2), r(4, 9), r(9)
    a, b3 = r(2, 5, 7), r(7, 3)
    labels = np.array([1, 0, 8, 3], np.int32)

    def conv_grads(x, w):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            y = tf.reduce_sum(tf.nn.conv2d(x, w, strides=2, padding="SAME") ** 2)
        return tape.gradient(y, [x, w])

    def strict(fn):  # float32 matmul with TF32 off: the strict SIMT kernel
        def run():
            tf.config.experimental.enable_tensor_float_32_execution(False)
            try:
                return fn()
            finally:
                tf.config.experimental.enable_tensor_float_32_execution(True)
        return run

    cases = {
        "matmul": strict(lambda: tf.matmul(a, b3)),
        "matmul_tb": strict(lambda: tf.matmul(b3, b3, transpose_a=True)),
        "matmul_tf32": lambda: tf.matmul(a, b3),  # TF's default: TF32 on (the emulated GPU is sm_80)
        "conv2d": strict(lambda: tf.nn.conv2d(x4, w4, strides=[1, 2, 1, 1], padding="SAME")),
        "conv2d_grads": strict(lambda: conv_grads(tf.constant(x4), tf.constant(w4))),
        "conv2d_tf32": lambda: tf.nn.conv2d(x4, w4, strides=[1, 2, 1, 1], padding="SAME"),  # TF's default
        "conv2d_grads_tf32": lambda: conv_grads(tf.constant(x4), tf.constant(w4)),
        "depthwise": lambda: tf.nn.depthwise_conv2d(x4, wd, strides=[1, 1, 1, 1], padding="VALID"),
        "max_pool": lambda: tf.nn.max_pool2d(x4, 3, 2, "SAME"),
        "avg_pool": lambda: tf.nn.avg_pool2d(x4, 2, 2, "VALID"),
        "reduce_sum": lambda: tf.reduce_sum(x4, axis=[1, 2]),
        "reduce_mean": lambda: tf.reduce_mean(v),
        "reduce_max": lambda: tf.reduce_max(x4, axis=0, keepdims=True),
        "argmax": lambda: tf.math.argmax(v, axis=1),
        "softmax": lambda: tf.nn.softmax(v),
        "log_softmax": lambda: tf.nn.log_softmax(v),
        "sparse_xent": lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=v),
        "bias_add": lambda: tf.nn.bias_add(v, bias),
    }

    def as_list(out):
        return [np.asarray(t.numpy(), np.float64) for t in (out if isinstance(out, list | tuple) else [out])]

    results = {}
    for name, fn in cases.items():
        with tf.device("/CPU:0"):
            want = as_list(fn())
        launched.clear()
        with tf.device("/GPU:0"):
            got_t = fn()
        got = as_list(got_t)
        dev = (got_t[0] if isinstance(got_t, list | tuple) else got_t).device
        diff = max(float(np.max(np.abs(g - w))) if g.size else 0.0 for g, w in zip(got, want))
        scale = max(float(np.max(np.abs(w))) if w.size else 0.0 for w in want)
        results[name] = {"diff": diff, "scale": scale, "kernels": sorted(set(launched)), "device": dev}
    print("RESULTS" + json.dumps(results))
""")

# case -> a kernel that must have run for it
_EXPECTED = {
    "matmul": "matmul_f32", "matmul_tb": "matmul_f32", "matmul_tf32": "matmul_f32_tf32",
    "conv2d": "conv2d_fwd_n64_f32", "conv2d_tf32": "conv2d_fwd_tc_tf32",
    "conv2d_grads_tf32": "conv2d_filter_grad_tc_tf32",
    "conv2d_grads": "conv2d_filter_grad_n64_f32", "depthwise": "depthwise_fwd_f32", "max_pool": "max_pool_fwd_f32",
    "avg_pool": "avg_pool_fwd_f32", "reduce_sum": "reduce_cols_f32", "reduce_mean": "reduce_rows_f32",
    "reduce_max": "reduce_cols_f32", "argmax": "argreduce_rows_f32", "softmax": "softmax_warp_f32",
    "log_softmax": "softmax_warp_f32", "sparse_xent": "sparse_xent_warp_f32", "bias_add": "bias_add_f32",
}


@pytest.fixture(scope="module")
def gpu_results():
    env = dict(os.environ, TFCORE_EMULATED_GPUS="1")
    env.pop("NVIDIA_TF32_OVERRIDE", None)  # the matmul_tf32 case runs TF's default (TF32 on)
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULTS"))
    return json.loads(line[len("RESULTS"):])


@pytest.mark.parametrize("case", sorted(_EXPECTED))
def test_gpu_op_uses_our_kernel_and_matches_cpu(gpu_results, case):
    res = gpu_results[case]
    assert res["device"].endswith("GPU:0"), res
    assert _EXPECTED[case] in res["kernels"], res
    if case.endswith("_tf32"):  # TF32 keeps 10 mantissa bits: ~1e-3 relative error per rounded input
        assert res["diff"] < 5e-3 * max(1.0, res["scale"]), res
    else:
        assert res["diff"] < 1e-4, res


def test_conv2d_gradients_use_both_backprop_kernels(gpu_results):
    # (few channels: the 128x64-tile entries)
    assert {"conv2d_input_grad_n64_f32", "conv2d_filter_grad_n64_f32"} <= set(gpu_results["conv2d_grads"]["kernels"])
    # with TF32 on (TF's default) both gradients run on tensor cores
    assert {"conv2d_input_grad_tc_tf32", "conv2d_filter_grad_tc_tf32"} <= set(
        gpu_results["conv2d_grads_tf32"]["kernels"])
