import numpy as np
import pytest
from tfcore.distribute import cross_device_ops as cdo

import tfcore as tf
from tfcore import distribute as dist
from tfcore.backend import collectives


def _per_replica(devs, shapes, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    host = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in devs]
    tensors = []
    for d, arrays in zip(devs, host):
        with tf.device(d.name):
            tensors.append([tf.constant(a) for a in arrays])
    return host, tensors


@pytest.mark.parametrize("ops", [cdo.ReductionToOneDevice(), cdo.HierarchicalCopyAllReduce(),
                                 cdo.ReductionToOneDevice(reduce_to_device="/cpu:1")])
@pytest.mark.parametrize("reduce_op", ["SUM", "MEAN"])
def test_host_reductions(devices, ops, reduce_op):
    ctx = devices(n_cpus=3)
    devs = ctx.logical_devices("CPU")
    host, tensors = _per_replica(devs, [(3, 2), (5,), ()])
    out = ops.batch_all_reduce(dist.ReduceOp(reduce_op), tensors)
    for k in range(3):
        expected = sum(h[k] for h in host) / (3 if reduce_op == "MEAN" else 1)
        for r, d in enumerate(devs):
            assert out[r][k].device == d.name
            np.testing.assert_allclose(out[r][k].numpy(), expected, rtol=1e-6)


def test_buckets_respect_size_and_dtype():
    with tf.device("/CPU:0"):
        ts = [tf.zeros((10,)), tf.zeros((10,)), tf.zeros((10,)), tf.zeros((4,), tf.float16),
              tf.zeros((50,), tf.float16)]
    assert cdo._buckets(ts, 80) == [[0, 1], [2], [3], [4]]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32])
@pytest.mark.parametrize("reduce_op", ["SUM", "MEAN"])
def test_bucketed_all_reduce_matches_the_host_reduction_for_every_dtype(devices, dtype, reduce_op):
    """The bucketed path (the one NCCL and on-device reductions take) against ReductionToOneDevice:
    same values and dtypes; MEAN of integers is TF's ``value / n`` (floats), not floats labelled int."""
    ctx = devices(n_cpus=3)
    devs = ctx.logical_devices("CPU")
    rng = np.random.default_rng(1)
    tensors = []
    for d in devs:
        with tf.device(d.name):
            tensors.append([tf.constant((rng.standard_normal(s) * 50).astype(dtype)) for s in [(3, 2), (5,), ()]])
    op = dist.ReduceOp(reduce_op)
    want = cdo.ReductionToOneDevice().batch_all_reduce(op, tensors)
    got = cdo._all_reduce_buckets(op, tensors, 16, "host")  # 16 bytes: several buckets
    for r, d in enumerate(devs):
        for k in range(3):
            assert got[r][k].device == d.name and got[r][k].dtype == want[r][k].dtype
            assert got[r][k].numpy().dtype == got[r][k].dtype.as_numpy_dtype
            np.testing.assert_allclose(got[r][k].numpy(), want[r][k].numpy(), rtol=1e-6)
    if reduce_op == "MEAN" and dtype is np.int32:
        assert got[0][0].dtype == tf.float64
        host = [t[0].numpy().astype(np.float64) for t in tensors]
        np.testing.assert_allclose(got[0][0].numpy(), sum(host) / 3)


@pytest.mark.emulator
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_on_device_allreduce_on_logical_gpus_of_one_emulated_card(devices, dtype):
    ctx = devices(emulated_gpus=1, gpu_split=2)
    gpus = ctx.logical_devices("GPU")
    assert len(gpus) == 2 and gpus[0].physical == gpus[1].physical
    host, tensors = _per_replica(gpus, [(7, 3), (1,), (33,)], dtype=dtype)
    ops = cdo.OnDeviceAllReduce(bytes_per_pack=64)  # several buckets
    out = ops.batch_all_reduce(dist.ReduceOp.SUM, tensors)
    assert collectives.transport_for([g.backend for g in gpus]) == "host"  # emulated: no device collectives
    tol = 1e-6 if dtype == np.float32 else 2e-2
    for k in range(3):
        for r, d in enumerate(gpus):
            assert out[r][k].device == d.name
            np.testing.assert_allclose(out[r][k].numpy().astype(np.float32),
                                       sum(h[k].astype(np.float32) for h in host), rtol=tol, atol=tol)


