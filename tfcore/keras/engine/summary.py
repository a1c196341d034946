"""``model.summary()``: the table Keras 3 (TF 2.21) prints (layer and type, output shape, params, connections)."""

import shutil

import numpy as np

from ...framework.tensor_shape import TensorShape
from .input_layer import InputLayer


def _count(weights):
    return int(sum(int(np.prod(w.shape.as_list())) for w in weights))


def _shape_text(layer):
    """The output shape column, by Keras 3's rule (``summary_utils.format_layer_shape``): the outputs of the
    layer's LAST inbound node, whichever model made it; for a layer built without a symbolic call (called on
    data, built by ``adapt`` or ``build``) the output shape of the shape it was built with; "?" when neither
    is known. An InputLayer shows its batch shape."""

    if isinstance(layer, InputLayer):
        return str(tuple(layer._batch_input_shape))
    if layer._inbound_nodes:
        return str(_shape_value(layer._inbound_nodes[-1]))
    build_shape = getattr(layer, "_build_input_shape", None)
    if build_shape is None and getattr(layer, "_input_layer", None) is not None:  # a built Sequential
        build_shape = TensorShape(layer._input_layer._batch_input_shape)
    if build_shape is None:
        return "?"
    try:
        shape = layer.compute_output_shape(build_shape)
    except (NotImplementedError, ValueError, TypeError):
        return "?"
    return str(_as_tuples(shape))


def _as_tuples(shape):
    """A TensorShape (or a structure of them) as tuples of ints/None."""
    if isinstance(shape, list | tuple) and shape and not all(d is None or isinstance(d, int) for d in shape):
        return [_as_tuples(s) for s in shape]
    return tuple(TensorShape(shape).as_list())


def _shape_value(node):
    shapes = [tuple(t.shape.as_list()) for t in node.flat_outputs]
    return shapes[0] if len(shapes) == 1 else shapes


def is_sequential_like(model):
    # Keras's own test (layer_utils.print_summary): by class name, so this module needs no Sequential.
    if type(model).__name__ == "Sequential" or not getattr(model, "_graph", None):
        return True
    graph = model._graph
    depths = {}
    for node in graph.nodes:
        depth = graph.depth_of_node[id(node)]
        depths[depth] = depths.get(depth, 0) + 1
        if len(node.keras_inputs) > 1 or len(node.flat_outputs) > 1:
            return False
    if any(c > 1 for c in depths.values()):
        return False
    return all(len([n for n in lay._inbound_nodes if id(n) in graph.node_ids()]) <= 1 for lay in graph.layers)


def _memory(weights):
    """Bytes the weights take (Keras 3's ``weight_memory_size``)."""
    return sum(int(np.prod(w.shape.as_list())) * np.dtype(w.dtype.as_numpy_dtype).itemsize for w in weights)


