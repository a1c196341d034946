"""kernels/bias_add.cu on the emulator: NHWC (float4 and scalar paths), NCHW, activation epilogues."""

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.ops.cuda_kernels.bias_add import ACTIVATIONS, bias_add_act
from tfcore.selftest.references import bias_add_ref

pytestmark = pytest.mark.emulator


@pytest.mark.parametrize("activation", [None, "relu", "gelu", "sigmoid", "tanh", "gelu_tanh"])
@pytest.mark.parametrize("shape,data_format", [((2, 3, 8), "NHWC"), ((7, 5), "NHWC"), ((2, 3, 4, 5), "NCHW"),
                                               ((1, 1), "NHWC")])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_bias_add(kb, rng, shape, data_format, activation, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    bias = rng.standard_normal(shape[1] if data_format == "NCHW" else shape[-1]).astype(dtype)
    y = bias_add_act(kb, x, bias, activation, data_format)
    assert y.dtype == dtype and y.shape == x.shape
    np.testing.assert_allclose(y.astype(np.float64), bias_add_ref(x, bias, activation, data_format).astype(np.float64),
                               *tol(dtype))


def test_bias_add_covers_all_activation_codes():
    assert sorted(set(ACTIVATIONS.values())) == list(range(6))


def test_bias_add_empty(kb):
    assert bias_add_act(kb, np.ones((0, 4), np.float32), np.ones(4, np.float32)).shape == (0, 4)
