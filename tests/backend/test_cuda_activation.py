"""Entering a real GPU for an op (backend/activation.py), checked against a recording CuPy stand-in.

What a real GPU would show as wrong results or leaked state: the device, stream and allocator
entered once per op and restored exactly afterwards (also after exceptions, also around user
``using_allocator`` / ``with stream`` blocks), nested activations of the active backend free,
two logical GPUs of one card and GPUs on several threads kept apart. tests/gpu/test_activation_gpu.py
checks the same on a real card.
"""

import threading

import numpy as np
import pytest
from fake_cupy import install

from tfcore.backend import activation
from tfcore.framework import dtypes
from tfcore.framework.context import Device
from tfcore.framework.tensor import Tensor
from tfcore.ops.registry import REGISTRY, Op, execute


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch)


def make_backend(device_id, logical_index=0):
    from tfcore.backend.cuda import CudaBackend

    b = CudaBackend(device_id, "Fake GPU", (9, 0), 1 << 30, memory_limit_bytes=1 << 20, memory_growth=True,
                    logical_index=logical_index)
    b._cupy_alloc.tag = f"alloc{device_id}.{logical_index}"
    b.stream.name = f"stream{device_id}.{logical_index}"
    return b


def test_enter_sets_device_stream_allocator_and_exit_restores_them(fake):
    b = make_backend(1)
    fake.log.clear()
    assert fake.state() == (0, "null", None)
    with b.activate() as got:
        assert got is b
        assert fake.state() == (1, "stream1.0", b._cupy_alloc)
        assert activation.active_backend() is b
        assert fake.module.cuda.get_current_stream() is b.stream
        assert fake.module.cuda.memory.get_allocator() is b._cupy_alloc
    assert fake.state() == (0, "null", None)
    assert activation.active_backend() is None
    assert fake.changes() == [("setDevice", 1), ("stream_enter", "stream1.0"), ("set_alloc", "alloc1.0"),
                              ("set_alloc", None), ("stream_exit", "stream1.0"), ("setDevice", 0)]


def test_activate_allocates_no_context_objects(fake):
    b = make_backend(0)
    assert b.activate() is b.activate()


def test_device_is_set_only_when_it_differs(fake):
    b = make_backend(0)
    fake.log.clear()
    with b.activate():
        pass
    assert fake.count("setDevice") == 0
    assert fake.count("getDevice") == 1


def test_nested_activation_of_the_active_backend_is_a_no_op(fake):
    b = make_backend(1)
    fake.log.clear()
    with b.activate():
        n = len(fake.log)
        with b.activate():
            with b.activate():
                assert fake.state() == (1, "stream1.0", b._cupy_alloc)
            assert fake.state() == (1, "stream1.0", b._cupy_alloc)
        assert len(fake.log) == n
        assert fake.state() == (1, "stream1.0", b._cupy_alloc)
    assert fake.state() == (0, "null", None)
    assert fake.count("stream_enter") == fake.count("stream_exit") == 1


def test_two_logical_gpus_of_one_card_nest_and_unwind(fake):
    b0, b1 = make_backend(0, 0), make_backend(0, 1)
    fake.log.clear()
    with b0.activate():
        with b1.activate():
            assert fake.state() == (0, "stream0.1", b1._cupy_alloc)
            with b0.activate():  # not the innermost: entered again, not skipped
                assert fake.state() == (0, "stream0.0", b0._cupy_alloc)
            assert fake.state() == (0, "stream0.1", b1._cupy_alloc)
            assert activation.active_backend() is b1
        assert fake.state() == (0, "stream0.0", b0._cupy_alloc)
        assert activation.active_backend() is b0
    assert fake.state() == (0, "null", None)
    assert fake.count("setDevice") == 0


def test_two_physical_gpus_nest_and_unwind(fake):
    g0, g1 = make_backend(0), make_backend(1)
    with g0.activate():
        with g1.activate():
            assert fake.state() == (1, "stream1.0", g1._cupy_alloc)
        assert fake.state() == (0, "stream0.0", g0._cupy_alloc)
    assert fake.state() == (0, "null", None)


def test_state_is_restored_when_the_body_raises(fake):
    b, other = make_backend(1), make_backend(0)
    with pytest.raises(ZeroDivisionError), b.activate(), other.activate(), other.activate():
        raise ZeroDivisionError
    assert fake.state() == (0, "null", None)
    assert activation.active_backend() is None
    assert activation._state.saved == []


def test_state_is_restored_when_entering_the_stream_fails(fake):
    b = make_backend(1)
    b.stream.device_id = 0  # a stream of another device: CuPy refuses to enter it
    with pytest.raises(RuntimeError, match="does not match"), b.activate():
        pass
    assert fake.state() == (0, "null", None)
    assert activation.active_backend() is None and activation._state.saved == []


