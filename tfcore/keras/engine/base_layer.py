"""``tf.keras.layers.Layer``: the base of every layer, model and metric.

A layer owns weights (created with :meth:`Layer.add_weight`, usually in
:meth:`Layer.build`, which runs on the first call with the input's shape) and
computes in :meth:`Layer.call`. ``__call__`` adds what Keras adds around ``call``:
converting NumPy/Python inputs, casting floating inputs to the layer's dtype,
building, passing ``training`` down to nested layers, activity regularisation and
loss bookkeeping. Called on symbolic ``KerasTensor``s (functional API) it records a
:class:`~tfcore.keras.engine.node.Node` and returns symbolic outputs instead.

Sublayers and variables are found through attributes (in assignment order, inside
lists/tuples/dicts too), so subclassed layers and models need no registration.
"""

import contextlib
import inspect
import threading

import numpy as np

from ...framework import deferred, dtypes, nest
from ...framework.context import name_scope as _name_scope
from ...framework.pandas_interop import is_pandas
from ...framework.pandas_interop import to_numpy as pandas_to_numpy
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.tensor_spec import TensorSpec
from ...framework.variables import Variable, VariableAggregation, VariableSynchronization
from ...module import Module, attribute_leaves
from ...ops.math_ops import cast
from .. import backend, regularizers
from .. import constraints as constraints_mod
from .. import initializers as initializers_mod
from .. import regularizers as regularizers_mod
from ..mixed_precision import autocast_variable as _autocast
from ..mixed_precision import policy as _policy
from . import auto_config, call_errors
from .keras_tensor import KerasTensor, is_symbolic, shape_of
from .node import Node
from .variable_paths import path_scope, set_keras_path, to_snake_case


class _UnknownBatch:
    """Whether layers built now see the batch size as unknown (see :func:`unknown_batch_size`)."""
    depth = 0


@contextlib.contextmanager
def unknown_batch_size():
    """Layers first built inside get their input shapes with the batch dimension None.

    Keras 3 traces ``fit``'s and ``evaluate``'s step on the dataset's spec, so layers a subclassed model
    builds in its first call see ``(None, ...)`` and ``summary()`` shows ``None``; tfcore traces on the first
    batch's values, and the trainer wraps that first step in this context to build as Keras 3 does. Process
    wide (not per thread): a distribution strategy's replicas build on their own threads."""
    _UnknownBatch.depth += 1
    try:
        yield
    finally:
        _UnknownBatch.depth -= 1


def _unknown_batch(shape):
    if isinstance(shape, TensorShape) and shape.rank:
        return TensorShape([None] + shape.as_list()[1:])
    return shape


def _build_shapes(inputs):
    """The shapes a layer's first call builds from: its inputs' shapes, batch size None in
    :func:`unknown_batch_size`."""
    shapes = nest.map_structure(shape_of, inputs)
    if _UnknownBatch.depth:
        shapes = nest.map_structure(_unknown_batch, shapes)
    return shapes

__all__ = ["Layer", "InputSpec", "to_snake_case"]


class _CallState(threading.local):
    """Per-thread call context: nesting depth, inherited ``training``, loss generation."""

    def __init__(self):
        self.depth = 0
        self.training = None
        self.gen = 0


_state = _CallState()

# Bumped whenever any layer's structure may change (a layer created, a layer/variable attribute set,
# add_weight, trainable toggled); per-layer caches of weight lists are valid for one version.
_STRUCTURE = [0]


def bump_structure_version():
    _STRUCTURE[0] += 1


def _has_tracked(value):
    if isinstance(value, Layer | Variable):
        return True
    if isinstance(value, list | tuple | dict):
        return next(_tracked_leaves(value), None) is not None
    return False

_ALLOWED_KWARGS = frozenset({
    "input_shape", "batch_input_shape", "batch_size", "input_dim", "weights", "activity_regularizer",
    "autocast", "dynamic", "implementation",
})

# Bookkeeping attributes that never hold tracked sublayers.
_UNTRACKED = frozenset({
    "_weights_cache", "_layers_cache", "_inbound_nodes", "_outbound_nodes", "_trainable_weights",
    "_non_trainable_weights", "_eager_losses",
    "_callable_losses", "_build_input_shape", "_input_spec", "optimizer", "compiled_loss", "compiled_metrics",
    "history", "_metrics", "_graph", "_nodes_by_depth", "_input_layers", "_output_layers", "stop_training",
    "_training_state", "_ordered_layers",
})

_SPEC_CACHE = {}


