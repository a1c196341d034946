"""tfcore.backend.collectives: all-reduce / broadcast / all-gather over a device set.

The host transport runs on CPU backends; the on-device transport (one kernel launch for the
logical GPUs of one card) runs on two logical GPUs of one emulated card, kernels on the emulator.
"""

import numpy as np
import pytest

from tfcore.backend import collectives
from tfcore.backend.cpu import CPUBackend
from tfcore.backend.emulator.backend import EmulatedGPUBackend


def _card(n=2):
    """``n`` logical GPUs carved from one emulated card (what tf.config's logical split builds)."""
    return [EmulatedGPUBackend(0, "Emulated GPU", (8, 0), 64 << 20, memory_limit_bytes=16 << 20, logical_index=i)
            for i in range(n)]


def test_transport_for_cpu_and_emulated_devices_is_the_host():
    assert collectives.transport_for([CPUBackend(), CPUBackend()]) == "host"
    assert collectives.transport_for(_card()) == "host"  # emulated cards have no device collectives
    assert collectives.same_physical_device(_card(3))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float64])
def test_host_all_reduce_sums_on_every_device(dtype):
    backends = [CPUBackend(), CPUBackend(), CPUBackend()]
    arrays = [np.arange(7, dtype=dtype) * (r + 1) for r in range(3)]
    out = collectives.all_reduce(arrays, backends, "host")
    for a in out:
        assert a.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(a, np.arange(7, dtype=dtype) * 6)
    assert out[0] is not out[1]  # each device gets its own buffer
    np.testing.assert_array_equal(arrays[0], np.arange(7, dtype=dtype))  # inputs untouched


@pytest.mark.emulator
@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-6), (np.float16, 2e-3), (np.int32, 0)])
def test_on_device_all_reduce_on_one_emulated_card(dtype, tol):
    backends = _card(3)
    rng = np.random.default_rng(0)
    host = [(rng.standard_normal(1000) * 4).astype(dtype) for _ in backends]
    arrays = [b.asarray(h) for b, h in zip(backends, host)]
    out = collectives.all_reduce(arrays, backends, "on_device")
    want = sum(h.astype(np.float64) for h in host)
    for a, b in zip(out, backends):
        assert a.dtype == np.dtype(dtype)
        assert b.memory_info()["current"] > 0  # results live in each logical device's allocator
        np.testing.assert_allclose(a.astype(np.float64), want, rtol=tol, atol=tol * 8)


def test_broadcast_and_all_gather():
    backends = [CPUBackend(), CPUBackend()]
    copies = collectives.broadcast(np.arange(4.0), backends[0], backends)
    assert all(np.array_equal(c, np.arange(4.0)) for c in copies)
    gathered = collectives.all_gather([np.zeros((1, 2)), np.ones((2, 2))], backends, axis=0)
    for g in gathered:
        np.testing.assert_array_equal(g, [[0, 0], [1, 1], [1, 1]])


def test_all_reduce_rejects_a_mismatched_device_list_and_unknown_transport():
    with pytest.raises(ValueError, match="2 arrays for 3 devices"):
        collectives.all_reduce([np.zeros(2)] * 2, [CPUBackend()] * 3)
    with pytest.raises(ValueError, match="unknown transport"):
        collectives.all_reduce([np.zeros(2)] * 2, [CPUBackend()] * 2, "carrier-pigeon")
