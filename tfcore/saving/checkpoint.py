"""``tf.train.Checkpoint``: save and restore the object graph of trackables in TF's format.

``save``/``write`` serialize every variable reachable from the checkpoint's children (graph.py)
into a tensor bundle (bundle.py) together with the ``TrackableObjectGraph`` proto; ``restore``/
``read`` match the stored graph to the live objects by name, starting at the root. Variables that
do not exist yet (a model not built, optimizer slots not created) are restored when they are
created (framework/deferred.py). Values restored at once are all validated (shape and dtype)
before any is assigned, so a mismatch changes nothing.
"""

import logging
import os
import weakref

import numpy as np

from ..framework import deferred, dtypes
from ..framework.errors import NotFoundError
from ..framework.variables import Variable
from . import _protos, bundle, graph, state
from .list_wrapper import ListWrapper

_log = logging.getLogger("tfcore")


class CheckpointOptions:
    """``tf.train.CheckpointOptions``. Writes are synchronous; ``enable_async`` is accepted and
    ``Checkpoint.sync()`` returns at once (every save has finished when ``save`` returns)."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False, experimental_sharding_callback=None,
                 experimental_skip_slot_variables=False):
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(enable_async or experimental_enable_async_checkpoint)
        self.experimental_enable_async_checkpoint = self.enable_async
        self.experimental_write_callbacks = list(experimental_write_callbacks or [])
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = bool(experimental_skip_slot_variables)


def _check_options(options):
    if options is not None and not isinstance(options, CheckpointOptions):
        raise TypeError(f"`options` must be a tf.train.CheckpointOptions, got {type(options).__name__}")
    return options or CheckpointOptions()


class Checkpoint:
    """Groups trackable objects, saving and restoring them (``tf.train.Checkpoint(**kwargs)``)."""

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_deps", {})
        object.__setattr__(self, "_root", None)
        object.__setattr__(self, "_save_counter", None)
        if root is not None:
            _require_trackable("root", root)
            object.__setattr__(self, "_root", root)
        for name, value in sorted(kwargs.items()):
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if type(value) is list:
            value = ListWrapper(value)  # as TF: its elements, appended later too, are tracked by index
        _require_trackable(name, value)
        if name == "save_counter":
            raise ValueError("'save_counter' is reserved by tf.train.Checkpoint")
        self._deps[name] = value
        object.__setattr__(self, name, value)
        deferred.created(self, name, value)  # a restore that ran before this attribute existed fills it

    def _tfc_checkpoint_children(self):
        out = graph.children(self._root) if self._root is not None else []
        out += list(self._deps.items())
        if self._save_counter is not None:
            out.append(("save_counter", self._save_counter))
        return out

    @property
    def save_counter(self):
        """An int64 variable counting ``save`` calls (restored with the checkpoint)."""
        if self._save_counter is None:
            object.__setattr__(self, "_save_counter", Variable(np.int64(0), trainable=False, dtype=dtypes.int64,
                                                               name="save_counter"))
        return self._save_counter

    # -- writing -------------------------------------------------------------------
    def write(self, file_prefix, options=None):
        """Write the checkpoint at exactly ``file_prefix`` (no counter, no ``checkpoint`` file)."""
        options = _check_options(options)
        file_prefix = os.fspath(file_prefix)
        g = graph.ObjectGraph(self)
        writer = bundle.BundleWriter(file_prefix)
        proto = _object_graph_proto(g, options)
        obj_graph = np.empty((), dtype=object)
        obj_graph[()] = proto.SerializeToString()
        writer.add(graph.OBJECT_GRAPH_KEY, obj_graph, dtypes.string)
        for nid, key in g.keys.items():
            if options.experimental_skip_slot_variables and g.paths[nid] is None:
                continue
            v = g.nodes[nid]
            writer.add(key, v.numpy(), v.dtype)
        for nid, (_, key) in g.tensor_attrs.items():  # a lookup table: "<key>-keys" and "<key>-values", as TF
            for suffix, (array, dtype) in g.nodes[nid]._tfc_checkpoint_tensors().items():
                writer.add(key + suffix, array, dtype)
        path = writer.write()
        for cb in options.experimental_write_callbacks:
            cb(path) if _takes_arg(cb) else cb()
        return path

    def save(self, file_prefix, options=None):
        """Write ``<file_prefix>-<save_counter>`` and record it in the directory's ``checkpoint`` file."""
        options = _check_options(options)
        counter = self.save_counter
        counter.assign_add(np.int64(1))
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}", options=options)
        state.update_state(os.path.dirname(path) or ".", path, [path])
        return path

    def sync(self):
        """Wait for pending asynchronous saves (saves are synchronous here, so there are none)."""

    # -- reading -------------------------------------------------------------------
    def restore(self, save_path, options=None):
        """Restore from ``save_path`` (a prefix as ``save`` returns); returns a load status."""
        _check_options(options)
        if save_path is None:
            return InitializationOnlyStatus()
        save_path = os.fspath(save_path)
        if os.path.isdir(save_path) and not os.path.isfile(save_path + ".index"):
            latest = state.latest_checkpoint(save_path)
            if latest is None:
                raise NotFoundError(f"Failed to find any matching files for {save_path}: it is a directory without "
                                    "checkpoints (pass a checkpoint prefix such as tf.train.latest_checkpoint(dir))")
            save_path = latest
        reader = bundle.BundleReader(save_path)
        if not reader.has(graph.OBJECT_GRAPH_KEY):
            raise ValueError(f"The checkpoint {save_path} has no object graph ({graph.OBJECT_GRAPH_KEY}); it was "
                             "written by a name-based TF1 Saver, which tf.train.Checkpoint does not read.")
        proto = _protos.trackable_object_graph().FromString(reader.read(graph.OBJECT_GRAPH_KEY).item())
        for ref in proto.nodes[0].children:
            if ref.local_name == "save_counter":
                _ = self.save_counter  # create it so that it is restored
        status = CheckpointLoadStatus(self, reader, proto, save_path)
        status._restore()
        return status

    def read(self, save_path, options=None):
        """As ``restore`` (kept for TF's API: ``read`` pairs with ``write``)."""
        return self.restore(save_path, options)


