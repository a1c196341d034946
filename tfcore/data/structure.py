"""Element structures of tf.data: nesting, conversion to CPU tensors, and specs.

tf.data nests elements in tuples (including namedtuples) and dicts; a Python
*list* is not a structure but a value converted to one tensor, as in TF
(``from_tensor_slices([1, 2, 3])`` slices one int32 tensor). Dict entries are
flattened in sorted-key order. Leaves are eager :class:`Tensor` objects on
``CPU:0`` or, for ``window``, nested datasets.
"""

import collections.abc

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes
from ..framework.sparse_tensor import SparseTensor, SparseTensorSpec
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec

_Mapping = collections.abc.Mapping
_from_numpy = dtypes.from_numpy
_cpu_cache = [None, None]  # (context.devices list, its CPU:0 Device)


def cpu_device():
    """The logical ``CPU:0`` Device where every dataset element lives."""
    devices = _ctx.context.devices
    if devices is None or devices is not _cpu_cache[0]:
        devices = _ctx.context.ensure_initialized()
        _cpu_cache[1] = _ctx.context.find("CPU", 0)
        _cpu_cache[0] = devices
    return _cpu_cache[1]


# -- nesting -----------------------------------------------------------------
def is_nested(s):
    return isinstance(s, tuple | _Mapping)


def _rebuild_tuple(s, items):
    return type(s)(*items) if hasattr(s, "_fields") else tuple(items)


def _rebuild_mapping(s, pairs):
    """A mapping like ``s`` from ``(key, value)`` pairs (given in sorted-key order): its keys in ``s``'s own
    order, as TF's ``nest._sequence_like`` (an element of ``from_tensor_slices({"sex": .., "age": ..})`` lists
    ``sex`` first, and so do its ``element_spec`` and batches)."""
    values = dict(pairs)
    ordered = [(k, values[k]) for k in s] if len(values) == len(s) else pairs
    if type(s) is dict:
        return dict(ordered)
    try:
        return type(s)(ordered)
    except TypeError:
        return dict(ordered)


def flatten(s):
    """The leaves of structure ``s`` in tf.data order (tuples in order, dicts by sorted key)."""
    if type(s) is Tensor:
        return [s]
    out = []
    _flatten_into(s, out)
    return out


def _flatten_into(s, out):
    if isinstance(s, tuple):
        for x in s:
            _flatten_into(x, out)
    elif isinstance(s, _Mapping):
        for k in sorted(s):
            _flatten_into(s[k], out)
    else:
        out.append(s)


def pack_as(structure, flat):
    """Rebuild ``structure``'s nesting around the leaves in ``flat``."""
    if not isinstance(structure, tuple | _Mapping):
        if len(flat) != 1:
            raise ValueError(f"Structure has one leaf but {len(flat)} values were given")
        return flat[0]
    it = iter(flat)
    out = _pack(structure, it)
    if next(it, _END) is not _END:
        raise ValueError("Too many values to pack into the structure")
    return out


_END = object()


def _pack(s, it):
    if isinstance(s, tuple):
        return _rebuild_tuple(s, [_pack(x, it) for x in s])
    if isinstance(s, _Mapping):
        return _rebuild_mapping(s, [(k, _pack(s[k], it)) for k in sorted(s)])
    try:
        return next(it)
    except StopIteration:
        raise ValueError("Not enough values to pack into the structure") from None


def map_structure(fn, *structures):
    """Apply ``fn`` leaf-wise over structures of the same nesting."""
    first = structures[0]
    if isinstance(first, tuple):
        _check_same(first, structures)
        return _rebuild_tuple(first, [map_structure(fn, *xs) for xs in zip(*structures)])
    if isinstance(first, _Mapping):
        _check_same(first, structures)
        return _rebuild_mapping(first, [(k, map_structure(fn, *(s[k] for s in structures))) for k in sorted(first)])
    for s in structures[1:]:
        if isinstance(s, tuple | _Mapping):
            raise ValueError(f"The two structures don't have the same nested structure: {first!r} vs {s!r}")
    return fn(*structures)


