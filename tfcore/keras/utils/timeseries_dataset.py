"""``tf.keras.utils.timeseries_dataset_from_array``: sliding windows over a time series as a tf.data.Dataset."""

import numpy as np

from ...data.dataset_ops import DatasetV2


def _positive_int(name, value, allow_none=False):
    if value is None and allow_none:
        return
    if not isinstance(value, int | np.integer) or value <= 0:
        raise ValueError(f"`{name}` must be a positive integer. Received: {name}={value}")


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1,
                                  batch_size=128, shuffle=False, seed=None, start_index=None, end_index=None):
    """Windows ``data[i], data[i + r], ..., data[i + (sequence_length - 1) * r]`` (``r = sampling_rate``) for
    start positions ``i = 0, sequence_stride, ...`` within ``[start_index, end_index)``; each window's target
    is ``targets[i]`` (relative to ``start_index``). Windows are batched by ``batch_size`` (None: unbatched)
    and, with ``shuffle``, visited in a seeded random order (as Keras)."""
    _positive_int("sequence_length", sequence_length)
    _positive_int("sequence_stride", sequence_stride)
    _positive_int("sampling_rate", sampling_rate)
    _positive_int("batch_size", batch_size, allow_none=True)
    data = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
    if start_index is not None and (start_index < 0 or start_index >= len(data)):
        raise ValueError(f"`start_index` must be 0 <= start_index < {len(data)}. Received: start_index={start_index}")
    if end_index is not None and (end_index <= 0 or end_index > len(data)):
        raise ValueError(f"`end_index` must be 0 < end_index <= {len(data)}. Received: end_index={end_index}")
    start = 0 if start_index is None else int(start_index)
    end = len(data) if end_index is None else int(end_index)
    if start >= end:
        raise ValueError(f"`start_index` ({start}) must be lower than `end_index` ({end}).")
    num_seqs = end - start - (sequence_length - 1) * sampling_rate
    if targets is not None:
        targets = np.asarray(targets.numpy() if hasattr(targets, "numpy") else targets)
        num_seqs = min(num_seqs, len(targets))
    if num_seqs < 1:
        num_seqs = 0
    positions = np.arange(0, num_seqs, sequence_stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(positions)
    steps = np.arange(sequence_length, dtype=np.int64) * sampling_rate
    window = data[start:end]
    windows = window[positions[:, None] + steps[None, :]] if len(positions) else \
        np.zeros((0, sequence_length) + data.shape[1:], data.dtype)
    if targets is not None:
        ds = DatasetV2.from_tensor_slices((windows, targets[start:end][positions] if len(positions) else
                                           targets[:0]))
    else:
        ds = DatasetV2.from_tensor_slices(windows)
    if batch_size is not None:
        ds = ds.batch(batch_size)
    return ds
