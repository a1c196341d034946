"""``Dataset.rejection_resample``: resample a dataset towards a target class distribution.

TF's algorithm (tensorflow/python/data/ops/dataset_ops.py ``_rejection_resample``): each output
element is, with probability ``m`` (the smallest ``target/initial`` ratio), the next element of the
input as is, else the next element of a second pass over the input that keeps an element of class
``c`` with probability ``(ratio[c] - m) / (max(ratio) - m)``. Without ``initial_dist`` the initial
distribution is estimated from the class counts seen so far (each element counted before it is
judged), as TF's running estimate does. Elements come out as ``(class, element)`` pairs; the output
ends when either pass ends (TF's ``stop_on_empty_dataset=True``).

The sampling runs on the host with NumPy over two iterators of the input, one per pass.
"""

import numpy as np


def acceptance_probs_with_mixing(initial, target):
    """``(acceptance per class, probability of taking the original element)`` as TF computes them."""
    initial = np.asarray(initial, np.float64)
    target = np.asarray(target, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(initial > 0, target / np.where(initial > 0, initial, 1), 0.0)
    m, top = ratio.min(), ratio.max()
    accept = (ratio - m) / (top - m) if top > m else np.zeros_like(ratio)
    return accept, float(m)


def rejection_resample(dataset, class_func, target_dist, initial_dist=None, seed=None):
    """The ``(class, element)`` dataset of ``dataset`` resampled to ``target_dist`` (see the module doc)."""
    target = np.asarray(getattr(target_dist, "numpy", lambda: target_dist)(), np.float64)
    if target.ndim != 1 or not target.size:
        raise ValueError(f"rejection_resample: target_dist must be a non-empty vector, got shape {target.shape}")
    if np.any(target < 0) or not np.isclose(target.sum(), 1.0, atol=1e-5):
        raise ValueError(f"rejection_resample: target_dist must be a probability vector, got {target.tolist()}")
    initial = None
    if initial_dist is not None:
        initial = np.asarray(getattr(initial_dist, "numpy", lambda: initial_dist)(), np.float64)
        if initial.shape != target.shape:
            raise ValueError(f"rejection_resample: initial_dist shape {initial.shape} must match target_dist "
                             f"shape {target.shape}")

    def add_class_value(*x):
        return (class_func(*x), x[0]) if len(x) == 1 else (class_func(*x), x)

    with_class = dataset.map(add_class_value)
    n_classes = target.size

    def generate():
        rng = np.random.default_rng(seed)
        original, second = iter(with_class), iter(with_class)
        counts = np.zeros(n_classes, np.int64)
        accept, p_original = (acceptance_probs_with_mixing(initial, target) if initial is not None else (None, None))

        def next_filtered():
            nonlocal accept, p_original
            while True:
                cls, element = next(second)
                c = int(cls)
                if not 0 <= c < n_classes:
                    raise ValueError(f"rejection_resample: class_func returned {c}, outside [0, {n_classes})")
                if initial is None:
                    counts[c] += 1
                    accept, p_original = acceptance_probs_with_mixing(counts / counts.sum(), target)
                if rng.uniform() < accept[c]:
                    return cls, element

        while True:
            try:
                if p_original is None:  # no estimate yet: the first element comes from the filtered pass
                    yield next_filtered()
                    continue
                if p_original >= 1.0 or (p_original > 0.0 and rng.uniform() < p_original):
                    yield next(original)
                else:
                    yield next_filtered()
            except StopIteration:
                return

    return dataset.from_generator(generate, output_signature=with_class.element_spec)  # Dataset's staticmethod