def readable_memory_size(size):
    """``92.00 B``, ``31.25 KB``, ... (Keras 3's ``readable_memory_size``)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _column_widths(line_length, positions):
    """Keras 3 asks rich for these widths; rich then takes the table's borders out of them, one character
    at a time from the left (``rich._ratio.ratio_reduce`` with equal ratios, Python's rounding)."""
    widths, current = [], 0
    for pos in positions:
        width = (int(pos * line_length) if pos <= 1 else int(pos)) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    excess = sum(widths) - (line_length - len(widths) - 1)
    ratio_left, out = len(widths), []
    for w in widths:
        cut = min(w, round(excess / ratio_left)) if excess > 0 else 0
        out.append(w - cut)
        excess -= cut
        ratio_left -= 1
    return out


def _wrap(text, width):
    """A cell's lines: words wrapped at ``width``, a word longer than the cell cut with an ellipsis (rich)."""
    lines, line = [], ""
    for word in str(text).split(" "):
        if len(word) > width:
            word = word[:width - 1] + "\u2026"
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


def _table(header, rows, widths, right):
    """The box-drawn table Keras 3 prints through rich (HEAVY_HEAD box, a line between rows)."""
    def rule(left, mid, right_end, fill):
        return left + mid.join(fill * w for w in widths) + right_end

    def cells(fields, bar):
        wrapped = [_wrap(f, w - 2) for f, w in zip(fields, widths)]
        height = max(len(c) for c in wrapped)
        out = []
        for i in range(height):
            parts = []
            for col, (c, w) in enumerate(zip(wrapped, widths)):
                text = c[i] if i < len(c) else ""
                parts.append(" " + (text.rjust(w - 2) if col in right else text.ljust(w - 2)) + " ")
            out.append(bar + bar.join(parts) + bar)
        return out

    lines = [rule("\u250f", "\u2533", "\u2513", "\u2501"), *cells(header, "\u2503"),
             rule("\u2521", "\u2547", "\u2529", "\u2501")]
    for i, row in enumerate(rows):
        if i:
            lines.append(rule("\u251c", "\u253c", "\u2524", "\u2500"))
        lines += cells(row, "\u2502")
    lines.append(rule("\u2514", "\u2534", "\u2518", "\u2500"))
    return lines


def print_summary(model, line_length=None, positions=None, print_fn=None, expand_nested=False,
                  show_trainable=False, layer_range=None):
    """Print the Keras 3 summary table of ``model`` (or pass the whole text to ``print_fn``, as Keras 3 does).

    The layout is Keras 3's (``keras/src/utils/summary_utils.py``): a box-drawn table 88 characters wide at
    most (108 with a "Connected to" column), narrowed to the terminal less 4, then the parameter counts
    with their memory sizes, and the optimizer's once it has built its variables.
    """
    sequential_like = is_sequential_like(model)
    graph = getattr(model, "_graph", None)
    node_ids = graph.node_ids() if graph is not None else set()

    def in_model(node):
        return id(node) in node_ids

    if sequential_like:
        default_length = 88
        positions = positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        right = {2}
    else:
        default_length = 108
        positions = positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        right = {2}
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
    line_length = line_length or min(default_length, shutil.get_terminal_size().columns - 4)
    widths = _column_widths(line_length, positions)

    rows = []
    for layer in model.layers:
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        shape = _shape_text(layer) if layer.built or layer._inbound_nodes else "?"
        fields = [f"{layer.name} ({type(layer).__name__})", shape, params]
        if not sequential_like:
            fields.append(", ".join(_connections(layer, in_model)) or "-")
        if show_trainable:
            fields.append(("Y" if layer.trainable else "N") if layer.weights else "-")
        rows.append(fields)

    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    optimizer = getattr(model, "optimizer", None)
    built = getattr(model, "_is_compiled", False) and getattr(optimizer, "built", False)
    opt_vars = list(optimizer.variables) if built else []
    total = _count(trainable) + _count(non_trainable) + _count(opt_vars)
    total_bytes = _memory(trainable) + _memory(non_trainable) + _memory(opt_vars)
    lines = [f'Model: "{model.name}"', *_table(header, rows, widths, right),
             f" Total params: {total:,} ({readable_memory_size(total_bytes)})",
             f" Trainable params: {_count(trainable):,} ({readable_memory_size(_memory(trainable))})",
             f" Non-trainable params: {_count(non_trainable):,} ({readable_memory_size(_memory(non_trainable))})"]
    if opt_vars:
        lines.append(f" Optimizer params: {_count(opt_vars):,} ({readable_memory_size(_memory(opt_vars))})")
    text = "\n".join(lines)
    if print_fn is None:
        print(text)
    else:
        print_fn(text)


def _connections(layer, in_model):
    out = []
    for node in layer._inbound_nodes:
        if not in_model(node):
            continue
        for t in node.keras_inputs:
            h = t._keras_history
            out.append(f"{h.layer.name}[{h.node_index}][{h.tensor_index}]")
    return out if out else []
