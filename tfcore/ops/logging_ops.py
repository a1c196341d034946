"""``tf.print`` with TF's tensor formatting, and the numeric checks behind ``tf.debugging``.

Formatting follows TF's ``Tensor::SummarizeValue(print_v2=true)``: ``[1 2 3]``,
nested brackets with one newline per inner dimension, ``...`` in place of the
middle of any dimension longer than ``2 * summarize``, floats in the shortest
``%g`` form that round-trips (6 then 9 significant digits for float32, 15
then 17 for float64), booleans as ``1``/``0``.
"""

import sys

import numpy as np

from ..framework import dtypes, nest, tracing
from ..framework.tensor import Tensor

__all__ = ["print"]


def _format_float(v, np_dtype):
    v = float(v)
    if np.isnan(v):
        return "nan" if not np.signbit(v) else "-nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    short, long_ = (15, 17) if np_dtype == np.float64 else (6, 9)
    s = f"{v:.{short}g}"
    if np_dtype(float(s)) != np_dtype(v):
        s = f"{v:.{long_}g}"
    return s


def _element_formatter(a):
    kind = a.dtype.kind
    if kind == "b":
        return lambda v: "1" if v else "0"
    if kind == "f":
        ref = np.float64 if a.dtype == np.float64 else np.float32
        return lambda v: _format_float(v, ref)
    if kind == "O":
        return lambda v: '"' + (v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else str(v)) + '"'
    if kind == "c":
        return lambda v: f"({v.real:g},{v.imag:g})"
    return lambda v: str(int(v))


def format_array(a, summarize=3):
    """TF's print_v2 text for NumPy array ``a``; ``summarize`` < 0 prints every element."""
    fmt = _element_formatter(a)
    if a.ndim == 0:
        return fmt(a[()])
    if a.size == 0:
        return "[]"
    limit = a.size if summarize is None or summarize < 0 else int(summarize)
    nd = a.ndim
    out = []

    def spacing(dim):
        if dim == nd - 1:
            out.append(" ")
        else:
            out.append("\n" * (nd - dim - 1) + " " * (dim + 1))

    def rec(prefix, dim):
        if dim == nd:
            out.append(fmt(a[prefix]))
            return
        out.append("[")
        n = a.shape[dim]
        start_of_end = max(limit, n - limit)
        for i in range(min(limit, n)):
            if i > 0:
                spacing(dim)
            rec(prefix + (i,), dim + 1)
        if n > 2 * limit:
            spacing(dim)
            out.append("...")
        for i in range(start_of_end, n):
            spacing(dim)
            rec(prefix + (i,), dim + 1)
        out.append("]")

    rec((), 0)
    return "".join(out)


def _format_value(x, summarize):
    if isinstance(x, Tensor) or hasattr(x, "_tfc_read"):
        t = x if isinstance(x, Tensor) else x._tfc_read()
        a = np.asarray(t)  # an array even for rank 0 (numpy() gives a scalar there)
        if t.dtype is dtypes.string and a.ndim == 0:
            v = a[()]
            return v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else str(v)
        return format_array(a, summarize)
    if isinstance(x, np.ndarray):
        return format_array(x, summarize)
    if isinstance(x, list):
        return "[" + ", ".join(_format_value(v, summarize) for v in x) + "]"
    if isinstance(x, tuple):
        inner = ", ".join(_format_value(v, summarize) for v in x)
        return "(" + inner + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_format_value(v, summarize)}" for k, v in x.items()) + "}"
    return str(x)


def print(*inputs, **kwargs):  # noqa: A001 - TF's public name
    """``tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=' ', end='\\n')``.

    ``output_stream`` may be ``sys.stdout``/``sys.stderr`` (or any object with
    ``write``), a ``'file://path'`` string (appended to), or a logging function.
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {sorted(kwargs)}")
    if isinstance(output_stream, str) and not output_stream.startswith("file://"):
        raise ValueError(f"Unsupported output stream {output_stream!r}: use sys.stdout, sys.stderr, a "
                         "logging function or 'file://path'")
    leaves = [x._tfc_read() if hasattr(x, "_tfc_read") else x for x in nest.flatten(list(inputs))]
    slots = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]

    def emit(*tensors):
        values = list(leaves)
        for i, t in zip(slots, tensors):
            values[i] = t
        _write(nest.pack_sequence_as(list(inputs), values), output_stream, summarize, sep, end)

    # Inside tf.function this is one stateful graph node that prints on every call.
    tracing.call_python(emit, [leaves[i] for i in slots], name="PrintV2")


def _write(inputs, output_stream, summarize, sep, end):
    text = sep.join(_format_value(x, summarize) for x in inputs)
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError(f"Unsupported output stream {output_stream!r}: use sys.stdout, sys.stderr, a "
                             "logging function or 'file://path'")
        with open(output_stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text + end)
    elif hasattr(output_stream, "write"):
        output_stream.write(text + end)
        if hasattr(output_stream, "flush"):
            output_stream.flush()
    elif callable(output_stream):
        output_stream(text)  # logging.info and friends add their own newline
    else:
        raise ValueError(f"Unsupported output stream {output_stream!r}")

