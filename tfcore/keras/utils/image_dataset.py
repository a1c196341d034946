"""``tf.keras.utils.image_dataset_from_directory``: a labelled tf.data pipeline over an image folder tree.

Follows Keras's implementation step by step so the same arguments give the same files, labels,
splits and pixels: class sub-folders in alphanumeric order (or ``class_names``' order), files
walked recursively and sorted, a NumPy ``RandomState(seed)`` shuffle of the file list before a
``validation_split`` (so ``subset='training'`` and ``'validation'`` never overlap), then
``read_file -> decode_image -> resize`` in ``Dataset.map``. Decoding needs Pillow
(``pip install 'tfcore[images]'``).
"""

import os

import numpy as np

from ...data import AUTOTUNE, Dataset
from ...framework import dtypes
from ...io.file_io import read_file
from ...io.image_codecs import decode_image
from ...ops import array_ops, image_ops, math_ops

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")


def _check_split(validation_split, subset, shuffle, seed):
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f'`subset` must be either "training", "validation" or "both", received: {subset}')
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, to "
                         "make sure that there is no overlap between the training and validation subset.")


def _valid_files(directory, follow_links):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda x: x[0]):
        for fname in sorted(files):
            if fname.lower().endswith(ALLOWLIST_FORMATS):
                yield os.path.join(root, fname)


def index_directory(directory, labels, class_names=None, shuffle=True, seed=None, follow_links=False, verbose=True):
    """``(file_paths, labels, class_names)`` of the images under ``directory``, as Keras lists them."""
    if not os.path.isdir(directory):
        raise ValueError(f"The directory {directory!r} does not exist or is not a directory")
    if labels == "inferred":
        subdirs = [d for d in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
        if class_names is not None:
            if not set(class_names).issubset(subdirs):
                raise ValueError("The `class_names` passed did not match the names of the subdirectories of the "
                                 f"target directory. Expected: {subdirs} (or a subset of it), but received: "
                                 f"class_names={class_names}")
            subdirs = list(class_names)
    else:
        subdirs = [""]
        if class_names is not None:
            raise ValueError("When `labels=None` (no labels), argument `class_names` cannot be specified."
                             if labels is None else "When argument `labels` is specified, argument `class_names` "
                             "cannot be specified (the `class_names` will be the sorted list of labels).")
    paths, found = [], []
    for i, sub in enumerate(subdirs):
        base = os.path.join(directory, sub)
        for full in _valid_files(base, follow_links):
            rel = os.path.relpath(full, base)
            paths.append(os.path.join(directory, os.path.basename(base.rstrip(os.sep)) if sub else "", rel)
                         if sub else full)
            found.append(i)
    if labels == "inferred":
        labels = np.array(found, dtype="int32")
        class_names = subdirs
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(paths):
            raise ValueError(f"Expected the lengths of `labels` to match the number of files in the target "
                             f"directory. len(labels) is {len(labels)} while we found {len(paths)} files in directory "
                             f"{directory}.")
        class_names = [str(label) for label in sorted(set(labels))]
        labels = np.asarray(labels)
    if verbose:
        print(f"Found {len(paths)} files." if labels is None else
              f"Found {len(paths)} files belonging to {len(class_names)} classes.")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return paths, labels, class_names


def _split(samples, labels, validation_split, subset, verbose):
    if not validation_split:
        return samples, labels
    n_val = int(validation_split * len(samples))
    if subset == "training":
        if verbose:
            print(f"Using {len(samples) - n_val} files for training.")
        return samples[:-n_val], (labels[:-n_val] if labels is not None else None)
    if verbose:
        print(f"Using {n_val} files for validation.")
    return samples[-n_val:], (labels[-n_val:] if labels is not None else None)


def _smart_resize(img, size, interpolation):
    """Keras's ``smart_resize``: the largest centred crop with the target aspect ratio, then resize."""
    height, width = int(img.shape[0]), int(img.shape[1])
    th, tw = size
    crop_h = max(min(height, int(float(width * th) / tw)), 1)
    crop_w = max(min(width, int(float(height * tw) / th)), 1)
    h0, w0 = int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)
    return image_ops.resize(img[h0:h0 + crop_h, w0:w0 + crop_w, :], size, method=interpolation)


def _resize_with_pad(img, size, interpolation):
    """``tf.image.resize_with_pad``: resize keeping the aspect ratio, then pad with zeros to ``size``."""
    height, width = float(img.shape[0]), float(img.shape[1])
    th, tw = size
    ratio = max(width / tw, height / th)
    rh, rw = height / ratio, width / ratio
    resized = image_ops.resize(img, [int(np.floor(rh)), int(np.floor(rw))], method=interpolation)
    ph, pw = max(0, int(np.floor((th - rh) / 2))), max(0, int(np.floor((tw - rw) / 2)))
    return image_ops.pad_to_bounding_box(resized, ph, pw, th, tw)


def _loader(image_size, num_channels, interpolation, data_format, crop, pad):
    def load(path):
        img = decode_image(read_file(path), channels=num_channels, expand_animations=False)
        if crop:
            img = _smart_resize(img, image_size, interpolation)
        elif pad:
            img = _resize_with_pad(img, image_size, interpolation)
        else:
            img = image_ops.resize(img, image_size, method=interpolation)
        if data_format == "channels_first":
            img = array_ops.transpose(img, [2, 0, 1])
        return img

    return load


