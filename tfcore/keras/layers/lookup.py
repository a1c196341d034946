"""``StringLookup`` and ``IntegerLookup``: map tokens to contiguous indices (and back), learned by
``adapt`` or given as a vocabulary; shared with ``TextVectorization``.

Lookups run on the host (``tf.string`` tensors are host arrays of bytes), so the layers work alike in a
model and inside ``tf.data.Dataset.map``. ``adapt`` orders the vocabulary as TensorFlow does: by
decreasing frequency, ties broken by decreasing token value. Index layout (int mode):
``[mask_token] + [oov_token] * num_oov_indices + vocabulary``.
"""

import collections

import numpy as np

from ...framework import dtypes, tracing
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...ops._farmhash import fingerprint64
from ..engine.base_layer import Layer

OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def host_array(x, what="inputs"):
    """``x`` (Tensor, NumPy array, list, str/bytes) as a host NumPy array (strings as bytes objects)."""
    if isinstance(x, Tensor) or hasattr(x, "numpy"):
        x = x.numpy()
    arr = np.asarray(x, dtype=object) if isinstance(x, str | bytes) else np.asarray(x)
    if arr.dtype.kind in "UO":
        arr = np.vectorize(lambda s: s.encode("utf-8") if isinstance(s, str) else s, otypes=[object])(arr) \
            if arr.size else arr.astype(object)
    return arr


def iterate_batches(data, batch_size=None, steps=None):
    """The host arrays ``adapt`` learns from: a dataset's elements (batched or not), or an array in batches."""
    if hasattr(data, "element_spec") and hasattr(data, "__iter__"):
        for i, element in enumerate(data):
            if steps is not None and i >= steps:
                break
            if isinstance(element, tuple):
                element = element[0]
            yield host_array(element)
        return
    arr = host_array(data)
    if batch_size is None:
        yield arr
        return
    for i, start in enumerate(range(0, max(len(arr), 1), batch_size)):
        if steps is not None and i >= steps:
            break
        yield arr[start:start + batch_size]


