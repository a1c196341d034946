"""Transformations that change the element count and shape: batch, padded_batch, unbatch, window."""

import collections
import collections.abc
import itertools

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor, stack_sparse
from ..framework.tensor import Tensor, is_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from . import structure
from .chunks import chunked
from .dataset_ops import UnaryDataset, check_scalar_int
from .options import UNKNOWN_CARDINALITY
from .sources import ListDataset
from .threads import close_iterator
from .transform_map import dummy_element
from .transform_ragged import ragged_batch_iterator, unbatch_ragged


def _check_batch_size(batch_size, what="batch_size"):
    n = check_scalar_int(batch_size, what)
    if n <= 0:
        raise InvalidArgumentError(None, None, f"BatchDataset: {what} must be greater than zero, got {n}")
    return n


def _batched_cardinality(n, batch_size, drop_remainder):
    if n < 0:
        return n
    return n // batch_size if drop_remainder else -(-n // batch_size)


def _stack_component(ts, k, dev):
    """One batched tensor from the ``k``-th component of every element in the batch."""
    first = ts[0]
    if type(first) is not Tensor:
        if isinstance(first, SparseTensor):
            return stack_sparse(ts)
        raise TypeError("Cannot batch a dataset whose elements are datasets; use flat_map/interleave instead.")
    arrays = [t._array for t in ts]
    try:
        if arrays[0].dtype == object:  # np.array would nest 0-d object arrays instead of their items
            out = np.stack(arrays)
        else:
            out = np.array(arrays)  # same result as np.stack for equal shapes, 3-10x less overhead
    except ValueError:
        shape0 = arrays[0].shape
        for i, a in enumerate(arrays):
            if a.shape != shape0:
                raise InvalidArgumentError(
                    None, None, f"Cannot batch tensors with different shapes in component {k}. First element had "
                                f"shape {list(shape0)} and element {i} had shape {list(a.shape)}.") from None
        raise
    dt = first._dtype
    if out.dtype != arrays[0].dtype:
        for i, t in enumerate(ts):
            if t._dtype is not dt:
                raise InvalidArgumentError(
                    None, None, f"Cannot batch tensors with different dtypes in component {k}: element 0 is "
                                f"{dt.name} and element {i} is {t._dtype.name}.")
    return Tensor(out, dt, dev)


def _ragged_input(dataset, sparse=False):
    """Whether a component of ``dataset``'s elements is ragged. Its element_spec may have to run a map function
    whose trace failed on an element; an error there belongs to iteration, so it counts as not ragged here."""
    try:
        return structure.has_ragged_spec(dataset.element_spec, sparse=sparse)
    except Exception:  # noqa: BLE001 - raised again, at its position, by the iteration itself
        return False


def stack_elements(xs):
    """Stack a list of same-structure elements along a new leading dimension."""
    dev = structure.cpu_device()
    first = xs[0]
    if type(first) is Tensor:
        return _stack_component(xs, 0, dev)
    if type(first) is tuple and all(type(c) is Tensor for c in first):
        return tuple([_stack_component(col, k, dev) for k, col in enumerate(zip(*xs))])
    flats = [structure.flatten(x) for x in xs]
    width = len(flats[0])
    if any(len(f) != width for f in flats):
        raise InvalidArgumentError(None, None, "Cannot batch elements with different structures.")
    return structure.pack_as(first, [_stack_component(list(col), k, dev) for k, col in enumerate(zip(*flats))])


def _stacked_trace_element(ds, base):
    """A batching dataset's representative element: its input's stacked as a full batch (the last batch's
    size when the whole dataset is one short batch), so no upstream function runs for it."""
    n = ds._batch_size
    card = ds._input._cardinality()
    if not ds._drop and 0 < card < n:
        n = card
    x = ds._input._trace_element()
    if not all(type(c) is Tensor for c in structure.flatten(x)):
        return base._trace_element(ds)
    return stack_elements([x] * n)


class BatchDataset(UnaryDataset):
    """``batch(batch_size, drop_remainder)``: stacks consecutive elements."""

    def __init__(self, input_dataset, batch_size, drop_remainder=False):
        super().__init__(input_dataset)
        self._batch_size = _check_batch_size(batch_size)
        self._drop = bool(drop_remainder)

    @property
    def element_spec(self):
        return structure.batch_spec(self._input.element_spec, self._batch_size if self._drop else None)

    def _cardinality(self):
        return _batched_cardinality(self._input._cardinality(), self._batch_size, self._drop)

    def _trace_element(self):
        return _stacked_trace_element(self, UnaryDataset)

    def _make_iter(self, ctx):
        src = getattr(self._input, "_slice_source", None)
        src = src() if src is not None else None
        if src is not None:
            return _SliceBatchIterator(src, self._batch_size, self._drop)
        if _ragged_input(self._input):  # rows of any length batch into RaggedTensors

            return ragged_batch_iterator(self, self._input._make_iter(ctx))
        return _BatchIterator(self._input._make_iter(ctx), self._batch_size, self._drop)


