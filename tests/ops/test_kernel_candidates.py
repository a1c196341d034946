"""Kernel candidates in the op registry: explicit constraints, priority order, generic code last,
no dependence on registration order, and the debug views of which candidate runs."""

import numpy as np
import pytest

import tfcore as tf
from tfcore import cli
from tfcore.backend import native_cpu
from tfcore.framework.context import context
from tfcore.framework.errors import InvalidArgumentError
from tfcore.ops import registry
from tfcore.ops.registry import REGISTRY, Op, describe_kernels, execute, kernel_for


@pytest.fixture(autouse=True)
def on_cpu():
    """The CPU candidates are under test: pin the ops there (the default device may be a GPU)."""
    with tf.device("/CPU:0"):
        yield


@pytest.fixture
def make_op():
    made = []

    def make(name):
        op = Op(name)
        made.append(name)
        return op

    yield make
    for name in made:
        REGISTRY.pop(name, None)


def _register(op, order):
    """Register a generic candidate and two specialised CPU ones in ``order``; each returns its tag."""
    steps = {
        "generic": lambda: op.kernel()(lambda b, x: np.full(x.shape, 0.0, x.dtype)),
        "f32": lambda: op.kernel("cpu", dtypes=(tf.float32,), priority=5, name="f32")(
            lambda b, x: np.full(x.shape, 1.0, x.dtype)),
        "small": lambda: op.kernel("cpu", supports=lambda x: x.size <= 2, priority=9, name="small")(
            lambda b, x: np.full(x.shape, 2.0, x.dtype)),
    }
    for step in order:
        steps[step]()


@pytest.mark.parametrize("order", [("generic", "f32", "small"), ("small", "f32", "generic"),
                                   ("f32", "generic", "small")])
def test_first_eligible_candidate_runs_whatever_the_registration_order(make_op, order):
    op = make_op(f"_TestCandidates_{'_'.join(order)}")
    _register(op, order)
    assert [c.name for c in op.candidates["cpu"]][:2] == ["small", "f32"]
    assert op.candidates["cpu"][-1].priority is None  # the generic implementation is the last candidate
    small_f32, big_f32, big_f64 = np.ones(2, np.float32), np.ones(5, np.float32), np.ones(5, np.float64)
    assert execute(op, (tf.constant(small_f32),)).numpy().tolist() == [2.0, 2.0]        # supports= holds
    assert execute(op, (tf.constant(big_f32),)).numpy().tolist() == [1.0] * 5           # dtypes= holds
    assert execute(op, (tf.constant(big_f64),)).numpy().tolist() == [0.0] * 5           # generic
    assert kernel_for(op, [big_f64]).priority is None
    assert kernel_for(op, [small_f32]).name == "small"
    assert describe_kernels(op)["cpu"][:2] == ["small supports=<lambda> priority=9", "f32 dtypes=float32 priority=5"]
    assert [c.priority for c in op.candidates["cuda"]] == [None]


def test_a_later_generic_registration_replaces_the_generic_candidate_only(make_op):
    op = make_op("_TestCandidatesGeneric")
    op.kernel()(lambda b, x: x + 1)
    op.kernel("cpu", dtypes=(np.float32,), priority=1, name="fast")(lambda b, x: x + 10)
    op.kernel("cpu")(lambda b, x: x + 100)  # today's API: @op.kernel("cpu") sets the CPU generic code
    assert len(op.candidates["cpu"]) == 2 and op.candidates["cpu"][0].name == "fast"
    assert execute(op, (tf.constant([1], tf.int32),)).numpy().tolist() == [101]
    assert execute(op, (tf.constant([1.0]),)).numpy().tolist() == [11.0]
    assert len(op.candidates["cuda"]) == 1


def test_no_eligible_candidate_is_an_error_naming_the_op(make_op):
    op = make_op("_TestCandidatesNone")
    op.kernel("cpu", dtypes=(tf.float32,), priority=1)(lambda b, x: x)
    with pytest.raises(InvalidArgumentError, match="_TestCandidatesNone"):
        execute(op, (tf.constant([1], tf.int64),))


def test_run_kernel_composes_another_ops_choice(make_op):
    op = make_op("_TestCandidatesRun")
    _register(op, ("generic", "f32", "small"))
    b = tf.constant(0.0)._device.backend
    assert op.run_kernel(b, (np.ones(3, np.float32),)).tolist() == [1.0] * 3


def test_cuda_kernels_come_before_the_generic_code_of_the_heavy_ops():
    for name in ("BatchMatMulV2", "Conv2D", "Conv2DBackpropFilter", "MaxPool", "Sum", "ArgMax", "Softmax",
                 "BiasAdd", "SparseSoftmaxCrossEntropyWithLogits"):
        cands = registry.get_op(name).candidates["cuda"]
        ours = [c for c in cands if c.name.startswith("cuda_kernels.")]
        assert cands[0] is ours[0], (name, cands)
        assert {d.name for c in ours for d in c.dtypes} == {"float32", "float16"}, (name, ours)
        assert cands[-1].priority is None and not cands[-1].constrained, (name, cands)


def test_info_ops_lists_the_candidates_per_device(capsys):
    assert cli.main(["info", "--ops", "BatchMatMulV2", "Sum"]) in (0, None)
    out = capsys.readouterr().out
    section = out[out.index("Op kernels"):]
    assert "BatchMatMulV2" in section and "Sum" in section
    assert "CPU:0 (cpu): _matmul" in section


