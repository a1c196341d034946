"""``model.summary()``: the table TF 2 prints (layer and type, output shape, params, connections)."""

import numpy as np


def _count(weights):
    return int(sum(int(np.prod(w.shape.as_list())) for w in weights))


def _shape_text(layer, in_model):
    """The output shape column: the recorded shape, a list for InputLayers, 'multiple' otherwise."""
    from .input_layer import InputLayer

    if isinstance(layer, InputLayer):
        return str([layer._batch_input_shape])
    nodes = [n for n in layer._inbound_nodes if in_model(n)] or layer._inbound_nodes
    if not nodes:
        return "multiple"
    shapes = {str(_shape_value(n)) for n in nodes}
    if len(shapes) != 1:
        return "multiple"
    return shapes.pop()


def _shape_value(node):
    shapes = [tuple(t.shape.as_list()) for t in node.flat_outputs]
    return shapes[0] if len(shapes) == 1 else shapes


def _print_row(fields, positions, print_fn):
    left = [str(x) for x in fields]
    while any(left):
        line = ""
        for col in range(len(left)):
            start = positions[col - 1] if col > 0 else 0
            end = positions[col]
            space = 2 if col != len(positions) - 1 else 0
            cutoff = end - start - space
            fit = left[col][:cutoff]
            candidates = [fit.find(x) + len(x) for x in ("),", "},", "],", "',") if fit.find(x) >= 0]
            if candidates:
                cutoff = min(candidates)
                fit = fit[:cutoff]
            if col == 0:
                line += " "
            line += fit + " " * space
            left[col] = left[col][cutoff:]
            line += " " * (positions[col] - len(line))
        print_fn(line)


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


def print_summary(model, line_length=None, positions=None, print_fn=None, expand_nested=False,
                  show_trainable=False, layer_range=None):
    """Print (or pass each line to ``print_fn``) the Keras summary table of ``model``."""
    print_fn = print_fn or print
    sequential_like = is_sequential_like(model)
    graph = getattr(model, "_graph", None)
    node_ids = graph.node_ids() if graph is not None else set()

    def in_model(node):
        return id(node) in node_ids

    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.33, 0.55, 0.67, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        if any(not layer.built for layer in model.layers):  # room for "0 (unbuilt)" in the last column
            line_length += 2
        positions = [int(line_length * p) for p in positions]
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        header.append("Trainable")

    layers = model.layers
    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    _print_row(header, positions, print_fn)
    print_fn("=" * line_length)
    for layer in layers:
        params = layer.count_params() if layer.built else "0 (unbuilt)"  # Keras 3's text for an unbuilt layer
        shape = _shape_text(layer, in_model) if layer.built or layer._inbound_nodes else "?"
        fields = [f"{layer.name} ({type(layer).__name__})", shape, params]
        if not sequential_like:
            fields.append(_connections(layer, in_model))
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        _print_row(fields, positions, print_fn)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    trainable = _count(model.trainable_weights)
    non_trainable = _count(model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)


def _connections(layer, in_model):
    out = []
    for node in layer._inbound_nodes:
        if not in_model(node):
            continue
        for t in node.keras_inputs:
            h = t._keras_history
            out.append(f"{h.layer.name}[{h.node_index}][{h.tensor_index}]")
    return out if out else []
