"""Every entry with a float64 reference, on ragged and edge shapes, in each of its dtypes.

1. The public function on ``CPU:0`` and, when one is visible (``TFCORE_EMULATED_GPUS=1`` or a real GPU),
   on ``GPU:0``: shapes ``()``, ``(0,)``, ``(1,)``, ragged 1-D and 3-D sizes, and for binary ops
   broadcasting pairs (scalar with vector, empty with row, column with row).
2. The op's CUDA expression (``Op.cuda_expr``, what ``tf.function(jit_compile=True)`` fuses into generated
   kernels on a GPU): all fusable ops in one generated source per C type, compiled once by the emulator
   (g++ with the CUDA shim) and by NVRTC (the test extra's wheel, as in tests/kernels/test_nvrtc.py),
   each kernel launched against the reference.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore.function.fusion import THREADS, cuda_source
from tfcore.ops.registry import REGISTRY

from . import table  # noqa: F401  (fills OPS)
from .core import OPS

REFERENCED = sorted(name for name, info in OPS.items() if info.ref is not None)
UNARY_SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 1, 33)]
BINARY_SHAPES = [((), (4,)), ((0, 3), (3,)), ((1,), (1,)), ((3, 1), (1, 5)), ((2, 3, 4), (2, 3, 4))]
TOL = {"float32": (2e-5, 1e-6), "float64": (1e-12, 1e-13)}


def _domains(info):
    d = info.domain
    return list(d) if isinstance(d[0], tuple) else [d] * info.arity


def _inputs(info, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(lo, hi, shape) for (lo, hi), shape in zip(_domains(info), shapes)]


def _shape_sets(info):
    if info.ref_shapes is not None:
        return info.ref_shapes
    return [(s,) for s in UNARY_SHAPES] if info.arity == 1 else BINARY_SHAPES


def _devices():
    return ["/CPU:0"] + (["/GPU:0"] if tf.config.list_logical_devices("GPU") else [])


def _assert_close(got, want, dtype, what, exact=False, tol=None):
    if exact:  # e.g. NextAfter: one ulp is the whole answer
        assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype}{got.shape} vs {want.dtype}"
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    rtol, atol = (tol or {}).get(dtype) or TOL[dtype]
    assert got.shape == want.shape, f"{what}: shape {got.shape}, reference {want.shape}"
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("name", REFERENCED)
def test_public_function_matches_float64_reference(name):
    info = OPS[name]
    fn = info.public or info.samples[0].fn
    for dtype in info.dtypes:
        for shapes in _shape_sets(info):
            xs = _inputs(info, shapes)
            wide = dtype if info.exact else np.float64
            want = info.ref(*[x.astype(dtype).astype(wide) for x in xs])
            for device in _devices():
                with tf.device(device):
                    y = fn(*[tf.constant(x.astype(dtype)) for x in xs])
                assert y.dtype.name == dtype, f"{name} {dtype}: output {y.dtype.name}"
                _assert_close(y.numpy(), np.asarray(want), dtype, f"{name} {dtype} {shapes} on {device}", info.exact,
                              info.ref_tol)


FUSABLE = sorted(name for name in REFERENCED if REGISTRY[name].cuda_expr is not None)
_CTYPES = {"float": np.float32, "double": np.float64}


@pytest.fixture(scope="module")
def expression_kernels():
    """``{ctype: (source, launch-by-kernel-name)}``: every fusable op's expression as one generated kernel."""
    from tfcore.backend.kernel_library import emulator_library

    out = {}
    for ctype in _CTYPES:
        names = {op: f"tfc_ref_{op.lower()}_{ctype}" for op in FUSABLE}
        source = "\n".join(cuda_source(k, [REGISTRY[op].cuda_expr], [tuple(range(OPS[op].arity))], OPS[op].arity,
                                       ctype) for op, k in names.items())
        lib = emulator_library()
        out[ctype] = (source, {op: lib.compile_source(source, k) for op, k in names.items()})
    return out


@pytest.mark.emulator
@pytest.mark.parametrize("ctype", sorted(_CTYPES))
def test_cuda_expressions_match_float64_reference(expression_kernels, ctype):
    np_dtype = _CTYPES[ctype]
    _, launches = expression_kernels[ctype]
    for op in FUSABLE:
        info = OPS[op]
        for n, bcast in ((0, False), (1, False), (1000, False), (257, True)):
            xs = _inputs(info, [(n,)] * info.arity, seed=n)
            if bcast:  # the generated kernel broadcasts size-1 inputs (index 0 for every element)
                xs[-1] = xs[-1][:1]
            arrays = [np.ascontiguousarray(x.astype(np_dtype)) for x in xs]
            y = np.empty(n, np_dtype)
            if n:
                launches[op](((n + THREADS - 1) // THREADS, 1, 1), (THREADS, 1, 1),
                             arrays + [y, np.int64(n)] + [np.int32(a.size == 1 and n != 1) for a in arrays])
            want = info.ref(*[a if info.exact else a.astype(np.float64) for a in arrays])
            _assert_close(y, np.broadcast_to(want, (n,)).astype(want.dtype), np.dtype(np_dtype).name,
                          f"{op}.cuda_expr ({ctype}, n={n})", info.exact)


@pytest.mark.parametrize("ctype", sorted(_CTYPES))
def test_cuda_expressions_compile_with_nvrtc(expression_kernels, ctype):
    from tfcore.backend import nvrtc

    ptx = nvrtc.compile_ptx(expression_kernels[ctype][0], 80)
    assert all(f".entry tfc_ref_{op.lower()}_{ctype}" in ptx for op in FUSABLE)


@pytest.mark.parametrize("name", FUSABLE)
def test_jit_compile_fuses_every_op_with_a_cuda_expression(name):
    """``tf.function(jit_compile=True)`` puts the op into a fused chain (``Mul -> op -> Sub``): on a GPU that
    chain is one kernel generated from the expressions checked above. Planned on CPU:0 (the same fusion
    decision, no compile), and the fused step computes what the unfused ops compute."""
    info = OPS[name]
    fn = info.public or info.samples[0].fn
    xs = [tf.constant(x.astype(np.float32)) for x in _inputs(info, [(5,)] * info.arity, seed=3)]

    def chain(*ts):
        return fn(*([ts[0] * 1.0] + list(ts[1:]))) - ts[0]

    with tf.device("/CPU:0"):
        jit = tf.function(chain, jit_compile=True)
        want = chain(*xs).numpy()
        jit(*xs)
        got = jit(*xs).numpy()
        steps = [getattr(s[1], "__name__", "") for s in jit.get_concrete_function(*xs)._fused_plan.steps]
    assert any(s.startswith("fused_") and name in s.split("_", 1)[1].split("+") for s in steps), steps
    np.testing.assert_array_equal(got, want)
