"""``TextVectorization``: strings -> token indices or bag-of-words vectors, as TF's layer.

Pipeline (each step as Keras does it): ``standardize`` (ASCII lower-casing, then Keras's punctuation
regex removed), ``split`` (whitespace runs, or UTF-8 characters), ``ngrams`` (all 1-grams, then all
2-grams, ... joined by a space), then a :class:`StringLookup` with ``""`` as the mask token. ``adapt``
learns the vocabulary in TF's order (frequency, ties by decreasing token).
"""

import re

import numpy as np

from ...framework import dtypes
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.tensor_spec import TensorSpec
from ..engine.base_layer import Layer
from .lookup import StringLookup, host_array, iterate_batches

# Keras's DEFAULT_STRIP_REGEX
STRIP_PUNCTUATION = re.compile(rb'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')
_STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = ("whitespace", "character")


class TextVectorization(Layer):
    """``tf.keras.layers.TextVectorization``: ``output_mode`` ``"int"`` (padded index sequences, 0 = padding,
    1 = OOV), ``"multi_hot"``, ``"count"`` or ``"tf_idf"``."""

    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", **kwargs):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        if not (standardize is None or callable(standardize) or standardize in _STANDARDIZE):
            raise ValueError(f"Invalid value for argument `standardize`. Expected one of {list(_STANDARDIZE)}, None "
                             f"or a callable. Received: standardize={standardize}")
        if not (split is None or callable(split) or split in _SPLIT):
            raise ValueError(f"Invalid value for argument `split`. Expected one of {list(_SPLIT)}, None or a "
                             f"callable. Received: split={split}")
        if output_mode not in ("int", "multi_hot", "count", "tf_idf"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of ['int', 'multi_hot', "
                             f"'count', 'tf_idf']. Received: output_mode={output_mode}")
        if isinstance(ngrams, int) and not isinstance(ngrams, bool):
            ngrams = tuple(range(1, ngrams + 1))
        if ngrams is not None and not (isinstance(ngrams, tuple | list)
                                       and all(isinstance(n, int) and n > 0 for n in ngrams)):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is not 'int'. "
                             f"Received output_sequence_length={output_sequence_length}.")
        if output_sequence_length is not None and output_sequence_length <= 0:
            raise ValueError(f"`output_sequence_length` must be positive. Received: {output_sequence_length}")
        if ragged or sparse:
            raise ValueError("TextVectorization: `ragged=True` and `sparse=True` outputs are not available in "
                             "tfcore; use output_sequence_length (or the batch's longest sequence) instead.")
        self.standardize = standardize
        self.split = split
        self.ngrams = tuple(ngrams) if ngrams is not None else None
        self.output_mode = output_mode
        self.output_sequence_length = output_sequence_length
        self.pad_to_max_tokens = pad_to_max_tokens
        self.max_tokens = max_tokens
        self.encoding = encoding
        self.ragged = ragged
        self.sparse = sparse
        self._lookup_layer = StringLookup(max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
                                          mask_token="", output_mode=output_mode,
                                          pad_to_max_tokens=pad_to_max_tokens, name=f"{self.name}_lookup")
        self.built = True

    # -- text processing on host bytes ------------------------------------------------------------------
    def _standardize(self, texts):
        std = self.standardize
        if std is None:
            return texts
        if callable(std):
            out = std(convert_to_tensor(np.asarray(texts, dtype=object)))
            return list(host_array(out).ravel())
        if "lower" in std:
            texts = [t.lower() for t in texts]  # bytes.lower(): ASCII only, as tf.strings.lower
        if "strip" in std:
            texts = [STRIP_PUNCTUATION.sub(b"", t) for t in texts]
        return texts

    def _split(self, texts):
        if self.split is None:
            return [[t] for t in texts]
        if callable(self.split):
            out = self.split(convert_to_tensor(np.asarray(texts, dtype=object)))
            if isinstance(out, list):
                return [[_b(t) for t in row] for row in out]
            return [[_b(t) for t in row if _b(t) != b""] for row in host_array(out).tolist()]
        if self.split == "whitespace":
            return [t.split() for t in texts]
        return [[c.encode("utf-8") for c in t.decode("utf-8", "replace")] for t in texts]

    def _ngrams(self, tokens):
        if self.ngrams is None:
            return tokens
        out = []
        for n in self.ngrams:
            out.extend(b" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
        return out

    def _tokenize(self, inputs):
        """Host bytes array of shape (batch,) or (batch, 1) (or a scalar) -> list of token lists."""
        arr = host_array(inputs)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim > 1:
            raise ValueError(f"TextVectorization '{self.name}': expected a batch of strings of shape (batch,) or "
                             f"(batch, 1); got shape {arr.shape}")
        if arr.size and arr.dtype != object:
            raise ValueError(f"TextVectorization '{self.name}' expects string inputs; got dtype {arr.dtype}")
        texts = self._standardize(list(arr.ravel()))
        return [self._ngrams(t) for t in self._split(texts)], arr.ndim == 0

    # -- vocabulary ---------------------------------------------------------------------------------------
    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary (and IDF weights for ``tf_idf``) from strings: an array, list or a dataset."""
        lookup = self._lookup_layer
        import collections
        counts, doc_counts, num_docs = collections.Counter(), collections.Counter(), 0
        for batch in iterate_batches(data, batch_size, steps):
            docs, _ = self._tokenize(batch)
            for doc in docs:
                counts.update(doc)
                if self.output_mode == "tf_idf":
                    doc_counts.update(set(doc))
            num_docs += len(docs)
        lookup._finalize(counts, doc_counts, num_docs)

    def get_vocabulary(self, include_special_tokens=True):
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    @property
    def idf_weights(self):
        return self._lookup_layer.idf_weights

    # -- call ------------------------------------------------------------------------------------------
    def call(self, inputs):
        docs, scalar = self._tokenize(inputs)
        lookup = self._lookup_layer
        index_rows = [lookup.lookup_indices(np.asarray(d, dtype=object)) if d else np.zeros(0, np.int64)
                      for d in docs]
        if self.output_mode == "int":
            length = self.output_sequence_length
            if length is None:
                length = max((len(r) for r in index_rows), default=0)
            out = np.zeros((len(index_rows), length), np.int64)
            for i, r in enumerate(index_rows):
                r = r[:length]
                out[i, :len(r)] = r
            return convert_to_tensor(out[0] if scalar else out, dtype=dtypes.int64)
        depth = lookup._depth()
        out = np.zeros((len(index_rows), depth), np.float64)
        for i, r in enumerate(index_rows):
            r = r[(r >= 0) & (r < depth)]
            np.add.at(out[i], r, 1.0)
        if self.output_mode == "multi_hot":
            out = (out > 0).astype(np.float64)
        elif self.output_mode == "tf_idf":
            out = out * lookup._idf[:depth]
        out = out.astype(np.float32)
        return convert_to_tensor(out[0] if scalar else out)

    def compute_output_signature(self, input_signature):
        batch = input_signature.shape[0] if input_signature.shape.rank else None
        if self.output_mode == "int":
            return TensorSpec([batch, self.output_sequence_length], dtypes.int64)
        depth = self._lookup_layer._depth() if self._lookup_layer._tokens or self.pad_to_max_tokens else None
        return TensorSpec([batch, depth], dtypes.float32)

    def get_config(self):
        config = super().get_config()
        config.update({"max_tokens": self.max_tokens, "standardize": self.standardize if isinstance(
            self.standardize, str | type(None)) else None, "split": self.split if isinstance(
            self.split, str | type(None)) else None, "ngrams": self.ngrams, "output_mode": self.output_mode,
            "output_sequence_length": self.output_sequence_length, "pad_to_max_tokens": self.pad_to_max_tokens,
            "sparse": self.sparse, "ragged": self.ragged, "encoding": self.encoding,
            "vocabulary": self.get_vocabulary(include_special_tokens=False) or None,
            "idf_weights": self._lookup_layer._idf.tolist() if self._lookup_layer._idf is not None else None})
        return config


def _b(t):
    if isinstance(t, Tensor):
        t = t.numpy()
    return t.encode("utf-8") if isinstance(t, str) else bytes(t)