def encode_categorical(indices, output_mode, depth, dtype="float32", idf_weights=None, count_weights=None):
    """Keras's ``encode_categorical_inputs`` on host int arrays: one_hot/multi_hot/count/tf_idf rows of
    width ``depth`` (the last axis of ``indices`` is the one that is encoded)."""
    indices = np.asarray(indices, dtype=np.int64)
    if output_mode == "one_hot":
        if indices.ndim and indices.shape[-1] == 1 and indices.ndim > 1:
            indices = indices[..., 0]
        out = np.zeros(indices.shape + (depth,), dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
        valid = (indices >= 0) & (indices < depth)
        np.put_along_axis(out, np.where(valid, indices, 0)[..., None], valid[..., None].astype(out.dtype), axis=-1)
        return out
    if indices.ndim == 0:
        indices = indices[None]
    rows = indices.reshape(-1, indices.shape[-1]) if indices.ndim > 1 else indices[None]
    out = np.zeros((rows.shape[0], depth), dtype=np.float64)
    weights = None if count_weights is None else np.asarray(count_weights, np.float64).reshape(rows.shape)
    for r, row in enumerate(rows):
        keep = (row >= 0) & (row < depth)
        np.add.at(out[r], row[keep], 1.0 if weights is None else weights[r][keep])
    if output_mode == "multi_hot":
        out = (out > 0).astype(np.float64)
    elif output_mode == "tf_idf":
        out = out * np.asarray(idf_weights, np.float64)[:depth]
    out = out.reshape(indices.shape[:-1] + (depth,)) if indices.ndim > 1 else out[0]
    return out.astype(dtypes.as_dtype(dtype).as_numpy_dtype)


class IndexLookup(Layer):
    """The machinery of StringLookup/IntegerLookup (Keras's ``IndexLookup``)."""

    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally

    _string = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=None, vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 **kwargs):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. "
                             f"Received: num_oov_indices={num_oov_indices}")
        if output_mode not in OUTPUT_MODES:
            raise ValueError(f"Invalid value for argument `output_mode`. Expected one of {list(OUTPUT_MODES)}. "
                             f"Received: output_mode={output_mode}")
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if sparse:
            raise ValueError("`sparse=True` output needs tf.SparseTensor outputs from lookup layers, which tfcore's "
                             "lookup layers do not produce; use sparse=False (dense outputs).")
        if output_mode == "tf_idf" and idf_weights is None and vocabulary is not None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf' and a vocabulary is passed.")
        self.max_tokens = max_tokens
        self.num_oov_indices = int(num_oov_indices)
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.invert = invert
        self.output_mode = output_mode
        self.pad_to_max_tokens = pad_to_max_tokens
        self.sparse = sparse
        self._tokens = []
        self._index = {}
        self._idf = None
        self.built = True
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- vocabulary ------------------------------------------------------------------------------
    def _key(self, token):
        if self._string:
            return token.encode("utf-8") if isinstance(token, str) else bytes(token)
        return int(token)

    def _display(self, key):
        return key.decode("utf-8", "replace") if self._string else key

    def _oov_start(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start(self):
        return self._oov_start() + self.num_oov_indices

    def get_vocabulary(self, include_special_tokens=True):
        """The tokens by index: [mask] + [oov] * num_oov_indices + learned/given tokens (as Keras)."""
        tokens = [self._display(t) for t in self._tokens]
        if not include_special_tokens:
            return tokens
        special = [self.mask_token] if self._oov_start() else []
        special += [self.oov_token] * self.num_oov_indices
        return special + tokens

    def vocabulary_size(self):
        return self._token_start() + len(self._tokens)

    def _depth(self):
        if self.pad_to_max_tokens and self.max_tokens is not None:
            return self.max_tokens
        return self.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (list/array of tokens or a file with one token per line), and for tf_idf the
        ``idf_weights`` (one per token, or per index including the special tokens)."""
        if isinstance(vocabulary, str) and _is_file(vocabulary):
            with open(vocabulary, encoding="utf-8") as f:
                vocabulary = [line.rstrip("\n") for line in f]
                if not self._string:
                    vocabulary = [int(v) for v in vocabulary]
        tokens = [self._key(t) for t in host_array(vocabulary).ravel().tolist()]
        special = {self._key(t) for t in (self.mask_token, self.oov_token) if t is not None}
        if tokens and self._oov_start() and tokens[0] == self._key(self.mask_token):
            tokens = tokens[1:]
        while self.num_oov_indices and tokens and self.oov_token is not None \
                and tokens[0] == self._key(self.oov_token):
            tokens = tokens[1:]
        bad = [self._display(t) for t in tokens if t in special]
        if bad:
            raise ValueError(f"Found reserved tokens in `vocabulary`: {bad}. The mask and OOV tokens may only appear "
                             "at the start of the vocabulary.")
        if len(set(tokens)) != len(tokens):
            dup = [self._display(t) for t, n in collections.Counter(tokens).items() if n > 1]
            raise ValueError(f"The passed vocabulary has at least one repeated term: {dup}")
        if self.max_tokens is not None and len(tokens) + self._token_start() > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. Received vocabulary "
                             f"size is {len(tokens) + self._token_start()}; `max_tokens` is {self.max_tokens}.")
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            if idf_weights is None:
                raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'")
            idf = np.asarray(host_array(idf_weights), np.float64).ravel()
            if len(idf) == len(tokens):
                idf = np.concatenate([[idf.mean() if len(idf) else 0.0] * self._token_start(), idf])
            if len(idf) != self.vocabulary_size():
                raise ValueError(f"`idf_weights` must be the same length as the vocabulary. len(idf_weights) is "
                                 f"{len(idf)}, len(vocabulary) is {len(tokens)}")
            self._idf = idf

    def _set_tokens(self, tokens):
        self._tokens = list(tokens)
        start = self._token_start()
        self._index = {t: i + start for i, t in enumerate(self._tokens)}

    @property
    def idf_weights(self):
        return None if self._idf is None else convert_to_tensor(self._idf.astype(np.float32))

    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary (and document frequencies for tf_idf) from ``data``."""
        counts, doc_counts, num_docs = collections.Counter(), collections.Counter(), 0
        for batch in iterate_batches(data, batch_size, steps):
            docs = self._documents(batch)
            for doc in docs:
                counts.update(doc)
                if self.output_mode == "tf_idf":
                    doc_counts.update(set(doc))
            num_docs += len(docs)
        self._finalize(counts, doc_counts, num_docs)

    def _documents(self, batch):
        """Token lists, one per document (an example: a row of a 2-D batch, an element of a 1-D one)."""
        batch = np.asarray(batch)
        if batch.ndim == 0:
            batch = batch[None]
        rows = batch.reshape(batch.shape[0], -1) if batch.ndim > 1 else batch[:, None]
        return [[self._key(t) for t in row] for row in rows.tolist()]

    def _finalize(self, counts, doc_counts, num_docs):
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(self._key(special), None)
        # TF: np.lexsort((tokens, counts))[::-1] -> decreasing count, ties by decreasing token
        ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        if self.max_tokens:
            ordered = ordered[:max(self.max_tokens - self._token_start(), 0)]
        self._set_tokens([t for t, _ in ordered])
        if self.output_mode == "tf_idf":
            idf = np.log(1.0 + num_docs / (1.0 + np.array([doc_counts[t] for t, _ in ordered], np.float64)))
            idf = np.concatenate([[idf.mean() if len(idf) else 0.0] * self._token_start(), idf])
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.pad(idf, (0, self.max_tokens - len(idf)))
            self._idf = idf.astype(np.float32).astype(np.float64)

    # -- lookup -----------------------------------------------------------------------------------
    def lookup_indices(self, arr):
        """Host array of tokens -> int64 array of indices (OOV tokens hashed into the OOV range)."""
        flat = arr.ravel().tolist()
        out = np.empty(len(flat), np.int64)
        mask_key = self._key(self.mask_token) if self.mask_token is not None else None
        oov_start = self._oov_start()
        for i, tok in enumerate(flat):
            key = self._key(tok)
            idx = self._index.get(key)
            if idx is None:
                if mask_key is not None and key == mask_key:
                    idx = 0 if self.output_mode == "int" else -1
                elif self.num_oov_indices == 0:
                    raise ValueError(f"Lookup layer '{self.name}': token {self._display(key)!r} is not in the "
                                     "vocabulary and num_oov_indices=0")
                elif self.num_oov_indices == 1:
                    idx = oov_start
                elif self._string:
                    idx = oov_start + fingerprint64(key) % self.num_oov_indices
                else:
                    idx = oov_start + key % self.num_oov_indices
            out[i] = idx
        return out.reshape(arr.shape)

    def call(self, inputs):
        if isinstance(inputs, Tensor):
            # One host node in a traced graph (a train step, a Dataset.map), replayed on each batch's
            # tokens: reading them in Python while tracing would specialise the graph to one batch.
            return tracing.call_python(self._lookup, [inputs], stateful=False, name="Lookup")
        return self._lookup(inputs)

    def _lookup(self, inputs):
        arr = host_array(inputs)
        if self.invert:
            return convert_to_tensor(self._invert(arr))
        if not self._string:
            if arr.dtype.kind not in "iu":
                raise ValueError(f"IntegerLookup '{self.name}' expects integer inputs; got dtype {arr.dtype}")
        elif arr.size and arr.dtype != object:
            raise ValueError(f"StringLookup '{self.name}' expects string inputs; got dtype {arr.dtype}")
        indices = self.lookup_indices(arr)
        if self.output_mode == "int":
            return convert_to_tensor(indices, dtype=dtypes.int64)
        return convert_to_tensor(encode_categorical(indices, self.output_mode, self._depth(), "float32", self._idf))

    def _invert(self, arr):
        vocab = self.get_vocabulary()
        table = np.array([(v.encode("utf-8") if isinstance(v, str) else v) for v in vocab], dtype=object)
        idx = np.asarray(arr, np.int64)
        oov = (self.oov_token.encode("utf-8") if isinstance(self.oov_token, str) else self.oov_token)
        out = np.empty(idx.shape, dtype=object)
        flat = idx.ravel()
        res = out.ravel()
        for i, k in enumerate(flat.tolist()):
            res[i] = table[k] if 0 <= k < len(table) else oov
        out = res.reshape(idx.shape)
        return out if self._string else out.astype(np.int64)

    def get_config(self):
        config = super().get_config()
        config.update({"max_tokens": self.max_tokens, "num_oov_indices": self.num_oov_indices,
                       "mask_token": self.mask_token, "oov_token": self.oov_token, "invert": self.invert,
                       "output_mode": self.output_mode, "pad_to_max_tokens": self.pad_to_max_tokens,
                       "sparse": self.sparse, "vocabulary": self.get_vocabulary(include_special_tokens=False),
                       "idf_weights": None if self._idf is None else self._idf.tolist()})
        return config


def _is_file(path):
    import os
    return os.path.isfile(path)


class StringLookup(IndexLookup):
    """``tf.keras.layers.StringLookup``: strings -> indices (``invert=True``: indices -> strings)."""

    _string = True

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, invert=False, output_mode="int", pad_to_max_tokens=False, sparse=False,
                 encoding="utf-8", **kwargs):
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, **kwargs)

    def get_config(self):
        config = super().get_config()
        config["encoding"] = self.encoding
        return config


class IntegerLookup(IndexLookup):
    """``tf.keras.layers.IntegerLookup``: integers -> indices (``invert=True``: indices -> integers)."""

    _string = False

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, **kwargs):
        if vocabulary_dtype not in ("int32", "int64"):
            raise ValueError(f"IntegerLookup: `vocabulary_dtype` must be 'int32' or 'int64'. "
                             f"Received: {vocabulary_dtype}")
        self.vocabulary_dtype = vocabulary_dtype
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
                         oov_token=oov_token, vocabulary=vocabulary, idf_weights=idf_weights, invert=invert,
                         output_mode=output_mode, pad_to_max_tokens=pad_to_max_tokens, sparse=sparse, **kwargs)

    def get_config(self):
        config = super().get_config()
        config["vocabulary_dtype"] = self.vocabulary_dtype
        return config
