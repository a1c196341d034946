"""Numerical and categorical preprocessing layers: ``Normalization``, ``Discretization``,
``CategoryEncoding`` and ``Hashing``. ``adapt`` computes what TensorFlow computes (Normalization: the
batch-merged mean and population variance; Discretization: Keras's quantile summaries); ``Hashing`` uses
TF's FarmHash Fingerprint64 (SipHash-2-4 with a ``salt``), so tokens land in TF's bins."""

import math

import numpy as np

from ...framework import dtypes
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops
from ...ops._farmhash import fingerprint64, siphash24
from .. import backend
from ..engine.base_layer import Layer
from .lookup import encode_categorical, host_array, iterate_batches


class Normalization(Layer):
    """``(x - mean) / max(sqrt(variance), epsilon)`` per position of ``axis`` (``invert=True``: the
    inverse); ``mean``/``variance`` are given or learned by ``adapt``."""

    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        if (mean is not None) != (variance is not None):
            raise ValueError("When setting values directly, both `mean` and `variance` must be set. "
                             f"Received: mean={mean} and variance={variance}")
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert
        self.supports_masking = True
        self.mean = self.variance = None

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        ndim = len(dims)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs with "
                             f"ndim={ndim}, while axis={self.axis}")
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for a in self._keep_axis:
            if dims[a] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. Received axis={self.axis}, "
                                 f"inputs.shape={tuple(dims)}, with unknown axis at index {a}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [dims[d] if d in self._keep_axis else 1 for d in range(ndim)]
        self._stats_shape = tuple(dims[d] for d in self._keep_axis)
        self._build_dims = dims
        if self.input_mean is None:
            self.adapt_mean = self.add_weight("mean", shape=self._stats_shape, initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight("variance", shape=self._stats_shape, initializer="ones",
                                                  trainable=False)
            self.count = self.add_weight("count", shape=(), dtype="int64", initializer="zeros", trainable=False)
        self.built = True
        self.finalize_state()

    def finalize_state(self):
        if self.input_mean is not None:
            mean = np.asarray(self.input_mean, np.float64)
            var = np.asarray(self.input_variance, np.float64)
            if mean.ndim:
                expanded = [1] * len(self._broadcast_shape)
                for i in range(1, mean.ndim + 1):
                    expanded[self._keep_axis[-i]] = mean.shape[-i]
                mean, var = mean.reshape(expanded), var.reshape(expanded)
            mean = np.broadcast_to(mean, self._broadcast_shape)
            var = np.broadcast_to(var, self._broadcast_shape)
            self.mean = convert_to_tensor(mean.astype(self._dtype.as_numpy_dtype))
            self.variance = convert_to_tensor(var.astype(self._dtype.as_numpy_dtype))
            return
        self.mean = array_ops.reshape(self.adapt_mean, self._broadcast_shape)
        self.variance = array_ops.reshape(self.adapt_variance, self._broadcast_shape)

    def adapt(self, data, batch_size=None, steps=None):
        """Learn ``mean`` and ``variance`` from an array/tensor (exactly) or from the batches of a dataset or
        iterable (merged batch by batch, as Keras)."""
        if self.input_mean is not None:
            raise ValueError("Normalization: adapt() cannot be called on a layer built with `mean` and `variance`.")
        is_array = isinstance(data, np.ndarray | list) or hasattr(data, "_array")
        if hasattr(data, "element_spec"):
            spec = data.element_spec[0] if isinstance(data.element_spec, tuple) else data.element_spec
            if spec.shape.rank == 1:
                data = data.batch(128)
        batches = [host_array(data).astype(np.float64)] if is_array else \
            (np.asarray(b, np.float64) for b in iterate_batches(data, batch_size, steps))
        total_mean = total_var = None
        total_count = 0
        for batch in batches:
            if not self.built:
                self._maybe_build(TensorShape(batch.shape))  # records the build shape, as Keras 3
            for d in self._keep_axis:
                if batch.shape[d] != self._build_dims[d]:
                    raise ValueError(f"The layer was built with input_shape={tuple(self._build_dims)}, but adapt() is "
                                     f"being called with data with an incompatible shape, data.shape={batch.shape}")
            mean = batch.mean(axis=self._reduce_axis)
            var = batch.var(axis=self._reduce_axis)
            count = math.prod(batch.shape[d] for d in self._reduce_axis) if self._reduce_axis else 1
            if total_mean is None:
                total_mean, total_var, total_count = mean, var, count
                continue
            total_count += count
            w = count / total_count
            new_mean = total_mean * (1 - w) + mean * w
            total_var = (total_var + (total_mean - new_mean) ** 2) * (1 - w) + (var + (mean - new_mean) ** 2) * w
            total_mean = new_mean
        if total_mean is None:
            raise ValueError("adapt() received no data (an empty dataset or iterable).")
        self.adapt_mean.assign(np.asarray(total_mean).reshape(self._stats_shape))
        self.adapt_variance.assign(np.asarray(total_var).reshape(self._stats_shape))
        self.count.assign(total_count)
        self.finalize_state()

    def call(self, inputs):
        inputs = math_ops.cast(inputs, self._dtype) if inputs.dtype != self._dtype else inputs
        mean, variance = self.mean, self.variance
        if self.input_mean is None:
            # the adapted statistics are read from their variables on every call, so weights restored after
            # adapt/build (load_model of a .keras file, load_weights, set_weights, a checkpoint) take effect
            # as Keras 3's finalize_state() after loading does
            mean = array_ops.reshape(self.adapt_mean, self._broadcast_shape)
            variance = array_ops.reshape(self.adapt_variance, self._broadcast_shape)
        std = math_ops.maximum(math_ops.sqrt(variance), backend.epsilon())
        if self.invert:
            return mean + inputs * std
        return (inputs - mean) / std

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": np.asarray(self.input_mean).tolist() if self.input_mean is not None else None,
                       "variance": np.asarray(self.input_variance).tolist() if self.input_variance is not None
                       else None})
        return config


