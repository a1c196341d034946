"""The object graph of trackable Python objects, named as TF's checkpoints name it.

A checkpoint stores the graph of "trackable" objects reachable from its root: variables
(leaves holding one value), ``tf.Module``\\ s (their attributes, in assignment order), Keras layers
and models, Keras optimizers, and the lists/tuples/dicts holding them (nodes whose children are
named ``"0"``, ``"1"``, ... or by key). Keras objects are named as TF 2.16+ (Keras 3) writes them,
so that TF 2.21 restores tfcore's checkpoints and the other way round:

- a layer's own weights by the attribute Keras 3 keeps them in (``_kernel`` for Dense, Conv and
  EinsumDense, ``_embeddings``, ``gamma``; a layer class lists its renames in
  ``_keras3_weight_attributes``), its sublayers and variables by attribute;
- a Sequential model's layers as ``_functional/_operations/<i>`` (``0`` is the input layer), a
  functional model's as ``_operations/<i>``, after its other attributes (``optimizer`` once compiled);
- an optimizer's ``_variables`` list (iterations, learning rate, then the slots in Keras 3's creation
  order), ``_trainable_variables`` (the model variables it built slots for), ``_iterations``,
  ``_learning_rate`` and one list per slot kind (``_momentums``, ``_velocities``: the optimizer
  class's ``_keras3_slot_lists``). Keras 3 writes no slot references (``.OPTIMIZER_SLOT``).

Checkpoints in the Keras 2 layout (tfcore before this layout, TF <= 2.15, tf_keras:
``layer_with_weights-<i>``, ``kernel``, ``iter``, slots under ``.OPTIMIZER_SLOT``) are still read:
``restore_aliases`` gives those names. Plain ``tf.Module``/``tf.Variable`` checkpoints are as TF writes them.

Each object's checkpoint key is its first path in breadth-first order from the root, as TF's.
"""

import weakref

from ..framework.tensor import Tensor
from ..framework.variables import Variable
from ..module import Module

VALUE = "VARIABLE_VALUE"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"

# Layer attributes that are bookkeeping or represented otherwise (weights by name, layers as layer-<i>)
_LAYER_SKIP = frozenset({
    "_weights_cache", "_layers_cache", "_inbound_nodes", "_outbound_nodes", "_trainable_weights",
    "_non_trainable_weights", "_eager_losses", "_callable_losses", "_build_input_shape", "_input_spec",
    "compiled_loss", "compiled_metrics", "history", "_metrics", "_graph", "_nodes_by_depth", "_input_layers",
    "_output_layers", "stop_training", "_training_state", "_ordered_layers", "_seq_layers", "_input_layer",
    "_output_tensor", "inputs", "outputs", "input_layers", "output_layers", "nodes", "layers",
    "inputs_structure", "outputs_structure", "_distribution_strategy", "_name", "_scope_name",
})
_MODULE_SKIP = frozenset({"_name", "_scope_name"})


def is_variable(obj):
    return isinstance(obj, Variable)


def is_optimizer(obj):
    return hasattr(obj, "_slot_names") and hasattr(obj, "_slots") and hasattr(obj, "_iterations")


def is_layer(obj):
    return isinstance(obj, Module) and hasattr(obj, "_trainable_weights") and hasattr(obj, "_sublayers")


def is_trackable(obj):
    """Objects a checkpoint can hold (containers count when they hold one)."""
    if is_variable(obj) or isinstance(obj, Module) or is_optimizer(obj) or hasattr(obj, "_tfc_checkpoint_children"):
        return True
    return _container_has_trackable(obj, 0)


def _container_has_trackable(obj, depth):
    if depth > 20:
        return False
    if isinstance(obj, dict):
        return any(is_variable(v) or isinstance(v, Module) or is_optimizer(v) or _container_has_trackable(v, depth + 1)
                   for v in obj.values())
    if isinstance(obj, list | tuple):
        return any(is_variable(v) or isinstance(v, Module) or is_optimizer(v) or _container_has_trackable(v, depth + 1)
                   for v in obj)
    return False


def short_name(var):
    name = getattr(var, "name", None) or "Variable"
    return name.split("/")[-1].split(":")[0]


def _attribute_children(obj, skip):
    out = []
    for key, value in vars(obj).items():
        if key in skip or isinstance(value, str | bytes | int | float | bool | type(None) | Tensor):
            continue
        if is_trackable(value) and value is not obj:
            out.append((key, value))
    return out


