"""The tensor-core convolution entries on a real GPU (sm_80+): forward, input gradient and filter gradient
(``conv2d_{fwd,input_grad,filter_grad}_tc_{f16,tf32}``), against float64 references (issue 21 item 12).

tests/kernels/test_conv2d.py runs the same entries on the emulator, whose model of mma.sync, ldmatrix
and cp.async is the author's; this is where they meet hardware. Cases: odd channel counts (element
gathers) with different strides and dilations in h and w, whole 16-byte chunks (cp.async), several row
and column tiles, lopsided explicit pads, inputs one element past an aligned address (no vector paths),
and split-K filter gradients (the launcher's own split on a large problem, and fixed slice counts).
float16: float32 accumulation, compared within float16 tolerance. TF32 (float32 inputs): the exact
products of TF32-rounded inputs within the tensor cores' accumulation error, and within TF32's error of
the float64 result.
"""

import types

import numpy as np
import pytest

from tfcore.ops.cuda_kernels import conv
from tfcore.selftest import references as ref

# (x shape NHWC, filter (kh, kw), CO, strides (h, w), dilations (h, w), padding, explicit paddings)
CASES = [
    ((2, 7, 9, 3), (3, 3), 5, (1, 1), (1, 1), "SAME", ()),            # C = 3, CO = 5: element gathers
    ((2, 8, 7, 5), (3, 3), 6, (3, 2), (1, 1), "VALID", ()),            # odd C, stride 3 x 2
    ((2, 9, 11, 7), (3, 2), 9, (1, 2), (2, 1), "SAME", ()),            # odd C, stride 1 x 2, dilation 2 x 1
    ((2, 9, 10, 16), (3, 3), 24, (1, 1), (1, 1), "SAME", ()),          # C, CO % 8 == 0: cp.async everywhere
    ((1, 9, 10, 12), (3, 3), 20, (2, 2), (1, 1), "SAME", ()),          # C, CO % 4 == 0: cp.async for TF32 only
    ((2, 13, 11, 64), (3, 3), 64, (1, 1), (1, 1), "SAME", ()),         # long k loop, 3 row tiles
    ((1, 6, 7, 136), (2, 2), 136, (2, 1), (1, 1), "SAME", ()),         # 2 column tiles, 544 taps
    ((1, 11, 9, 24), (3, 3), 40, (3, 3), (2, 2), "SAME", ()),          # 9 dgrad phases
    ((2, 9, 8, 8), (4, 3), 16, (2, 2), (3, 1), "EXPLICIT", (0, 0, 3, 2, 1, 0, 0, 0)),  # lopsided pads
]
IDS = [f"{c[0]}-k{c[1]}-co{c[2]}-s{c[3]}-d{c[4]}-{c[5]}" for c in CASES]
DTYPES = {"f16": np.float16, "tf32": np.float32}


@pytest.fixture(scope="module")
def gb():
    import cupy

    from tfcore.backend.kernel_library import CupyKernelLibrary

    lib = CupyKernelLibrary(0)
    if int(lib.arch) < 80:
        pytest.skip(f"tensor-core entries need sm_80+ (device is sm_{lib.arch})")
    return types.SimpleNamespace(kind="cuda", xp=cupy, kernels=lib)


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _device(gb, host, misaligned):
    if not misaligned:
        return gb.xp.asarray(host)
    out = gb.xp.empty(host.size + 1, dtype=host.dtype)[1:].reshape(host.shape)
    out[...] = gb.xp.asarray(host)
    assert not conv.aligned(out)
    return out


