"""Turn what ``fit``/``evaluate``/``predict`` receive into batches on the training device.

Two kinds of input:
- array-like: NumPy arrays, tensors, Python lists, pandas ``DataFrame``/``Series`` (each one array, as
  Keras 3 takes them), and (nested) lists/tuples/dicts of them. They are
  held as host NumPy arrays, shuffled per epoch (``shuffle=True``) or in batch-sized blocks
  (``shuffle='batch'``), sliced into ``batch_size`` batches and converted to tensors on the device.
- dataset-like: a ``tf.data.Dataset`` or any object with ``element_spec`` and ``__iter__``, a
  ``keras.utils.PyDataset``/``Sequence`` (batches by index, shuffled by batch when ``shuffle``), or a
  Python iterator/generator, yielding ``x``, ``(x, y)`` or ``(x, y, sample_weight)``. Each epoch
  iterates it afresh, unless ``steps_per_epoch`` is given, when one iterator is shared by epochs
  (as Keras does; running dry ends training with a warning).

``class_weight`` turns labels into per-sample weights (multiplied with ``sample_weight``).
Batches are placed on the innermost ``tf.device`` scope's device, else on the default device
(``GPU:0`` when one is visible), as Keras places them on the training device.
"""

import itertools
import math
import warnings

import numpy as np

from ...data.dataset_ops import DatasetV2
from ...distribute.input_lib import worker_batches, worker_rows
from ...framework import context as _ctx
from ...framework import nest
from ...framework.pandas_interop import is_pandas, to_model_input_numpy
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor, is_tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.variables import Variable
from ..utils.py_dataset import PyDatasetEpochs, is_py_dataset

# -- (x, y, sample_weight) packing -------------------------------------------------------------

