"""Complex numbers (``tf.complex``, ``tf.math.real/imag/angle``) and ``tf.signal``'s FFTs, windows and framing.

Registered ops with TF's names and gradients (TF's convention for complex tensors: the gradient of a real
loss is ``dL/dRe + i dL/dIm``):

- ``FFT``/``IFFT`` (and 2D/3D) over the innermost 1-3 dimensions: grad ``IFFT(g) * n`` / ``FFT(g) / n``;
- ``RFFT``/``IRFFT`` (and 2D/3D) with ``fft_length`` (inputs cropped or zero-padded as in TF): the RFFT
  gradient is ``Re(IFFT(g zero-padded to the full spectrum)) * n``, the IRFFT one ``RFFT(g) * w / n`` with
  ``w = 1`` at the DC (and even-length Nyquist) bin and 2 elsewhere.

The generic xp code (``xp.fft``) serves CPU (NumPy) and GPU (CuPy).
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from . import array_ops, array_shape_ops, math_ops
from ._common import as_tensor
from .registry import Op, execute

_REAL_OF = {"complex64": dtypes.float32, "complex128": dtypes.float64}
_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}


# -- complex <-> real -------------------------------------------------------------------------------------------
def _complex_rule(op, inputs, attrs):
    re, im = inputs
    if re._dtype is not im._dtype or re._dtype.name not in _COMPLEX_OF:
        raise InvalidArgumentError(None, None, f"Complex: real and imag must both be float32 or both float64, got "
                                               f"{re._dtype.name} and {im._dtype.name}")
    try:
        np.broadcast_shapes(re._array.shape, im._array.shape)
    except ValueError:
        raise InvalidArgumentError(None, None, f"Complex: Incompatible shapes: {list(re._array.shape)} vs. "
                                               f"{list(im._array.shape)}") from None
    return _COMPLEX_OF[re._dtype.name]


def _complex_grad(call, g):
    re, im = call.inputs
    out = []
    for x, part in ((re, real), (im, imag)):
        d = part(g)
        out.append(array_shape_ops._unbroadcast(d, x._array.shape) if tuple(d._array.shape) != x._array.shape else d)
    return out


COMPLEX = Op("Complex", rule=_complex_rule, grad=_complex_grad, output_arg="out")


@COMPLEX.kernel()
def _complex(b, re, im):
    out_dt = np.complex64 if re.dtype == np.float32 else np.complex128
    return b.xp.asarray(re + 1j * im, dtype=out_dt)


def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """``tf.complex``: ``real + imag * 1j`` (float32 -> complex64, float64 -> complex128)."""
    re, im = as_tensor(real), as_tensor(imag)
    if re.dtype.is_floating and not im.dtype.is_floating or isinstance(imag, float | int):
        im = as_tensor(imag, dtype=re.dtype)
    if isinstance(real, float | int) and im.dtype.is_floating:
        re = as_tensor(real, dtype=im.dtype)
    return execute(COMPLEX, (re, im))


def _part_rule(op, inputs, attrs):
    x = inputs[0]
    if not x._dtype.is_complex:
        raise InvalidArgumentError(None, None, f"{op.name}: input must be complex64 or complex128, got "
                                               f"{x._dtype.name}")
    return _REAL_OF[x._dtype.name]


def _real_grad(call, g):
    return [complex(g, array_ops.zeros_like(g))]


def _imag_grad(call, g):
    return [complex(array_ops.zeros_like(g), g)]


REAL = Op("Real", rule=_part_rule, grad=_real_grad)
REAL.kernel()(lambda b, x: b.xp.real(x).copy())
IMAG = Op("Imag", rule=_part_rule, grad=_imag_grad)
IMAG.kernel()(lambda b, x: b.xp.imag(x).copy())


def _angle_grad(call, g):
    # d angle(x) = (re d im - im d re) / |x|^2  ->  TF's -g / conj(i * conj(x)) = g * (-im + i re) / |x|^2
    x = call.inputs[0]
    re, im = real(x), imag(x)
    mag2 = re * re + im * im
    return [complex(-g * im / mag2, g * re / mag2)]


ANGLE = Op("Angle", rule=_part_rule, grad=_angle_grad)
ANGLE.kernel()(lambda b, x: b.xp.angle(x))


def real(input, name=None):  # noqa: A002 - TF's argument name
    """``tf.math.real``: the real part (a real tensor is returned as is)."""
    t = as_tensor(input)
    return execute(REAL, (t,)) if t.dtype.is_complex else t


def imag(input, name=None):  # noqa: A002
    """``tf.math.imag``: the imaginary part (zeros for a real tensor)."""
    t = as_tensor(input)
    return execute(IMAG, (t,)) if t.dtype.is_complex else array_ops.zeros_like(t)


def angle(input, name=None):  # noqa: A002
    """``tf.math.angle``: the argument of each complex number (0 or pi for real tensors)."""
    t = as_tensor(input)
    if t.dtype.is_complex:
        return execute(ANGLE, (t,))
    pi = math_ops.cast(np.pi, t.dtype)
    return math_ops.where(math_ops.less(t, array_ops.zeros_like(t)), array_ops.zeros_like(t) + pi,
                          array_ops.zeros_like(t))


# -- FFTs ------------------------------------------------------------------------------------------------------
def _fft_rule(op, inputs, attrs):
    x = inputs[0]
    rank = attrs["rank"]
    if x._array.ndim < rank:
        raise InvalidArgumentError(None, None, f"{op.name}: input must have rank at least {rank}, got shape "
                                               f"{list(x._array.shape)}")
    if attrs.get("real_input"):
        if x._dtype.name not in _COMPLEX_OF:
            raise InvalidArgumentError(None, None, f"{op.name}: input must be float32 or float64, got "
                                                   f"{x._dtype.name}")
        return _COMPLEX_OF[x._dtype.name]
    if not x._dtype.is_complex:
        raise InvalidArgumentError(None, None, f"{op.name}: input must be complex64 or complex128, got "
                                               f"{x._dtype.name}")
    if attrs.get("real_output"):
        return _REAL_OF[x._dtype.name]
    return x._dtype


def _axes(rank):
    return tuple(range(-rank, 0))


def _size(x, rank):
    return int(np.prod(x._array.shape[-rank:])) if rank else 1


def _c2c_grad(inverse):
    def grad(call, g):
        rank = call.attrs["rank"]
        n = _size(call.inputs[0], rank)
        if inverse:  # y = ifft(x) = conj(F) x / n: grad = F g / n
            return [_fft(g, rank, False) / math_ops.cast(n, g.dtype)]
        return [_fft(g, rank, True) * math_ops.cast(n, g.dtype)]

    return grad


def _make_c2c(name, rank, inverse):
    op = Op(name, rule=_fft_rule, grad=_c2c_grad(inverse), tf_input_types=("Tcomplex",))

    @op.kernel()
    def kernel(b, x, rank):
        fn = b.xp.fft.ifftn if inverse else b.xp.fft.fftn
        return fn(x, axes=_axes(rank)).astype(x.dtype, copy=False)

    return op


_C2C = {(r, inv): _make_c2c(("IFFT" if inv else "FFT") + ("" if r == 1 else f"{r}D"), r, inv)
        for r in (1, 2, 3) for inv in (False, True)}


def _fft(x, rank, inverse):
    t = as_tensor(x)
    return execute(_C2C[(rank, inverse)], (t,), {"rank": rank})


def _fit(x, lengths, xp_pad_value=0):
    """``x`` cropped or zero-padded in its innermost ``len(lengths)`` dimensions to ``lengths`` (a Tensor op)."""
    shape = x.shape.as_list()
    r = len(lengths)
    inner = shape[-r:]
    if inner == list(lengths):
        return x
    begin = [0] * len(shape)
    size = shape[:-r] + [min(a, n) for a, n in zip(inner, lengths)]
    y = array_ops.slice(x, begin, size) if size != shape else x
    pads = [[0, 0]] * (len(shape) - r) + [[0, max(n - a, 0)] for a, n in zip(inner, lengths)]
    return array_ops.pad(y, pads) if any(p[1] for p in pads) else y


def _rfft_grad(call, g):
    x = call.inputs[0]
    rank, lengths = call.attrs["rank"], call.attrs["fft_length"]
    full = list(lengths)
    # g covers bins [0, n//2] of the last axis: zero-pad it to the full spectrum, then n * Re(IFFT)
    padded = _fit(g, full[:-1] + [full[-1]])
    dx = real(_fft(padded, rank, True)) * math_ops.cast(int(np.prod(full)), _REAL_OF[g.dtype.name])
    return [_fit(dx, list(x._array.shape[-rank:]))]


def _irfft_grad(call, g):
    x = call.inputs[0]
    rank, lengths = call.attrs["rank"], call.attrs["fft_length"]
    n = lengths[-1]
    half = n // 2 + 1
    spec = execute(_R2C[rank], (g,), {"rank": rank, "fft_length": tuple(lengths), "real_input": True})
    w = np.full(half, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    scale = array_ops.constant(w / float(np.prod(lengths)), dtype=_REAL_OF[spec.dtype.name])
    dx = spec * complex(scale, array_ops.zeros_like(scale))
    return [_fit(dx, list(x._array.shape[-rank:]))]


def _make_r2c(rank):
    op = Op("RFFT" + ("" if rank == 1 else f"{rank}D"), rule=_fft_rule, grad=_rfft_grad)

    @op.kernel()
    def kernel(b, x, rank, fft_length, real_input):
        out = b.xp.fft.rfftn(x, s=fft_length, axes=_axes(rank))
        return out.astype(np.complex64 if x.dtype == np.float32 else np.complex128, copy=False)

    return op


def _make_c2r(rank):
    op = Op("IRFFT" + ("" if rank == 1 else f"{rank}D"), rule=_fft_rule, grad=_irfft_grad)

    @op.kernel()
    def kernel(b, x, rank, fft_length, real_output):
        out = b.xp.fft.irfftn(x, s=fft_length, axes=_axes(rank))
        return out.astype(np.float32 if x.dtype == np.complex64 else np.float64, copy=False)

    return op


_R2C = {r: _make_r2c(r) for r in (1, 2, 3)}
_C2R = {r: _make_c2r(r) for r in (1, 2, 3)}


def _lengths(fft_length, default, rank, what):
    if fft_length is None:
        return tuple(default)
    vals = np.asarray(fft_length.numpy() if hasattr(fft_length, "numpy") else fft_length, np.int64).reshape(-1)
    if len(vals) != rank or (vals < 0).any():
        raise InvalidArgumentError(None, None, f"{what}: fft_length must be {rank} non-negative sizes, got "
                                               f"{vals.tolist()}")
    return tuple(int(v) for v in vals)


def _rfft(x, fft_length, rank, what):
    t = as_tensor(x)
    if t.dtype.is_integer:
        raise InvalidArgumentError(None, None, f"{what}: input must be float32 or float64, got {t.dtype.name}")
    if t.ndim < rank:
        raise InvalidArgumentError(None, None, f"{what}: input must have rank at least {rank}")
    lengths = _lengths(fft_length, t.shape.as_list()[-rank:], rank, what)
    return execute(_R2C[rank], (t,), {"rank": rank, "fft_length": lengths, "real_input": True})


def _irfft(x, fft_length, rank, what):
    t = as_tensor(x)
    if t.ndim < rank:
        raise InvalidArgumentError(None, None, f"{what}: input must have rank at least {rank}")
    inner = t.shape.as_list()[-rank:]
    lengths = _lengths(fft_length, inner[:-1] + [2 * (inner[-1] - 1)], rank, what)
    return execute(_C2R[rank], (t,), {"rank": rank, "fft_length": lengths, "real_output": True})


def fft(input, name=None):  # noqa: A002
    """``tf.signal.fft``: DFT over the innermost dimension (complex64/complex128)."""
    return _fft(input, 1, False)


def ifft(input, name=None):  # noqa: A002
    """``tf.signal.ifft``: inverse DFT over the innermost dimension (divided by its length)."""
    return _fft(input, 1, True)


def fft2d(input, name=None):  # noqa: A002
    return _fft(input, 2, False)


def ifft2d(input, name=None):  # noqa: A002
    return _fft(input, 2, True)


def fft3d(input, name=None):  # noqa: A002
    return _fft(input, 3, False)


def ifft3d(input, name=None):  # noqa: A002
    return _fft(input, 3, True)


def rfft(input_tensor, fft_length=None, name=None):
    """``tf.signal.rfft``: the ``fft_length // 2 + 1`` non-negative-frequency bins of a real signal's DFT."""
    return _rfft(input_tensor, fft_length, 1, "RFFT")


