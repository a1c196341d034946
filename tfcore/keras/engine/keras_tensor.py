"""Symbolic tensors of the functional API.

``keras.Input`` returns a :class:`KerasTensor`: a shape (batch dimension ``None``), a
dtype and a ``_keras_history`` saying which layer call (node) produced it. Calling a
layer on KerasTensors records a node instead of computing; a functional ``Model``
later replays the recorded nodes on real tensors.
"""

import collections
import itertools

from ...framework import dtypes
from ...framework.tensor_shape import TensorShape, as_shape

KerasHistory = collections.namedtuple("KerasHistory", ["layer", "node_index", "tensor_index"])


# The layer class that applies a Python operator to KerasTensors: layers.core's TFOpLambda registers
# itself here (keras_tensor sits below every layer module and cannot import them).
_OP_LAYER = [None]


def register_op_layer(cls):
    """Set the Layer class that :class:`KerasTensor` operators build (``TFOpLambda``)."""
    _OP_LAYER[0] = cls
    return cls


_AUTO_NAMES = itertools.count()


def _auto_name():
    """Keras 3's name of an unnamed symbolic tensor: keras_tensor, keras_tensor_1, ... (one count per process)."""
    n = next(_AUTO_NAMES)
    return "keras_tensor" if n == 0 else f"keras_tensor_{n}"


class KerasTensor:
    """A placeholder with a static shape and dtype, produced by a layer call.

    As Keras 3's ``KerasTensor``: ``dtype`` is the dtype's name as a plain str (``'float32'``, so
    ``x.dtype.name`` raises AttributeError as on TF 2.21), ``name`` the Input's name or
    ``keras_tensor_N``; the repr is Keras 3's. tfcore's code reads the DType as ``_dtype``.
    """

    def __init__(self, shape, dtype=dtypes.float32, name=None, keras_history=None, sparse=False):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name if name is not None else _auto_name()
        self.sparse = bool(sparse)  # Keras 3's KerasTensor.sparse: the model is fed a tf.SparseTensor here
        self._keras_history = keras_history

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    @property
    def dtype(self):
        """The dtype's name, a str (Keras 3): ``'float32'``."""
        return self._dtype.name

    @property
    def ragged(self):
        return False

    @property
    def name(self):
        return self._name

    @property
    def ndim(self):
        return self._shape.rank

    @property
    def node(self):
        h = self._keras_history
        return None if h is None else h.layer._inbound_nodes[h.node_index]

    def __repr__(self):
        return (f"<KerasTensor shape={self._shape}, dtype={self._dtype.name}, sparse={self.sparse}, ragged=False, "
                f"name={self._name}>")

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors. "
                        f"({self._name}) Please call `x.shape` rather than `len(x)` for shape information.")

    def __iter__(self):
        raise TypeError(f"Iterating over a symbolic KerasTensor ({self._name}) is not allowed.")

    def __bool__(self):
        raise TypeError("Using a symbolic KerasTensor as a Python bool is not allowed.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"You are passing {self!r}, an intermediate Keras symbolic input/output, to a "
                        "function that needs a concrete value (NumPy, tfcore op). Wrap the computation in "
                        "a keras.layers.Lambda layer or a custom Layer.")

    __hash__ = object.__hash__

    # Python operators become small layers in the graph (TF's TFOpLambda).
    def _op(self, fn, name, *others):
        return _OP_LAYER[0](fn, name=name)(self, *others)

    def __add__(self, o):
        return self._op(lambda a, b: a + b, "tf.__operators__.add", o)

    def __radd__(self, o):
        return self._op(lambda a, b: b + a, "tf.__operators__.radd", o)

    def __sub__(self, o):
        return self._op(lambda a, b: a - b, "tf.math.subtract", o)

    def __rsub__(self, o):
        return self._op(lambda a, b: b - a, "tf.math.subtract", o)

    def __mul__(self, o):
        return self._op(lambda a, b: a * b, "tf.math.multiply", o)

    def __rmul__(self, o):
        return self._op(lambda a, b: b * a, "tf.math.multiply", o)

    def __truediv__(self, o):
        return self._op(lambda a, b: a / b, "tf.math.truediv", o)

    def __rtruediv__(self, o):
        return self._op(lambda a, b: b / a, "tf.math.truediv", o)

    def __pow__(self, o):
        return self._op(lambda a, b: a ** b, "tf.math.pow", o)

    def __neg__(self):
        return self._op(lambda a: -a, "tf.math.negative")

    def __matmul__(self, o):
        return self._op(lambda a, b: a @ b, "tf.linalg.matmul", o)

    def __getitem__(self, key):
        return self._op(lambda a: a[key], "tf.__operators__.getitem")


def is_symbolic(structure):
    """True when any leaf of a (nested) call argument is a KerasTensor."""
    if isinstance(structure, KerasTensor):
        return True
    if isinstance(structure, list | tuple):
        return any(is_symbolic(v) for v in structure)
    if isinstance(structure, dict):
        return any(is_symbolic(v) for v in structure.values())
    return False


def shape_of(x):
    """The TensorShape of a tensor, variable, KerasTensor or array-like."""
    s = x.shape
    return s if isinstance(s, TensorShape) else TensorShape(tuple(s))