# -- Discretization: Keras's quantile summaries ----------------------------------------------------------

def _summarize(values, epsilon):
    values = np.sort(np.reshape(values, [-1]))
    step = max(values.size / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1)::int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _compress_summary(summary, epsilon):
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_percents, summary[0])
    cum_weights = np.interp(percents, cum_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


def _merge_summaries(prev, nxt, epsilon):
    merged = np.concatenate((prev, nxt), axis=1)
    return _compress_summary(np.take(merged, np.argsort(merged[0]), axis=1), epsilon)


class Discretization(Layer):
    """Bucket values by ``bin_boundaries`` (``[-inf, b0), [b0, b1), ..., [bn, inf)``); ``adapt`` picks
    ``num_bins`` quantile boundaries with Keras's approximate-quantile summaries (tolerance ``epsilon``)."""

    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False,
                 dtype=None, **kwargs):
        if dtype is None:
            dtype = "int64" if output_mode == "int" else backend.floatx()
        super().__init__(dtype=dtype, autocast=False, **kwargs)
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError("Invalid value for argument `output_mode`. Expected one of ['int', 'one_hot', "
                             f"'multi_hot', 'count']. Received: output_mode={output_mode}")
        if sparse:
            raise ValueError("Discretization: `sparse=True` is not available (tfcore returns dense outputs).")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. Received: `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None and len(bin_boundaries) != num_bins - 1:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. Received: "
                             f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`")
        self.bin_boundaries = list(bin_boundaries) if bin_boundaries is not None else None
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse
        self.built = True

    def adapt(self, data, batch_size=None, steps=None):
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized with `bin_boundaries`, "
                             "use `num_bins` instead.")
        summary = np.array([[], []], dtype="float32")
        for batch in iterate_batches(data, batch_size, steps):
            summary = _merge_summaries(_summarize(np.asarray(batch).astype("float32"), self.epsilon), summary,
                                       self.epsilon)
        self.bin_boundaries = _compress_summary(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at construction time or call "
                             "`adapt(dataset)` before you can start using the `Discretization` layer.")
        x = host_array(inputs)
        indices = np.digitize(x, np.asarray(self.bin_boundaries, np.float64))
        if self.output_mode == "int":
            return convert_to_tensor(indices.astype(self._dtype.as_numpy_dtype))
        return convert_to_tensor(encode_categorical(indices, self.output_mode, len(self.bin_boundaries) + 1,
                                                    self._dtype))

    def get_config(self):
        config = super().get_config()
        config.update({"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins, "epsilon": self.epsilon,
                       "output_mode": self.output_mode, "sparse": self.sparse})
        return config