def _is_model_with_layers(layer):
    return getattr(layer, "_seq_layers", None) is not None or getattr(layer, "_graph", None) is not None


def own_weights(layer):
    """``[(Keras 3 name, variable)]`` of a layer's own weights: the attribute holding it, renamed as
    Keras 3 names it (``kernel`` -> ``_kernel``), else its ``add_weight`` name; unique per layer."""
    renames = getattr(layer, "_keras3_weight_attributes", {})
    attribute = {}
    for key, value in vars(layer).items():
        if is_variable(value):
            attribute.setdefault(id(value), key)
    out, names = [], {}
    for v in list(layer._trainable_weights) + list(layer._non_trainable_weights):
        name = attribute.get(id(v)) or short_name(v)
        name = renames.get(name, name)
        if name in names and names[name] is not v:
            n = 1
            while f"{name}_{n}" in names:
                n += 1
            name = f"{name}_{n}"
        names[name] = v
        out.append((name, v))
    return out


def _layer_children(layer):
    out = own_weights(layer)
    if getattr(layer, "_graph", None) is not None and getattr(layer, "_seq_layers", None) is None:
        out.append(("_operations", list(layer.layers)))  # a functional model's, set before compile adds an optimizer
    seen = {id(v) for _, v in out}
    skip = _LAYER_SKIP | getattr(layer, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    out += [(k, v) for k, v in _attribute_children(layer, skip) if id(v) not in seen]
    if getattr(layer, "_seq_layers", None) is not None:
        out.append(("_functional", functional_node(layer)))  # a Sequential's, made when it is built
    return out


def slot_lists(opt):
    """``[(Keras 3 attribute, tfcore slot name)]`` of an optimizer's slot kinds, in Keras 3's creation order
    (a slot kind the class does not map keeps its own name)."""
    names = tuple(opt._slot_names)
    out, listed = [], set()
    for group in getattr(opt, "_keras3_slot_lists", ()):
        for slot, attr in group:
            if slot in names:
                out.append((attr, slot))
                listed.add(slot)
    out += [(slot, slot) for slot in names if slot not in listed]
    return out


def _slot_order(opt):
    """The slot variables in Keras 3's creation order: per ``add_optimizer_variables`` call, interleaved
    per model variable."""
    names = list(opt._slot_names)
    keys = list(opt._slots)
    return [opt._slots[k][names.index(s)] for g in opt.keras3_slot_groups() for k in keys for s in g]


def _optimizer_children(opt):
    it = opt._iterations
    lr = getattr(opt, "_learning_rate", None)
    lr = lr if is_variable(lr) else None
    keys = list(opt._slots)
    ema = getattr(opt, "_ema", {})
    averages = [ema[k] for k in keys if k in ema]
    slots = _slot_order(opt)
    known = {id(v) for v in [it, lr, *averages, *slots] if v is not None}
    # variables a subclass made with add_variable(_from_reference) keep their place after these
    extra = [v for v in getattr(opt, "_variables", ()) if id(v) not in known]
    variables = [it] + ([lr] if lr is not None else []) + averages + slots + extra
    out = [("_variables", variables), ("_trainable_variables", list(getattr(opt, "_trainable_variables", ()))),
           ("_iterations", it)]
    if lr is not None:
        out.append(("_learning_rate", lr))
    if averages:
        out.append(("_model_variables_moving_average", averages))
    names = list(opt._slot_names)
    for attr, slot in slot_lists(opt):
        out.append((attr, [opt._slots[k][names.index(slot)] for k in keys]))
    named = {id(v) for _, v in out if is_variable(v)}
    for key, value in vars(opt).items():  # a subclass's own variables and nested optimizers, by attribute
        if key in _OPTIMIZER_SKIP or id(value) in named or value is opt:
            continue
        if is_variable(value) or is_optimizer(value):
            out.append((key, value))
    return out


_OPTIMIZER_SKIP = frozenset({"_iterations", "_learning_rate", "_current_learning_rate", "_variables",
                             "_trainable_variables", "_slots", "_ema"})


class _Placeholder:
    """Stands in for a Keras 3 object tfcore has no counterpart for (keeps list positions aligned)."""


class _Functional:
    """Keras 3's ``model._functional`` node of a Sequential: ``_operations`` lists the input layer, then the layers.

    One per model (``functional_node``), so that a restore's matches stay the live graph's nodes."""

    def __init__(self, model):
        self._model = weakref.ref(model)

    def _tfc_checkpoint_children(self):
        model = self._model()
        if model is None:
            return []
        first = model._input_layer if model._input_layer is not None else _Placeholder()
        return [("_operations", [first] + list(model._seq_layers))]


_functional_nodes = weakref.WeakKeyDictionary()


def functional_node(model):
    node = _functional_nodes.get(model)
    if node is None:
        node = _functional_nodes[model] = _Functional(model)
    return node


def restore_aliases(obj):
    """Other names under which checkpoints hold an object's children, matched only when restoring.

    The Keras 2 layout (tfcore before Keras 3's, TF <= 2.15, tf_keras): a layer's weights by their
    ``add_weight`` names (``kernel``), a model's layers as ``layer_with_weights-<i>`` and ``layer-<i>``, an
    optimizer's ``iter``/``learning_rate`` (its slots are the checkpoint's slot references).
    """
    out = []
    if is_layer(obj):
        for name, child in own_weights(obj):
            if short_name(child) != name:
                out.append((short_name(child), child))
        if _is_model_with_layers(obj):
            layers = list(obj.layers)
            with_weights = [sub for sub in layers if sub.weights]
            out += [(f"layer_with_weights-{i}", sub) for i, sub in enumerate(with_weights)]
            out += [(f"layer-{i}", sub) for i, sub in enumerate(layers)]
    elif is_optimizer(obj):
        out.append(("iter", obj._iterations))
        for attr, name in (("_learning_rate", "learning_rate"), ("_current_learning_rate", "current_learning_rate")):
            if is_variable(getattr(obj, attr, None)):
                out.append((name, getattr(obj, attr)))
    return out


def weight_attribute(layer, checkpoint_name):
    """The name a layer announces (``deferred.created``) for the weight a checkpoint names ``checkpoint_name``."""
    for attr, renamed in getattr(layer, "_keras3_weight_attributes", {}).items():
        if renamed == checkpoint_name:
            return attr
    return checkpoint_name[1:] if checkpoint_name.startswith("_") else checkpoint_name


def children(obj):
    """``[(local name, child)]`` of one trackable, in TF's order."""
    hook = getattr(obj, "_tfc_checkpoint_children", None)
    if hook is not None:
        return hook()
    if is_variable(obj):
        return []
    if is_optimizer(obj):
        return _optimizer_children(obj)
    if is_layer(obj):
        return _layer_children(obj)
    if isinstance(obj, Module):
        return _attribute_children(obj, _MODULE_SKIP | obj._TF_MODULE_IGNORED_PROPERTIES)
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items() if is_trackable(v)]
    if isinstance(obj, list | tuple):
        return [(str(i), v) for i, v in enumerate(obj) if is_trackable(v)]
    return []