class _BatchIterator:
    """Stacks ``b`` consecutive upstream elements per batch, gathering them with chunk pulls.

    ``next_chunk(k)`` gathers ``k`` batches' worth of elements at once. An upstream
    error drops the partial batch it interrupts (as TF does) and is raised at its
    position: batches completed before it are returned first.
    """

    __slots__ = ("_up", "_b", "_drop", "_err")

    def __init__(self, it, b, drop):
        self._up, self._b, self._drop, self._err = chunked(it), b, drop, None

    def __iter__(self):
        return self

    def _gather(self, need):
        """Up to ``need`` elements (fewer only at the end); ``(elements, error or None)``."""
        if self._err is not None:
            e, self._err = self._err, None
            raise e
        up = self._up
        xs = None
        try:
            while xs is None or len(xs) < need:
                got = up.next_chunk(need if xs is None else need - len(xs))
                if xs is None:
                    xs = got
                else:
                    xs.extend(got)
        except StopIteration:
            pass
        except Exception as e:
            if xs is None or len(xs) < self._b:
                raise
            return xs, e
        return xs or [], None

    def __next__(self):
        xs, err = self._gather(self._b)
        if not xs or (self._drop and len(xs) < self._b):
            raise StopIteration
        return stack_elements(xs)

    def next_chunk(self, k):
        b = self._b
        xs, err = self._gather(b * k)
        if err is not None:
            xs = xs[:len(xs) - len(xs) % b]  # the interrupted batch is dropped
            self._err = err
        elif self._drop:
            xs = xs[:len(xs) - len(xs) % b]
        if not xs:
            raise StopIteration
        return [stack_elements(xs[i:i + b]) for i in range(0, len(xs), b)]

    def close(self):
        close_iterator(self._up)


class _SliceBatchIterator:
    """Batches of a from_tensor_slices source cut straight out of its arrays.

    Each batch component is a read-only view ``a[i:i+b]`` (the source arrays are
    private and immutable): no per-element tensors are built and nothing is copied.
    """

    __slots__ = ("_src", "_b", "_drop", "_i", "_plain", "_dev")

    def __init__(self, src, b, drop):
        self._src, self._b, self._drop, self._i = src, b, drop, 0
        self._plain = not structure.is_nested(src.structure)
        self._dev = structure.cpu_device()

    def __iter__(self):
        return self

    def _batch(self, i, j):
        src, dev = self._src, self._dev
        comps = [Tensor(a[i:j], dt, dev) for a, dt in zip(src.arrays, src.dtypes)]
        if self._plain:
            return comps[0]
        if type(src.structure) is tuple:
            return tuple(comps) if all(not structure.is_nested(x) for x in src.structure) \
                else structure.pack_as(src.structure, comps)
        return structure.pack_as(src.structure, comps)

    def __next__(self):
        i, n, b = self._i, self._src.n, self._b
        j = min(n, i + b)
        if i >= j or (self._drop and j - i < b):
            raise StopIteration
        self._i = j
        return self._batch(i, j)

    def next_chunk(self, k):
        out = []
        for _ in range(k):
            try:
                out.append(next(self))
            except StopIteration:
                break
        if not out:
            raise StopIteration
        return out


def _as_padded_shape(s):
    if isinstance(s, TensorShape):
        return s
    if is_tensor(s):
        s = structure.to_cpu_tensor(s)._array.tolist()
    if isinstance(s, int | np.integer):
        return TensorShape([int(s)])
    return TensorShape([None if (d is None or d == -1) else int(d) for d in s])


def _map_up_to(shallow, fn, *values):
    """Map ``fn`` over ``values`` following only the nesting of ``shallow`` (leaves may be lists/tuples)."""
    if isinstance(shallow, tuple):
        for v in values:
            if not isinstance(v, tuple | list) or len(v) != len(shallow):
                raise ValueError(f"The padded_shapes/padding_values structure {v!r} does not match the element "
                                 f"structure {shallow!r}")
        return tuple(_map_up_to(s, fn, *(v[i] for v in values)) for i, s in enumerate(shallow))
    if isinstance(shallow, collections.abc.Mapping):
        return {k: _map_up_to(shallow[k], fn, *(v[k] for v in values)) for k in shallow}
    return fn(shallow, *values)