class CategoryEncoding(Layer):
    """Integer categories in ``[0, num_tokens)`` -> ``one_hot``, ``multi_hot`` or ``count`` vectors
    (``count_weights`` weights each occurrence in count mode)."""

    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of tokens is not known "
                             "beforehand, use the IntegerLookup layer instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise ValueError("CategoryEncoding: `sparse=True` is not available (tfcore returns dense outputs).")
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode
        self.sparse = sparse
        self.built = True

    def call(self, inputs, count_weights=None):
        x = host_array(inputs)
        if x.dtype.kind == "f":
            x = x.astype(np.int64)
        if x.size and (x.min() < 0 or x.max() >= self.num_tokens):
            raise ValueError(f"CategoryEncoding '{self.name}': input values must be in the range "
                             f"0 <= values < num_tokens with num_tokens={self.num_tokens}; got values in "
                             f"[{x.min()}, {x.max()}]")
        if count_weights is not None and self.output_mode != "count":
            raise ValueError("`count_weights` is not used when `output_mode` is not `'count'`. "
                             f"Received `count_weights={count_weights}`.")
        weights = host_array(count_weights) if count_weights is not None else None
        return convert_to_tensor(encode_categorical(x, self.output_mode, self.num_tokens, self._dtype,
                                                    count_weights=weights))

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if not dims:
            return TensorShape([self.num_tokens])
        if self.output_mode == "one_hot" and dims[-1] != 1:
            return TensorShape(dims + [self.num_tokens])
        return TensorShape(dims[:-1] + [self.num_tokens])

    def _output_dtype(self, input_dtype):
        return self._dtype

    def get_config(self):
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode, "sparse": self.sparse})
        return config


class Hashing(Layer):
    """Hash strings or integers into ``num_bins`` bins as TF does: FarmHash Fingerprint64 modulo the bins
    (``salt``: keyed SipHash-2-4); with ``mask_value``, that value maps to bin 0 and the rest to 1..num_bins-1."""

    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        if not isinstance(num_bins, int | np.integer) or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. "
                             f"Received: num_bins={num_bins}.")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Invalid value for argument `output_mode`. Received: output_mode={output_mode}")
        if output_mode == "int" and sparse:
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, `'multi_hot'`, or `'count'`.")
        if sparse:
            raise ValueError("Hashing: `sparse=True` is not available (tfcore returns dense outputs).")
        if salt is not None:
            if isinstance(salt, int | np.integer):
                salt = [int(salt), int(salt)]
            elif not (isinstance(salt, list | tuple) and len(salt) == 2):
                raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a "
                                 f"single integer. Received: salt={salt}.")
            salt = [int(s) for s in salt]
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = salt
        self.output_mode = output_mode
        self.sparse = sparse
        self.built = True

    def _bins(self, arr):
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mv = self.mask_value.encode("utf-8") if isinstance(self.mask_value, str) else self.mask_value
            mask = arr == mv if arr.dtype == object else arr == mv
        if arr.dtype.kind == "f":
            arr = arr.astype(np.int64)
        if arr.dtype != object:
            arr = np.vectorize(lambda v: str(int(v)).encode(), otypes=[object])(arr) if arr.size else \
                arr.astype(object)
        if self.salt is not None:
            def h(s):
                return siphash24(self.salt[0], self.salt[1], s) % bins
        else:
            def h(s):
                return fingerprint64(s) % bins
        out = np.array([h(s) for s in arr.ravel().tolist()], dtype=np.int64).reshape(arr.shape)
        if mask is not None:
            out = np.where(mask, 0, out + 1)
        return out

    def call(self, inputs):
        arr = host_array(inputs)
        if self.output_mode == "one_hot" and arr.ndim and arr.shape[-1] == 1:
            arr = arr[..., 0]
        indices = self._bins(arr)
        if self.output_mode == "int":
            return convert_to_tensor(indices, dtype=dtypes.int64)
        return convert_to_tensor(encode_categorical(indices, self.output_mode, self.num_bins, backend.floatx()))

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if self.output_mode == "int":
            return TensorShape(dims)
        return TensorShape((dims[:-1] if dims else []) + [self.num_bins])

    def _output_dtype(self, input_dtype):
        return dtypes.int64 if self.output_mode == "int" else dtypes.as_dtype(backend.floatx())

    def get_config(self):
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "salt": self.salt, "mask_value": self.mask_value,
                       "output_mode": self.output_mode, "sparse": self.sparse})
        return config
