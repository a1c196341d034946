"""The object graph of trackable Python objects, named as TF's checkpoints name it.

A checkpoint stores the graph of "trackable" objects reachable from its root: variables
(leaves holding one value), ``tf.Module``\\ s (their attributes, in assignment order), Keras layers
and models, Keras optimizers, and the lists/tuples/dicts holding them (nodes whose children are
named ``"0"``, ``"1"``, ... or by key). Names follow TF 2 (Keras 2) checkpoints:

- a layer's own weights by their ``add_weight`` names (``kernel``, ``moving_mean``);
- a Sequential or functional model's layers as ``layer_with_weights-<i>`` (layers owning weights)
  and ``layer-<i>`` (every layer), then its other attributes (``optimizer`` once compiled);
- an optimizer's step counter as ``iter``, its learning rate as ``learning_rate``, and its
  slot variables (``m``, ``v``, ...) as *slot* references to the model variable they belong to,
  stored under ``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot>``.

Each object's checkpoint key is its first path in breadth-first order from the root, as TF's.
"""

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


def _layer_children(layer):
    out, names = [], {}
    for v in list(layer._trainable_weights) + list(layer._non_trainable_weights):
        name = short_name(v)
        if name in names and names[name] is not v:
            n = 1
            while f"{name}_{n}" in names:
                n += 1
            name = f"{name}_{n}"
        names[name] = v
        out.append((name, v))
    if getattr(layer, "_seq_layers", None) is not None or getattr(layer, "_graph", None) is not None:
        layers = list(layer.layers)
        with_weights = [sub for sub in layers if sub.weights]
        out += [(f"layer_with_weights-{i}", sub) for i, sub in enumerate(with_weights)]
        out += [(f"layer-{i}", sub) for i, sub in enumerate(layers)]
    skip = _LAYER_SKIP | getattr(layer, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
    out += _attribute_children(layer, skip)
    return out


def _optimizer_children(opt):
    out = [("iter", opt._iterations)]
    lr = getattr(opt, "_learning_rate", None)
    if is_variable(lr):
        out.append(("learning_rate", lr))
    clr = getattr(opt, "_current_learning_rate", None)
    if is_variable(clr):
        out.append(("current_learning_rate", clr))
    known = {id(v) for _, v in out}
    known.update(id(s) for slots in opt._slots.values() for s in slots)
    known.update(id(v) for v in getattr(opt, "_ema", {}).values())
    for v in getattr(opt, "_variables", ()):  # variables a subclass made with add_variable(_from_reference)
        if id(v) not in known:
            out.append((v.name[:-2] if v.name.endswith(":0") else v.name, v))
    return out


class _Placeholder:
    """Stands in for a Keras 3 object tfcore has no counterpart for (keeps list positions aligned)."""


class _Functional:
    """Keras 3's ``model._functional`` node: ``_operations`` lists the input layer(s), then the layers."""

    def __init__(self, model):
        if getattr(model, "_seq_layers", None) is not None:
            first = model._input_layer if model._input_layer is not None else _Placeholder()
            self.operations = [first] + list(model._seq_layers)
        else:
            self.operations = list(model.layers)

    def _tfc_checkpoint_children(self):
        return [("_operations", self.operations)]


def restore_aliases(obj):
    """Extra names under which Keras 3 (TF 2.16+) checkpoints hold an object's children, for reading them.

    Keras 3 writes ``model/_functional/_operations/<i>/_kernel``, ``optimizer/_iterations`` and
    ``optimizer/_variables/<i>`` (iterations, learning rate, then each variable's slots in build order).
    These names are only matched when restoring; tfcore writes TF 2 / Keras 2 names.
    """
    out = []
    if is_layer(obj):
        for name, child in _layer_children(obj):
            if is_variable(child) and not name.startswith("_"):
                out.append(("_" + name, child))
        if getattr(obj, "_seq_layers", None) is not None or getattr(obj, "_graph", None) is not None:
            out.append(("_functional", _Functional(obj)))
    elif is_optimizer(obj):
        out.append(("_iterations", obj._iterations))
        lr = getattr(obj, "_learning_rate", None)
        if is_variable(lr):
            out.append(("_learning_rate", lr))
            variables = [obj._iterations, lr] + [v for slots in obj._slots.values() for v in slots]
            out.append(("_variables", variables))
    return out


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
        self.slots = {}  # optimizer node id -> [(original node id, slot name, slot node id)]
        var_nodes = {var_key(obj): nid for nid, obj in enumerate(self.nodes) if is_variable(obj)}
        for oid, obj in enumerate(list(self.nodes)):
            if not is_optimizer(obj):
                continue
            opt_path = "/".join(escape(n) for n in self.paths[oid])
            refs = []
            pairs = [(k, list(zip(obj._slot_names, slots))) for k, slots in obj._slots.items()]
            pairs += [(k, [("average", v)]) for k, v in getattr(obj, "_ema", {}).items()]
            for owner_key, named in pairs:
                orig = var_nodes.get(owner_key)
                if orig is None:
                    continue  # the model variable is not part of this checkpoint
                for slot_name, slot in named:
                    sid = self.ids.get(id(slot))
                    if sid is None:
                        sid = len(self.nodes)
                        self.ids[id(slot)] = sid
                        self.nodes.append(slot)
                        self.paths.append(None)
                        self.edges.append([])
                        var_path = self.keys[orig][: -len("/.ATTRIBUTES/" + VALUE)]
                        self.keys[sid] = (f"{var_path}/.OPTIMIZER_SLOT/{opt_path}/{escape(slot_name)}"
                                          f"/.ATTRIBUTES/{VALUE}")
                    refs.append((orig, slot_name, sid))
            self.slots[oid] = refs

    def describe(self, nid):
        path = self.paths[nid]
        return "(root)" + "".join("." + p for p in path) if path is not None else f"(slot node {nid})"