def test_strategy_picks_reduction_from_devices(devices):
    ctx = devices(n_cpus=2)
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    assert isinstance(s.cross_device_ops, cdo.ReductionToOneDevice)
    s2 = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"], cross_device_ops=cdo.HierarchicalCopyAllReduce())
    assert isinstance(s2.cross_device_ops, cdo.HierarchicalCopyAllReduce)
    assert ctx is not None


@pytest.mark.emulator
def test_emulated_gpus_use_host_reduction(devices):
    devices(emulated_gpus=1, gpu_split=2)
    s = tf.distribute.MirroredStrategy()
    assert s.num_replicas_in_sync == 2
    assert isinstance(s.cross_device_ops, cdo.ReductionToOneDevice)


@pytest.mark.emulator
@pytest.mark.parametrize("ops", [cdo.ReductionToOneDevice(), cdo.HierarchicalCopyAllReduce(),
                                 cdo.ReductionToOneDevice(reduce_to_device="/gpu:0")])
def test_reductions_across_two_emulated_gpus(devices, ops):
    ctx = devices(emulated_gpus=2)
    gpus = ctx.logical_devices("GPU")
    assert len({g.physical for g in gpus}) == 2
    host, tensors = _per_replica(gpus, [(4, 3), (9,)])
    out = ops.batch_all_reduce(dist.ReduceOp.MEAN, tensors)
    for k in range(2):
        for r, d in enumerate(gpus):
            assert out[r][k].device == d.name
            np.testing.assert_allclose(out[r][k].numpy(), (host[0][k] + host[1][k]) / 2, rtol=1e-6)


@pytest.mark.emulator
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int64])
def test_on_device_allreduce_mean_on_logical_gpus_of_one_emulated_card(devices, dtype):
    """MEAN through the on-device transport (kernels/allreduce.cu for float buckets, integer array sums
    for integer ones) against the host reduction and a float64 reference. Integers are summed exactly in
    their own type (values ~2**26: a float32 sum would drop low bits) and then divided as the host
    reduction does (TF's ``value / n``)."""
    ctx = devices(emulated_gpus=1, gpu_split=3, gpu_memory_mb=128)
    gpus = ctx.logical_devices("GPU")
    assert len(gpus) == 3 and len({g.physical for g in gpus}) == 1
    rng = np.random.default_rng(7)
    shapes = [(7, 3), (1,), (33,), (300,)]
    if np.issubdtype(dtype, np.integer):
        host = [[(rng.integers(-50, 50, s) + (1 << 26)).astype(dtype) for s in shapes] for _ in gpus]
    else:
        host = [[(rng.standard_normal(s) * 3).astype(dtype) for s in shapes] for _ in gpus]
    tensors = []
    for d, arrays in zip(gpus, host):
        with tf.device(d.name):
            tensors.append([tf.constant(a) for a in arrays])
    got = cdo.OnDeviceAllReduce(bytes_per_pack=256).batch_all_reduce(dist.ReduceOp.MEAN, tensors)
    want = cdo.ReductionToOneDevice().batch_all_reduce(dist.ReduceOp.MEAN, tensors)
    for k in range(len(shapes)):
        ref = sum(h[k].astype(np.float64) for h in host) / 3
        for r, d in enumerate(gpus):
            out = got[r][k]
            assert out.device == d.name and out.dtype == want[r][k].dtype
            if np.issubdtype(dtype, np.integer):
                assert out.dtype == tf.float64  # TF's value / n
                np.testing.assert_array_equal(out.numpy(), ref)  # exact: integer sum, one division
            else:
                assert out.dtype.as_numpy_dtype == dtype
                rt = 1e-6 if dtype == np.float32 else 2e-3
                np.testing.assert_allclose(out.numpy().astype(np.float64), ref, rtol=rt, atol=rt)
                np.testing.assert_allclose(out.numpy().astype(np.float64), want[r][k].numpy().astype(np.float64),
                                           rtol=rt, atol=rt)