def test_user_allocator_and_stream_are_in_effect_again_after_tfcore(fake):
    """User CuPy code around a tfcore op sees its own allocator and stream after it, and CuPy's global
    ``set_allocator`` still works (it refuses to run while a thread-local allocator is set)."""
    cuda = fake.module.cuda
    b = make_backend(0)

    def user_alloc(n):
        return ("user", n)

    user_stream = cuda.Stream(name="user")
    with cuda.using_allocator(user_alloc), user_stream:
        with b.activate():
            assert fake.state() == (0, "stream0.0", b._cupy_alloc)
        assert fake.state() == (0, "user", user_alloc)
        assert cuda.memory.get_allocator() is user_alloc
    assert fake.state() == (0, "null", None)
    cuda.set_allocator(user_alloc)  # would raise if tfcore had left a thread-local allocator behind
    cuda.set_allocator(None)


def test_tfcore_inside_a_user_device_scope_restores_it(fake):
    b = make_backend(0)
    with fake.module.cuda.Device(1):
        with b.activate():
            assert fake.state()[0] == 0
        assert fake.state() == (1, "null", None)
    assert fake.state() == (0, "null", None)


def test_threads_are_independent(fake):
    b0, b1 = make_backend(0), make_backend(1)
    both_inside = threading.Barrier(3)
    seen, errors = {}, []

    def replica(b, key):
        try:
            with b.activate():
                both_inside.wait(timeout=10)
                seen[key] = (fake.state(), activation.active_backend())
                both_inside.wait(timeout=10)
            seen[key + "_after"] = (fake.state(), activation.active_backend())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    with b0.activate():  # the main thread's own activation is invisible to the replicas
        threads = [threading.Thread(target=replica, args=(b, k)) for b, k in ((b0, "r0"), (b1, "r1"))]
        for t in threads:
            t.start()
        both_inside.wait(timeout=10)
        main_inside = (fake.state(), activation.active_backend())
        both_inside.wait(timeout=10)
        for t in threads:
            t.join()
    assert not errors
    assert seen["r0"] == ((0, "stream0.0", b0._cupy_alloc), b0)
    assert seen["r1"] == ((1, "stream1.0", b1._cupy_alloc), b1)
    assert seen["r0_after"] == seen["r1_after"] == ((0, "null", None), None)
    assert main_inside == ((0, "stream0.0", b0._cupy_alloc), b0)
    assert fake.state() == (0, "null", None)


def test_a_cupy_without_the_thread_local_allocator_functions_uses_using_allocator(monkeypatch):
    fake = install(monkeypatch, with_thread_local_allocator_api=False)
    b = make_backend(1)
    fake.log.clear()
    with pytest.raises(KeyError), b.activate():
        assert fake.state() == (1, "stream1.0", b._cupy_alloc)
        with b.activate():
            raise KeyError("x")
    assert fake.state() == (0, "null", None)
    assert fake.count("using_allocator") == 1


def test_streams_swapped_on_the_backend_are_used_and_unwound(fake):
    """``backend.stream`` is read at each enter (tf.function may replay on a capture stream)."""
    b = make_backend(0)
    old = b.stream
    with b.activate():
        b.stream = fake.Stream(name="capture")  # swapped while active: the exit still pops the old one
    assert fake.state() == (0, "null", None)
    with b.activate():
        assert fake.state()[1] == "capture"
    b.stream = old


@pytest.fixture
def gpu_op():
    op = Op("_TestActivationCount")
    yield op
    REGISTRY.pop(op.name, None)


def test_execute_activates_once_per_op(fake, gpu_op):
    """An op whose kernel itself creates arrays through the backend (``b.asarray``, ``b.activate()``)
    still enters the device, stream and allocator once."""
    b = make_backend(1)
    b.xp = np  # the kernel below computes with NumPy; only the activation is under test
    dev = Device("GPU", 0, b, None)
    inside = []

    @gpu_op.kernel("cuda")
    def _kernel(b_, x, y):
        inside.append(fake.state())
        with b_.activate():
            z = b_.asarray(np.ones(1, np.float32))
        return x + y + z

    x = Tensor(np.ones(3, np.float32), dtypes.float32, dev)
    fake.log.clear()
    for _ in range(3):
        out = execute(gpu_op, (x, x))
    np.testing.assert_array_equal(out._array, np.full(3, 3.0, np.float32))
    assert inside == [(1, "stream1.0", b._cupy_alloc)] * 3
    assert fake.count("stream_enter") == fake.count("stream_exit") == 3
    assert fake.count("setDevice") == 6  # to GPU 1 and back, once per op
    assert fake.count("set_alloc") == 6
    assert fake.state() == (0, "null", None)


def test_execute_restores_state_when_the_kernel_raises(fake, gpu_op):
    b = make_backend(1)
    dev = Device("GPU", 0, b, None)

    @gpu_op.kernel("cuda")
    def _kernel(b_, x):
        raise RuntimeError("kernel failed")

    with pytest.raises(RuntimeError, match="kernel failed"):
        execute(gpu_op, (Tensor(np.ones(2, np.float32), dtypes.float32, dev),))
    assert fake.state() == (0, "null", None)
    assert activation.active_backend() is None
