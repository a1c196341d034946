"""``keras.utils.get_source_inputs``, ``standardize_dtype`` and ``plot_model`` / ``model_to_dot``."""

import os

from ..backend import floatx

ALLOWED_DTYPES = ("float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                  "int64", "bfloat16", "bool", "string", "float8_e4m3fn", "float8_e5m2", "complex64", "complex128")
PYTHON_DTYPES_MAP = {bool: "bool", int: "int64", float: "float32", str: "string", "int": "int64"}


def standardize_dtype(dtype):
    """The canonical dtype name Keras uses: ``None`` is ``floatx()``; Python ``int``/``float``/``bool``/``str``,
    NumPy dtypes and scalar types, and ``tf.DType`` objects become their names; anything else is refused."""
    if dtype is None:
        return floatx()
    dtype = PYTHON_DTYPES_MAP.get(dtype, dtype) if isinstance(dtype, type | str) else dtype
    if hasattr(dtype, "name") and isinstance(dtype.name, str):
        dtype = dtype.name
    elif hasattr(dtype, "__name__"):
        dtype = dtype.__name__
    if dtype not in ALLOWED_DTYPES:
        raise ValueError(f"Invalid dtype: {dtype}")
    return dtype


def get_source_inputs(tensor, layer=None, node_index=None):
    """The list of Input tensors ``tensor`` was computed from (a non-Keras tensor is returned as given)."""
    if not hasattr(tensor, "_keras_history"):
        return tensor
    node = getattr(tensor, "node", None)
    if node is None:
        return [tensor]
    if node.is_input:
        return list(node.flat_outputs)
    sources = []
    for t in node.keras_inputs:
        for s in get_source_inputs(t):
            if all(s is not x for x in sources):
                sources.append(s)
    return sources


def _pydot():
    try:
        import pydot
    except ImportError:
        return None
    return pydot


def _check_pydot():
    pydot = _pydot()
    if pydot is None:
        raise ImportError("You must install pydot (`pip install pydot`) for `plot_model` to work.")
    try:  # pydot needs the graphviz `dot` binary to render
        pydot.Dot.create(pydot.Dot())
    except (OSError, FileNotFoundError) as e:
        raise ImportError("You must install graphviz and make sure its `dot` executable is on the PATH for "
                          "`plot_model` to work.") from e
    return pydot


def _layer_label(layer, show_shapes, show_dtype, show_layer_names, show_layer_activations, show_trainable):
    label = f"{layer.name} ({type(layer).__name__})" if show_layer_names else type(layer).__name__
    if show_layer_activations and getattr(layer, "activation", None) is not None:
        label += f"\\nactivation: {getattr(layer.activation, '__name__', layer.activation)}"
    if show_dtype:
        label += f"\\ndtype: {getattr(layer, 'dtype', None)}"
    if show_shapes:
        try:
            out_shape = layer.output_shape
        except (AttributeError, RuntimeError, ValueError):
            out_shape = "?"
        label += f"\\noutput: {out_shape}"
    if show_trainable:
        label += f"\\ntrainable: {'T' if layer.trainable else 'F'}"
    return label


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB", expand_nested=False,
                 dpi=200, subgraph=False, show_layer_activations=False, show_trainable=False, **kwargs):
    """A ``pydot.Dot`` graph of ``model``: one node per layer, one edge per connection between layers.

    Needs pydot and graphviz (ImportError otherwise, as in Keras)."""
    pydot = _check_pydot()
    dot = pydot.Dot()
    dot.set("rankdir", rankdir)
    dot.set("concentrate", True)
    dot.set("dpi", dpi)
    dot.set_node_defaults(shape="record")
    layers = list(model.layers)
    for layer in layers:
        label = _layer_label(layer, show_shapes, show_dtype, show_layer_names, show_layer_activations,
                             show_trainable)
        dot.add_node(pydot.Node(str(id(layer)), label=label))
    known = {id(layer) for layer in layers}
    for layer, previous in _edges(model, layers):
        if id(layer) in known and id(previous) in known:
            dot.add_edge(pydot.Edge(str(id(previous)), str(id(layer))))
    return dot


def _edges(model, layers):
    """(layer, inbound layer) pairs: functional models from their nodes, Sequential models in order."""
    pairs = []
    nodes_found = False
    for layer in layers:
        for node in getattr(layer, "_inbound_nodes", []) or []:
            for parent in getattr(node, "parent_nodes", []):
                nodes_found = True
                pairs.append((layer, parent.layer))
    if not nodes_found:
        pairs = list(zip(layers[1:], layers[:-1], strict=False))
    return pairs


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=True,
               rankdir="TB", expand_nested=False, dpi=200, show_layer_activations=False, show_trainable=False,
               **kwargs):
    """Render :func:`model_to_dot`'s graph to ``to_file`` (the format from its extension; default png)."""
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype, show_layer_names=show_layer_names,
                       rankdir=rankdir, expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable)
    to_file = str(to_file)
    _, extension = os.path.splitext(to_file)
    extension = extension[1:] if extension else "png"
    dot.write(to_file, format=extension)
    return None
