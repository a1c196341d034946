"""The immutable eager :class:`Tensor`.

A Tensor is a backend array (NumPy or CuPy), a :class:`DType` and a logical
:class:`~tfcore.framework.context.Device`. Python operators are installed by the
op layer through :meth:`Tensor._override_operator`, as TF does, so this module
does not import ``tfcore.ops``.
"""

import numpy as np

from . import context as _ctx
from . import dtypes, tracing
from . import tensor_conversion_registry as _conversion_registry
from .tensor_shape import TensorShape

_TRACING = tracing.ACTIVE

_np_ndarray = np.ndarray


class Tensor:
    """An immutable multi-dimensional array on one device, as ``tf.Tensor``."""

    # ``_keras_logits`` (unset by default): the logits a Keras softmax/sigmoid activation produced this
    # tensor from; cross-entropy losses use them instead of logs of clipped probabilities, as TF Keras does.
    # ``_keras_mask`` (unset by default): the Keras mask (boolean, batch x time) of a layer's output.
    __slots__ = ("_array", "_dtype", "_device", "_keras_logits", "_keras_mask", "__weakref__")
    __array_priority__ = 100  # NumPy defers binary operators to us

    def __init__(self, array, dtype, device):
        self._array = array
        self._dtype = dtype
        self._device = device

    # -- metadata ----------------------------------------------------------
    @property
    def shape(self):
        return TensorShape._from_tuple(self._array.shape)

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        """Eager tensors have known shapes: only checks compatibility (as TF)."""
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {shape}")

    @property
    def ndim(self):
        return self._array.ndim

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device.name

    @property
    def backing_device(self):
        return self._device.name

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    def numpy(self):
        """A NumPy copy of the value (host memory; safe to mutate); a NumPy scalar for rank 0, as in TF."""
        if _TRACING[0]:
            tracing.host_read(self, "numpy")
        a = np.array(self._device.backend.to_numpy(self._array), copy=True)
        return a[()] if a.ndim == 0 else a

    def _copy_to(self, device):
        """This value on ``device`` (``self`` when already there): eager TF's implicit copy."""
        if self._device is device:
            return self
        out = Tensor(device.backend.from_other(self._array, self._device.backend), self._dtype, device)
        if _TRACING[0]:
            tracing.alias(out, self)
        return out

    def ref(self):
        """A hashable reference (Tensors themselves are unhashable, as in TF)."""
        return _Reference(self)

    def experimental_ref(self):
        return self.ref()

    # -- Python protocols ---------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        """Host value for NumPy. As TF (whose ``__array__`` goes through ``numpy()``) it is a
        copy, so mutating it never changes this immutable tensor (kernels share buffers
        between tensors); ``copy=False`` gives a read-only view instead."""
        if _TRACING[0]:
            tracing.host_read(self, "array")
        a = self._device.backend.to_numpy(self._array)
        if a is self._array:  # host backend: the tensor's own buffer
            if copy is False:
                a = a.view()
                a.flags.writeable = False
                return np.asarray(a, dtype=dtype, copy=False)
            return np.array(a, dtype=dtype, copy=True)
        return np.asarray(a, dtype=dtype, copy=copy)

    def __dlpack__(self, stream=None, **kwargs):
        if stream is None:
            return self._array.__dlpack__(**kwargs)
        return self._array.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._array.shape[0]

    def __iter__(self):
        if self._array.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        for i in range(self._array.shape[0]):
            yield self[i]

    def _scalar(self):
        if _TRACING[0]:
            tracing.host_read(self, "scalar")
        if self._array.size != 1 or self._array.ndim != 0:
            raise TypeError(f"Only scalar tensors can be converted to Python scalars; shape {self.shape}")
        return self._device.backend.to_numpy(self._array).item()

    def __bool__(self):
        if _TRACING[0]:
            tracing.host_read(self, "bool")
        if self._array.ndim != 0 and self._array.size == 1:
            return bool(self._device.backend.to_numpy(self._array).item())
        return bool(self._scalar())

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __index__(self):
        if not self._dtype.is_integer:
            raise TypeError(f"Only integer scalar tensors can be used as an index, got {self._dtype.name}")
        return int(self._scalar())

    def __complex__(self):
        return complex(self._scalar())

    def __format__(self, spec):
        """TF's ``EagerTensor.__format__``: the NumPy value's format (``f"{t}"`` prints ``[1.5 2. ]``, not
        ``tf.Tensor(...)``; a format spec on a non-scalar raises NumPy's TypeError). While a tf.function traces,
        a tensor of the trace formats as TF's symbolic tensor, ``Tensor("a:0", shape=(), dtype=int32)``."""
        if _TRACING[0]:
            text = tracing.graph_form(self, False)
            if text is not None:  # object.__format__ of TF's SymbolicTensor: no format spec
                if spec:
                    raise TypeError("unsupported format string passed to SymbolicTensor.__format__")
                return text
        if self._array.ndim == 0:
            return format(self._scalar(), spec)
        return format(self.numpy(), spec)

    __hash__ = None

    # While a tf.function traces, a tensor of the trace prints as TF's symbolic graph tensor (TF traces on
    # symbolic tensors; tfcore's trace-time tensors hold values): ``Tensor("add:0", shape=(None,), dtype=int32)``.
    def __repr__(self):
        if _TRACING[0]:
            text = tracing.graph_form(self, True)
            if text is not None:
                return text
        return f"<tf.Tensor: shape={_shape_str(self)}, dtype={self._dtype.name}, numpy={_np_str(self, repr)}>"

    def __str__(self):
        if _TRACING[0]:
            text = tracing.graph_form(self, False)
            if text is not None:
                return text
        body = _np_str(self, str)
        if "\n" in body:
            body = "\n" + body
        return f"tf.Tensor({body}, shape={_shape_str(self)}, dtype={self._dtype.name})"

    def __reduce__(self):
        return (_rebuild_tensor, (self.numpy(), self._dtype.name))

    @classmethod
    def _override_operator(cls, name, fn):
        """Install a Python operator (``__add__``...) implemented by the op layer."""
        setattr(cls, name, fn)


def backend_array(tensor):
    """The backend array (NumPy or CuPy) holding ``tensor``'s value, not copied: for code that hands
    values to ``tfcore.backend`` (collectives, kernels); it must not be written to."""
    return tensor._array


def from_backend_array(array, device, dtype=None):
    """A Tensor over ``array``, which already lives on ``device`` (a context Device); ``dtype``
    defaults to the array's (a DType; pass the source tensor's for dtypes NumPy cannot name)."""
    return Tensor(array, dtype if dtype is not None else dtypes.from_numpy(array.dtype), device)


def _rebuild_tensor(value, dtype_name):
    """Unpickling: the value on the current ``tf.device`` scope's device, else the default device."""
    dtype = dtypes.as_dtype(dtype_name)
    dev = _ctx.current_device() or _ctx.default_device()
    return Tensor(dev.backend.asarray(np.asarray(value, dtype=dtype.as_numpy_dtype)), dtype, dev)


def _shape_str(t):
    s = t._array.shape
    return "(" + ", ".join(str(d) for d in s) + ("," if len(s) == 1 else "") + ")"


def _np_str(t, fmt):
    a = t._device.backend.to_numpy(t._array)
    if a.ndim == 0:
        return str(a[()])
    if fmt is repr:
        text = np.array_repr(a)
        return "\n" + text if "\n" in text else text  # TF's _numpy_text: a multi-line value starts on its own line
    return np.array2string(a, separator=" ")


class _Reference:
    """``Tensor.ref()``: hashable by identity; ``deref()`` gives the object back."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, _Reference) and other._obj is self._obj

    def __repr__(self):
        return f"<Reference wrapping {self._obj!r}>"


# TF's eager tensors are ``EagerTensor`` objects (a subclass of ``tf.Tensor``); tfcore's one Tensor class
# answers ``type(t).__name__`` (and Python's own messages: "'EagerTensor' object is not callable") with
# that name, as TF 2.21 does. The class stays ``tfcore.framework.tensor.Tensor`` (``__qualname__``, pickling).
Tensor.__name__ = "EagerTensor"


def is_tensor(x):
    """``tf.is_tensor``: True for tensors, variables and other types registered with
    ``tf.register_tensor_conversion_function`` (anything ops accept as a tensor)."""
    return isinstance(x, Tensor) or bool(_conversion_registry.get(type(x)))
