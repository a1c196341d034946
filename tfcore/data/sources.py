"""Source datasets: from_tensor_slices, from_tensors, range, from_generator, zip.

Element tensors are created directly around host (NumPy) arrays on ``CPU:0``:
a slice of a source array is a read-only view that the tensor owns (tensors
are immutable and the source array is a private copy), so producing an
element costs one ``Tensor`` object per component.
"""

import itertools

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from . import structure
from .dataset_ops import DatasetV2, check_scalar_int
from .options import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from .transform_map import dummy_element


def _rows(a, i, j):
    """Read-only views of rows ``i..j-1`` of ``a`` (0-d arrays for a 1-D ``a``)."""
    if a.ndim == 1:
        return [a[k, ...] for k in range(i, j)]
    return list(a[i:j])


class _SliceIterator:
    """Elements ``i = 0..n-1`` of a from_tensor_slices dataset: component ``k`` is ``arrays[k][i]``.

    Implements the chunk protocol (:mod:`.chunks`): ``next_chunk`` builds a run of
    elements with C-level loops (row views, ``map(Tensor, ...)``, ``zip``). ``__next__``
    serves elements from a block of ``_BLOCK`` built the same way (building elements
    has no side effects, so building a few ahead is invisible).
    """

    __slots__ = ("_structure", "_arrays", "_dtypes", "_n", "_i", "_kind", "_dev", "_block", "_j")

    _BLOCK = 16

    def __init__(self, structure_, arrays, dtypes_, n):
        self._structure, self._arrays, self._dtypes, self._n, self._i = structure_, arrays, dtypes_, n, 0
        if len(arrays) == 1 and not structure.is_nested(structure_):
            self._kind = 0  # a single tensor
        elif type(structure_) is tuple and all(not structure.is_nested(x) for x in structure_):
            self._kind = 1  # a flat tuple
        else:
            self._kind = 2  # any other nesting
        self._dev = structure.cpu_device()
        self._block, self._j = (), 0

    def __iter__(self):
        return self

    def __next__(self):
        j = self._j
        block = self._block
        if j >= len(block):
            block = self._block = self._build(self._BLOCK)
            j = 0
        self._j = j + 1
        return block[j]

    def next_chunk(self, n):
        j, block = self._j, self._block
        if j < len(block):
            self._j = min(len(block), j + n)
            return block[j:self._j]
        return self._build(n)

    def _build(self, n):
        i = self._i
        j = min(self._n, i + n)
        if i >= j:
            raise StopIteration
        self._i = j
        dev = self._dev
        cols = [list(map(Tensor, _rows(a, i, j), itertools.repeat(dt), itertools.repeat(dev)))
                for a, dt in zip(self._arrays, self._dtypes)]
        if self._kind == 0:
            return cols[0]
        if self._kind == 1:
            return list(zip(*cols))
        pack, st = structure.pack_as, self._structure
        return [pack(st, list(comps)) for comps in zip(*cols)]


class SliceSource:
    """What a batch stage needs to cut batches straight out of a from_tensor_slices source."""

    __slots__ = ("structure", "arrays", "dtypes", "n")

    def __init__(self, structure_, arrays, dtypes_, n):
        self.structure, self.arrays, self.dtypes, self.n = structure_, arrays, dtypes_, n


def _readonly(arr):
    if arr.flags.writeable:
        arr = arr.view()
        arr.flags.writeable = False
    return arr


class TensorSliceDataset(DatasetV2):
    """``Dataset.from_tensor_slices``: slices along the first dimension of every component."""

    def __init__(self, tensors):
        element = structure.normalize_element(tensors)
        flat = structure.flatten(element)
        if not flat:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        n = None
        for t in flat:
            if structure._is_dataset(t):
                raise TypeError("from_tensor_slices does not accept datasets as components")
            if t._array.ndim == 0:
                raise InvalidArgumentError(
                    None, None, f"TensorSliceDataset: all components must be at least 1-dimensional, got a scalar "
                                f"{t._dtype.name} tensor")
            if n is None:
                n = t._array.shape[0]
            elif t._array.shape[0] != n:
                raise InvalidArgumentError(
                    None, None, "TensorSliceDataset: all components must have the same size in the 0th dimension; "
                                f"got shapes {[list(x._array.shape) for x in flat]}")
        self._structure = element
        self._arrays = [_readonly(t._array) for t in flat]
        self._dtypes = [t._dtype for t in flat]
        self._n = n
        self._spec = structure.map_structure(
            lambda t: TensorSpec(TensorShape(t._array.shape[1:]), t._dtype), element)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return self._n

    def _make_iter(self, ctx):
        return _SliceIterator(self._structure, self._arrays, self._dtypes, self._n)

    def _slice_source(self):
        """The arrays elements are rows of (lets ``batch`` slice them directly)."""
        return SliceSource(self._structure, self._arrays, self._dtypes, self._n)