def irfft(input_tensor, fft_length=None, name=None):
    """``tf.signal.irfft``: the real signal of length ``fft_length`` (default ``2 * (bins - 1)``)."""
    return _irfft(input_tensor, fft_length, 1, "IRFFT")


def rfft2d(input_tensor, fft_length=None, name=None):
    return _rfft(input_tensor, fft_length, 2, "RFFT2D")


def irfft2d(input_tensor, fft_length=None, name=None):
    return _irfft(input_tensor, fft_length, 2, "IRFFT2D")


def rfft3d(input_tensor, fft_length=None, name=None):
    return _rfft(input_tensor, fft_length, 3, "RFFT3D")


def irfft3d(input_tensor, fft_length=None, name=None):
    return _irfft(input_tensor, fft_length, 3, "IRFFT3D")


def _shift(x, axes, inverse):
    t = as_tensor(x)
    nd = t.ndim
    axes = list(range(nd)) if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    shifts = []
    for a in axes:
        n = t.shape.as_list()[a]
        shifts.append(-(n // 2) if inverse else n // 2)
    return array_ops.roll(t, shifts, axes)


def fftshift(x, axes=None, name=None):
    """``tf.signal.fftshift``: move the zero-frequency bin to the centre (all axes by default)."""
    return _shift(x, axes, False)


def ifftshift(x, axes=None, name=None):
    """``tf.signal.ifftshift``: the inverse of ``fftshift``."""
    return _shift(x, axes, True)


# -- windows and framing ----------------------------------------------------------------------------------------
def _raised_cosine(window_length, periodic, dtype, a, b, what):
    n = int(as_tensor(window_length).numpy())
    dt = dtypes.as_dtype(dtype)
    if not dt.is_floating:
        raise ValueError(f"{what}: dtype must be a floating point type, got {dt.name}")
    if n < 0:
        raise InvalidArgumentError(None, None, f"{what}: window_length must be non-negative, got {n}")
    if n == 1:
        return array_ops.ones([1], dtype=dt)
    even = 1 - n % 2
    denom = n + even * int(bool(periodic)) - 1 if n else 1
    k = np.arange(n, dtype=np.float64)
    return array_ops.constant(a - b * np.cos(2.0 * np.pi * k / denom), dtype=dt)


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """``tf.signal.hann_window``: ``0.5 - 0.5 cos(2 pi n / N)`` (``N = length`` when ``periodic``, else
    ``length - 1``)."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """``tf.signal.hamming_window``: ``0.54 - 0.46 cos(2 pi n / N)``."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """``tf.signal.frame``: overlapping frames of ``frame_length`` every ``frame_step`` samples along ``axis``
    (``[..., frames, frame_length, ...]``); ``pad_end`` pads the end so every sample is in a frame."""
    t = as_tensor(signal)
    nd = t.ndim
    if nd < 1:
        raise ValueError("frame: signal must have rank at least 1")
    ax = axis % nd
    fl, fs = int(frame_length), int(frame_step)
    if fl < 1 or fs < 1:
        raise ValueError(f"frame: frame_length and frame_step must be positive, got {fl} and {fs}")
    n = t.shape.as_list()[ax]
    if pad_end:
        frames = -(-n // fs)
        need = max(0, (frames - 1) * fs + fl - n)
        if need:
            pads = [[0, 0]] * nd
            pads[ax] = [0, need]
            t = array_ops.pad(t, pads, constant_values=pad_value)
    else:
        frames = max(0, 1 + (n - fl) // fs) if n >= fl else 0
    idx = (np.arange(frames)[:, None] * fs + np.arange(fl)[None, :]).astype(np.int64)
    return array_ops.gather(t, array_ops.constant(idx), axis=ax)


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """``tf.signal.stft``: the RFFT of each windowed frame (``[..., frames, fft_length // 2 + 1]``);
    ``fft_length`` defaults to the smallest power of 2 holding ``frame_length``."""
    t = as_tensor(signals)
    fl = int(frame_length)
    n_fft = int(fft_length) if fft_length is not None else 1 << max(fl - 1, 0).bit_length()
    framed = frame(t, fl, frame_step, pad_end=pad_end)
    if window_fn is not None:
        framed = framed * window_fn(fl, dtype=t.dtype)
    return rfft(framed, [n_fft])