def _check_same(first, structures):
    for s in structures[1:]:
        if type(s) is not type(first) and not (isinstance(first, tuple) and isinstance(s, tuple)) \
                and not (isinstance(first, _Mapping) and isinstance(s, _Mapping)):
            raise ValueError(f"The two structures don't have the same nested structure: {first!r} vs {s!r}")
        if len(s) != len(first) or (isinstance(first, _Mapping) and sorted(s) != sorted(first)):
            raise ValueError(f"The two structures don't have the same nested structure: {first!r} vs {s!r}")


def assert_same_structure(a, b):
    """Raise ValueError unless ``a`` and ``b`` nest the same way (leaves ignored)."""
    map_structure(lambda x, y: None, a, b)


# -- values -> CPU tensors -----------------------------------------------------
def to_cpu_tensor(value, dtype=None):
    """``value`` (Tensor, Variable, NumPy array, Python value) as a Tensor on CPU:0."""
    cpu = cpu_device()
    if type(value) is Tensor:
        if dtype is not None and value._dtype is not dtype:
            raise TypeError(f"Expected a {dtype.name} tensor, got {value._dtype.name}")
        if value._device is cpu:
            return value
        return Tensor(value._device.backend.to_numpy(value._array), value._dtype, cpu)
    if is_tensor(value):  # a variable (or a registered tensor-like type): its value
        return to_cpu_tensor(convert_to_tensor(value), dtype)
    if isinstance(value, np.ndarray) and dtype is None and value.dtype.kind in "biufc":
        return Tensor(value.copy(), _from_numpy(value.dtype), cpu)
    if isinstance(value, np.ndarray) and value.dtype.kind in "SUO" and (dtype is None or dtype is dtypes.string):
        return Tensor(_to_bytes_array(value), dtypes.string, cpu)
    if isinstance(value, list) and (dtype is None or dtype is dtypes.string) and _is_string_list(value):
        return Tensor(_to_bytes_array(np.asarray(value)), dtypes.string, cpu)
    if isinstance(value, str | bytes) and (dtype is None or dtype is dtypes.string):
        return Tensor(np.array(value.encode() if isinstance(value, str) else value, dtype=object), dtypes.string, cpu)
    return convert_to_tensor(value, dtype=dtype, device=cpu)


def _is_string_list(value):
    first = value
    while isinstance(first, list) and first:
        first = first[0]
    return isinstance(first, str | bytes)


def _to_bytes_array(arr):
    """NumPy unicode/bytes arrays become object arrays of ``bytes`` (what TF string tensors hold)."""
    out = np.empty(arr.shape, dtype=object)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_in.tolist()):
        flat_out[i] = v.encode() if isinstance(v, str) else v
    return out


def normalize_element(element, top_level_list_to_tuple=False):
    """Convert every leaf of ``element`` to a CPU tensor (datasets stay datasets).

    ``top_level_list_to_tuple``: a list returned by a map function is a tuple of
    components (TF converts it the same way); elsewhere a list is one tensor.
    """
    if type(element) is Tensor:
        return element if element._device is cpu_device() else to_cpu_tensor(element)
    if top_level_list_to_tuple and isinstance(element, list):
        element = tuple(element)
    if isinstance(element, tuple):
        return _rebuild_tuple(element, [normalize_element(x) for x in element])
    if isinstance(element, _Mapping):
        return _rebuild_mapping(element, [(k, normalize_element(element[k])) for k in sorted(element)])
    if _is_dataset(element):
        return element
    if isinstance(element, SparseTensor):
        return SparseTensor(to_cpu_tensor(element.indices), to_cpu_tensor(element.values),
                            to_cpu_tensor(element.dense_shape))
    if isinstance(element, RaggedTensor):
        return element
    if element is None:
        raise TypeError("tf.data elements cannot contain None")
    return to_cpu_tensor(element)


def _is_dataset(x):
    return hasattr(x, "_tfc_dataset_iter")


# -- specs -----------------------------------------------------------------------
class DatasetSpec:
    """``tf.data.DatasetSpec``: the type of a dataset-valued element (``window`` output)."""

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def shape(self):
        return self._dataset_shape

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self._element_spec == other._element_spec

    def __hash__(self):
        return hash(repr(self._element_spec))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, TensorShape({self._dataset_shape.as_list()}))"


