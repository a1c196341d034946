"""``tf.lookup``: hash tables from keys to values on the host (TF's ``lookup_ops``).

A table holds a Python dict from keys (``bytes`` for strings, Python ints, floats) to values; a lookup
maps every element of a key tensor to its value (or the default), keeping the key tensor's shape (with
the value shape appended for vector values). Static tables are filled once from an initializer
(``KeyValueTensorInitializer``, ``TextFileInitializer``); ``StaticVocabularyTable`` sends unknown keys to
``num_oov_buckets`` hash buckets after the vocabulary (FarmHash Fingerprint64, TF's
``to_hash_bucket_fast``, of the key or, for integer keys, of its decimal text); the experimental
``MutableHashTable`` and ``DenseHashTable`` take inserts and removals.

Inside a ``tf.function`` or a ``tf.data`` function every table call is one host node of the trace
(``tracing.call_python``), replayed with each call's keys, so a traced lookup never bakes in the keys of
the trace. Lookups take dense Tensors, SparseTensors (their values) and RaggedTensors (their flat
values). Errors are TF's: a key tensor of the wrong dtype is a TypeError naming ``keys``; a duplicate key
with two values in an initializer is a FailedPreconditionError.

Mutable tables are saved in ``tf.train.Checkpoint``s under TF's keys (``<path>/.ATTRIBUTES/table-keys`` and
``-values``; a DenseHashTable in TF's bucket layout), so checkpoints move between TF and tfcore both ways.
Not done: tables in SavedModels (TF saves static tables' initializers as assets and functions),
``resource_handle``, and ``DenseHashTable.export`` returns the stored entries rather than TF's whole bucket
arrays.
"""

import numpy as np

from ..framework import dtypes, tracing
from ..framework.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ._farmhash import fingerprint64

__all__ = ["KeyValueTensorInitializer", "TextFileIndex", "TextFileInitializer", "StaticHashTable",
           "StaticVocabularyTable", "MutableHashTable", "DenseHashTable"]


def _host_key(v):
    """A NumPy scalar element as the dict key it is stored under."""
    if isinstance(v, bytes | str):
        return v.encode("utf-8") if isinstance(v, str) else v
    return v.item() if hasattr(v, "item") else v


def _host(t):
    """A Tensor's value as a NumPy array (a scalar string too: ``numpy()`` gives bare bytes)."""
    return np.asarray(t.numpy(), dtype=object if t.dtype == dtypes.string else None)


def _describe_key(k):
    return k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)