def _call_spec(cls, call):
    """(expects_training, expects_mask, accepts **kwargs, training has no default) for ``cls.call``."""
    spec = _SPEC_CACHE.get(cls)
    if spec is None:
        try:
            params = inspect.signature(call).parameters
        except (TypeError, ValueError):
            params = {}
        var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        training_required = "training" in params and params["training"].default is inspect.Parameter.empty
        spec = ("training" in params, "mask" in params, var_kw, training_required)
        _SPEC_CACHE[cls] = spec
    return spec


def _mask_spec(cls, call):
    """(name of call's first parameter, ((tensor argument, its ``<name>_mask`` parameter), ...)) of ``cls.call``."""
    spec = _MASK_SPEC_CACHE.get(cls)
    if spec is None:
        try:
            names = [n for n, p in inspect.signature(call).parameters.items()
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        except (TypeError, ValueError):
            names = []
        named = tuple((i, n, n + "_mask") for i, n in enumerate(names) if n + "_mask" in names)
        spec = (names[0] if names else "inputs", named)
        _MASK_SPEC_CACHE[cls] = spec
    return spec


_MASK_SPEC_CACHE = {}


def _keras_mask_of(x):
    """The Keras mask carried by ``x`` (a tensor, or a list of tensors: a list of masks), or None."""
    if isinstance(x, list | tuple):
        masks = [getattr(t, "_keras_mask", None) for t in x]
        return masks if any(m is not None for m in masks) else None
    return getattr(x, "_keras_mask", None)


def _inject_masks(layer, args, kwargs, expects_mask):
    """Keras's implicit masks: pass the first input's mask as ``mask=`` and each tensor argument's mask as
    ``<argument>_mask=`` (query_mask, value_mask, ...) when the call takes them and the caller gave none.
    Returns the first input's mask (what the outputs' mask is computed from)."""
    if kwargs.get("mask") is not None:
        previous_mask = kwargs["mask"]
    else:
        previous_mask = _keras_mask_of(args[0])
        if previous_mask is not None and expects_mask:
            kwargs["mask"] = previous_mask
    named = _mask_spec(type(layer), layer.call)[1]
    for index, arg, mask_arg in named:
        if kwargs.get(mask_arg) is None:
            value = args[index] if index < len(args) else kwargs.get(arg)
            mask = getattr(value, "_keras_mask", None)
            if mask is not None:
                kwargs[mask_arg] = mask
    return previous_mask


def _set_output_masks(layer, inputs, outputs, previous_mask):
    """Attach ``layer.compute_mask(inputs, previous_mask)`` to the outputs as ``_keras_mask``."""
    mask = layer.compute_mask(inputs, previous_mask)
    if mask is None:
        return
    outs = nest.flatten(outputs)
    masks = mask if isinstance(mask, list | tuple) else [mask]  # one mask: the first output's (Keras)
    for out, m in zip(outs, masks):
        if isinstance(out, Tensor):
            out._keras_mask = m


def _is_metric_like(obj):
    return hasattr(obj, "update_state") and hasattr(obj, "result") and hasattr(obj, "reset_state")


def _tracked_leaves(value):
    """Layers/variables inside an attribute value (lists, tuples, dicts; dicts by sorted key)."""
    return (v for v in attribute_leaves(value) if isinstance(v, Layer | Variable))


def _as_shape_structure(s):
    """Normalise a compute_output_shape result: one TensorShape, or a list/dict of them."""
    if isinstance(s, TensorShape):
        return s
    if isinstance(s, dict):
        return {k: _as_shape_structure(v) for k, v in s.items()}
    if isinstance(s, list | tuple):
        if all(d is None or isinstance(d, int | np.integer) for d in s):
            return TensorShape(tuple(s))
        return [_as_shape_structure(v) for v in s]
    return as_shape(s)


class InputSpec:
    """Constraints on a layer's input (``ndim``, ``min_ndim``, ``axes``); checked on call."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None):
        self.dtype = dtype
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = axes or {}
        self.name = name

    def __repr__(self):
        return f"InputSpec(ndim={self.ndim}, min_ndim={self.min_ndim}, axes={self.axes})"


class Layer(Module):
    """Base class of Keras layers (``tf.keras.layers.Layer``)."""

    supports_masking = False  # (instances set their own in __init__)
    # Keras 3: only tensors (or arrays, converted) may be passed positionally; the preprocessing layers
    # that take Python strings and numbers (TextVectorization, lookups, hashing...) set this to True.
    _allow_non_tensor_positional_args = False
    # Keras 3's DataLayer (Rescaling, the image layers): nested Python numbers given positionally become one
    # tensor of the layer's compute dtype before ``call``
    _converts_python_inputs = False

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        if not cls.__module__.startswith(_PACKAGE):  # a user's class: Keras 3 records its simple arguments
            auto_config.record(obj, cls, args, kwargs)
        return obj

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        bad = set(kwargs) - _ALLOWED_KWARGS
        if bad:
            raise TypeError(f"Keyword argument not understood: {sorted(bad)[0]!r}")
        object.__setattr__(self, "_trainable_weights", [])
        object.__setattr__(self, "_weights_cache", None)
        _STRUCTURE[0] += 1
        self._non_trainable_weights = []
        self._inbound_nodes = []
        self._outbound_nodes = []
        self._eager_losses = []
        self._callable_losses = []
        self._call_gen = -1
        self._trainable = bool(trainable)
        self.built = False
        self._build_input_shape = None
        self._input_spec = None
        # Keras 3: a layer whose class overrides compute_mask supports masking (its mask is attached to its
        # outputs, so attention downstream masks padding); layers may still set it in their own __init__
        self.supports_masking = type(self).compute_mask is not Layer.compute_mask
        self._dynamic = dynamic
        self._autocast = kwargs.get("autocast", True)
        self._set_dtype_policy(dtype)
        if name is None:
            name = backend.unique_object_name(to_snake_case(type(self).__name__), zero_based=True)
        elif not isinstance(name, str):
            raise TypeError(f"Layer name must be a string, got {name!r}")
        super().__init__(name=None)
        self._name = name
        self._scope_name = name.replace(":", "_")
        ar = kwargs.get("activity_regularizer")
        if ar is not None:
            ar = regularizers.get(ar)
        self._activity_regularizer = ar
        if "input_dim" in kwargs and "input_shape" not in kwargs:
            kwargs["input_shape"] = (kwargs["input_dim"],)
        if "input_shape" in kwargs or "batch_input_shape" in kwargs:
            if "batch_input_shape" in kwargs:
                batch_input_shape = tuple(kwargs["batch_input_shape"])
            else:
                shape = kwargs["input_shape"]
                shape = (shape,) if isinstance(shape, int) else tuple(shape)
                batch_input_shape = (kwargs.get("batch_size"),) + shape
            self._batch_input_shape = batch_input_shape
        self._initial_weights = kwargs.get("weights")

    # -- attribute tracking ----------------------------------------------------------
    def __setattr__(self, name, value):
        if name not in _UNTRACKED and not isinstance(value, str | int | float | Tensor | type(None)):
            if isinstance(value, Variable):
                # Keras 3 tracks Keras variables (add_weight's, any layer's) as weights; a plain tf.Variable
                # attribute is not a weight (TF 2.21: not in `weights`, not trained by fit, not in
                # .weights.h5), though tf.train.Checkpoint still saves it as the object's child.
                if getattr(value, "_keras_path", None) is not None:
                    lst = self._trainable_weights if value.trainable else self._non_trainable_weights
                    if not any(v is value for v in lst):
                        lst.append(value)
                _STRUCTURE[0] += 1
            elif _has_tracked(value) or _has_tracked(self.__dict__.get(name)):
                _STRUCTURE[0] += 1
        elif name in self.__dict__ and _has_tracked(self.__dict__[name]):
            _STRUCTURE[0] += 1
        object.__setattr__(self, name, value)

    def _sublayers(self):
        """Direct child layers, in attribute-assignment order (each once)."""
        out, seen = [], set()
        for key, value in vars(self).items():
            if key in _UNTRACKED or isinstance(value, str | int | float | bool | TensorShape | type(None)):
                continue
            for leaf in _tracked_leaves(value):
                if isinstance(leaf, Layer) and leaf is not self and id(leaf) not in seen \
                        and not _is_metric_like(leaf):
                    seen.add(id(leaf))
                    out.append(leaf)
        return out

    def _flatten_layers(self, include_self=True, recursive=True):
        """Self (optionally) and nested layers, depth-first, each once."""
        if include_self and recursive:
            cache = self.__dict__.get("_layers_cache")
            if cache is not None and cache[0] == _STRUCTURE[0]:
                return list(cache[1])
        seen = set()
        out = []

        def visit(layer, is_root):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            if include_self or not is_root:
                out.append(layer)
            if is_root or recursive:
                for child in layer._sublayers():
                    visit(child, False)

        visit(self, True)
        if include_self and recursive:
            object.__setattr__(self, "_layers_cache", (_STRUCTURE[0], out))
            return list(out)
        return out

    @staticmethod
    def _dedup(weights):
        seen, out = set(), []
        for w in weights:
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    # -- naming and dtype -----------------------------------------------------------------
    @property
    def name(self):
        return self._name

    def _set_dtype_policy(self, dtype):
        """``dtype=`` (None: the global policy; a Policy, policy name or dtype) -> the layer's policy.
        ``_dtype`` is the compute dtype (inputs are cast to it), ``_variable_dtype`` the weights'."""
        policy = _policy.as_policy(dtype)
        self._dtype_policy = policy
        self._dtype = dtypes.as_dtype(policy.compute_dtype)
        self._variable_dtype = dtypes.as_dtype(policy.variable_dtype)

    @property
    def dtype(self):
        """The variable dtype as a string (``'float32'``, also under ``'mixed_float16'``), as Keras."""
        return self._variable_dtype.name

    @property
    def compute_dtype(self):
        """The dtype of the layer's computations (inputs are cast to it; ``'float16'`` under mixed_float16)."""
        return self._dtype.name

    @property
    def variable_dtype(self):
        return self._variable_dtype.name

    @property
    def dtype_policy(self):
        """The layer's ``tf.keras.mixed_precision.Policy``."""
        return self._dtype_policy

    @property
    def _compute_dtype_object(self):
        return self._dtype

    @property
    def dynamic(self):
        return self._dynamic

    @property
    def input_spec(self):
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        self._input_spec = value

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @activity_regularizer.setter
    def activity_regularizer(self, value):
        self._activity_regularizer = value

    # -- trainable flag and weights ---------------------------------------------------------
    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        for layer in self._flatten_layers():
            layer._trainable = bool(value)
        _STRUCTURE[0] += 1

    def _weight_lists(self):
        """(trainable, non_trainable) weights, cached until the structure version changes."""
        cache = self._weights_cache
        if cache is not None and cache[0] == _STRUCTURE[0]:
            return cache[1], cache[2]
        children = self._sublayers()
        if self._trainable:
            trainable = list(self._trainable_weights)
            non_trainable = list(self._non_trainable_weights)
            for child in children:
                t, n = child._weight_lists()
                trainable.extend(t)
                non_trainable.extend(n)
        else:
            trainable = []
            non_trainable = self._trainable_weights + self._non_trainable_weights
            for child in children:
                t, n = child._weight_lists()
                non_trainable.extend(t + n)
        trainable = self._dedup(trainable)
        non_trainable = self._dedup(non_trainable)
        object.__setattr__(self, "_weights_cache", (_STRUCTURE[0], trainable, non_trainable))
        return trainable, non_trainable

    @property
    def trainable_weights(self):
        return list(self._weight_lists()[0])

    @property
    def non_trainable_weights(self):
        return list(self._weight_lists()[1])

    @property
    def weights(self):
        """Keras 3's order: this layer's own weights (trainable, then non-trainable), then each sublayer's
        ``weights`` in turn, so a model's come layer by layer (``get_weights`` lists match TF 2.21's)."""
        out = self._trainable_weights + self._non_trainable_weights
        for child in self._sublayers():
            out.extend(child.weights)
        return self._dedup(out)

    @property
    def variables(self):
        return self.weights

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, use_resource=None, synchronization=None,
                   aggregation=None, **kwargs):
        """Create a variable owned by this layer (``tf.Variable`` under the hood).

        ``initializer`` defaults to glorot_uniform for floating weights and zeros
        otherwise; a ``regularizer`` adds ``regularizer(weight)`` to ``losses``.
        ``trainable`` defaults to True (False for ON_READ synchronization, as TF).
        """

        shape = () if shape is None else tuple(as_shape(shape).as_list())
        dtype = dtypes.as_dtype(dtype) if dtype is not None else self._variable_dtype
        autocast = kwargs.pop("experimental_autocast", True)
        if synchronization is None:
            synchronization = VariableSynchronization.AUTO
        if aggregation is None:
            aggregation = VariableAggregation.NONE
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers_mod.get(initializer)
        if name is None:
            name = "variable"  # Keras 3's default weight name
        # the variable takes the enclosing name scopes (the layer's own while it builds)
        value = init(shape, dtype=dtype) if callable(init) else init
        var = Variable(value, name=name, trainable=bool(trainable), dtype=dtype,
                       constraint=constraints_mod.get(constraint), synchronization=synchronization,
                       aggregation=aggregation)
        if autocast and self._dtype is not self._variable_dtype and dtype.is_floating:
            var = _autocast.create_autocast_variable(var)  # reads as the compute dtype inside call
        with path_scope(self.name, self):  # Keras 3: name "kernel", path "<enclosing layers>/<layer>/kernel"
            set_keras_path(var, name)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(var)
        _STRUCTURE[0] += 1
        deferred.created(self, name, var)  # a checkpoint restored before the build fills it now
        if regularizer is not None:
            reg = regularizers_mod.get(regularizer)
            self._callable_losses.append(lambda v=var, r=reg: r(v))
        return var

    def count_params(self):
        """Number of scalars in all weights; the layer must be built."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name}, but the layer isn't "
                             f"built. You can build it manually via: `{self.name}.build(batch_input_shape)`.")
        return int(sum(int(np.prod(w.shape.as_list())) for w in self.weights))

    def get_weights(self):
        """Current weight values as NumPy arrays (same order as ``weights``)."""
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights):
        """Assign NumPy values to ``weights`` (count and every shape checked first)."""
        params = self.weights
        weights = list(weights)
        if len(params) != len(weights):
            raise ValueError(
                f'You called `set_weights(weights)` on layer "{self.name}" with a weight list of length '
                f"{len(weights)}, but the layer was expecting {len(params)} weights. Provided weights: "
                f"{[np.shape(w) for w in weights]}; expected shapes {[tuple(p.shape.as_list()) for p in params]}")
        values = []
        for p, w in zip(params, weights):
            w = np.asarray(w)
            ref = tuple(p.shape.as_list())
            if tuple(w.shape) != ref:
                raise ValueError(f"Layer {self.name} weight shape {ref} is not compatible with provided weight "
                                 f"shape {tuple(w.shape)} (weight {p.name}).")
            values.append(w.astype(p.dtype.as_numpy_dtype, copy=False))
        for p, w in zip(params, values):
            p.assign(w)

    # -- losses -------------------------------------------------------------------------------
    def add_loss(self, losses, inputs=None):
        """Add a loss tensor (cleared at each top-level call) or a zero-argument callable (kept)."""
        for loss in losses if isinstance(losses, list | tuple) else [losses]:
            if loss is None:
                continue
            if callable(loss) and not isinstance(loss, Tensor):
                self._callable_losses.append(loss)
            else:
                if self._call_gen != _state.gen:
                    self.__dict__["_eager_losses"] = []
                    self.__dict__["_call_gen"] = _state.gen
                self._eager_losses.append(loss if isinstance(loss, Tensor) else convert_to_tensor(loss))

    @property
    def losses(self):
        """Activity losses of the latest call and current weight-regularisation losses, all layers."""
        out = []
        for layer in self._flatten_layers():
            out.extend(layer._eager_losses)
            for fn in layer._callable_losses:
                loss = fn()
                if loss is not None:
                    out.append(loss)
        return out

    # -- metrics hooks (the training half fills these in) ----------------------------------------------
    @property
    def metrics(self):
        return list(getattr(self, "_metrics", []))

    def add_metric(self, value, name=None, **kwargs):
        raise NotImplementedError("add_metric is not supported by tfcore; use a keras.metrics.Metric")

    def add_update(self, updates):
        """Updates run eagerly in tfcore; nothing to do."""

    def add_variable(self, shape, initializer, dtype=None, trainable=True, autocast=True, regularizer=None,
                     constraint=None, name=None):
        """Keras 3's ``add_variable``: :meth:`add_weight` with the shape and initializer first."""
        return self.add_weight(name=name, shape=shape, dtype=dtype, initializer=initializer,
                               regularizer=regularizer, trainable=trainable, constraint=constraint)

    @property
    def input_dtype(self):
        """The dtype inputs are converted to before ``call`` (the compute dtype)."""
        return self.compute_dtype

    @property
    def path(self):
        """The layer's path (Keras 3): its name; its variables' paths are ``<path>/<variable name>``."""
        return self.name

    def get_build_config(self):
        """``{"input_shape": ...}`` of a built layer (what :meth:`build_from_config` needs), else None."""
        if not self.built:
            return None
        shape = getattr(self, "_build_input_shape", None)
        if shape is None:
            shape = getattr(self, "_batch_input_shape", None)
        if shape is None:
            return None
        return {"input_shape": _jsonable_shape(shape)}

    def build_from_config(self, config):
        """Build the layer from :meth:`get_build_config`'s output (nothing to do for an empty config)."""
        if config and config.get("input_shape") is not None and not self.built:
            self.build(_shape_from_json(config["input_shape"]))

    def _own_variables(self):
        own = list(self._trainable_weights) + list(self._non_trainable_weights)
        return sorted(own, key=lambda v: getattr(v, "_uid", 0))  # creation order, as Keras 3 stores them

    def save_own_variables(self, store):
        """Write this layer's own variables (not its sublayers') into ``store`` as ``store["0"]``, ``"1"``..."""
        for i, v in enumerate(self._own_variables()):
            store[f"{i}"] = v.numpy()

    def load_own_variables(self, store):
        """Assign this layer's own variables from :meth:`save_own_variables`'s ``store``."""
        own = self._own_variables()
        if len(store.keys()) != len(own):
            if not own and not self.built:
                raise ValueError(f"Layer '{self.name}' was never built and thus it doesn't have any variables. "
                                 f"However the weights file lists {len(store.keys())} variables for this layer.")
            raise ValueError(f"Layer '{self.name}' expected {len(own)} variables, but received "
                             f"{len(store.keys())} variables during loading. Expected: {[v.name for v in own]}")
        for i, v in enumerate(own):
            value = store[f"{i}"]
            value = value[()] if hasattr(value, "shape") and not isinstance(value, np.ndarray) else value
            v.assign(value)

    # -- building -----------------------------------------------------------------------------------
    def _build_at_init(self):
        """Keras 3's ``Layer._build_at_init``: a layer without weights whose class keeps the default ``build``
        (Dropout, activations, pooling, Masking) is built when made, so ``summary()`` shows its ``0`` params
        where an unbuilt layer shows ``0 (unbuilt)``. Called at the end of such a layer's ``__init__``."""
        if type(self).build is Layer.build:
            self.built = True

    def build(self, input_shape):
        """Create weights for inputs of ``input_shape``; the default records the shape."""
        self._build_input_shape = input_shape
        self.built = True

    def _maybe_build(self, input_shapes):
        if self.built:
            return
        if not getattr(type(self).build, "_is_default", False):
            with _name_scope(self._scope_name), path_scope(self.name, self):
                self.build(input_shapes)
        if self._build_input_shape is None:
            self._build_input_shape = input_shapes
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, inputs, *args, **kwargs):
        """The layer's computation; the base class returns its inputs."""
        return inputs

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs: the input mask when the layer ``supports_masking``, else None."""
        return mask if self.supports_masking else None

    # -- calling --------------------------------------------------------------------------------------
    def _convert_input(self, x):
        if isinstance(x, Tensor):
            t = x
        elif isinstance(x, Variable):
            return x
        elif isinstance(x, np.ndarray | np.generic | list | float | int):
            t = convert_to_tensor(x)
        elif is_pandas(x):  # a DataFrame or Series, as Keras accepts: its NumPy values
            t = convert_to_tensor(pandas_to_numpy(x))
        else:
            return x
        if self._autocast and t._dtype is not self._dtype and t._dtype.is_floating and self._dtype.is_floating:
            t = cast(t, self._dtype)
        return t

    def _convert_inputs(self, inputs):
        if isinstance(inputs, Tensor):
            return self._convert_input(inputs)
        if isinstance(inputs, list | tuple | dict):
            return nest.map_structure(self._convert_input, inputs)
        return self._convert_input(inputs)

    def __call__(self, *args, **kwargs):
        if not args:
            first = _mask_spec(type(self), self.call)[0]
            if "inputs" in kwargs:
                args = (kwargs.pop("inputs"),)
            elif first in kwargs:  # e.g. MultiHeadAttention(query=..., value=...)
                args = (kwargs.pop(first),)
            else:
                raise ValueError(f"Layer {self.name}: the first argument (inputs) is required")
        if len(args) != 1 or type(args[0]) is not Tensor:
            if is_symbolic(args) or is_symbolic(kwargs):
                return self._symbolic_call(args, kwargs)
            if not self._allow_non_tensor_positional_args:
                _refuse_python_positional_args(args)
            elif self._converts_python_inputs and isinstance(args[0], list | tuple | int | float):
                args = (convert_to_tensor(args[0], dtype=self.compute_dtype),) + args[1:]
        st = _state
        if st.depth == 0:
            st.gen += 1
        if self._call_gen != st.gen:
            d = self.__dict__
            if d["_eager_losses"]:
                d["_eager_losses"] = []
            d["_call_gen"] = st.gen
        inputs = self._convert_inputs(args[0])
        args = (inputs,) + args[1:]
        expects_training, expects_mask, var_kw, training_required = _call_spec(type(self), self.call)
        training = kwargs.get("training")
        if expects_training or var_kw:
            if training is None and expects_training:
                if st.training is not None:
                    kwargs["training"] = training = st.training
                elif training_required:
                    kwargs["training"] = False  # Keras: inference mode when nothing says otherwise
        elif "training" in kwargs:
            kwargs.pop("training")
        if not expects_mask and not var_kw:
            kwargs.pop("mask", None)
        previous_mask = _inject_masks(self, args, kwargs, expects_mask)
        saved_training = st.training
        if training is not None:
            st.training = training
        st.depth += 1
        cast_before = _autocast.swap_dtype(self._dtype)  # weights read as the compute dtype inside call
        try:
            if self._input_spec is not None:
                self._check_input_spec(inputs)
            first_call = not self.built
            if first_call:
                self._maybe_build(_build_shapes(inputs))
            try:
                if first_call:
                    with _name_scope(self._scope_name), path_scope(self.name, self):
                        outputs = self.call(*args, **kwargs)
                else:
                    outputs = self.call(*args, **kwargs)
            except Exception as error:  # Keras 3 names the layer and its arguments (innermost layer only)
                annotated = call_errors.annotate(error, self, args, kwargs)
                if annotated is error:
                    raise
                raise annotated.with_traceback(error.__traceback__) from None
            if self._activity_regularizer is not None:
                self._add_activity_loss(outputs)
            if self.supports_masking:
                _set_output_masks(self, args[0], outputs, previous_mask)
        finally:
            _autocast.swap_dtype(cast_before)
            st.depth -= 1
            st.training = saved_training
        return outputs

    def _add_activity_loss(self, outputs):
        for out in nest.flatten(outputs):
            if isinstance(out, Tensor):
                loss = self._activity_regularizer(out)
                batch = out.shape[0] if out.ndim else 1
                self.add_loss(loss / cast(batch or 1, loss.dtype))

    def _check_input_spec(self, inputs):
        spec = self._input_spec
        if isinstance(spec, list | tuple) or not hasattr(inputs, "shape"):
            return
        if type(inputs) is Tensor:
            dims = inputs._array.shape
        else:
            shape = shape_of(inputs)
            if shape.rank is None:
                return
            dims = tuple(shape.as_list())
        rank = len(dims)
        if spec.ndim is not None and rank != spec.ndim:
            raise self._incompatible(spec, f"ndim={spec.ndim}, found ndim={rank}. Full shape received: {dims}")
        if spec.min_ndim is not None and rank < spec.min_ndim:
            raise self._incompatible(spec, f"min_ndim={spec.min_ndim}, found ndim={rank}. Full shape received: {dims}")
        for axis, value in spec.axes.items():
            if value is not None and -rank <= axis < rank and dims[axis] is not None and dims[axis] != value:
                raise self._incompatible(spec, f"axis {axis} of input shape to have value {value}, but received "
                                               f"input with shape {dims}")

    def _incompatible(self, spec, expected):
        """Keras 3's ``assert_input_compatibility`` error (an unnamed spec prints as 'None')."""
        return ValueError(f"Input 0 with name '{spec.name}' of layer '{self.name}' is incompatible with the layer: "
                          f"expected {expected}")

    # -- symbolic (functional API) calls -------------------------------------------------------------
    def _symbolic_call(self, args, kwargs):
        specs = self._signature_call(args, kwargs)
        outputs = nest.map_structure(lambda s: KerasTensor(s.shape, s.dtype), specs)  # keras_tensor_N
        Node(self, args, kwargs, outputs)
        return outputs

    def _signature_call(self, args, kwargs=None):
        """Output TensorSpecs for symbolic ``args`` (KerasTensors/TensorSpecs); builds the layer, records nothing."""
        inputs = args[0]
        if self._input_spec is not None:
            self._check_input_spec(inputs)
        if not self.built:
            self._maybe_build(_build_shapes(inputs))
        if self._has_static_output_shape():
            return self.compute_output_signature(nest.map_structure(
                lambda t: TensorSpec(t.shape, t.dtype) if _is_spec(t) else t, inputs))
        return self._infer_output_by_running(args, kwargs or {})

    def _has_static_output_shape(self):
        cls = type(self)
        return (cls.compute_output_shape is not Layer.compute_output_shape
                or cls.compute_output_signature is not Layer.compute_output_signature)

    def _output_dtype(self, input_dtype):
        """The dtype of symbolic outputs: the layer's dtype (layers that keep dtypes override)."""
        return self._dtype

    def compute_output_signature(self, input_signature):
        """TensorSpecs of the outputs for inputs described by ``input_signature``."""
        shapes = nest.map_structure(lambda s: s.shape, input_signature)
        out = _as_shape_structure(self.compute_output_shape(shapes))
        first = nest.flatten(input_signature)[0]
        dtype = self._output_dtype(first.dtype)
        return nest.map_structure(lambda s: TensorSpec(s, dtype), out)

    def compute_output_shape(self, input_shape):
        """Output shape(s) for ``input_shape``; the default runs the layer on small dummy inputs."""
        sig = nest.map_structure(lambda s: KerasTensor(as_shape(s), self._dtype), input_shape)
        specs = self._infer_output_by_running((sig,), {})
        out = nest.map_structure(lambda s: s.shape, specs)
        return out

    def _infer_output_by_running(self, args, kwargs):
        """Run ``call`` twice on zeros with unknown dims filled differently; dims that change are None."""
        results = []
        for batch, other in ((2, 8), (3, 9)):
            def fill(t, batch=batch, other=other):
                if not _is_spec(t):
                    return t
                dims = t.shape.as_list() if t.shape.rank is not None else [None]
                concrete = [(batch if i == 0 else other) if d is None else d for i, d in enumerate(dims)]
                return convert_to_tensor(np.zeros(concrete, dtype=dtypes.as_dtype(t.dtype).as_numpy_dtype))

            dargs = nest.map_structure(fill, args)
            dkwargs = nest.map_structure(fill, kwargs)
            dkwargs.setdefault("training", False)
            st = _state
            st.depth += 1
            try:
                with call_errors.suspended():  # placeholder zeros are not the user's arguments
                    results.append(self.__call__(*dargs, **dkwargs))
            finally:
                st.depth -= 1
        first, second = nest.flatten(results[0]), nest.flatten(results[1])
        specs = []
        for a, b in zip(first, second):
            dims = [da if da == db else None for da, db in zip(a.shape.as_list(), b.shape.as_list())]
            specs.append(TensorSpec(TensorShape(tuple(dims)), a.dtype))
        return nest.pack_sequence_as(results[0], specs)

    # -- graph introspection ---------------------------------------------------------------------------
    def _node_attr(self, attr, what):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
        values = [getattr(n, attr) for n in self._inbound_nodes]
        if len(values) > 1 and any(str(v) != str(values[0]) for v in values):
            raise AttributeError(f'The layer "{self.name}" has multiple inbound nodes, with different {what}. '
                                 f"Hence the notion of \"{what}\" is ill-defined for the layer.")
        return values[0]

    @property
    def input(self):
        return self._node_attr("call_args", "inputs")[0]

    @property
    def output(self):
        return self._node_attr("outputs", "outputs")

    @property
    def input_shape(self):
        return _shape_tuple(self._node_attr("input_shapes", "input shapes"))

    @property
    def output_shape(self):
        return _shape_tuple(self._node_attr("output_shapes", "output shapes"))

    @property
    def inbound_nodes(self):
        return self._inbound_nodes

    @property
    def outbound_nodes(self):
        return self._outbound_nodes

    # -- serialisation -------------------------------------------------------------------------------
    def get_config(self):
        """The constructor arguments that recreate this layer (without weights).

        A user's subclass that does not override it gets Keras 3's automatic config: the simple arguments it
        was constructed with (:mod:`auto_config`), or Keras' NotImplementedError asking for a get_config."""
        config = {"name": self.name}
        if auto_config.uses_default(self, Layer.get_config) and not type(self).__module__.startswith(_PACKAGE):
            config = auto_config.config(self)
        config.update({"trainable": self.trainable, "dtype": _policy.serialize(self._dtype_policy)})
        if hasattr(self, "_batch_input_shape"):
            config["batch_input_shape"] = self._batch_input_shape
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"