def _takes_arg(fn):
    import inspect

    try:
        return len(inspect.signature(fn).parameters) > 0
    except (TypeError, ValueError):
        return True


def _require_trackable(name, value):
    if not graph.is_trackable(value):
        raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                         f"`Trackable`), got {value!r}. If you believe this object should be trackable (i.e. it is "
                         "part of the TensorFlow Python API and manages state), please open an issue.")


def _object_graph_proto(g, options):
    proto = _protos.trackable_object_graph()()
    has_values = [False] * len(g.nodes)
    for nid in (*g.keys, *g.tensor_attrs):
        has_values[nid] = True
    # a node has values when anything below it has (children after parents in BFS order)
    for nid in range(len(g.edges) - 1, -1, -1):
        if any(has_values[c] for _, c in g.edges[nid]):
            has_values[nid] = True
    skip_slots = options.experimental_skip_slot_variables
    for nid, obj in enumerate(g.nodes):
        node = proto.nodes.add()
        if skip_slots and g.paths[nid] is None:
            continue
        for name, cid in g.edges[nid]:
            node.children.add(node_id=cid, local_name=name)
        if nid in g.keys:
            full = getattr(obj, "_keras_path", None) or (obj.name[:-2] if obj.name.endswith(":0") else obj.name)
            node.attributes.add(name=graph.VALUE, full_name=full, checkpoint_key=g.keys[nid])
        if nid in g.tensor_attrs:
            name, key = g.tensor_attrs[nid]
            node.attributes.add(name=name, checkpoint_key=key)
        if not skip_slots:
            for orig, slot_name, sid in g.slots.get(nid, ()):
                node.slot_variables.add(original_variable_node_id=orig, slot_name=slot_name, slot_variable_node_id=sid)
                has_values[nid] = True
        if hasattr(node, "has_checkpoint_values"):
            node.has_checkpoint_values.value = has_values[nid]
    return proto


