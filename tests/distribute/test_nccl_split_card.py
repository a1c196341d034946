"""Explicit ``NcclAllReduce`` on logical GPUs of one card (issue 21 item 7).

NCCL refuses two ranks on one GPU: ``src/init.cc`` logs ``"Duplicate GPU detected : rank %d and rank %d
both on CUDA device %lx"`` and returns ``ncclInvalidUsage``, which CuPy raises as ``NcclError``
("NCCL_ERROR_INVALID_USAGE: invalid usage"). :class:`FakeNccl` does exactly that. tfcore decides as TF
does ("NCCL is not supported when using virtual GPUs, falling back"): the strategy-level
``NcclAllReduce`` warns, names the devices and uses the on-device reduction (the same sums); the
backend's "nccl" transport, asked directly, refuses with a ValueError naming the devices before NCCL
is called.
"""

import logging

import numpy as np
import pytest
from tfcore.distribute import cross_device_ops as cdo

import tfcore as tf
from tfcore import distribute as dist
from tfcore.backend import collectives
from tfcore.backend import cuda as cuda_backend


class NcclError(RuntimeError):
    """Stands for ``cupy_backends.cuda.libs.nccl.NcclError``."""


class FakeNccl:
    """The part of ``cupy.cuda.nccl`` collectives use; ``initAll`` checks devices as NCCL's init.cc does."""

    NCCL_FLOAT32, NCCL_FLOAT16, NCCL_FLOAT64, NCCL_INT32, NCCL_INT64, NCCL_SUM = range(6)

    def __init__(self):
        self.init_calls = []
        fake = self

        class NcclCommunicator:
            @staticmethod
            def initAll(devices):  # noqa: N802 - CuPy's name
                fake.init_calls.append(list(devices))
                for i, d in enumerate(devices):
                    for j in range(i):
                        if devices[j] == d:  # init.cc: WARN("Duplicate GPU detected ...") -> ncclInvalidUsage
                            raise NcclError("NCCL_ERROR_INVALID_USAGE: invalid usage (run with NCCL_DEBUG=WARN "
                                            "for details)")
                raise AssertionError("distinct GPUs are not part of these tests")

        self.NcclCommunicator = NcclCommunicator

    def get_version(self):
        return 22809


@pytest.fixture
def fake_nccl(monkeypatch):
    fake = FakeNccl()
    monkeypatch.setattr(cuda_backend, "nccl_module", lambda: fake)
    collectives.clear()
    yield fake
    collectives.clear()


def test_the_fake_rejects_duplicate_gpus_as_nccl_does(fake_nccl):
    with pytest.raises(NcclError, match="invalid usage"):
        fake_nccl.NcclCommunicator.initAll([0, 0])


@pytest.mark.emulator
def test_nccl_transport_on_one_card_names_the_devices_and_never_calls_nccl(devices, fake_nccl):
    ctx = devices(emulated_gpus=1, gpu_split=2)
    backends = [g.backend for g in ctx.logical_devices("GPU")]
    arrays = [b.asarray(np.ones(5, np.float32)) for b in backends]
    with pytest.raises(ValueError, match=r"NCCL needs one rank per physical GPU, but logical devices \[0, 1\] on "
                                         r"physical GPU 0 share a GPU"):
        collectives.all_reduce(arrays, backends, "nccl")
    assert fake_nccl.init_calls == []


@pytest.mark.emulator
@pytest.mark.parametrize("reduce_op", ["SUM", "MEAN"])
def test_explicit_nccl_all_reduce_on_a_split_card_falls_back_to_the_on_device_reduction(devices, fake_nccl,
                                                                                         caplog, reduce_op):
    ctx = devices(emulated_gpus=1, gpu_split=2)
    gpus = ctx.logical_devices("GPU")
    rng = np.random.default_rng(0)
    host = [[rng.standard_normal(s).astype(np.float32) for s in [(3, 4), (5,)]] for _ in gpus]
    tensors = []
    for d, arrays in zip(gpus, host):
        with tf.device(d.name):
            tensors.append([tf.constant(a) for a in arrays])
    with caplog.at_level(logging.WARNING, logger="tfcore.distribute"):
        out = cdo.NcclAllReduce().batch_all_reduce(dist.ReduceOp(reduce_op), tensors)
    assert fake_nccl.init_calls == []
    assert "NCCL is not supported when using virtual GPUs (GPU:0, GPU:1 on physical GPU 0), falling back to " \
           "the on-device reduction" in caplog.text
    for k in range(2):
        want = (host[0][k].astype(np.float64) + host[1][k]) / (2 if reduce_op == "MEAN" else 1)
        for r, d in enumerate(gpus):
            assert out[r][k].device == d.name
            np.testing.assert_allclose(out[r][k].numpy(), want, rtol=1e-6)


@pytest.mark.emulator
def test_strategy_with_explicit_nccl_on_a_split_card_reduces(devices, fake_nccl):
    devices(emulated_gpus=1, gpu_split=2)
    strategy = tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.NcclAllReduce())
    per_replica = strategy.run(lambda: tf.ones((3,)) * tf.cast(
        tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32))
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
    np.testing.assert_array_equal(total.numpy(), [3.0, 3.0, 3.0])
    assert fake_nccl.init_calls == []