class TensorDataset(DatasetV2):
    """``Dataset.from_tensors``: a single element."""

    def __init__(self, tensors):
        self._element = structure.normalize_element(tensors)
        self._spec = structure.spec_of(self._element)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return 1

    def _make_iter(self, ctx):
        return iter((self._element,))


class ListDataset(DatasetV2):
    """A finite dataset over already-normalised elements (windows, cached passes)."""

    def __init__(self, elements, spec=None):
        self._elements = elements
        self._spec = spec

    @property
    def element_spec(self):
        if self._spec is None:
            if not self._elements:
                raise ValueError("element_spec of an empty ListDataset is unknown")
            self._spec = structure.spec_of(self._elements[0])
        return self._spec

    def _cardinality(self):
        return len(self._elements)

    def _make_iter(self, ctx):
        return iter(self._elements)


class RangeDataset(DatasetV2):
    """``Dataset.range``: scalar integers like Python's ``range`` (int64 by default)."""

    def __init__(self, *args, output_type=dtypes.int64):
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        vals = [check_scalar_int(a, "range argument") for a in args]
        if len(vals) == 1:
            vals = [0, vals[0], 1]
        elif len(vals) == 2:
            vals = [vals[0], vals[1], 1]
        if vals[2] == 0:
            raise InvalidArgumentError(None, None, "RangeDataset: step must be a non-zero integer.")
        self._range = range(*vals)
        self._dtype = dtypes.as_dtype(output_type)
        self._spec = TensorSpec(TensorShape([]), self._dtype)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return len(self._range)

    def _make_iter(self, ctx):
        return _RangeIterator(self._range, self._dtype)


class _RangeIterator:
    """Scalar tensors over a Python ``range``, made from NumPy blocks of up to 1024 values."""

    __slots__ = ("_r", "_dt", "_k", "_vals", "_j", "_dev")

    _BLOCK = 1024

    def __init__(self, r, dt):
        self._r, self._dt, self._k, self._vals, self._j = r, dt, 0, (), 0
        self._dev = structure.cpu_device()

    def __iter__(self):
        return self

    def _refill(self):
        r, k = self._r, self._k
        if k >= len(r):
            raise StopIteration
        sub = r[k:k + self._BLOCK]
        self._k = k + len(sub)
        np_dt = self._dt.as_numpy_dtype
        self._vals = _readonly(np.arange(sub.start, sub.stop, sub.step, dtype=np_dt)) if self._dt.is_numeric \
            else np.asarray(list(sub), dtype=np_dt)
        self._j = 0

    def __next__(self):
        if self._j >= len(self._vals):
            self._refill()
        j = self._j
        self._j = j + 1
        return Tensor(self._vals[j, ...], self._dt, self._dev)

    def next_chunk(self, n):
        if self._j >= len(self._vals):
            self._refill()
        i = self._j
        j = min(len(self._vals), i + n)
        self._j = j
        return list(map(Tensor, _rows(self._vals, i, j), itertools.repeat(self._dt), itertools.repeat(self._dev)))


class GeneratorDataset(DatasetV2):
    """``Dataset.from_generator``: elements from a Python generator, checked against a signature."""

    _tf_class_name = "_FlatMapDataset"  # TF builds from_generator as a flat_map over a counter

    def __init__(self, generator, output_types=None, output_shapes=None, args=None, output_signature=None):
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None:
                raise TypeError("The `output_types` argument can not be used together with the "
                                "`output_signature` argument.")
            if output_shapes is not None:
                raise TypeError("The `output_shapes` argument can not be used together with the "
                                "`output_signature` argument.")
            for spec in structure.flatten(output_signature):
                if not isinstance(spec, TensorSpec):
                    raise TypeError(f"`output_signature` must contain objects that are subclass of "
                                    f"`tf.TypeSpec` but found {type(spec)} which is not.")
            self._spec = output_signature
        else:
            if output_types is None:
                raise TypeError("To specify the output signature you need to provide either the "
                                "`output_signature` argument or the `output_types` argument.")
            if isinstance(output_types, list):
                output_types = tuple(output_types)
            self._spec = structure.spec_from_types_and_shapes(output_types, output_shapes)
        self._generator = generator
        self._args = tuple(_arg_to_numpy(a) for a in (args or ()))
        flat = structure.flatten(self._spec)
        self._flat_specs = [(s.dtype, s.dtype.as_numpy_dtype, s.shape) for s in flat]

    @property
    def element_spec(self):
        return self._spec

    def _trace_element(self):
        """Zeros shaped like the signature (unknown dimensions 1): the generator is not run to trace
        the functions of later stages (TF does not run it when a dataset is built)."""

        return dummy_element(self._spec, unknown=1)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _make_iter(self, ctx):
        gen = iter(self._generator(*self._args))
        try:
            for value in gen:
                yield self._convert(value)
        finally:
            close = getattr(gen, "close", None)
            if close is not None:
                close()

    def _convert(self, value):
        spec = self._spec
        if structure.is_nested(spec):
            try:
                flat = _flatten_up_to(spec, value)
            except (TypeError, ValueError) as e:
                raise InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element that did not match the expected "
                                f"structure. The expected structure was {spec}, but the yielded element was "
                                f"{value!r}.") from e
        else:
            flat = [value]
        dev = structure.cpu_device()
        out = []
        for v, (dt, np_dt, shape) in zip(flat, self._flat_specs):
            if type(v) is Tensor and v._dtype is dt and v._device is dev:
                arr = v._array
            else:
                arr = _to_array(v, dt, np_dt)
            if shape.rank is not None and not shape.is_compatible_with(TensorShape._from_tuple(arr.shape)):
                raise InvalidArgumentError(
                    None, None, f"TypeError: `generator` yielded an element of shape {arr.shape} where an element "
                                f"of shape {shape} was expected.")
            out.append(Tensor(arr, dt, dev))
        return structure.pack_as(spec, out) if structure.is_nested(spec) else out[0]