def spec_of(element):
    """The structure of TensorSpecs (DatasetSpecs for dataset leaves) describing ``element``."""
    def leaf(x):
        if _is_dataset(x):
            return DatasetSpec(x.element_spec)
        if isinstance(x, SparseTensor):
            return SparseTensorSpec(x.shape, x.dtype)
        if isinstance(x, RaggedTensor):
            return RaggedTensorSpec.from_value(x)
        return TensorSpec(TensorShape._from_tuple(x._array.shape), x._dtype)
    return map_structure(leaf, element)


def relax_spec(a, b):
    """The most specific spec compatible with both ``a`` and ``b`` (unknown where they differ)."""
    def leaf(x, y):
        if isinstance(x, DatasetSpec):
            return x
        if x.dtype is not y.dtype:
            raise TypeError(f"Incompatible element types: {x.dtype.name} vs {y.dtype.name}")
        if isinstance(x, SparseTensorSpec):
            return SparseTensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype)
        if isinstance(x, RaggedTensorSpec):
            return RaggedTensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype, x.ragged_rank,
                                    x.row_splits_dtype)
        return TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype)
    return map_structure(leaf, a, b)


def spec_from_types_and_shapes(types, shapes):
    """Build an element_spec from from_generator's ``output_types``/``output_shapes``."""
    if shapes is None:
        return map_structure(lambda t: TensorSpec(TensorShape(None), dtypes.as_dtype(t)), types)
    if not is_nested(types):
        return TensorSpec(_as_shape(shapes), dtypes.as_dtype(types))
    return map_structure(lambda t, s: TensorSpec(s, dtypes.as_dtype(t)), types,
                         _shapes_like(types, shapes))


def _shapes_like(types, shapes):
    """Turn a shapes structure into leaves (a shape written as a list/tuple of dims is one leaf)."""
    if isinstance(types, tuple):
        if not isinstance(shapes, tuple | list) or len(shapes) != len(types):
            raise ValueError(f"output_shapes {shapes!r} does not match output_types {types!r}")
        return _rebuild_tuple(types, [_shapes_like(t, s) for t, s in zip(types, shapes)])
    if isinstance(types, _Mapping):
        return _rebuild_mapping(types, [(k, _shapes_like(types[k], shapes[k])) for k in sorted(types)])
    return _as_shape(shapes)


def _as_shape(s):
    return s if isinstance(s, TensorShape) else TensorShape(s)


def batch_spec(spec, batch_dim):
    """Spec of a batch of ``spec`` elements: a leading dimension ``batch_dim`` (None: unknown)."""
    def leaf(x):
        if isinstance(x, DatasetSpec):
            raise TypeError("Cannot batch a dataset of datasets")
        if isinstance(x, RaggedTensorSpec):  # rows of any length batch into one more ragged dimension
            inner = x.shape.as_list()[1:] if x.shape.rank else []
            return RaggedTensorSpec([batch_dim, None] + inner, x.dtype, x.ragged_rank + 1, x.row_splits_dtype)
        cls = SparseTensorSpec if isinstance(x, SparseTensorSpec) else TensorSpec
        if x.shape.rank is None:
            return cls(TensorShape(None), x.dtype)
        if cls is SparseTensorSpec:
            return cls(TensorShape([batch_dim] + [None] * x.shape.rank), x.dtype)
        return TensorSpec(TensorShape([batch_dim] + x.shape.as_list()), x.dtype)
    return map_structure(leaf, spec)


def has_ragged_spec(spec, sparse=False):
    """Whether a component of the element spec ``spec`` is a RaggedTensorSpec (or, with ``sparse``, a
    SparseTensorSpec)."""
    kinds = (RaggedTensorSpec, SparseTensorSpec) if sparse else RaggedTensorSpec
    return any(isinstance(x, kinds) for x in flatten(spec))


def unbatch_spec(spec):
    def leaf(x):
        if isinstance(x, SparseTensorSpec):
            return SparseTensorSpec(TensorShape(x.shape.as_list()[1:]) if x.shape.rank else TensorShape(None),
                                    x.dtype)
        if isinstance(x, RaggedTensorSpec):
            return RaggedTensorSpec(x.shape.as_list()[1:], x.dtype, x.ragged_rank - 1, x.row_splits_dtype)
        if x.shape.rank is None:
            return TensorSpec(TensorShape(None), x.dtype)
        if x.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        return TensorSpec(TensorShape(x.shape.as_list()[1:]), x.dtype)
    return map_structure(leaf, spec)
