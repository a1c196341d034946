"""Cross-device reductions on real GPUs: the on-device kernel on one card, NCCL across two or more.

Each case runs in a fresh process because logical devices are configured before the first tensor.
"""

import subprocess
import sys
import textwrap

import pytest

from tfcore.backend import cuda

ONE_CARD = textwrap.dedent("""
    import numpy as np
    import tfcore as tf
    from tfcore.distribute import cross_device_ops as cdo
    gpu = tf.config.list_physical_devices("GPU")[0]
    tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=512)] * 2)
    s = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    assert isinstance(s.cross_device_ops, cdo.OnDeviceAllReduce), s.cross_device_ops
    rng = np.random.default_rng(0)
    host = [[rng.standard_normal(n).astype(np.float32) for n in (1000, 3, 70000)] for _ in range(2)]
    tensors = []
    for i, arrays in enumerate(host):
        with tf.device(f"/gpu:{i}"):
            tensors.append([tf.constant(a) for a in arrays])
    out = s.cross_device_ops.batch_all_reduce(tf.distribute.ReduceOp.MEAN, tensors)
    for k in range(3):
        for r in range(2):
            assert out[r][k].device.endswith(f"GPU:{r}")
            np.testing.assert_allclose(out[r][k].numpy(), (host[0][k] + host[1][k]) / 2, rtol=1e-6)
    print("ok")
""")

NCCL = textwrap.dedent("""
    import numpy as np
    import tfcore as tf
    from tfcore.distribute import cross_device_ops as cdo
    n = len(tf.config.list_physical_devices("GPU"))
    s = tf.distribute.MirroredStrategy([f"/gpu:{i}" for i in range(n)])
    assert isinstance(s.cross_device_ops, cdo.NcclAllReduce), s.cross_device_ops
    ops = cdo.NcclAllReduce(bytes_per_pack=4096)   # several buckets
    host = [[np.full(s_, r + 1, np.float32) for s_ in (5000, 7, 300)] for r in range(n)]
    tensors = []
    for i, arrays in enumerate(host):
        with tf.device(f"/gpu:{i}"):
            tensors.append([tf.constant(a) for a in arrays])
    out = ops.batch_all_reduce(tf.distribute.ReduceOp.SUM, tensors)
    total = n * (n + 1) / 2
    for r in range(n):
        for k in range(3):
            np.testing.assert_allclose(out[r][k].numpy(), total)
    print("ok")
""")


COMPILED_FIT = textwrap.dedent("""
    import numpy as np
    import tfcore as tf
    tf.config.experimental.enable_cuda_graphs(True)
    gpu = tf.config.list_physical_devices("GPU")[0]
    tf.config.set_logical_device_configuration(gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=512)] * 2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 16)).astype(np.float32)
    y = rng.integers(0, 4, 64).astype(np.int32)

    def model_and_compile(jit):
        tf.random.set_seed(3)
        m = tf.keras.Sequential([tf.keras.layers.Dense(32, activation="relu", input_shape=(16,)),
                                 tf.keras.layers.Dense(4)])
        m.compile(tf.keras.optimizers.SGD(0.1, momentum=0.9),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  jit_compile=jit)
        return m

    with tf.device("/GPU:0"):  # one device, the same kernels, unfused
        ref = model_and_compile(False)
        w0 = ref.get_weights()
        ref.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    s = tf.distribute.MirroredStrategy(["/gpu:0", "/gpu:1"])
    with s.scope():
        m = model_and_compile(True)
        m.set_weights(w0)
    m.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(ref.get_weights(), m.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    fn = m._training_state["functions"]["train_step"][1]
    assert sorted(key[-1][1][-5:] for key in fn._cache) == ["GPU:0", "GPU:1"]  # one compiled plan per replica
    for key, cf in fn._cache.items():  # for the log: what each replica's plan fused and replayed
        print(key[-1][1][-5:], cf._fused_plan.stats, cf.experimental_cuda_graph_stats())
    print("ok")
""")


def _run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok")


def test_on_device_reduction_on_one_split_gpu():
    _run(ONE_CARD)


def test_compiled_fit_under_mirrored_strategy_on_one_split_gpu():
    """fit under MirroredStrategy on two logical GPUs runs each replica's compiled step (jit_compile, CUDA
    graphs on) and equals one device's training; each replica plan's fusion and CUDA-graph stats are
    printed for the log (the emulated GPUs run it too, without capture: the backend has none)."""
    _run(COMPILED_FIT)


def test_nccl_all_reduce_across_physical_gpus():
    if len(cuda.list_physical_gpus()) < 2:
        pytest.skip("NCCL needs at least two physical GPUs")
    _run(NCCL)
