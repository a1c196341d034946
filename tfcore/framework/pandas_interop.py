"""Recognising pandas DataFrames and Series without importing pandas.

TF and Keras accept a DataFrame or Series wherever they accept an array (``tf.convert_to_tensor``,
``Dataset.from_tensor_slices``, a layer call, ``Model.fit``/``evaluate``/``predict``). The base install
does not need pandas: a value can only be a pandas object when pandas is already imported, so the
check looks in ``sys.modules`` and never imports it.
"""

import sys

import numpy as np


def is_pandas(value):
    """True for a ``pandas.DataFrame`` or ``pandas.Series`` (False, cheaply, when pandas is not loaded)."""
    pd = sys.modules.get("pandas")
    if pd is None:
        return False
    return isinstance(value, pd.DataFrame | pd.Series)


def is_dataframe(value):
    """True for a ``pandas.DataFrame``."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(value, pd.DataFrame)


def to_numpy(value):
    """The NumPy array of a DataFrame (NumPy's common dtype of its columns, as ``np.asarray`` gives)
    or of a Series (its dtype; text columns are object arrays, which become ``tf.string``)."""
    return np.asarray(value)


def to_model_input_numpy(value):
    """The NumPy array ``Model.fit``/``evaluate``/``predict`` read from a DataFrame or Series.

    As Keras 3's array adapter does, a Series (one column) becomes a ``(n, 1)`` column, so that
    ``dict(df)`` feeds ``keras.Input(shape=(1,))`` inputs, and a DataFrame its ``(n, columns)`` values.
    """
    if is_dataframe(value):
        return value.to_numpy()
    return np.expand_dims(value.to_numpy(), axis=-1)