def _labels_dataset(labels, label_mode, num_classes):
    ds = Dataset.from_tensor_slices(np.asarray(labels, dtype=np.int32))
    if label_mode == "binary":
        return ds.map(lambda x: array_ops.expand_dims(math_ops.cast(x, dtypes.float32), -1))
    if label_mode == "categorical":
        return ds.map(lambda x: array_ops.one_hot(x, num_classes))
    return ds


def _paths_to_dataset(paths, labels, label_mode, num_classes, load, shuffle, buffer_size, seed):
    path_ds = Dataset.from_tensor_slices(np.array([p.encode() for p in paths], dtype=object))
    if label_mode:
        ds = Dataset.zip((path_ds, _labels_dataset(labels, label_mode, num_classes)))
    else:
        ds = path_ds
    if shuffle:
        ds = ds.shuffle(buffer_size=buffer_size or 1024, seed=seed)
    if label_mode:
        return ds.map(lambda x, y: (load(x), y), num_parallel_calls=AUTOTUNE)
    return ds.map(load, num_parallel_calls=AUTOTUNE)


def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, color_mode="rgb",
                                 batch_size=32, image_size=(256, 256), shuffle=True, seed=None, validation_split=None,
                                 subset=None, interpolation="bilinear", follow_links=False,
                                 crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, data_format=None,
                                 verbose=True):
    """``tf.keras.utils.image_dataset_from_directory``: ``(images, labels)`` batches from a folder per class.

    Images are float32 ``(batch, height, width, channels)`` resized to ``image_size`` (the dtype of
    the file's pixels for ``interpolation='nearest'``, as ``tf.image.resize``); labels are int32
    (``'int'``), one-hot float32 (``'categorical'``) or float32 ``(batch, 1)`` (``'binary'``).
    Returns one dataset with ``class_names`` and ``file_paths`` attributes, or a
    ``(training, validation)`` pair for ``subset='both'``.
    """
    if labels not in ("inferred", None):
        if not isinstance(labels, list | tuple):
            raise ValueError("`labels` argument should be a list/tuple of integer labels, of the same size as the "
                             "number of image files in the target directory. If you wish to infer the labels from "
                             "the subdirectory names in the target directory, pass `labels=\"inferred\"`. If you "
                             f"wish to get a dataset that only contains images (no labels), pass `labels=None`. "
                             f"Received: labels={labels}")
        if class_names:
            raise ValueError(f'You can only pass `class_names` if `labels="inferred"`. Received: labels={labels}, '
                             f"and class_names={class_names}")
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError(f'`label_mode` argument must be one of "int", "categorical", "binary", or None. '
                         f"Received: label_mode={label_mode}")
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError(f'`color_mode` must be one of {{"rgb", "rgba", "grayscale"}}. Received: '
                         f"color_mode={color_mode}")
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, list | tuple) or len(image_size) != 2:
        raise ValueError(f"Invalid `image_size` value. Expected a tuple of 2 integers. Received: "
                         f"image_size={image_size}")
    image_size = (int(image_size[0]), int(image_size[1]))
    interpolation = interpolation.lower()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation` should be one of {_INTERPOLATIONS}. Received: "
                         f"interpolation={interpolation}")
    try:  # fail now, not at the first element, when tf.image.resize lacks the method
        image_ops.resize(np.zeros((2, 2, 1), np.float32), [1, 1], method=interpolation)
    except NotImplementedError as e:
        raise ValueError(f"interpolation={interpolation!r} is not available: {e}") from None
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`.")
    if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"`batch_size` must be a positive integer or None, received: {batch_size}")
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"`data_format` must be 'channels_last' or 'channels_first', received: {data_format}")
    _check_split(validation_split, subset, shuffle, seed)
    directory = os.fspath(directory)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(directory, labels, class_names=class_names, shuffle=shuffle,
                                                 seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f'When passing `label_mode="binary"`, there must be exactly 2 class_names. Received: '
                         f"class_names={class_names}")
    load = _loader(image_size, channels, interpolation, data_format, crop_to_aspect_ratio, pad_to_aspect_ratio)
    buffer = batch_size * 8 if batch_size is not None else 1024
    num_classes = len(class_names) if class_names else 0

    def build(subset_name, shuffle_it):
        p, lab = _split(paths, labels, validation_split, subset_name, verbose)
        if not p:
            raise ValueError(f"No {'' if subset_name is None else subset_name + ' '}images found in directory "
                             f"{directory}. Allowed formats: {ALLOWLIST_FORMATS}")
        ds = _paths_to_dataset(p, lab, label_mode, num_classes, load, shuffle_it, buffer, seed)
        if batch_size is not None:
            ds = ds.batch(batch_size)
        ds = ds.prefetch(AUTOTUNE)
        ds.class_names = class_names
        ds.file_paths = p
        return ds

    if subset == "both":
        return build("training", shuffle), build("validation", False)
    return build(subset, shuffle)
