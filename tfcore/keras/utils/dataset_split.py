"""``tf.keras.utils.split_dataset``: split arrays or a tf.data.Dataset into two datasets."""

import numpy as np

from ...data.dataset_ops import DatasetV2
from ...framework import nest


def _sizes(total, left_size, right_size):
    def resolve(name, v):
        if v is None:
            return None
        if isinstance(v, float):
            if not 0 < v < 1:
                raise ValueError(f"`{name}` should be a float in (0, 1) or a positive int. Received: {name}={v}")
            return int(np.round(v * total))
        if isinstance(v, int | np.integer):
            if v <= 0:
                raise ValueError(f"`{name}` should be a float in (0, 1) or a positive int. Received: {name}={v}")
            if v > total:
                raise ValueError(f"`{name}` should be smaller than the number of samples {total}. Received: "
                                 f"{name}={v}")
            return int(v)
        raise TypeError(f"Invalid `{name}` type. Expected float or int. Received: {name} of type {type(v)}")

    left, right = resolve("left_size", left_size), resolve("right_size", right_size)
    if left is None and right is None:
        left = int(np.round(0.5 * total))
    if left is None:
        left = total - right
    elif right is None:
        right = total - left
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be at most the total number of samples "
                         f"{total}. Received: left_size={left_size}, right_size={right_size}")
    if left == 0 or right == 0:
        raise ValueError(f"Both splits must hold at least one sample; got left={left}, right={right} of {total}.")
    return left, right


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Split ``dataset`` (a NumPy array, a tuple/list/dict of arrays, or an unbatched ``tf.data.Dataset``)
    into ``(left, right)`` datasets. Sizes are fractions (float in (0, 1)) or sample counts; a missing one
    is the complement; both missing: halves. ``shuffle`` permutes samples first (``seed`` makes it repeatable)."""
    if isinstance(dataset, DatasetV2):
        samples = list(dataset.as_numpy_iterator())
        if not samples:
            raise ValueError("split_dataset: the dataset is empty.")
        columns = [np.stack(col) for col in zip(*[nest.flatten(s) for s in samples])]
        arrays = nest.pack_sequence_as(samples[0], columns)
    elif isinstance(dataset, np.ndarray | list | tuple | dict) or hasattr(dataset, "numpy"):
        arrays = nest.map_structure(lambda a: np.asarray(a.numpy() if hasattr(a, "numpy") else a),
                                    tuple(dataset) if isinstance(dataset, list) and not
                                    isinstance(dataset[0], int | float) else dataset)
    else:
        raise TypeError(f"The `dataset` argument must be a tf.data.Dataset, a NumPy array or a tuple/list/dict of "
                        f"arrays. Received: dataset={dataset} of type {type(dataset)}")
    flat = nest.flatten(arrays)
    total = len(flat[0])
    if any(len(a) != total for a in flat):
        raise ValueError(f"All arrays in `dataset` must have the same length; got {[len(a) for a in flat]}")
    left, right = _sizes(total, left_size, right_size)
    order = np.arange(total)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(order)
    left_arrays = nest.map_structure(lambda a: a[order[:left]], arrays)
    right_arrays = nest.map_structure(lambda a: a[order[left:left + right]], arrays)
    return DatasetV2.from_tensor_slices(left_arrays), DatasetV2.from_tensor_slices(right_arrays)
