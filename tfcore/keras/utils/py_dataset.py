"""``tf.keras.utils.PyDataset`` (alias ``Sequence``): a Python object that returns batches by index,
which ``fit``/``evaluate``/``predict`` accept like a dataset.

Subclasses implement ``__getitem__(index)`` (a batch: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``) and
``__len__`` (the number of batches). ``on_epoch_begin``/``on_epoch_end`` run around each epoch. With
``workers > 1`` batches are fetched by a thread pool, in order (``use_multiprocessing=True`` also uses
threads in tfcore: NumPy releases the GIL in its heavy loops, and nothing needs pickling).
"""

import random
from concurrent.futures import ThreadPoolExecutor


class PyDataset:
    """Base class for batch-indexed Python datasets (``keras.utils.PyDataset``)."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        for name, value in (("workers", workers), ("max_queue_size", max_queue_size)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"PyDataset: `{name}` must be a positive integer. Received: {name}={value}")
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    # Subclasses that forget to call super().__init__() still work (as in Keras).
    workers = property(lambda self: getattr(self, "_workers", 1))
    use_multiprocessing = property(lambda self: getattr(self, "_use_multiprocessing", False))
    max_queue_size = property(lambda self: getattr(self, "_max_queue_size", 10))

    def __getitem__(self, index):
        """The batch at ``index`` (subclasses implement this)."""
        raise TypeError(f"{type(self).__name__} must implement __getitem__(index) to return a batch")

    @property
    def num_batches(self):
        """Batches per epoch: ``len(self)``, or None for an endless dataset."""
        try:
            return len(self)
        except TypeError:
            return None

    def on_epoch_begin(self):
        """Called at the start of every epoch."""

    def on_epoch_end(self):
        """Called at the end of every epoch (e.g. to reshuffle)."""


Sequence = PyDataset


def is_py_dataset(x):
    """A PyDataset, or a Keras-2-style Sequence duck type (``__getitem__`` + ``__len__`` + ``on_epoch_end``)."""
    if isinstance(x, PyDataset):
        return True
    return (hasattr(x, "__getitem__") and hasattr(x, "__len__") and hasattr(x, "on_epoch_end")
            and not hasattr(x, "shape") and not isinstance(x, list | tuple | dict | str))


class PyDatasetEpochs:
    """What the data handler iterates: each ``iter()`` is one epoch over a PyDataset's batches (in order,
    or shuffled by batch index when ``shuffle``), bracketed by ``on_epoch_begin``/``on_epoch_end``."""

    element_spec = None

    def __init__(self, py_dataset, shuffle=False):
        self.py_dataset = py_dataset
        self.shuffle = shuffle

    def __len__(self):
        n = self.py_dataset.num_batches if isinstance(self.py_dataset, PyDataset) else len(self.py_dataset)
        if n is None:
            raise TypeError("endless PyDataset")
        return n

    def cardinality(self):
        try:
            return len(self)
        except TypeError:
            return -1

    def __iter__(self):
        ds = self.py_dataset
        getattr(ds, "on_epoch_begin", lambda: None)()
        try:
            n = len(self)
        except TypeError:
            n = None
        if n is None:
            i = 0
            while True:
                yield ds[i]
                i += 1
        indices = list(range(n))
        if self.shuffle:
            random.shuffle(indices)
        workers = getattr(ds, "workers", 1)
        if workers > 1 and n > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                yield from pool.map(ds.__getitem__, indices)
        else:
            for i in indices:
                yield ds[i]
        ds.on_epoch_end()
