"""``Dataset.ragged_batch``: batch elements whose shapes differ into ``tf.RaggedTensor`` components."""

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor, SparseTensorSpec
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops import array_ops
from ..ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec
from . import structure
from .dataset_ops import DatasetV2, UnaryDataset, check_scalar_int
from .threads import close_iterator


def _is_dense(spec):
    return spec.shape.rank == 0


class RaggedBatchDataset(UnaryDataset):
    """Scalar components are stacked; every component of rank >= 1 becomes a RaggedTensor whose first
    dimension is the batch and whose second is the elements' (possibly varying) first dimension.

    (TF keeps a component dense when its static shape is fully known; tfcore's element specs come
    from the first element, so their shapes cannot tell, and every non-scalar component is ragged.)"""

    _tf_class_name = "_BatchDataset"  # its repr names TF's class

    def __init__(self, input_dataset, batch_size, drop_remainder=False):
        super().__init__(input_dataset)
        self._batch_size = check_scalar_int(batch_size, "batch_size")
        if self._batch_size <= 0:
            raise ValueError(f"batch_size must be greater than zero, got {self._batch_size}")
        self._drop = bool(drop_remainder)

    @property
    def element_spec(self):
        batch = self._batch_size if self._drop else None

        def leaf(x):
            if _is_dense(x):
                return TensorSpec(TensorShape([batch] + x.shape.as_list()), x.dtype)
            rank = x.shape.rank if x.shape.rank is not None else 1
            return RaggedTensorSpec(TensorShape([batch] + [None] * rank), x.dtype, ragged_rank=1)

        return structure.map_structure(leaf, self._input.element_spec)

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop else -(-n // self._batch_size)

    def _make_iter(self, ctx):
        dense = [_is_dense(s) for s in structure.flatten(self._input.element_spec)]
        return _RaggedBatchIterator(self._input._make_iter(ctx), self._batch_size, self._drop, dense)


class _RaggedBatchIterator:
    def __init__(self, it, b, drop, dense):
        self._up, self._b, self._drop, self._dense = it, b, drop, dense

    def __iter__(self):
        return self

    def __next__(self):
        xs = []
        try:
            while len(xs) < self._b:
                xs.append(next(self._up))
        except StopIteration:
            pass
        if not xs or (self._drop and len(xs) < self._b):
            raise StopIteration
        flats = [structure.flatten(x) for x in xs]
        out = []
        for k, dense in enumerate(self._dense):
            col = [f[k] for f in flats]
            if dense:
                out.append(array_ops.stack(col, axis=0))
                continue
            lengths = np.asarray([c.shape[0] if c.ndim else 1 for c in col], np.int64)
            values = array_ops.concat([array_ops.reshape(c, [-1]) if c.ndim == 0 else c for c in col], axis=0)
            out.append(RaggedTensor.from_row_lengths(values, lengths, validate=False))
        return structure.pack_as(xs[0], out)

    def close(self):
        close_iterator(self._up)


def _nrows(x):
    if isinstance(x, RaggedTensor):
        return x.nrows_int()
    if isinstance(x, SparseTensor):
        return int(x.dense_shape.numpy()[0]) if x.dense_shape.shape[0] else None
    return x._array.shape[0] if x._array.ndim else None


def _row(x, i, dev):
    """Row ``i`` of a dense, ragged or sparse component."""
    if isinstance(x, RaggedTensor):
        return x[i]
    if isinstance(x, SparseTensor):
        idx = x.indices.numpy()
        keep = idx[:, 0] == i
        return SparseTensor(idx[keep][:, 1:], array_ops.gather(x.values, np.nonzero(keep)[0]),
                            x.dense_shape.numpy()[1:])
    return Tensor(x._array[i, ...], x._dtype, dev)


class RaggedSliceDataset(DatasetV2):
    """``Dataset.from_tensor_slices`` with RaggedTensor or SparseTensor components: element ``i`` holds row
    ``i`` of every component (a ragged_rank 1 component gives dense rows of varying length, whose spec is TF's
    ``RaggedTensorSpec(..., ragged_rank=0)``, so that ``batch`` makes them ragged again; a SparseTensor gives
    SparseTensor rows)."""

    def __init__(self, tensors):
        element = structure.normalize_element(tensors)
        flat = structure.flatten(element)
        sizes = {_nrows(x) for x in flat}
        if None in sizes:
            raise InvalidArgumentError(None, None, "TensorSliceDataset: all components must be at least "
                                                   "1-dimensional, got a scalar")
        if len(sizes) != 1:
            raise InvalidArgumentError(None, None, "TensorSliceDataset: all components must have the same size in "
                                                   f"the 0th dimension; got sizes {sorted(sizes)}")
        self._element, self._flat, self._n = element, flat, sizes.pop()

        def leaf(x):
            if isinstance(x, RaggedTensor):
                return RaggedTensorSpec(x.shape.as_list()[1:], x.dtype, x.ragged_rank - 1, x.row_splits_dtype)
            if isinstance(x, SparseTensor):
                return SparseTensorSpec(TensorShape(x.shape.as_list()[1:]), x.dtype)
            return TensorSpec(TensorShape(x.shape.as_list()[1:]), x.dtype)
        self._spec = structure.map_structure(leaf, element)

    @property
    def element_spec(self):
        return self._spec

    def _cardinality(self):
        return self._n

    def _make_iter(self, ctx):
        dev = structure.cpu_device()
        for i in range(self._n):
            yield structure.pack_as(self._element, [_row(x, i, dev) for x in self._flat])


def unbatch_ragged(it):
    """Rows of each element of ``it`` whose components may be RaggedTensors or SparseTensors (``unbatch``)."""
    dev = structure.cpu_device()
    for x in it:
        flat = structure.flatten(x)
        sizes = {_nrows(t) for t in flat}
        if None in sizes:
            raise InvalidArgumentError(None, None, "Cannot unbatch an input with scalar components.")
        if len(sizes) > 1:
            raise InvalidArgumentError(None, None, "Cannot unbatch an input whose components have different batch "
                                                   f"sizes: {sorted(sizes)}")
        for i in range(sizes.pop()):
            yield structure.pack_as(x, [_row(t, i, dev) for t in flat])


def ragged_batch_iterator(dataset, it):
    """The iterator that batches ``it`` (elements of ``dataset``) when a component is ragged, else None."""
    specs = structure.flatten(dataset.element_spec)
    if not any(isinstance(s, RaggedTensorSpec) for s in specs):
        return None
    return _RaggedBatchIterator(it, dataset._batch_size, dataset._drop,
                                [not isinstance(s, RaggedTensorSpec) for s in specs])
