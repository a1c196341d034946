"""``tf.keras.utils.text_dataset_from_directory``: ``main/<class>/*.txt`` -> a dataset of (text, label) batches."""

import os

import numpy as np

from ...data.dataset_ops import DatasetV2


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None, follow_links=False,
                    verbose=True):
    """(file paths, labels, class names) as Keras indexes a directory: class subfolders in alphanumeric order,
    files in sorted order within each, then (``shuffle``) paths and labels permuted with ``seed``.
    ``labels`` is ``"inferred"``, None, or a list/tuple of labels for the sorted files of ``directory``."""
    if not os.path.isdir(directory):
        raise ValueError(f"Expected the directory {directory!r} to exist")
    if labels == "inferred":
        subdirs = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        if class_names is not None:
            if sorted(class_names) != sorted(subdirs):
                raise ValueError(f"The `class_names` passed did not match the names of the subdirectories of the "
                                 f"target directory. Expected: {subdirs}, but received: {class_names}")
            subdirs = list(class_names)
        class_names = subdirs
    else:
        subdirs = [""]
        if class_names is not None:
            raise ValueError("You can only pass `class_names` if `labels='inferred'`.")
    paths, label_list = [], []
    for index, sub in enumerate(subdirs):
        root = os.path.join(directory, sub)
        found = []
        for dirpath, dirnames, filenames in os.walk(root, followlinks=follow_links):
            dirnames.sort()
            for f in sorted(filenames):
                if f.lower().endswith(formats):
                    found.append(os.path.join(dirpath, f))
        found.sort()
        paths.extend(found)
        label_list.extend([index] * len(found))
    if labels not in ("inferred", None):
        if len(labels) != len(paths):
            raise ValueError(f"Expected the lengths of `labels` to match the number of files in the target "
                             f"directory. len(labels) is {len(labels)} while we found {len(paths)} files in "
                             f"directory {directory}.")
        label_list = list(labels)
        class_names = [str(c) for c in sorted(set(label_list))]
    if verbose:
        if labels is None:
            print(f"Found {len(paths)} files.")
        else:
            print(f"Found {len(paths)} files belonging to {len(class_names or [])} classes.")
    label_arr = np.asarray(label_list, dtype=np.int64) if label_list else np.zeros(0, np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        rng = np.random.RandomState(seed)
        rng.shuffle(paths)
        rng = np.random.RandomState(seed)
        rng.shuffle(label_arr)
    return paths, label_arr, class_names


def training_or_validation_split(samples, labels, validation_split, subset):
    """Keras's split: the last ``int(validation_split * n)`` samples are the validation subset."""
    if not validation_split:
        return samples, labels
    n_val = int(validation_split * len(samples))
    if subset == "training":
        print(f"Using {len(samples) - n_val} files for training.")
        return samples[:len(samples) - n_val], labels[:len(samples) - n_val]
    print(f"Using {n_val} files for validation.")
    return samples[len(samples) - n_val:], labels[len(samples) - n_val:]


def check_split_arguments(validation_split, subset, shuffle, seed):
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", received: {subset}')
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, "
                         "to make sure that there is no overlap between the training and validation subset.")


def _encode_labels(labels, label_mode, num_classes):
    if label_mode == "int":
        return labels.astype(np.int32)
    if label_mode == "binary":
        return labels.astype(np.float32).reshape(-1, 1)
    return np.eye(num_classes, dtype=np.float32)[labels] if len(labels) else np.zeros((0, num_classes), np.float32)


def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, verbose=True):
    """A ``tf.data.Dataset`` of ``(texts, labels)`` batches from ``.txt`` files under ``directory``'s class
    folders (texts: ``tf.string``, truncated to ``max_length`` bytes; labels per ``label_mode``: ``"int"``,
    ``"categorical"`` (one-hot), ``"binary"`` (float, two classes) or None (texts only)). ``subset="both"``
    returns the (training, validation) pair. The dataset has a ``class_names`` attribute."""
    if labels not in ("inferred", None) and not isinstance(labels, list | tuple):
        raise ValueError("`labels` argument should be a list/tuple of integer labels, of the same size as the "
                         f"number of text files in the target directory. Received: labels={labels}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f'`label_mode` argument must be one of "int", "categorical", "binary", or None. '
                         f"Received: label_mode={label_mode}")
    if labels is None or label_mode is None:
        labels = None
        label_mode = None
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
        raise ValueError(f"`batch_size` must be a positive integer or None. Received: batch_size={batch_size}")
    check_split_arguments(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, label_arr, class_names = index_directory(directory, labels, (".txt",), class_names=class_names,
                                                    shuffle=shuffle, seed=seed, follow_links=follow_links,
                                                    verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")

    def make(sub_paths, sub_labels):
        texts = []
        for p in sub_paths:
            with open(p, "rb") as f:
                data = f.read()
            texts.append(data[:max_length] if max_length is not None else data)
        texts = np.array(texts, dtype=object)
        if label_mode is None:
            ds = DatasetV2.from_tensor_slices(texts)
        else:
            ds = DatasetV2.from_tensor_slices((texts, _encode_labels(sub_labels, label_mode, len(class_names))))
        if shuffle:
            ds = ds.shuffle(buffer_size=(batch_size or 1) * 8, seed=seed)
        if batch_size is not None:
            ds = ds.batch(batch_size)
        ds.class_names = class_names
        return ds

    if subset == "both":
        train = training_or_validation_split(paths, label_arr, validation_split, "training")
        val = training_or_validation_split(paths, label_arr, validation_split, "validation")
        return make(*train), make(*val)
    paths, label_arr = training_or_validation_split(paths, label_arr, validation_split, subset)
    return make(paths, label_arr)
