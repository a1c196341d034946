"""FusedBatchNormV3 / FusedBatchNormGradV3 (``tfcore/ops/batch_norm_ops.py``) against float64 NumPy references.

Values as TF 2.21's ``tf.raw_ops`` gives them (checked side by side): the Bessel-corrected batch variance, the
blend with ``exponential_avg_factor``, reserve spaces holding the batch mean and biased variance, the three
gradients in training and inference, NCHW, float16 ``x`` with float32 statistics. These run on the default
device: the CPU, or the emulated GPU in the ``TFCORE_EMULATED_GPUS=1`` pass.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend import native_cpu
from tfcore.framework.context import context
from tfcore.ops import batch_norm_ops
from tfcore.ops.registry import kernel_for

RNG = np.random.default_rng(7)
SHAPES = [(3, 5, 7, 4), (2, 3, 1, 1), (1, 1, 1, 3), (4, 1, 2, 5)]  # ragged sizes, C=1, a single row


def ref_forward(x, scale, offset, eps, channels_first=False):
    """float64 ``(y, mean, biased var, unbiased var)`` over every axis but the channel axis."""
    axes = (0, 2, 3) if channels_first else (0, 1, 2)
    bshape = (1, -1, 1, 1) if channels_first else (1, 1, 1, -1)
    mean, var = x.mean(axis=axes), x.var(axis=axes)
    n = x.size // len(scale)
    y = (x - mean.reshape(bshape)) / np.sqrt(var.reshape(bshape) + eps) * scale.reshape(bshape) + offset.reshape(
        bshape)
    return y, mean, var, var * n / max(n - 1, 1)


def _params(c, dtype=np.float64):
    return RNG.uniform(0.5, 1.5, c).astype(dtype), RNG.standard_normal(c).astype(dtype)


def _raw(x, scale, offset, mean=None, variance=None, **kw):
    empty = np.zeros(0, getattr(scale.dtype, "as_numpy_dtype", scale.dtype))
    return tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=empty if mean is None else mean,
                                       variance=empty if variance is None else variance, **kw)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_training_forward_matches_float64_reference(shape, fmt):
    x = RNG.standard_normal(shape) * 3 + 2
    c = shape[1] if fmt == "NCHW" else shape[-1]
    scale, offset = _params(c)
    out = _raw(x, scale, offset, epsilon=1e-3, data_format=fmt)
    y, mean, var, unbiased = ref_forward(x, scale, offset, 1e-3, fmt == "NCHW")
    assert out._fields == ("y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2",
                           "reserve_space_3")
    np.testing.assert_allclose(out.y.numpy(), y, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(out.batch_mean.numpy(), mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.batch_variance.numpy(), unbiased, rtol=1e-10, atol=1e-12)  # Bessel-corrected
    np.testing.assert_allclose(out.reserve_space_1.numpy(), mean, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.reserve_space_2.numpy(), var, rtol=1e-10, atol=1e-12)      # biased
    assert out.reserve_space_3.shape == [0]


def test_float32_variance_is_numerically_sound():
    """A large mean and a small spread: E[x^2] - E[x]^2 in float32 would lose every digit of the variance."""
    x = (1000.0 + RNG.standard_normal((8, 6, 6, 3)) * 0.01).astype(np.float32)
    out = _raw(x, np.ones(3, np.float32), np.zeros(3, np.float32), epsilon=1e-6)
    var = x.astype(np.float64).var(axis=(0, 1, 2))
    np.testing.assert_allclose(out.reserve_space_2.numpy(), var, rtol=2e-3)


def test_exponential_avg_factor_blends_into_the_running_statistics():
    x = RNG.standard_normal((2, 3, 3, 2)) + 1
    scale, offset = _params(2)
    old_mean, old_var = RNG.standard_normal(2), RNG.uniform(0.5, 2, 2)
    out = _raw(x, scale, offset, old_mean, old_var, epsilon=1e-3, exponential_avg_factor=0.3)
    y, mean, _, unbiased = ref_forward(x, scale, offset, 1e-3)
    np.testing.assert_allclose(out.batch_mean.numpy(), 0.7 * old_mean + 0.3 * mean, rtol=1e-12)
    np.testing.assert_allclose(out.batch_variance.numpy(), 0.7 * old_var + 0.3 * unbiased, rtol=1e-12)
    np.testing.assert_allclose(out.y.numpy(), y, rtol=1e-10, atol=1e-10)  # y still uses the batch statistics
    np.testing.assert_allclose(out.reserve_space_1.numpy(), mean, rtol=1e-12)


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_inference_forward_uses_the_given_statistics(fmt):
    x = RNG.standard_normal((2, 3, 4, 5))
    c = x.shape[1] if fmt == "NCHW" else x.shape[-1]
    scale, offset = _params(c)
    mean, var = RNG.standard_normal(c), RNG.uniform(0.5, 2, c)
    out = _raw(x, scale, offset, mean, var, epsilon=1e-3, data_format=fmt, is_training=False)
    b = (1, -1, 1, 1) if fmt == "NCHW" else (1, 1, 1, -1)
    want = (x - mean.reshape(b)) / np.sqrt(var.reshape(b) + 1e-3) * scale.reshape(b) + offset.reshape(b)
    np.testing.assert_allclose(out.y.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.batch_mean.numpy(), mean)
    np.testing.assert_allclose(out.batch_variance.numpy(), var)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [True, False])
def test_gradients_of_x_scale_offset_match_finite_differences(shape, fmt, is_training, gradcheck):
    x = RNG.standard_normal(shape)
    c = shape[1] if fmt == "NCHW" else shape[-1]
    scale, offset = _params(c)
    mean, var = RNG.standard_normal(c), RNG.uniform(0.5, 2, c)
    n = x.size // c

    def f(x, scale, offset):
        return _raw(x, scale, offset, mean, var, epsilon=1e-3, data_format=fmt, is_training=is_training).y

    if is_training and n == 1:  # y == offset: no gradient through x and scale, exactly as the reference
        return gradcheck(lambda o: f(tf.constant(x), tf.constant(scale), o), offset)
    gradcheck(f, x, scale, offset, rtol=1e-5, atol=1e-7)


def test_gradient_op_values_as_tf():
    """FusedBatchNormGradV3 called directly (training and inference) against the closed forms."""
    x, dy = RNG.standard_normal((3, 2, 5, 4)), RNG.standard_normal((3, 2, 5, 4))
    scale = RNG.uniform(0.5, 1.5, 4)
    mean, var = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))
    inv = 1 / np.sqrt(var + 1e-3)
    xhat = (x - mean) * inv
    n = x.size // 4
    for is_training in (True, False):
        g = tf.raw_ops.FusedBatchNormGradV3(y_backprop=dy, x=x, scale=scale, reserve_space_1=mean,
                                            reserve_space_2=var, reserve_space_3=np.zeros(0), epsilon=1e-3,
                                            is_training=is_training)
        assert g._fields == ("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4",
                             "reserve_space_5")
        dscale, doffset = (dy * xhat).sum(axis=(0, 1, 2)), dy.sum(axis=(0, 1, 2))
        dx = scale * inv * (dy - doffset / n - xhat * dscale / n) if is_training else dy * scale * inv
        np.testing.assert_allclose(g.x_backprop.numpy(), dx, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g.scale_backprop.numpy(), dscale, rtol=1e-10)
        np.testing.assert_allclose(g.offset_backprop.numpy(), doffset, rtol=1e-12)


@pytest.mark.parametrize("half", [tf.float16, tf.bfloat16])
def test_16_bit_x_with_float32_statistics(half):
    x64 = RNG.standard_normal((4, 6, 5, 3)) * 2 + 1
    x = tf.cast(tf.constant(x64), half)
    xq = tf.cast(x, tf.float64).numpy()  # the rounded input the op sees
    scale, offset = _params(3, np.float32)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = _raw(x, scale, offset, epsilon=1e-3)
        loss = tf.reduce_sum(tf.cast(out.y, tf.float32) * tf.constant(xq, tf.float32))
    dx = tape.gradient(loss, x)
    assert out.y.dtype == half and dx.dtype == half
    assert all(t.dtype == tf.float32 for t in out[1:])
    y, mean, _, unbiased = ref_forward(xq, scale.astype(np.float64), offset.astype(np.float64), 1e-3)
    tol = 1e-2 if half == tf.float16 else 6e-2
    np.testing.assert_allclose(tf.cast(out.y, tf.float64).numpy(), y, rtol=tol, atol=tol)
    np.testing.assert_allclose(out.batch_mean.numpy(), mean, rtol=1e-5)  # float32 accumulation, not 16-bit
    np.testing.assert_allclose(out.batch_variance.numpy(), unbiased, rtol=1e-5)
    with tf.GradientTape() as tape:
        x32 = tf.constant(xq, tf.float32)
        tape.watch(x32)
        y32 = _raw(x32, scale, offset, epsilon=1e-3).y
        loss = tf.reduce_sum(y32 * tf.constant(xq, tf.float32))
    np.testing.assert_allclose(tf.cast(dx, tf.float32).numpy(), tape.gradient(loss, x32).numpy(), rtol=tol,
                               atol=tol * 4)


def test_compat_fused_batch_norm_runs_one_op(capsys):
    x = RNG.standard_normal((2, 3, 3, 4)).astype(np.float32)
    tf.debugging.set_log_device_placement(True)
    try:
        y, m, v = tf.nn.fused_batch_norm(x, np.ones(4, np.float32), np.zeros(4, np.float32))
    finally:
        tf.debugging.set_log_device_placement(False)
    ops = [line.split()[2] for line in capsys.readouterr().out.splitlines() if line.startswith("Executing op")]
    assert ops == ["FusedBatchNormV3"]
    with pytest.raises(ValueError, match="`mean` and `variance` must be a 1D tensor"):
        tf.nn.fused_batch_norm(x, np.ones(4, np.float32), np.zeros(4, np.float32), is_training=False)


def test_raw_ops_take_keyword_arguments_only():
    x = np.ones((1, 1, 1, 2), np.float32)
    with pytest.raises(TypeError):
        tf.raw_ops.FusedBatchNormV3(x, x[0, 0, 0], x[0, 0, 0], x[0, 0, 0], x[0, 0, 0])


@pytest.mark.parametrize("kw, match", [
    (dict(x=np.ones((2, 3, 4), np.float32)), r"FusedBatchNormV3: input must be 4-dimensional.*float32\[2, 3, 4\]"),
    (dict(scale=np.ones(3, np.float32)), r"FusedBatchNormV3: scale must be 1-dimensional with the 2 channels of x, "
                                         r"got shape \[3\].*float32\[2, 3, 4, 2\]"),
    (dict(offset=np.ones((2, 1), np.float32)), r"offset must be 1-dimensional"),
    (dict(scale=np.ones(2)), r"FusedBatchNormV3: scale must be float32 for x of float32, got scale float64"),
    (dict(x=np.ones((2, 3, 4, 2), np.int32)), r"FusedBatchNormV3: x must be float16, bfloat16, float32 or float64.*"
                                              r"int32\[2, 3, 4, 2\]"),
    (dict(data_format="NWHC"), r"FusedBatchNormV3: data_format must be one of NHWC, NCHW, NDHWC, NCDHW, got 'NWHC'"),
    (dict(exponential_avg_factor=0.5), r"FusedBatchNormV3: mean must be 1-dimensional with the 2 channels"),
])
def test_bad_input_names_the_op_shapes_and_dtypes(kw, match):
    args = dict(x=np.ones((2, 3, 4, 2), np.float32), scale=np.ones(2, np.float32), offset=np.zeros(2, np.float32),
                mean=np.zeros(0, np.float32), variance=np.zeros(0, np.float32))
    args.update(kw)
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.raw_ops.FusedBatchNormV3(**args)


def test_gradient_op_checks_its_inputs():
    x = np.ones((2, 3, 4, 2), np.float32)
    s = np.ones(2, np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"FusedBatchNormGradV3: y_backprop must have the "
                                                             r"shape and dtype of x.*float32\[2, 3, 4, 1\]"):
        tf.raw_ops.FusedBatchNormGradV3(y_backprop=x[..., :1], x=x, scale=s, reserve_space_1=s, reserve_space_2=s,
                                        reserve_space_3=np.zeros(0, np.float32))


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [True, False])
def test_second_order_gradients_match_finite_differences(fmt, is_training, gradcheck):
    """FusedBatchNormGradV3's own gradient (TF's _FusedBatchNormGradGradV3): the gradient of a loss's gradient,
    with respect to x, scale and offset, against finite differences of the first gradient."""
    shape = (2, 3, 1, 2) if fmt == "NHWC" else (2, 2, 3, 1)
    c = 2
    mean, var = RNG.standard_normal(c), RNG.uniform(0.5, 2, c)

    def first_gradient(x, scale, offset):
        with tf.GradientTape() as tape:
            tape.watch([x, scale, offset])
            y = _raw(x, scale, offset, mean, var, epsilon=1e-3, data_format=fmt, is_training=is_training).y
            loss = tf.reduce_sum(y * y * tf.sin(x))
        gx, gs, go = tape.gradient(loss, [x, scale, offset])
        return tf.concat([tf.reshape(gx, [-1]), gs, go], axis=0)

    scale, offset = _params(c)
    gradcheck(first_gradient, RNG.standard_normal(shape), scale, offset, rtol=1e-5, atol=1e-7)


def test_op_runs_inside_tf_function():
    x = RNG.standard_normal((2, 3, 3, 2)).astype(np.float32)
    s, o = np.ones(2, np.float32), np.zeros(2, np.float32)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = batch_norm_ops.fused_batch_norm_v3(x, s, o, np.zeros(0, np.float32), np.zeros(0, np.float32)).y
            loss = tf.reduce_sum(y * y * y)
        return y, tape.gradient(loss, x)

    y, g = step(tf.constant(x))
    with tf.GradientTape() as tape:
        xt = tf.constant(x)
        tape.watch(xt)
        y_eager = batch_norm_ops.fused_batch_norm_v3(xt, s, o, np.zeros(0, np.float32), np.zeros(0, np.float32)).y
        loss = tf.reduce_sum(y_eager * y_eager * y_eager)
    np.testing.assert_allclose(y.numpy(), y_eager.numpy(), rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), tape.gradient(loss, xt).numpy(), rtol=1e-5, atol=1e-6)


# -- the native CPU candidates (kernels/cpu_kernels.cc) ---------------------------------------------------------

needs_native = pytest.mark.skipif(native_cpu.library() is None, reason="no C++ compiler: NumPy paths only")


def _cpu_backend():
    return context.find("CPU", 0).backend


@needs_native
@pytest.mark.parametrize("shape", [(3, 5, 7, 4), (1, 1, 1, 1), (2, 9, 1, 3), (5, 3, 3, 1), (2, 2, 3, 3, 6)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_native_kernels_match_float64_references(shape, dtype):
    """The C++ forward and gradient, called directly (small shapes: execute picks them from 32768 values up)."""
    x = (RNG.standard_normal(shape) * 3 + 5).astype(dtype)
    dy = RNG.standard_normal(shape).astype(dtype)
    c = shape[-1]
    scale, offset = (p.astype(dtype) for p in _params(c))
    old_mean, old_var = RNG.standard_normal(c).astype(dtype), RNG.uniform(0.5, 2, c).astype(dtype)
    fmt = "NDHWC" if len(shape) == 5 else "NHWC"
    out = batch_norm_ops._fused_batch_norm_v3_native(_cpu_backend(), x, scale, offset, old_mean, old_var,
                                                     epsilon=1e-3, exponential_avg_factor=0.25, data_format=fmt,
                                                     is_training=True)
    x64 = x.astype(np.float64).reshape(-1, c)
    mean, var = x64.mean(0), x64.var(0)
    n = x64.shape[0]
    unbiased = var * n / (n - 1) if n > 1 else np.zeros(c)
    inv = 1 / np.sqrt(var + 1e-3)
    y = ((x64 - mean) * inv * scale + offset).reshape(shape)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out[0], y, rtol=tol, atol=tol)
    np.testing.assert_allclose(out[1], 0.75 * old_mean + 0.25 * mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(out[2], 0.75 * old_var + 0.25 * unbiased, rtol=tol, atol=tol)
    np.testing.assert_allclose(out[3], mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(out[4], var, rtol=tol * 10, atol=tol)
    assert all(o.dtype == dtype for o in out) and out[5].shape == (0,)
    dy64, xhat = dy.astype(np.float64).reshape(-1, c), (x64 - mean) * inv
    for training in (True, False):
        g = batch_norm_ops._fused_batch_norm_grad_v3_native(_cpu_backend(), dy, x, scale, out[3], out[4], out[5],
                                                            epsilon=1e-3, data_format=fmt, is_training=training)
        dscale, doffset = (dy64 * xhat).sum(0), dy64.sum(0)
        dx = scale * inv * (dy64 - doffset / n - xhat * dscale / n) if training else dy64 * scale * inv
        np.testing.assert_allclose(g[0], dx.reshape(shape), rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(g[1], dscale, rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(g[2], doffset, rtol=tol, atol=tol * 10)


@needs_native
def test_execute_picks_the_native_kernels_for_large_channels_last_inputs():
    big = np.ones((4, 32, 32, 8), np.float32)
    params = [np.ones(8, np.float32), np.zeros(8, np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32)]
    attrs = {"epsilon": 1e-3, "exponential_avg_factor": 1.0, "data_format": "NHWC", "is_training": True}
    assert kernel_for("FusedBatchNormV3", [big] + params, attrs, "/CPU:0").name == "fused_batch_norm_native"
    nchw = dict(attrs, data_format="NCHW")
    assert kernel_for("FusedBatchNormV3", [big.transpose(0, 3, 1, 2).copy()] + params, nchw, "/CPU:0").name != \
        "fused_batch_norm_native"
    assert kernel_for("FusedBatchNormV3", [big[:1, :2]] + params, attrs, "/CPU:0").name != "fused_batch_norm_native"
    half = [big.astype(np.float16)] + params
    assert kernel_for("FusedBatchNormV3", half, attrs, "/CPU:0").name != "fused_batch_norm_native"
    grad_in = [big, big, np.ones(8, np.float32), np.zeros(8, np.float32), np.ones(8, np.float32),
               np.zeros(0, np.float32)]
    grad_attrs = {"epsilon": 1e-3, "data_format": "NHWC", "is_training": True}
    assert kernel_for("FusedBatchNormGradV3", grad_in, grad_attrs, "/CPU:0").name == "fused_batch_norm_grad_native"


@needs_native
def test_native_and_numpy_paths_agree_through_execute(monkeypatch):
    """The same public call with the native kernels and with ``TFCORE_NATIVE_CPU=0`` (the NumPy candidates)."""
    x = (RNG.standard_normal((8, 16, 16, 16)) * 2 + 1).astype(np.float32)
    scale, offset = (p.astype(np.float32) for p in _params(16))

    def run():
        with tf.device("/CPU:0"):
            xt = tf.constant(x)
            with tf.GradientTape() as tape:
                tape.watch(xt)
                out = _raw(xt, scale, offset, epsilon=1e-3)
                loss = tf.reduce_sum(out.y * tf.sin(xt))
            return [t.numpy() for t in out[:5]] + [tape.gradient(loss, xt).numpy()]

    native = run()
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")
    numpy_path = run()
    for a, b in zip(native, numpy_path):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("is_training, factor", [(True, 1.0), (True, 0.5), (False, 1.0)])
def test_outputs_never_share_memory(is_training, factor):
    """Tensors are immutable values: no output may alias an input's array or another output's."""
    x = RNG.standard_normal((2, 3, 3, 2)).astype(np.float32)
    ins = [tf.constant(a) for a in (x, np.ones(2, np.float32), np.zeros(2, np.float32), np.zeros(2, np.float32),
                                    np.ones(2, np.float32))]
    out = tf.raw_ops.FusedBatchNormV3(x=ins[0], scale=ins[1], offset=ins[2], mean=ins[3], variance=ins[4],
                                      exponential_avg_factor=factor, is_training=is_training)
    arrays = [t._array for t in ins] + [t._array for t in out]
    for i, a in enumerate(arrays):
        for b in arrays[i + 1:]:
            assert a is not b and not (a.size and b.size and np.shares_memory(a, b))


def test_raw_ops_names_what_it_lacks():
    with pytest.raises(AttributeError, match="has only FusedBatchNormV3, FusedBatchNormGradV3"):
        tf.raw_ops.Conv2D  # noqa: B018 - not exposed yet
    assert not hasattr(tf.raw_ops, "MatMul")