def _as_tensor(value, dtype, what):
    """``value`` as a Tensor of ``dtype`` (TF's conversion: a Tensor of another dtype is refused)."""
    if isinstance(value, Tensor):
        if value.dtype != dtype:
            raise ValueError(f"{what}: Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    return convert_to_tensor(value, dtype=dtype)


# -- initializers -------------------------------------------------------------------------------------


class TableInitializerBase:
    """What fills a static table: ``key_dtype``, ``value_dtype`` and the (keys, values) pairs."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    def _pairs(self):
        """The host (keys, values) arrays, in order."""
        raise NotImplementedError


class KeyValueTensorInitializer(TableInitializerBase):
    """``tf.lookup.KeyValueTensorInitializer(keys, values, key_dtype=None, value_dtype=None)``: a table's
    contents from two equally long 1-D tensors."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self._name = name
        super().__init__(self._keys.dtype, self._values.dtype)

    def _pairs(self):
        keys, values = self._keys.numpy(), self._values.numpy()
        if keys.shape[:1] != values.shape[:1] or keys.ndim != 1:
            raise InvalidArgumentError(None, None, f"Expected shape {list(keys.shape)} for value, got "
                                                   f"{list(values.shape)} [Op:LookupTableImportV2]")
        return keys, values


class TextFileIndex:
    """Which part of a line a ``TextFileInitializer`` column is: the whole line or the line number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer(TableInitializerBase):
    """``tf.lookup.TextFileInitializer``: keys and values from the columns of a text file's lines.

    ``key_index``/``value_index`` name a ``delimiter``-separated column, ``TextFileIndex.WHOLE_LINE`` (the
    line as a string) or ``TextFileIndex.LINE_NUMBER`` (its 0-based number plus ``value_index_offset``,
    int64). ``vocab_size`` reads only that many lines (the file must have them)."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None,
                 delimiter="\t", name=None, value_index_offset=0):
        super().__init__(key_dtype, value_dtype)
        for what, index, dtype in (("key", key_index, self.key_dtype), ("value", value_index, self.value_dtype)):
            if index < TextFileIndex.WHOLE_LINE:
                raise ValueError(f"Invalid {what} index {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
                raise ValueError(f"Signature mismatch. {what.capitalize()}s must be dtype {dtypes.int64}, got "
                                 f"{dtype}.")
            if index == TextFileIndex.WHOLE_LINE and dtype != dtypes.string:
                raise ValueError(f"Signature mismatch. {what.capitalize()}s must be dtype {dtypes.string}, got "
                                 f"{dtype}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        self._filename = filename.numpy().decode() if isinstance(filename, Tensor) else str(filename)
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._offset = value_index_offset
        self._name = name

    def _column(self, line, number, index, dtype, offset=0):
        if index == TextFileIndex.LINE_NUMBER:
            return number + offset
        if index == TextFileIndex.WHOLE_LINE:
            return line.encode("utf-8")
        parts = line.split(self._delimiter)
        if index >= len(parts):
            raise InvalidArgumentError(None, None, f"Invalid number of columns in {self._filename} line {number} "
                                                   f"({line!r}) : expected at least {index + 1} got {len(parts)}")
        text = parts[index]
        if dtype == dtypes.string:
            return text.encode("utf-8")
        try:
            return int(text) if dtype.is_integer else float(text)
        except ValueError:
            raise InvalidArgumentError(None, None, f"Field {text!r} in line {number} of {self._filename} is not a "
                                                   f"valid {dtype.name}") from None

    def _pairs(self):
        try:
            with open(self._filename, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise NotFoundError(None, None, f"{self._filename}; {e.strerror}") from None
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise InvalidArgumentError(None, None, f"Invalid vocab_size in {self._filename}: expected "
                                                       f"{self._vocab_size} but got {len(lines)}")
            lines = lines[:self._vocab_size]
        keys = [self._column(ln, i, self._key_index, self.key_dtype) for i, ln in enumerate(lines)]
        values = [self._column(ln, i, self._value_index, self.value_dtype, self._offset)
                  for i, ln in enumerate(lines)]
        return (np.array(keys, dtype=self.key_dtype.as_numpy_dtype if keys else None),
                np.array(values, dtype=self.value_dtype.as_numpy_dtype if values else None))


# -- tables -------------------------------------------------------------------------------------------


class _Table:
    """The shared machinery: a dict of host keys to host values, looked up element-wise."""

    _stateful = False  # mutable tables: their calls are ordered state changes in a trace

    def __init__(self, key_dtype, value_dtype, default_value, name):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._default = _as_tensor(default_value, self._value_dtype, "default_value")
        self._name = name
        self._entries = {}

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    default_value = property(lambda self: self._default)
    name = property(lambda self: self._name)

    def _call(self, fn, inputs, name):
        return tracing.call_python(fn, inputs, stateful=self._stateful, name=name)

    def _tfc_checkpoint_children(self):
        """A table is a leaf of a checkpoint's object graph (tf.train.Checkpoint accepts it)."""
        return []

    def _check_keys(self, keys):
        if isinstance(keys, Tensor):
            if keys.dtype != self._key_dtype:
                raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: {keys.dtype}")
            return keys
        return convert_to_tensor(keys, dtype=self._key_dtype)

    def size(self, name=None):
        """The number of entries (int64 scalar)."""
        return self._call(lambda: convert_to_tensor(np.int64(len(self._entries))), [], "LookupTableSizeV2")

    def lookup(self, keys, name=None):
        """The value of each key (the default where absent): a Tensor of ``keys``' shape (plus the value
        shape); a SparseTensor's or RaggedTensor's values are looked up in place."""
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values), keys.dense_shape)
        if hasattr(keys, "with_flat_values"):  # a RaggedTensor: its flat values (ragged is a layer above)
            return keys.with_flat_values(self.lookup(keys.flat_values))
        keys = self._check_keys(keys)
        return self._call(lambda k: convert_to_tensor(self._find(_host(k), self._default.numpy())), [keys],
                          "LookupTableFindV2")

    def __getitem__(self, keys):
        return self.lookup(keys)

    def _find(self, keys, default):
        flat = keys.reshape(-1)
        get = self._entries.get
        found = [get(_host_key(k), default) for k in flat]
        value_shape = np.shape(default)
        out = np.empty((flat.size, *value_shape), dtype=self._value_dtype.as_numpy_dtype)
        for i, v in enumerate(found):
            out[i] = v
        return out.reshape(keys.shape + value_shape)

    def export(self, name=None):
        """``(keys, values)``: every entry, as two tensors (in insertion order)."""
        def run():
            value_shape = np.shape(self._default.numpy())
            keys = np.array(list(self._entries), dtype=self._key_dtype.as_numpy_dtype).reshape(-1)
            values = np.array(list(self._entries.values()), dtype=self._value_dtype.as_numpy_dtype)
            return convert_to_tensor(keys), convert_to_tensor(values.reshape((len(keys), *value_shape)))
        return self._call(run, [], "LookupTableExportV2")


class StaticHashTable(_Table):
    """``tf.lookup.StaticHashTable(initializer, default_value)``: a table filled once by ``initializer``."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        if not isinstance(initializer, TableInitializerBase):
            raise TypeError(f"`initializer` must be a tf.lookup initializer, got {type(initializer).__name__}")
        super().__init__(initializer.key_dtype, initializer.value_dtype, default_value, name)
        self._initializer = initializer
        keys, values = initializer._pairs()
        entries = {}
        for k, v in zip(keys, values, strict=True):
            k, v = _host_key(k), _host_key(v)
            if entries.setdefault(k, v) != v:
                raise FailedPreconditionError(None, None, f"HashTable has different value for same key. Key "
                                                          f"{_describe_key(k)} has {_describe_key(entries[k])} and "
                                                          f"trying to add value {_describe_key(v)}")
        self._entries = entries

    @property
    def initializer(self):
        return self._initializer


class StaticVocabularyTable:
    """``tf.lookup.StaticVocabularyTable(initializer, num_oov_buckets)``: string or int64 keys to int64
    ids; a key outside the vocabulary goes to bucket ``vocab_size + Fingerprint64(key) % num_oov_buckets``
    (the decimal text of an integer key is hashed, as TF does)."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer.key_dtype not in (dtypes.int64, dtypes.string):
            raise TypeError(f"Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got "
                            f"{initializer.key_dtype}.")
        if initializer.value_dtype != dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64} but got {initializer.value_dtype}.")
        self._table = StaticHashTable(initializer, np.int64(-1))
        self._num_oov_buckets = int(num_oov_buckets)
        self._lookup_key_dtype = dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype else initializer.key_dtype
        if self._lookup_key_dtype not in (initializer.key_dtype, dtypes.int32) or (
                self._lookup_key_dtype == dtypes.int32 and initializer.key_dtype != dtypes.int64):
            raise TypeError(f"Invalid `lookup_key_dtype` {self._lookup_key_dtype} for keys of "
                            f"{initializer.key_dtype}.")
        self._name = name

    key_dtype = property(lambda self: self._lookup_key_dtype)
    value_dtype = property(lambda self: dtypes.int64)
    name = property(lambda self: self._name)

    def size(self, name=None):
        """The vocabulary size plus ``num_oov_buckets`` (int64 scalar)."""
        return tracing.call_python(
            lambda: convert_to_tensor(np.int64(len(self._table._entries) + self._num_oov_buckets)), [],
            stateful=False, name="LookupTableSizeV2")

    def lookup(self, keys, name=None):
        """Each key's id: its vocabulary value, else its out-of-vocabulary bucket (int64)."""
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values), keys.dense_shape)
        if hasattr(keys, "with_flat_values"):
            return keys.with_flat_values(self.lookup(keys.flat_values))
        if not isinstance(keys, Tensor):
            keys = convert_to_tensor(keys, dtype=self._lookup_key_dtype)
        if keys.dtype != self._lookup_key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._lookup_key_dtype}, received: {keys.dtype}")
        return tracing.call_python(lambda k: convert_to_tensor(self._ids(_host(k))), [keys], stateful=False,
                                   name="LookupTableFindV2")

    def __getitem__(self, keys):
        return self.lookup(keys)

    def _ids(self, keys):
        flat = keys.reshape(-1)
        vocab = len(self._table._entries)
        get = self._table._entries.get
        out = np.empty(flat.size, np.int64)
        for i, k in enumerate(flat):
            key = _host_key(k)
            found = get(key)
            if found is None:
                text = key if isinstance(key, bytes) else str(key).encode()
                found = vocab + fingerprint64(text) % self._num_oov_buckets
            out[i] = found
        return out.reshape(keys.shape)