class InitializationOnlyStatus:
    """What ``restore(None)`` returns: nothing is restored; the assertions fail."""

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_existing_objects_matched(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_nontrivial_match(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        return None

    def initialize_or_restore(self, session=None):
        return None


def _warn_unused(info):
    if info["quiet"]:
        return
    unused = [info["describe"](nid) for nid in info["value_nodes"] if nid not in info["matched"]]
    if unused:
        _log.warning("Value in checkpoint could not be found in the restored object: %s (call "
                     "expect_partial() on the load status to silence this)", ", ".join(unused[:20]))


class CheckpointLoadStatus:
    """The result of ``Checkpoint.restore``: assertions about what matched (TF's status object)."""

    def __init__(self, checkpoint, reader, proto, save_path):
        self._checkpoint = checkpoint
        self._reader = reader
        self._proto = proto
        self.save_path = save_path
        self._matched = {}   # checkpoint node id -> live object
        self._restored = {}  # id(live variable) -> checkpoint node id
        self._waiting_slots = {}  # original node id -> [(optimizer, slot name, slot node id)]
        self._paths = self._proto_paths()
        value_nodes = [nid for nid, n in enumerate(proto.nodes) if any(a.name == graph.VALUE for a in n.attributes)]
        self._info = {"quiet": False, "matched": self._matched, "value_nodes": value_nodes,
                      "describe": self._describe}
        weakref.finalize(self, _warn_unused, self._info)

    def _proto_paths(self):
        paths = {0: "(root)"}
        queue = [0]
        while queue:
            nid = queue.pop(0)
            for ref in self._proto.nodes[nid].children:
                if ref.node_id not in paths:
                    paths[ref.node_id] = f"{paths[nid]}.{ref.local_name}"
                    queue.append(ref.node_id)
        for nid, node in enumerate(self._proto.nodes):
            for s in node.slot_variables:
                if s.slot_variable_node_id not in paths:
                    paths[s.slot_variable_node_id] = (f"{paths.get(s.original_variable_node_id, '?')}'s "
                                                      f"{s.slot_name!r} slot in {paths.get(nid, '?')}")
        return paths

    def _describe(self, nid):
        return self._paths.get(nid, f"(node {nid})")

    def _value(self, nid):
        for a in self._proto.nodes[nid].attributes:
            if a.name == graph.VALUE:
                return a.checkpoint_key
        return None

    # -- matching ------------------------------------------------------------------
    def _restore(self):
        self._matched[0] = self._checkpoint
        self._restore_from(0, self._checkpoint)

    def _restore_from(self, start_nid, start_obj):
        """Match the checkpoint's subtree at node ``start_nid`` to ``start_obj`` and restore its values."""
        nodes = self._proto.nodes
        queue = [(start_nid, start_obj)]
        missing = {}  # node id -> [(owner, local name)]
        assignments = []
        optimizers = []
        tables = []
        while queue:
            nid, obj = queue.pop(0)
            key = self._value(nid)
            if key is not None and graph.is_variable(obj):
                assignments.append((obj, nid, key))
            elif hasattr(obj, "_tfc_checkpoint_tensors"):
                stored = [a.checkpoint_key for a in nodes[nid].attributes if a.name == obj._tfc_checkpoint_attribute]
                if stored:
                    tables.append((obj, stored[0]))
            if graph.is_optimizer(obj):
                refs = [(r.original_variable_node_id, r.slot_name, r.slot_variable_node_id)
                        for r in nodes[nid].slot_variables] + self._keras3_slot_refs(nid, obj)
                if refs:
                    optimizers.append((obj, refs))
            live = {}
            for name, child in graph.children(obj) + graph.restore_aliases(obj):
                live.setdefault(name, child)
            if graph.is_optimizer(obj) and not any(r.local_name == "_trainable_variables" for r in nodes[nid].children):
                # Keras 2.11-2.15's optimizer (tf_keras): its _variables list has no learning rate, so the
                # positions differ; its slots restore through the slot lists (_momentums/<j>) instead
                live.pop("_variables", None)
            for ref in nodes[nid].children:
                if ref.node_id in self._matched:
                    continue
                child = live.get(ref.local_name)
                if child is None:
                    missing.setdefault(ref.node_id, []).append((obj, ref.local_name))
                    continue
                self._matched[ref.node_id] = child
                queue.append((ref.node_id, child))
        # slots whose model variable and slot both exist are restored now; others wait
        for opt, refs in optimizers:
            for orig, slot_name, sid in refs:
                self._waiting_slots.setdefault(orig, []).append((opt, slot_name, sid))
        for orig, waits in list(self._waiting_slots.items()):
            var = self._matched.get(orig)
            if var is None or not graph.is_variable(var):
                continue
            for opt, slot_name, sid in waits:
                slot = _existing_slot(opt, var, slot_name)
                if slot is not None:
                    self._matched[sid] = slot
                    assignments.append((slot, sid, self._value(sid)))
                else:
                    self._expect_slot(opt, var, slot_name, sid)
        values = [(var, nid, self._checked(var, nid, key)) for var, nid, key in assignments if key is not None]
        contents = [(table, table._tfc_entries_from_checkpoint(  # validated before anything is assigned
            {suffix: self._reader.read(key + suffix) for suffix in table._tfc_checkpoint_tensors()}))
            for table, key in tables]
        for var, nid, value in values:
            _assign(var, value)
            self._restored[id(var)] = nid
        for table, entries in contents:
            table._tfc_set_entries(entries)
        for nid, owners in missing.items():
            if nid in self._matched:
                continue
            if self._value(nid) is None:
                if nodes[nid].children:  # an object attached later (``restore.listed = []``) restores its subtree
                    for owner, name in owners:
                        if not isinstance(owner, list | tuple | dict) or isinstance(owner, ListWrapper):
                            deferred.expect(owner, name, self._deferred_subtree_callback(nid))
                continue
            for owner, name in owners:
                if isinstance(owner, list | tuple | dict) and not isinstance(owner, ListWrapper):
                    continue  # plain containers gain no variables later; a ListWrapper's append announces them
                deferred.expect(owner, name, self._deferred_callback(nid))
                if graph.is_layer(owner) and graph.weight_attribute(owner, name) != name:
                    # Keras 3's "_kernel" is the layer's "kernel" (announced by add_weight and the attribute)
                    deferred.expect(owner, graph.weight_attribute(owner, name), self._deferred_callback(nid))

    def _keras3_slot_refs(self, nid, opt):
        """Keras 3's slot lists of the optimizer at node ``nid`` as slot references ``(model variable node,
        slot name, slot node)``: element ``j`` of ``_momentums`` belongs to ``_trainable_variables[j]``.
        They restore as TF 2's slot references do, into slots created later too."""
        nodes = self._proto.nodes
        named = {ref.local_name: ref.node_id for ref in nodes[nid].children}
        if "_trainable_variables" not in named:
            return []
        originals = {ref.local_name: ref.node_id for ref in nodes[named["_trainable_variables"]].children}
        refs = []
        for attr, slot_name in graph.slot_lists(opt):
            if attr not in named:
                continue
            for ref in nodes[named[attr]].children:
                orig = originals.get(ref.local_name)
                if orig is not None and self._value(ref.node_id) is not None:
                    refs.append((orig, slot_name, ref.node_id))
        return refs

    def _deferred_subtree_callback(self, nid):
        ref = weakref.ref(self)

        def fill(obj):
            status = ref()
            if status is None or nid in status._matched or not graph.is_trackable(obj):
                return
            status._matched[nid] = obj
            status._restore_from(nid, obj)

        return fill

    def _deferred_callback(self, nid):
        ref = weakref.ref(self)

        def fill(var):
            status = ref()
            if status is None or nid in status._matched or not graph.is_variable(var):
                return
            value = status._checked(var, nid, status._value(nid))
            _assign(var, value)
            status._matched[nid] = var
            status._restored[id(var)] = nid
            for opt, slot_name, sid in status._waiting_slots.get(nid, ()):
                slot = _existing_slot(opt, var, slot_name)
                if slot is not None:
                    _assign(slot, status._checked(slot, sid, status._value(sid)))
                    status._matched[sid] = slot
                    status._restored[id(slot)] = sid
                else:
                    status._expect_slot(opt, var, slot_name, sid)

        return fill

    def _expect_slot(self, opt, var, slot_name, sid):
        ref = weakref.ref(self)

        def fill(slot):
            status = ref()
            if status is None or sid in status._matched:
                return
            _assign(slot, status._checked(slot, sid, status._value(sid)))
            status._matched[sid] = slot
            status._restored[id(slot)] = sid

        deferred.expect(opt, deferred.slot_name(var, slot_name), fill)

    def _checked(self, var, nid, key):
        """The stored value for ``var``, converted to its dtype; ValueError naming both shapes if it does not fit."""
        stored_shape = tuple(self._reader.shape(key))
        shape = var.shape
        if shape.rank is not None and not shape.is_compatible_with(stored_shape):
            raise ValueError(f"Received incompatible tensor with shape {stored_shape} when attempting to restore "
                             f"variable with shape {tuple(shape.as_list())} and name {var.name} "
                             f"(checkpoint key {key!r} in {self.save_path}).")
        stored_dtype = self._reader.dtype(key)
        if stored_dtype != var.dtype:
            raise ValueError(f"Cannot restore variable {var.name} of dtype {var.dtype.name} from a value of dtype "
                             f"{stored_dtype.name} (checkpoint key {key!r} in {self.save_path}).")
        return self._reader.read(key)

    # -- TF's assertions -----------------------------------------------------------------
    def _live_unmatched(self):
        live = graph.ObjectGraph(self._checkpoint)
        matched = {id(o) for o in self._matched.values()}
        out = []
        for nid, obj in enumerate(live.nodes):
            if not (graph.is_variable(obj) or hasattr(obj, "_tfc_checkpoint_tensors")):
                continue  # as TF: only objects that hold values (layers, lists, optimizers are structure)
            if id(obj) not in matched:
                out.append(live.describe(nid) if live.paths[nid] is not None else repr(obj))
        return out

    def assert_consumed(self):
        """Every value in the checkpoint was restored and every live object got one; else AssertionError."""
        unused = [self._describe(nid) for nid in self._info["value_nodes"] if nid not in self._matched]
        if unused:
            raise AssertionError(f"Unresolved object in checkpoint {self.save_path}: {', '.join(unused)}")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Every object that exists now (variables, modules, layers, optimizers) was matched; else AssertionError."""
        unmatched = self._live_unmatched()
        if unmatched:
            raise AssertionError(f"Object not assigned a value from checkpoint {self.save_path}: "
                                 f"{', '.join(unmatched)}")
        return self

    def assert_nontrivial_match(self):
        """Something besides the root was matched; else AssertionError."""
        if len(self._matched) <= 1:
            raise AssertionError(f"Nothing except the root object matched a checkpointed value in {self.save_path}. "
                                 "Typically this means that the checkpoint does not match the Python program.")
        return self

    def expect_partial(self):
        """Silence the warning about checkpoint values that were never used."""
        self._info["quiet"] = True
        return self

    def run_restore_ops(self, session=None):
        """Restoration already happened eagerly; nothing to run."""
        return None

    def initialize_or_restore(self, session=None):
        return None


def _existing_slot(opt, var, slot_name):
    named = dict(zip(opt._slot_names, opt._slots.get(graph.var_key(var), ())))
    if slot_name == "average":
        return getattr(opt, "_ema", {}).get(graph.var_key(var))
    return named.get(slot_name)


def _assign(var, value):
    """Give ``var`` the restored value; every copy of a distributed variable gets it, whatever the scope."""
    components = getattr(var, "values", None)
    if isinstance(components, tuple | list) and components and all(
            isinstance(c, Variable) and c is not var for c in components):
        for c in components:
            c.assign(value)
        return
    var.assign(value)