def _arg_to_numpy(a):
    if is_tensor(a):
        a = structure.to_cpu_tensor(a)
        arr = a._array
        return arr.item() if arr.ndim == 0 and arr.dtype == object else np.array(arr)
    return a


def _to_array(v, dt, np_dt):
    """Convert one generated value to ``dt`` as TF does (``np.asarray(v, dtype)``), rejecting lossy casts."""
    if dt is dtypes.string:
        arr = np.asarray(v)
        if arr.dtype.kind not in "SUO":
            raise InvalidArgumentError(None, None, f"TypeError: `generator` yielded an element of type {arr.dtype} "
                                                   "where an element of type string was expected.")
        return structure._to_bytes_array(arr) if arr.dtype.kind != "O" else arr
    if is_tensor(v):
        v = structure.to_cpu_tensor(v)._array
    try:
        src = np.asarray(v)
        arr = src.astype(np_dt, copy=True) if src.dtype != np_dt else np.array(src, copy=True)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(
            None, None, f"TypeError: `generator` yielded an element that could not be converted to the expected "
                        f"type. The expected type was {dt.name}, but the yielded element was {v!r}.") from e
    if src.dtype.kind in "fc" and dt.is_integer:
        raise InvalidArgumentError(None, None, f"TypeError: `generator` yielded an element of type {src.dtype} "
                                               f"where an element of type {np.dtype(np_dt)} was expected.")
    return arr


def _flatten_up_to(spec, value):
    """Flatten ``value`` following the nesting of ``spec`` (a list may stand for a tuple)."""
    if isinstance(spec, tuple):
        if not isinstance(value, tuple | list) or len(value) != len(spec):
            raise ValueError(f"expected a sequence of {len(spec)} components")
        out = []
        for s, v in zip(spec, value):
            out.extend(_flatten_up_to(s, v))
        return out
    if isinstance(spec, dict):
        if not isinstance(value, dict) or sorted(value) != sorted(spec):
            raise ValueError(f"expected a dict with keys {sorted(spec)}")
        out = []
        for k in sorted(spec):
            out.extend(_flatten_up_to(spec[k], value[k]))
        return out
    return [value]


class ZipDataset(DatasetV2):
    """``Dataset.zip``: elements of several datasets in lockstep, nested like ``datasets``."""

    def __init__(self, datasets):
        flat = structure.flatten(datasets)
        for d in flat:
            if not isinstance(d, DatasetV2):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects. Python `list` is not supported and you should use "
                                f"`tuple` instead. Got {type(d).__name__}.")
        self._datasets = datasets
        self._flat = flat
        self._inputs_list = tuple(flat)

    @property
    def element_spec(self):
        return structure.map_structure(lambda d: d.element_spec, self._datasets)

    def _trace_element(self):
        return structure.map_structure(lambda d: d._trace_element(), self._datasets)

    def _cardinality(self):
        result = INFINITE_CARDINALITY
        for d in self._flat:
            n = d._cardinality()
            if n == UNKNOWN_CARDINALITY:
                return UNKNOWN_CARDINALITY
            if n != INFINITE_CARDINALITY and (result == INFINITE_CARDINALITY or n < result):
                result = n
        return result

    def _make_iter(self, ctx):
        its = [d._make_iter(ctx) for d in self._flat]
        if not structure.is_nested(self._datasets):
            yield from its[0]
            return
        struct = self._datasets
        plain = type(struct) is tuple and all(not structure.is_nested(x) for x in struct)
        try:
            for items in zip(*its):
                yield items if plain else structure.pack_as(struct, list(items))
        finally:
            from .threads import close_iterator

            for it in its:
                close_iterator(it)