def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple) or hasattr(data, "_fields"):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
                     f"found: {data}")


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The inverse of :func:`unpack_x_y_sample_weight`."""
    if y is None:
        return (x,) if isinstance(x, tuple | list) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


# -- placement --------------------------------------------------------------------------------

def training_device():
    """The device batches go to: the active ``tf.device`` scope, else the default device."""
    return _ctx.current_device() or _ctx.default_device()


def _place(value, dev):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value._copy_to(dev)
    if isinstance(value, Variable):
        return _place(value.value(), dev)
    if isinstance(value, np.ndarray | np.generic):
        return convert_to_tensor(value, device=dev)
    return value


def place_batch(batch, dev=None):
    """``batch`` (nested) with every array or tensor on ``dev`` (default: :func:`training_device`)."""
    dev = dev or training_device()
    if isinstance(batch, Tensor | np.ndarray):
        return _place(batch, dev)
    return nest.map_structure(lambda v: _place(v, dev), batch)


# -- array inputs ----------------------------------------------------------------------------------

def _to_numpy(v):
    if v is None:
        return None
    if isinstance(v, np.ndarray):
        return v
    if is_tensor(v):
        return v.numpy()
    if is_pandas(v):  # a DataFrame, or a Series as a (n, 1) column (Keras 3's pandas adapter)
        return to_model_input_numpy(v)
    if hasattr(v, "__array__") or isinstance(v, list | float | int):
        return np.asarray(v)
    raise ValueError(f"Failed to find data adapter that can handle input: {type(v)}")


def _is_array_structure(data):
    leaves = nest.flatten(data)
    return all(v is None or isinstance(v, np.ndarray | Tensor | np.generic | Variable) or is_pandas(v)
               or (isinstance(v, list | float | int) and not isinstance(v, bool)) for v in leaves)


def is_dataset_like(x):
    """A tf.data-style dataset (``element_spec`` + ``__iter__``) or a Python iterator/generator."""
    if isinstance(x, np.ndarray | Tensor | list | tuple | dict) or x is None:
        return False
    return (hasattr(x, "element_spec") and hasattr(x, "__iter__")) or hasattr(x, "__next__")


def _arrays(structure):
    """Nested structure of host arrays; lists of numbers become arrays, lists of arrays stay lists."""
    if isinstance(structure, dict):
        return {k: _arrays(v) for k, v in structure.items()}
    if isinstance(structure, list | tuple) and structure and (isinstance(
            structure[0], np.ndarray | Tensor | list | dict) or is_pandas(structure[0])) \
            and not _is_rectangular_numbers(structure):
        return type(structure)(_arrays(v) for v in structure)
    return _to_numpy(structure)


def _is_rectangular_numbers(structure):
    try:
        a = np.asarray(structure)
    except (ValueError, TypeError):
        return False
    return a.dtype != object and isinstance(structure[0], list)


def _num_samples(structure):
    sizes = {int(a.shape[0]) for a in nest.flatten(structure) if a is not None and np.ndim(a) > 0}
    if len(sizes) > 1:
        raise ValueError("Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                         f"samples: sizes {sorted(sizes)}")
    return sizes.pop() if sizes else 0


def _take(structure, idx):
    return nest.map_structure(lambda a: None if a is None else a[idx], structure)


def class_weight_to_sample_weight(y, class_weight, sample_weight=None):
    """Per-sample weights ``class_weight[label]`` (one-hot labels use their argmax)."""
    if isinstance(y, dict | list | tuple) and not isinstance(y, np.ndarray):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    y = np.asarray(y)
    labels = np.argmax(y, axis=-1) if y.ndim > 1 and y.shape[-1] > 1 else y.reshape(y.shape[0], -1)[:, 0]
    labels = labels.astype(np.int64)
    keys = sorted(class_weight)
    if any(k < 0 for k in keys):
        raise ValueError(f"`class_weight` must contain only non-negative class indices, got {keys}")
    table = np.ones(max(int(keys[-1]), int(labels.max(initial=0))) + 1, np.float32)
    missing = set(np.unique(labels).tolist()) - set(keys)
    if missing:
        raise ValueError(f"`class_weight` must contain all classes in the data. The classes {missing} "
                         f"exist in the data but not in `class_weight`.")
    for k, w in class_weight.items():
        table[int(k)] = w
    weights = table[labels]
    if sample_weight is not None:
        weights = weights * np.asarray(sample_weight, np.float32).reshape(weights.shape[0], -1)[:, 0]
    return weights


def train_validation_split(arrays, validation_split):
    """Split array structures: the LAST ``validation_split`` fraction becomes validation data (Keras)."""
    if not _is_array_structure(arrays):
        raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, found following "
                         f"types in the input: {[type(v) for v in nest.flatten(arrays)]}")
    arrays = _arrays(arrays)
    n = _num_samples(arrays)
    split_at = int(math.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split it into a "
                         f"validation and training set as specified by `validation_split={validation_split}`. "
                         "Either provide more data, or a different value for the `validation_split` argument.")
    train = nest.map_structure(lambda a: None if a is None else a[:split_at], arrays)
    val = nest.map_structure(lambda a: None if a is None else a[split_at:], arrays)
    return train, val


class _ArrayEpoch:
    """Batches of one epoch over host arrays (indices decided up front)."""

    def __init__(self, handler, order):
        self._h = handler
        self._order = order

    def __iter__(self):
        h, order = self._h, self._order
        n, bs = h.num_samples, h.batch_size
        if n == 0:
            return
        for step in range(h.inferred_steps):
            start = (step * bs) % n
            idx = order[start:start + bs]
            if idx.size < bs and h.steps_per_epoch is not None and n > bs:
                idx = np.concatenate([idx, order[:bs - idx.size]])  # steps_per_epoch wraps around the data
            yield step, h.make_batch(idx)


def _sparse_batches(x, y, sample_weight, batch_size, shuffle):
    """A dataset of ``batch_size`` batches of arrays that hold SparseTensors."""

    data = x if y is None and sample_weight is None else \
        tuple(v for v in (x, y, sample_weight) if v is not None)
    ds = DatasetV2.from_tensor_slices(data)
    if shuffle:
        ds = ds.shuffle(ds.cardinality().numpy() if hasattr(ds.cardinality(), "numpy") else 1024)
    return ds.batch(batch_size or 32)


class DataHandler:
    """Epochs and steps over ``fit``/``evaluate``/``predict`` inputs.

    ``enumerate_epochs()`` yields ``(epoch, batches)``; iterating ``batches`` yields ``(step, batch)``
    with ``batch`` a placed ``x``/``(x, y)``/``(x, y, sample_weight)`` structure.
    """

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, initial_epoch=0,
                 epochs=1, shuffle=False, class_weight=None, device=None, worker=None):
        self.initial_epoch = initial_epoch
        # (num_workers, index) in a multi-worker job: this worker reads its share (tf.data auto-sharding)
        self._worker = worker if worker is not None and worker[0] > 1 else None
        self._shard_policy = None
        self.epochs = epochs
        self.steps_per_epoch = steps_per_epoch
        self.device = device
        self._dataset = None
        self._shared_iter = None
        self.exhausted = False
        if is_py_dataset(x):
            x = PyDatasetEpochs(x, shuffle=bool(shuffle))
        if any(isinstance(v, SparseTensor) for v in nest.flatten((x, y, sample_weight))):
            # SparseTensor inputs (Input(sparse=True)) are sliced into sparse batches by tf.data, as Keras does
            x = _sparse_batches(x, y, sample_weight, batch_size, shuffle)
            y = sample_weight = None
        if is_dataset_like(x):
            if y is not None:
                raise ValueError("`y` argument is not supported when using dataset as input.")
            if sample_weight is not None:
                raise ValueError("`sample_weight` argument is not supported when using dataset as input.")
            if self._worker is not None:
                from ...data.auto_shard import auto_shard_dataset

                x, self._shard_policy = auto_shard_dataset(x, *self._worker)
            self._dataset = x
            self._class_weight = class_weight
            self.batch_size = None
            self.inferred_steps = steps_per_epoch if steps_per_epoch is not None else self._dataset_size(x)
            if self._worker is not None and steps_per_epoch is None and self.inferred_steps is not None \
                    and self._shard_policy.name != "DATA":  # each batch is cut into one piece per worker
                self.inferred_steps *= self._worker[0]
            return
        if x is None:
            raise ValueError("Unrecognized data type: x=None (you passed no input data).")
        if not _is_array_structure((x, y, sample_weight)):
            raise ValueError(f"Failed to find data adapter that can handle input: {type(x)}, {type(y)}")
        self.x, self.y = _arrays(x), _arrays(y)
        sw = None if sample_weight is None else _to_numpy(sample_weight)
        if class_weight is not None:
            if self.y is None:
                raise ValueError("`class_weight` needs target data `y`.")
            sw = class_weight_to_sample_weight(self.y, class_weight, sw)
        self.sample_weight = sw
        self.num_samples = _num_samples((self.x, self.y, self.sample_weight))
        self.batch_size = int(batch_size) if batch_size else 32
        self.shuffle = shuffle
        batches = int(math.ceil(self.num_samples / self.batch_size)) if self.num_samples else 0
        self.inferred_steps = steps_per_epoch if steps_per_epoch is not None else batches

    @staticmethod
    def _dataset_size(ds):
        card = getattr(ds, "cardinality", None)
        if card is not None:
            n = int(np.asarray(card().numpy() if hasattr(card(), "numpy") else card()))
            if n == -1:
                raise ValueError("When passing an infinitely repeating dataset, please specify a "
                                 "`steps_per_epoch` value so that epoch level callbacks continue to work.")
            return n if n >= 0 else None
        try:
            return len(ds)
        except TypeError:
            return None

    # -- epochs ------------------------------------------------------------------------------------
    def enumerate_epochs(self):
        for epoch in range(self.initial_epoch, self.epochs):
            if self.exhausted:
                break
            yield epoch, self._epoch_batches()

    def _epoch_batches(self):
        if self._dataset is not None:
            return self._dataset_epoch()
        order = None
        n = self.num_samples
        if self.shuffle == "batch":
            blocks = np.arange(n).reshape(-1, 1) if n < self.batch_size else None
            full = (n // self.batch_size) * self.batch_size
            if blocks is None:
                head = np.arange(full).reshape(-1, self.batch_size)
                np.random.shuffle(head)
                order = np.concatenate([head.reshape(-1), np.arange(full, n)])
            else:
                order = np.arange(n)
        elif self.shuffle:
            order = np.random.permutation(n)
        else:
            order = np.arange(n)
        return _ArrayEpoch(self, order)

    def make_batch(self, idx):
        if self._worker is not None:  # this worker's rows of the global batch (TF's DATA sharding of arrays)
            idx = worker_rows(np.asarray(idx), *self._worker)
        dev = self.device or training_device()
        x = place_batch(_take(self.x, idx), dev)
        if self.y is None and self.sample_weight is None:
            return (x,)
        y = place_batch(_take(self.y, idx), dev)
        if self.sample_weight is None:
            return (x, y)
        return (x, y, place_batch(self.sample_weight[idx], dev))

    def _dataset_epoch(self):
        ds = self._dataset
        if hasattr(ds, "__next__"):          # a generator/iterator cannot restart: epochs share it
            it = ds
        elif self.steps_per_epoch is not None:  # Keras keeps one iterator when steps_per_epoch is given
            if self._shared_iter is None:
                self._shared_iter = iter(ds)
            it = self._shared_iter
        else:
            it = iter(ds)
        if self._worker is not None:
            it = worker_batches(it, *self._worker, self._shard_policy)
        return self._dataset_steps(it, self.steps_per_epoch)

    def _dataset_steps(self, it, limit):
        dev = self.device or training_device()
        counter = itertools.count() if limit is None else range(limit)
        seen = 0
        for step in counter:
            try:
                element = next(it)
            except StopIteration:
                if limit is not None or (hasattr(self._dataset, "__next__") and seen == 0):
                    self.exhausted = True
                    warnings.warn("Your input ran out of data; interrupting training. Make sure that your "
                                  "dataset or generator can generate at least `steps_per_epoch * epochs` batches.")
                break
            seen += 1
            if self._class_weight is not None:
                x, y, sw = unpack_x_y_sample_weight(element)
                sw = class_weight_to_sample_weight(_to_numpy(y), self._class_weight,
                                                   None if sw is None else _to_numpy(sw))
                element = (x, y, sw)
            yield step, place_batch(element, dev)
        if self.inferred_steps is None and seen:
            self.inferred_steps = seen


def single_batch(x, y=None, sample_weight=None, class_weight=None, device=None):
    """One placed batch from in-memory data (``train_on_batch`` and friends)."""
    if class_weight is not None:
        sample_weight = class_weight_to_sample_weight(_to_numpy(y), class_weight,
                                                      None if sample_weight is None else _to_numpy(sample_weight))
    dev = device or training_device()
    if type(x) is np.ndarray and type(y) is np.ndarray and sample_weight is None:  # the common case
        return (convert_to_tensor(x, device=dev), convert_to_tensor(y, device=dev))
    x = place_batch(_arrays(x) if _is_array_structure(x) else x, dev)
    if y is None:
        return (x,)
    y = place_batch(_arrays(y), dev)
    if sample_weight is None:
        return (x, y)
    return (x, y, place_batch(_to_numpy(sample_weight), dev))