class MutableHashTable(_Table):
    """``tf.lookup.experimental.MutableHashTable(key_dtype, value_dtype, default_value)``: a table that
    takes ``insert`` and ``remove``; ``default_value``'s shape is every value's shape."""

    _stateful = True
    _tfc_checkpoint_attribute = "table"  # TF's: "<path>/.ATTRIBUTES/table-keys" and "-values"

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 experimental_is_anonymous=False):
        super().__init__(key_dtype, value_dtype, default_value, name)

    # -- checkpoints (saving/checkpoint.py calls these) --------------------------------------------------
    def _tfc_checkpoint_tensors(self):
        """``{suffix: (array, dtype)}`` of the contents, as TF's MutableHashTable saves them."""
        keys, values = self._contents()
        return {"-keys": (keys, self._key_dtype), "-values": (values, self._value_dtype)}

    def _contents(self):
        value_shape = tuple(self._default.shape)
        keys = np.array(list(self._entries), dtype=self._key_dtype.as_numpy_dtype).reshape(-1)
        values = np.array(list(self._entries.values()), dtype=self._value_dtype.as_numpy_dtype)
        return keys, values.reshape((len(keys), *value_shape))

    def _tfc_entries_from_checkpoint(self, stored):
        """The entries a checkpoint's ``-keys``/``-values`` arrays hold (ValueError when they do not fit)."""
        keys, values = np.asarray(stored["-keys"]), np.asarray(stored["-values"])
        value_shape = tuple(self._default.shape)
        if keys.shape[:1] != values.shape[:1] or tuple(values.shape[1:]) != value_shape:
            raise ValueError(f"Cannot restore lookup table {self._name!r} (values of shape {value_shape}) from keys "
                             f"of shape {keys.shape} and values of shape {values.shape}.")
        if dtypes.as_dtype(keys.dtype if keys.dtype != object else dtypes.string) != self._key_dtype or \
                dtypes.as_dtype(values.dtype if values.dtype != object else dtypes.string) != self._value_dtype:
            raise ValueError(f"Cannot restore lookup table {self._name!r} ({self._key_dtype.name} -> "
                             f"{self._value_dtype.name}) from {keys.dtype} keys and {values.dtype} values.")
        return {_host_key(k): (_host_key(v) if np.ndim(v) == 0 else np.array(v))
                for k, v in zip(keys.reshape(-1), values, strict=True)}

    def _tfc_set_entries(self, entries):
        self._entries = dict(entries)

    def _values_for(self, keys, values, op):
        values = _as_tensor(values, self._value_dtype, "values")
        want = tuple(keys.shape) + tuple(self._default.shape)
        if tuple(values.shape) != want:
            raise InvalidArgumentError(None, None, f"Expected shape {list(want)} for value, got "
                                                   f"{list(values.shape)} [Op:{op}]")
        return values

    def _check_insertable(self, flat_keys):
        """Raises for keys the table may not hold (DenseHashTable's empty and deleted keys)."""

    def insert(self, keys, values, name=None):
        """Sets each key's value (replacing an existing one)."""
        keys = self._check_keys(keys)
        values = self._values_for(keys, values, "LookupTableInsertV2")

        def run(k, v):
            flat_keys = _host(k).reshape(-1)
            self._check_insertable(flat_keys)
            rows = _host(v).reshape((flat_keys.size, *self._default.shape))
            for key, row in zip(flat_keys, rows, strict=True):
                self._entries[_host_key(key)] = _host_key(row) if row.ndim == 0 else row.copy()
        return self._call(run, [keys, values], "LookupTableInsertV2")

    def remove(self, keys, name=None):
        """Removes each key (absent keys are ignored)."""
        keys = self._check_keys(keys)

        def run(k):
            flat_keys = _host(k).reshape(-1)
            self._check_insertable(flat_keys)
            for key in flat_keys:
                self._entries.pop(_host_key(key), None)
        return self._call(run, [keys], "LookupTableRemoveV2")

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The value of each key; absent keys get ``dynamic_default_values`` (same shape as the result)
        when given, else the table's default."""
        if dynamic_default_values is None:
            return super().lookup(keys, name)
        keys = self._check_keys(keys)
        defaults = self._values_for(keys, dynamic_default_values, "LookupTableFindV2")

        def run(k, d):
            k, d = _host(k), _host(d)
            flat, dflat = k.reshape(-1), d.reshape((k.size, *self._default.shape))
            out = np.array(dflat)
            for i, key in enumerate(flat):
                v = self._entries.get(_host_key(key))
                if v is not None:
                    out[i] = v
            return convert_to_tensor(out.reshape(d.shape))
        return self._call(run, [keys, defaults], "LookupTableFindV2")