def _default_padding(dtype):
    if dtype is dtypes.string:
        return b""
    if dtype.is_bool:
        return False
    return 0


class PaddedBatchDataset(UnaryDataset):
    """``padded_batch``: batches components padded to ``padded_shapes`` with ``padding_values``.

    A ``None`` (or -1) dimension in ``padded_shapes`` (or no ``padded_shapes``
    at all) pads to the longest element of the batch in that dimension.
    """

    def __init__(self, input_dataset, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
        super().__init__(input_dataset)
        self._batch_size = _check_batch_size(batch_size)
        self._padded_shapes = padded_shapes
        self._padding_values = padding_values
        self._drop = bool(drop_remainder)

    def _plan(self, element):
        """Per-component (padded TensorShape or None, padding value or None), nested like ``element``."""
        def leaf_plan(t, shape=None, value=None):
            if type(t) is not Tensor:
                raise TypeError("padded_batch does not support dataset-valued elements")
            shape = None if shape is None else _as_padded_shape(shape)
            if shape is not None and shape.rank != t._array.ndim:
                raise ValueError(f"The padded shape {shape} is not compatible with the shape {t.shape} of the "
                                 f"corresponding input component.")
            if value is not None:
                value = structure.to_cpu_tensor(value)
                if value._array.ndim != 0:
                    raise ValueError(f"Padding value must be a scalar, got shape {value.shape}")
                if value._dtype is not t._dtype:
                    raise TypeError(f"Padding value dtype {value._dtype.name} does not match the component dtype "
                                    f"{t._dtype.name}")
                value = value._array.item() if value._array.dtype != object else value._array[()]
            else:
                value = _default_padding(t._dtype)
            return _Pad(shape, value)

        shapes, values = self._padded_shapes, self._padding_values
        nested = structure.is_nested(element)
        if values is not None and nested and not structure.is_nested(values):
            values = structure.map_structure(lambda _: self._padding_values, element)
        if shapes is None and values is None:
            return structure.map_structure(lambda t: leaf_plan(t), element)
        if shapes is None:
            return _map_up_to(element, lambda t, v: leaf_plan(t, None, v), values)
        if values is None:
            return _map_up_to(element, lambda t, s: leaf_plan(t, s, None), shapes)
        return _map_up_to(element, leaf_plan, shapes, values)

    @property
    def element_spec(self):
        spec = self._input.element_spec
        batch = self._batch_size if self._drop else None
        if self._padded_shapes is None:
            padded = structure.map_structure(
                lambda s: TensorShape(None if s.shape.rank is None else [None] * s.shape.rank), spec)
            return structure.map_structure(
                lambda s, p: TensorSpec(TensorShape([batch]).concatenate(p), s.dtype), spec, padded)
        return _map_up_to(spec, lambda s, p: TensorSpec(TensorShape([batch]).concatenate(_as_padded_shape(p)),
                                                        s.dtype), self._padded_shapes)

    def _cardinality(self):
        return _batched_cardinality(self._input._cardinality(), self._batch_size, self._drop)

    def _trace_element(self):
        return _stacked_trace_element(self, UnaryDataset)

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        b, drop, plan = self._batch_size, self._drop, None
        dev = structure.cpu_device()
        try:
            while True:
                xs = list(itertools.islice(it, b))
                if not xs or (drop and len(xs) < b):
                    return
                if plan is None:
                    plan = self._plan(xs[0])
                    flat_plan = structure.flatten(plan)
                flats = [structure.flatten(x) for x in xs]
                comps = [_pad_component([f[k] for f in flats], k, flat_plan[k], dev) for k in range(len(flat_plan))]
                yield structure.pack_as(xs[0], comps)
        finally:
            close_iterator(it)


class _Pad:
    """How to pad one component: target shape (None: batch maximum) and scalar value."""

    __slots__ = ("shape", "value")

    def __init__(self, shape, value):
        self.shape = shape
        self.value = value


def _pad_component(ts, k, leaf_plan, dev):
    shape, value = leaf_plan.shape, leaf_plan.value
    arrays = [t._array for t in ts]
    rank = arrays[0].ndim
    for i, a in enumerate(arrays):
        if a.ndim != rank:
            raise InvalidArgumentError(None, None, f"Cannot batch tensors with different ranks in component {k}: "
                                                   f"element 0 has rank {rank} and element {i} has rank {a.ndim}.")
    target = [max(a.shape[d] for a in arrays) for d in range(rank)]
    if shape is not None:
        for d, want in enumerate(shape.as_list()):
            if want is not None:
                if target[d] > want:
                    raise InvalidArgumentError(
                        None, None, f"Attempted to pad to a smaller size than the input element: component {k} "
                                    f"has size {target[d]} in dimension {d}, padded shape is {shape}.")
                target[d] = want
    out = np.full([len(arrays)] + target, value, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, n) for n in a.shape)] = a
    return Tensor(out, ts[0]._dtype, dev)