_PYTHON_VALUES = (bool, int, float, complex, str, bytes)
_PACKAGE = __name__.split(".")[0] + "."  # "tfcore.": the library's own layers write their get_config


def _refuse_python_positional_args(args):
    """Keras 3's ValueError for a Python number or string passed positionally to a layer (``layer([[2.0]])``,
    ``Dropout(0.5)(x, True)``): only tensors and arrays may be positional, everything else is a keyword."""
    for arg in nest.flatten(list(args)):
        if isinstance(arg, _PYTHON_VALUES):
            raise ValueError("Only input tensors may be passed as positional arguments. The following argument value "
                             f"should be passed as a keyword argument: {arg} (of type {type(arg)})")


def _is_spec(t):
    return isinstance(t, KerasTensor | TensorSpec)


def _shape_tuple(s):
    if isinstance(s, TensorShape):
        return tuple(s.as_list()) if s.rank is not None else None
    if isinstance(s, list):
        return [_shape_tuple(v) for v in s]
    return s


def _jsonable_shape(shape):
    if isinstance(shape, list) and shape and not isinstance(shape[0], int | type(None)):
        return [_jsonable_shape(x) for x in shape]
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    if isinstance(shape, dict):
        return {k: _jsonable_shape(v) for k, v in shape.items()}
    return list(shape) if shape is not None else None


def _shape_from_json(shape):
    if isinstance(shape, list) and shape and isinstance(shape[0], list):
        return [tuple(s) for s in shape]
    return tuple(shape)