def _tf32(x):
    """x rounded to TF32 like cvt.rna.tf32.f32 (10 mantissa bits, ties away from zero), as float64."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return (((u + 0x1000) & 0xFFFFE000).astype(np.uint32)).view(np.float32).astype(np.float64)


def _problem(case, dtype, seed=0):
    x_shape, k, co, s, d, padding, ex = case
    pads = ref.conv_pads(x_shape, k, s, d, padding, ex)
    oh = (x_shape[1] + pads[0] + pads[1] - (k[0] - 1) * d[0] - 1) // s[0] + 1
    ow = (x_shape[2] + pads[2] + pads[3] - (k[1] - 1) * d[1] - 1) // s[1] + 1
    rng = np.random.default_rng(seed)
    return types.SimpleNamespace(
        x=rng.standard_normal(x_shape).astype(dtype), w=rng.standard_normal((*k, x_shape[3], co)).astype(dtype),
        dy=rng.standard_normal((x_shape[0], oh, ow, co)).astype(dtype), s=s, d=d, pads=pads, padding=padding, ex=ex,
        strides=(1, *s, 1), dilations=(1, *d, 1), rows=x_shape[0] * oh * ow)


def run_direction(gb, p, direction, misaligned=False, splits=None):
    """(result on the host, reference(x, w, dy) in float64, number of terms each output sums)."""
    x, w, dy = (_device(gb, v, misaligned) for v in (p.x, p.w, p.dy))
    kh, kw, c, co = p.w.shape
    if direction == "fwd":
        got = conv.conv2d_forward(gb, x, w, p.strides, p.dilations, p.padding, p.ex, tensor_cores=True)
        return _host(got), lambda x, w, dy: ref.conv2d_ref(x, w, p.s, p.d, p.pads), kh * kw * c
    if direction == "dgrad":
        got = conv.conv2d_input_grad(gb, w, dy, p.x.shape, p.strides, p.dilations, p.padding, p.ex, tensor_cores=True)
        return _host(got), lambda x, w, dy: ref.conv2d_input_grad_ref(w, dy, p.x.shape, p.s, p.d, p.pads), kh * kw * co
    got = conv.conv2d_filter_grad(gb, x, dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex, splits=splits,
                                  tensor_cores=True)
    return _host(got), lambda x, w, dy: ref.conv2d_filter_grad_ref(x, dy, p.w.shape, p.s, p.d, p.pads), p.rows


def check(p, got, reference, k, kind):
    f64 = [v.astype(np.float64) for v in (p.x, p.w, p.dy)]
    if kind == "f16":
        assert got.dtype == np.float16
        np.testing.assert_allclose(got.astype(np.float64), reference(*f64), rtol=2e-2,
                                   atol=2e-2 * max(1.0, np.sqrt(k) / 4))
        return
    assert got.dtype == np.float32
    # The tensor cores' float32 accumulation is not round-to-nearest: on an H200 (11-27) the distance to the
    # exact product of the TF32 inputs grew linearly with the terms one split-K slice sums (25088 terms:
    # 0.041, 12544: 0.022, 6272: 0.0088, 1568: 0.0029 at an RMS of 156), not as sqrt(terms). The bound is
    # one unit roundoff per term at the result's RMS: 0.23 there; a slice summed twice or lost is ~100.
    exact = reference(_tf32(p.x), _tf32(p.w), _tf32(p.dy))
    accumulation = 2.0 ** -24 * k * np.sqrt(np.mean(exact ** 2))
    np.testing.assert_allclose(got, exact, rtol=2e-5, atol=max(2e-5 * max(1.0, np.sqrt(k)), accumulation))
    np.testing.assert_allclose(got, reference(*f64), rtol=0, atol=2e-3 * np.sqrt(k))


@pytest.mark.parametrize("direction", ["fwd", "dgrad", "wgrad"])
@pytest.mark.parametrize("kind", ["f16", "tf32"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_tensor_core_conv(gb, case, kind, direction):
    p = _problem(case, DTYPES[kind])
    check(p, *run_direction(gb, p, direction), kind)


@pytest.mark.parametrize("direction", ["fwd", "dgrad", "wgrad"])
@pytest.mark.parametrize("kind", ["f16", "tf32"])
@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[5]], ids=[IDS[0], IDS[3], IDS[5]])
def test_tensor_core_conv_misaligned_inputs(gb, case, kind, direction):
    p = _problem(case, DTYPES[kind], seed=1)
    check(p, *run_direction(gb, p, direction, misaligned=True), kind)


@pytest.mark.parametrize("kind", ["f16", "tf32"])
@pytest.mark.parametrize("splits", [None, 2, 5])
def test_tensor_core_filter_grad_split_k(gb, kind, splits):
    """N=8 56x56x64 -> 64 (ResNet's first 3x3 layer at batch 8): the launcher's split (many slices) and fixed
    ones; float32 partials summed in a fixed order, so two runs give the same bits."""
    p = _problem(((8, 56, 56, 64), (3, 3), 64, (1, 1), (1, 1), "SAME", ()), DTYPES[kind], seed=2)
    got, reference, k = run_direction(gb, p, "wgrad", splits=splits)
    check(p, got, reference, k, kind)
    again, _, _ = run_direction(gb, p, "wgrad", splits=splits)
    np.testing.assert_array_equal(got, again)