class UnbatchDataset(UnaryDataset):
    """``unbatch()``: one element per row of the leading dimension of each input element."""

    @property
    def element_spec(self):
        return structure.unbatch_spec(self._input.element_spec)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _trace_element(self):
        """Row 0 of the input's representative element (zeros shaped like the spec when it has no rows).

        Taken from the input's representative element, never by pulling an element through the
        pipeline: that would run upstream user functions (``tf.py_function`` side effects) whenever a
        ``map`` is built on top, e.g. over ``batch().unbatch().cache()``, where TF runs nothing.
        """
        if _ragged_input(self._input, sparse=True):
            return super()._trace_element()
        x = self._input._trace_element()
        leaves = structure.flatten(x)
        if not leaves or not all(type(t) is Tensor and t._array.ndim > 0 for t in leaves):
            return super()._trace_element()
        if any(t._array.shape[0] == 0 for t in leaves):
            return dummy_element(self.element_spec, unknown=1)
        dev = structure.cpu_device()
        return structure.pack_as(x, [Tensor(t._array[0, ...], t._dtype, dev) for t in leaves])

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        if _ragged_input(self._input, sparse=True):
            yield from unbatch_ragged(it)
            return
        dev = structure.cpu_device()
        try:
            for x in it:
                if type(x) is Tensor:
                    a, dt = x._array, x._dtype
                    if a.ndim == 0:
                        raise InvalidArgumentError(None, None, "Cannot unbatch an input with scalar components.")
                    for i in range(a.shape[0]):
                        yield Tensor(a[i, ...], dt, dev)
                    continue
                flat = structure.flatten(x)
                sizes = set()
                for t in flat:
                    if t._array.ndim == 0:
                        raise InvalidArgumentError(None, None, "Cannot unbatch an input with scalar components.")
                    sizes.add(t._array.shape[0])
                if len(sizes) > 1:
                    raise InvalidArgumentError(
                        None, None, f"Cannot unbatch an input whose components have different batch sizes: "
                                    f"{sorted(sizes)}")
                n = sizes.pop()
                for i in range(n):
                    yield structure.pack_as(x, [Tensor(t._array[i, ...], t._dtype, dev) for t in flat])
        finally:
            close_iterator(it)


class WindowDataset(UnaryDataset):
    """``window(size, shift, stride, drop_remainder)``: elements are (nests of) finite datasets.

    Window ``k`` starts at input element ``k * shift`` and holds elements
    ``start, start + stride, ...`` (``size`` of them, fewer at the end unless
    ``drop_remainder``).
    """

    def __init__(self, input_dataset, size, shift=None, stride=1, drop_remainder=False):
        super().__init__(input_dataset)
        self._size = check_scalar_int(size, "size")
        self._shift = self._size if shift is None else check_scalar_int(shift, "shift")
        self._stride = check_scalar_int(stride, "stride")
        for what, v in (("size", self._size), ("shift", self._shift), ("stride", self._stride)):
            if v <= 0:
                raise InvalidArgumentError(None, None, f"WindowDataset: {what} must be positive, got {v}")
        self._drop = bool(drop_remainder)

    @property
    def element_spec(self):
        return structure.map_structure(structure.DatasetSpec, self._input.element_spec)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        size, shift, stride, drop = self._size, self._shift, self._stride, self._drop
        span = (size - 1) * stride + 1
        buf = collections.deque()
        end = False
        try:
            while True:
                while len(buf) < span and not end:
                    x = next(it, None)
                    if x is None:
                        end = True
                    else:
                        buf.append(x)
                if not buf or (drop and len(buf) < span):
                    return
                elems = list(itertools.islice(buf, 0, span, stride))
                yield _window_of(elems, ListDataset)
                if shift <= len(buf):
                    for _ in range(shift):
                        buf.popleft()
                else:
                    for _ in range(shift - len(buf)):
                        if next(it, None) is None:
                            end = True
                            break
                    buf.clear()
        finally:
            close_iterator(it)


def _window_of(elems, list_dataset):
    first = elems[0]
    if not structure.is_nested(first):
        return list_dataset(elems)
    flats = [structure.flatten(e) for e in elems]
    comps = [list_dataset([f[k] for f in flats]) for k in range(len(flats[0]))]
    return structure.pack_as(first, comps)