class DenseHashTable(MutableHashTable):
    """``tf.lookup.experimental.DenseHashTable``: a mutable table whose ``empty_key`` and ``deleted_key``
    (TF's open-addressing markers) may never be inserted, removed or looked up."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True, experimental_is_anonymous=False):
        super().__init__(key_dtype, value_dtype, default_value, name)
        self._empty_key = _host_key(_as_tensor(empty_key, self._key_dtype, "empty_key").numpy())
        self._deleted_key = _host_key(_as_tensor(deleted_key, self._key_dtype, "deleted_key").numpy())
        if self._empty_key == self._deleted_key:
            raise InvalidArgumentError(None, None, "Empty and deleted keys must have different values")
        self._initial_buckets = int(initial_num_buckets or 1 << 17)

    def _tfc_checkpoint_tensors(self):
        """TF's layout: ``[buckets, 1]`` key and value arrays (a power of two, at least twice the entries),
        the unused buckets holding ``empty_key`` and the default value."""
        keys, values = self._contents()
        buckets = self._initial_buckets
        while buckets < 2 * len(keys):
            buckets *= 2
        key_rows = np.full((buckets, 1), self._empty_key, dtype=self._key_dtype.as_numpy_dtype)
        value_rows = np.empty((buckets, *(values.shape[1:] or (1,))), dtype=self._value_dtype.as_numpy_dtype)
        value_rows[...] = self._default.numpy().reshape(value_rows.shape[1:])
        for row, bucket in enumerate(self._buckets_of(keys, buckets)):
            key_rows[bucket, 0] = keys[row]
            value_rows[bucket] = values[row].reshape(value_rows.shape[1:])
        return {"-keys": (key_rows, self._key_dtype), "-values": (value_rows, self._value_dtype)}

    def _buckets_of(self, keys, buckets):
        """Where TF's MutableDenseHashTable looks for each key: ``hash & (buckets - 1)``, then quadratic
        probing (``+1, +2, ...``); an integer key's hash is its two's-complement value. String keys (TF hashes
        them with its own Hash64) go to the first free buckets: tfcore reads them back, TF cannot find them."""
        mask, taken, out = buckets - 1, set(), []
        for key in keys.tolist():
            bucket = int(key) & mask if self._key_dtype.is_integer else len(out)
            probes = 0
            while bucket in taken:
                probes += 1
                bucket = (bucket + probes) & mask
            taken.add(bucket)
            out.append(bucket)
        return out

    def _tfc_entries_from_checkpoint(self, stored):
        """TF's bucket arrays without their empty and deleted buckets."""
        keys, values = np.asarray(stored["-keys"]), np.asarray(stored["-values"])
        keys = keys.reshape(len(keys), -1)[:, 0] if keys.ndim > 1 else keys
        if values.ndim > 1 and tuple(values.shape[1:]) != tuple(self._default.shape):
            values = values.reshape((len(values), *self._default.shape))
        used = np.array([_host_key(k) not in (self._empty_key, self._deleted_key) for k in keys], dtype=bool)
        return super()._tfc_entries_from_checkpoint({"-keys": keys[used], "-values": values[used]})

    def _check_insertable(self, flat_keys):
        for key in flat_keys:
            key = _host_key(key)
            if key == self._empty_key:
                raise InvalidArgumentError(None, None, "Using the empty_key as a table key is not allowed")
            if key == self._deleted_key:
                raise InvalidArgumentError(None, None, "Using the deleted_key as a table key is not allowed")

    def lookup(self, keys, name=None):
        keys = self._check_keys(keys)
        tracing.call_python(lambda k: self._check_insertable(_host(k).reshape(-1)), [keys], stateful=True,
                            name="LookupTableCheckKeys")
        return super().lookup(keys, name=name)

    def insert_or_assign(self, keys, values, name=None):
        """Same as :meth:`insert`."""
        return self.insert(keys, values, name)

    def erase(self, keys, name=None):
        """Same as :meth:`remove`."""
        return self.remove(keys, name)
