"""tfcore's Keras weights file: a NumPy ``.npz`` archive read with ``allow_pickle=False``.

Layout (format version 1), written by ``model.save_weights(path)`` at exactly ``path``
(whatever its extension):

- ``__format__``: the string ``"tfcore-keras-weights"``; ``__version__``: ``1``;
- ``__names__``: a string array, each weight's path below the model (``block/dense/kernel``), layer by
  layer in structure order (a layer's own weights, then its sublayers'; not affected by ``trainable``);
- ``__dtypes__``: a string array, each weight's dtype name (bfloat16 is stored as its uint16 bits);
- ``w00000``, ``w00001``, ...: one array per weight, in the same order.

``load_weights`` matches weights by position (default, as Keras HDF5 files) or by name
(``by_name=True``), checks every count and shape before assigning anything, and names
the offending weight and both shapes when something does not fit. Nothing in the file
is executable: no pickle, no code.
"""

import os

import numpy as np

from ...framework import dtypes
from ...io import atomic_files

FORMAT = "tfcore-keras-weights"
VERSION = 1


def weight_paths(model):
    """(path, variable) for every weight, layer by layer in structure order, independent of ``trainable``.

    A path is the chain of layer names below the model plus the weight's short name
    (``block/dense/kernel``), so files do not depend on how the model instance was named.
    """
    out, seen = [], set()

    def visit(layer, prefix):
        for v in layer._trainable_weights + layer._non_trainable_weights:
            if id(v) not in seen:
                seen.add(id(v))
                short = v.name.split("/")[-1].split(":")[0]
                out.append((prefix + short, v))
        for child in layer._sublayers():
            visit(child, f"{prefix}{child.name}/")

    visit(model, "")
    return out


def save_weights(model, filepath, overwrite=True):
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} already exists and overwrite=False")
    paths = weight_paths(model)
    weights = [v for _, v in paths]
    arrays = {}
    for i, w in enumerate(weights):
        a = w.numpy()
        if w.dtype.name == "bfloat16":
            a = a.view(np.uint16)
        arrays[f"w{i:05d}"] = a
    # the old file or the new one is at filepath whenever the writer dies
    with atomic_files.replace_file(filepath) as tmp, open(tmp, "wb") as f:
        np.savez(f, __format__=np.array(FORMAT), __version__=np.array(VERSION),
                 __names__=np.array([p for p, _ in paths], dtype=str),
                 __dtypes__=np.array([w.dtype.name for w in weights], dtype=str), **arrays)


def read_weights_file(filepath):
    """(names, arrays) stored in a tfcore weights file; ValueError if it is not one."""
    filepath = os.fspath(filepath)
    atomic_files.clean_stale(filepath)  # temporaries a killed save left
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"Unable to load weights: no file at {filepath!r}")
    try:
        with np.load(filepath, allow_pickle=False) as data:
            if "__format__" not in data.files or str(data["__format__"]) != FORMAT:
                raise ValueError("missing format marker")
            version = int(data["__version__"])
            if version > VERSION:
                raise ValueError(f"Weights file {filepath!r} has format version {version}; this tfcore reads "
                                 f"up to {VERSION}.")
            names = [str(n) for n in data["__names__"]]
            dts = [str(d) for d in data["__dtypes__"]]
            arrays = []
            for i, dt in enumerate(dts):
                a = data[f"w{i:05d}"]
                if dt == "bfloat16":
                    a = a.view(dtypes.bfloat16.as_numpy_dtype)
                arrays.append(a)
    except (OSError, KeyError, ValueError) as e:
        if "format version" in str(e):
            raise
        raise ValueError(f"{filepath!r} is not a tfcore Keras weights file (a .npz written by "
                         f"model.save_weights): {e}. HDF5 and TF checkpoint files are not supported.") from e
    return names, arrays


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    names, arrays = read_weights_file(filepath)
    paths = weight_paths(model)
    weights = [v for _, v in paths]
    if not model.built or (not weights and arrays):
        raise ValueError(f"Unable to load weights into model {model.name!r}: it has not created its weights yet. "
                         "Call the model on a batch of data or `build()` it first, then load the weights.")
    pairs = []
    if by_name:
        index = {n: i for i, n in enumerate(names)}
        for path, w in paths:
            i = index.get(path)
            if i is None:
                continue
            pairs.append((w, i))
    else:
        if len(weights) != len(arrays):
            raise ValueError(f"Weight count mismatch: the file {os.fspath(filepath)!r} holds {len(arrays)} weights, "
                             f"model {model.name!r} has {len(weights)}.")
        pairs = [(w, i) for i, w in enumerate(weights)]
    checked = []
    for w, i in pairs:
        a = arrays[i]
        expected = tuple(w.shape.as_list())
        if tuple(a.shape) != expected:
            if skip_mismatch:
                continue
            raise ValueError(f"Shape mismatch for weight {w.name} (stored as {names[i]!r}): the model expects "
                             f"{expected}, the file holds {tuple(a.shape)}.")
        checked.append((w, a))
    for w, a in checked:
        w.assign(a.astype(w.dtype.as_numpy_dtype, copy=False))
    return None
