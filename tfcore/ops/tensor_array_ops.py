"""``tf.TensorArray`` as TF runs it eagerly: a Python list of tensors with TF's checks.

In eager TF a TensorArray is a list of tensors (``_EagerTensorArray``): ``write`` stores a tensor,
``read`` returns it, ``stack``/``concat``/``gather`` combine them with the ordinary ops. So
gradients flow through the recorded ``Pack``/``ConcatV2``/... ops and need nothing special.
``write``/``unstack``/``scatter``/``split`` return the array itself so the graph-style
``ta = ta.write(i, x)`` idiom works.

Inside tf.function every method is one graph node on an immutable value: ``write``, ``unstack``,
``scatter`` and ``split`` return a NEW array and leave the one they were called on unchanged (TF's
graph rule of seed 004: ``ta = ta.write(i, x)``; a write whose result is dropped is lost).
"""

from ..framework import dtypes, tracing
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops


def _as_index(index):
    return int(index.numpy()) if isinstance(index, Tensor) else int(index)


class TensorArray:
    """A dynamically sized array of tensors of one dtype (eager semantics of TF2's ``tf.TensorArray``)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape) if element_shape is not None else TensorShape(None)
        self._items = [None] * _as_index(size)
        self._cleared = set()

    # -- properties kept for compatibility with graph-style code ---------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def flow(self):
        """Not meaningful eagerly (TF returns a dummy scalar too)."""
        return array_ops.constant(0, dtype=dtypes.int32)

    @property
    def handle(self):
        return None

    def identity(self):
        return self

    def size(self, name=None):
        return array_ops.constant(len(self._items), dtype=dtypes.int32)

    def close(self, name=None):
        self._items.clear()

    # -- element access ---------------------------------------------------------------------------------
    def _zero(self, index):
        if not self._element_shape.is_fully_defined():
            raise InvalidArgumentError(
                None, None, f"TensorArray: index {index} has not been written to and the element shape "
                f"{self._element_shape} is not fully defined, so it cannot be read as zeros")
        value = self._items[index] = array_ops.zeros(self._element_shape.as_list(), dtype=self._dtype)
        return value

    def _get(self, index):
        value = self._items[index]
        return self._zero(index) if value is None else value

    def read(self, index, name=None):
        """The tensor at ``index`` (zeros of ``element_shape`` if never written); cleared after if so configured."""
        index = _as_index(index)
        if index < 0:
            raise OutOfRangeError(None, None, f"Reading from negative indices (index {index}) is not allowed.")
        if index >= len(self._items):
            raise OutOfRangeError(None, None,
                                  f"Tried to read from index {index} but array size is: {len(self._items)}")
        if self._items[index] is None and index in self._cleared:
            raise InvalidArgumentError(
                None, None, f"Could not read index {index} twice because it was cleared after a previous read "
                "(perhaps try setting clear_after_read = false?)")
        value = self._get(index)
        if self._clear_after_read:
            self._items[index] = None
            self._cleared.add(index)
        return value

    def _write(self, index, value):
        index = _as_index(index)
        if index < 0:
            raise OutOfRangeError(None, None, f"Writing to negative indices (index {index}) is not allowed.")
        if index >= len(self._items):
            if not self._dynamic_size:
                raise OutOfRangeError(None, None, f"Tried to write to index {index} but array is not resizeable "
                                                  f"and size is: {len(self._items)}")
            self._items.extend([None] * (index + 1 - len(self._items)))
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to "
                                                   f"write dtype {value.dtype.name}")
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._items[index] = value

    def write(self, index, value, name=None):
        """Store ``value`` at ``index``; returns the array (use as ``ta = ta.write(i, x)``)."""
        self._write(index, value)
        return self

    # -- whole-array operations ---------------------------------------------------------------------------
    def stack(self, name=None):
        """All elements stacked along a new axis 0 (unwritten ones as zeros)."""
        if not self._items:
            if self._element_shape.is_fully_defined():
                return array_ops.zeros([0] + self._element_shape.as_list(), dtype=self._dtype)
            return array_ops.zeros([0], dtype=self._dtype)
        return array_ops.stack([self._get(i) for i in range(len(self._items))])

    def gather(self, indices, name=None):
        indices = indices.numpy().tolist() if isinstance(indices, Tensor) else list(indices)
        return array_ops.stack([self._get(int(i)) for i in indices])

    def concat(self, name=None):
        """All elements concatenated along their axis 0."""
        items = [self._get(i) for i in range(len(self._items))]
        for i, t in enumerate(items):
            if t.shape.rank == 0:
                raise InvalidArgumentError(
                    None, None, f"Concat saw a scalar shape at index {i} but requires at least vectors.")
        return array_ops.concat(items, 0)

    def unstack(self, value, name=None):
        """Replace the contents with the slices of ``value`` along axis 0."""
        tensors = array_ops.unstack(convert_to_tensor(value, dtype_hint=self._dtype))
        if len(tensors) > len(self._items) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {len(tensors)} tensors into a TensorArray of static size "
                             f"{len(self._items)}")
        self._items = [None] * len(tensors)  # TF replaces the contents
        for i, t in enumerate(tensors):
            self._write(i, t)
        return self

    def scatter(self, indices, value, name=None):
        indices = indices.numpy().tolist() if isinstance(indices, Tensor) else list(indices)
        for index, t in zip(indices, array_ops.unstack(convert_to_tensor(value, dtype_hint=self._dtype))):
            self._write(index, t)
        return self

    def split(self, value, lengths, name=None):
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        lengths = [int(n) for n in (lengths.numpy() if isinstance(lengths, Tensor) else lengths)]
        if value.shape.rank == 0:
            raise InvalidArgumentError(None, None, "Expected value to be at least a vector, but received shape: []")
        if sum(lengths) != value.shape[0]:
            raise InvalidArgumentError(None, None, f"Expected sum of lengths to be equal to values.shape[0], but "
                                                   f"sum of lengths is {sum(lengths)} and value's shape is: "
                                                   f"{value.shape.as_list()}")
        if not self._dynamic_size and len(lengths) != len(self._items):
            raise InvalidArgumentError(None, None, f"TensorArray's size is not equal to the size of lengths "
                                                   f"({len(self._items)} vs. {len(lengths)}), and the TensorArray "
                                                   "is not marked as dynamically resizeable")
        if value.dtype != self._dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to "
                                                   f"write dtype {value.dtype.name}")
        self._items = list(array_ops.split(value, lengths))  # pieces may differ in length: no shape merging
        return self

    def __repr__(self):
        return f"<TensorArray dtype={self._dtype.name} size={len(self._items)}>"


def _copy(ta):
    new = TensorArray.__new__(TensorArray)
    new.__dict__.update(ta.__dict__)
    new._items = list(ta._items)
    new._cleared = set(ta._cleared)
    return new


def _graph_form(name, mutating):
    """Wrap an eager method: while tracing, one node on immutable arrays (mutators return a copy)."""
    eager = getattr(TensorArray, name)

    def method(self, *args, **kwargs):
        kwargs.pop("name", None)
        if not tracing.ACTIVE[0] or tracing.current_graph() is None:
            return eager(self, *args, **kwargs)
        args = [a._tfc_read() if hasattr(a, "_tfc_read") else a for a in args]

        def run(ta, *a):
            ta = _copy(ta)
            out = eager(ta, *a, **kwargs)
            return ta if mutating else out

        return tracing.call_python(run, [self, *args], stateful=False, name=f"TensorArray{name.capitalize()}V3")

    method.__name__ = name
    method.__doc__ = eager.__doc__
    setattr(TensorArray, name, method)


for _name, _mutating in (("write", True), ("unstack", True), ("scatter", True), ("split", True),
                         ("read", False), ("stack", False), ("gather", False), ("concat", False),
                         ("size", False)):
    _graph_form(_name, _mutating)