@pytest.mark.parametrize("op, inputs, attrs, fast", [
    ("Mean", [np.ones((3, 4), np.float32)], {"axis": (1,), "keepdims": False}, "mean_ufunc"),
    ("Softmax", [np.ones((3, 4), np.float64)], {}, "softmax_ufunc"),
    ("BroadcastTo", [np.ones((1, 4), np.float32)], {"shape": (3, 4)}, "broadcast_to_copy"),
])
def test_cpu_fast_paths_are_registered_candidates(op, inputs, attrs, fast):
    """CPU shortcuts live in the op's own CPU kernel (no ``xp is np`` branches inside generic code, and
    no dispatcher before them on the hot path): chosen on the CPU, never on other kinds; inputs the
    shortcut does not take (empty, a large broadcast) get the generic code's result."""
    with tf.device("/CPU:0"):
        assert kernel_for(op, inputs, attrs).name == fast
        empty_or_big = ([np.ones((0, 4), np.float32)], {"axis": (1,), "keepdims": False}) if op == "Mean" else (
            ([np.ones((0, 4), np.float64)], {}) if op == "Softmax" else
            ([np.ones((1, 4), np.float32)], {"shape": (1 << 17, 4)}))
        got = execute(REGISTRY[op], [tf.constant(a) for a in empty_or_big[0]], empty_or_big[1]).numpy()
        x = empty_or_big[0][0]
        want = (np.mean(x, axis=1) if op == "Mean" else x if op == "Softmax"
                else np.broadcast_to(x, empty_or_big[1]["shape"]))
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    assert fast not in " ".join(describe_kernels(op).get("cuda", []))


_CONV = dict(strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC", dilations=(1, 1, 1, 1))


@pytest.mark.skipif(native_cpu.library() is None, reason="no C++ compiler: the native CPU kernels are not built")
@pytest.mark.parametrize("op, inputs, attrs, native", [
    ("Conv2D", [np.ones((2, 6, 6, 3), np.float32), np.ones((3, 3, 3, 8), np.float32)], _CONV,
     "conv2d_direct_native"),
    ("Conv2DBackpropInput", [np.ones((3, 3, 3, 8), np.float32), np.ones((2, 6, 6, 8), np.float32)],
     {**_CONV, "input_sizes": (2, 6, 6, 3)}, "conv2d_backprop_input_direct_native"),
    ("Conv2DBackpropInput", [np.ones((3, 3, 8, 8), np.float64), np.ones((2, 3, 3, 8), np.float64)],
     {**_CONV, "strides": (1, 2, 2, 1), "input_sizes": (2, 6, 6, 8)}, "conv2d_backprop_input_direct_native"),
    ("Conv2DBackpropFilter", [np.ones((2, 6, 6, 3), np.float32), np.ones((2, 6, 6, 8), np.float32)],
     {**_CONV, "filter_sizes": (3, 3, 3, 8)}, "conv2d_backprop_filter_direct_native"),
])
def test_native_convolutions_are_registered_cpu_candidates(op, inputs, attrs, native, capsys):
    """The native direct convolutions are ``cpu`` candidates with ``supports=`` (not branches inside the
    generic im2col code): chosen for the arrays they take, listed by ``tfcore info --ops``, absent on other
    kinds; without the library (``TFCORE_NATIVE_CPU=0``) the generic code runs and gives the same values."""
    assert kernel_for(op, inputs, attrs).name == native
    assert native not in " ".join(describe_kernels(op).get("cuda", []))
    assert cli.main(["info", "--ops", op]) in (0, None)
    assert native in capsys.readouterr().out
    cpu = context.find("CPU", 0).backend
    got = REGISTRY[op].run_kernel(cpu, tuple(inputs), attrs)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFCORE_NATIVE_CPU", "0")
        assert kernel_for(op, inputs, attrs).name != native
        want = REGISTRY[op].run_kernel(cpu, tuple(inputs), attrs)
    np.testing.assert_allclose(got, getattr(want, "output", want), rtol=1e-5)


@pytest.mark.skipif(native_cpu.library() is None, reason="no C++ compiler: the native CPU kernels are not built")
def test_half_precision_convolutions_run_the_float32_candidates_on_the_cpu():
    """float16 Conv2D on the CPU: a candidate casts to float32 and dispatches again (the native kernel then
    runs), rounding the result once."""
    x, w = np.ones((1, 5, 5, 3), np.float16), np.full((3, 3, 3, 8), 0.5, np.float16)
    assert kernel_for("Conv2D", [x, w], _CONV).name == "Conv2D[float16/bfloat16 in float32]"
    got = execute(REGISTRY["Conv2D"], [tf.constant(x), tf.constant(w)], _CONV)
    assert got.dtype == tf.float16
    assert got.numpy()[0, 2, 2, 0] == 13.5 and got.numpy()[0, 0, 0, 0] == 6.0


@pytest.mark.parametrize("op", ["ReluGrad", "_FusedMatMul", "_FusedConv2D", "MaxPoolGrad"])
def test_host_float32_is_the_cpu_variant_chosen_at_registration(op):
    """``@host_float32`` kernels: the ``cpu`` generic candidate computes 16-bit floats in float32, the ``cuda``
    one is the kernel itself; the kind is chosen when the kernel is registered, not tested on every call."""
    cpu, cuda = REGISTRY[op].candidates["cpu"][-1], REGISTRY[op].candidates["cuda"][-1]
    assert cpu.fn is not cuda.fn and cpu.name == cuda.name
    assert cuda.fn.kind_variants["cpu"] is cpu.fn


def test_host_float32_rounds_a_float32_result_once_on_the_cpu():
    g = np.array([1.0, 2.0, -3.0, 65504.0], np.float16)
    y = np.array([1.0, 0.0, 2.0, 1.0], np.float16)
    got = execute(REGISTRY["ReluGrad"], [tf.constant(g), tf.constant(y)], {})
    assert got.dtype == tf.float16
    np.testing.assert_array_equal(got.numpy(), np.array([1.0, 0.0, -3.0, 65504.0], np.float16))