def escape(name):
    return name.replace(".", "..").replace("/", ".S")


def var_key(var):
    uid = getattr(var, "_uid", None)
    return uid if uid is not None else id(var)


class ObjectGraph:
    """The breadth-first numbering of the objects reachable from ``root``, with their paths."""

    def __init__(self, root):
        self.nodes = [root]
        self.ids = {id(root): 0}
        self.paths = [[]]
        self.edges = []
        i = 0
        while i < len(self.nodes):
            kids = []
            for name, child in children(self.nodes[i]):
                cid = self.ids.get(id(child))
                if cid is None:
                    cid = len(self.nodes)
                    self.ids[id(child)] = cid
                    self.nodes.append(child)
                    self.paths.append(self.paths[i] + [name])
                kids.append((name, cid))
            self.edges.append(kids)
            i += 1
        self.keys = {}
        self.tensor_attrs = {}  # node id -> (attribute name, checkpoint key) of objects saved as several tensors
        for nid, obj in enumerate(self.nodes):
            if is_variable(obj):
                self.keys[nid] = "/".join(escape(n) for n in self.paths[nid]) + "/.ATTRIBUTES/" + VALUE
            elif hasattr(obj, "_tfc_checkpoint_tensors"):
                name = obj._tfc_checkpoint_attribute
                self.tensor_attrs[nid] = (name, "/".join(escape(n) for n in self.paths[nid]) + "/.ATTRIBUTES/" + name)
        self.slots = {}  # optimizer node id -> slot references; Keras 3's optimizers list their slots as children

    def describe(self, nid):
        path = self.paths[nid]
        return "(root)" + "".join("." + p for p in path) if path is not None else f"(slot node {nid})"
