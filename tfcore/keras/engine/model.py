"""``tf.keras.Model``: a layer with training (``TrainingMixin``), introspection and weight files.

Three ways to make one, as in Keras:
- functional: ``Model(inputs, outputs)`` over KerasTensors (also ``MyModel(inputs, outputs)``
  for a subclass that only overrides ``train_step``); the graph lives in ``self._graph``;
- subclassed: ``__init__`` creates layers as attributes, ``call`` uses them;
- ``Sequential`` (sequential.py).
"""

import numpy as np

from ...framework import nest
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.tensor_spec import TensorSpec
from ...saving import saved_model
from .. import backend
from ..mixed_precision import policy as _policy
from ..saving import weights_format
from ..trainers.trainer import TrainingMixin
from . import auto_config
from .base_layer import Layer, _state, bump_structure_version, to_snake_case
from .functional import GraphNetwork
from .summary import print_summary

# Whole-model formats (Keras 3's ``.keras`` files, ``*.weights.h5``, JSON configs) live above the engine in
# ``keras/saving``, which registers its module here when ``tfcore.keras`` is imported (no import back up).
_MODEL_IO = []


def register_model_io(module):
    """Install the module implementing save_model/to_json/functional configs/``*.weights.h5`` (keras.saving)."""
    _MODEL_IO[:] = [module]


# Portable exports (ONNX, TFLite, TF.js) live above keras in ``tfcore/export``, which registers its
# ``export(model, path, format=..., float16=...)`` here when ``tfcore`` is imported.
_EXPORTER = []


def register_exporter(fn):
    """Install the function behind ``Model.export``'s "onnx", "tflite"/"litert" and "tfjs" formats."""
    _EXPORTER[:] = [fn]


def _model_io():
    if not _MODEL_IO:
        raise RuntimeError("Keras model saving is not available: import tfcore.keras (it registers keras.saving)")
    return _MODEL_IO[0]


class Model(TrainingMixin, Layer):
    """Groups layers into an object with training and inference features (``tf.keras.Model``)."""

    def __new__(cls, *args, **kwargs):
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            cls = Functional
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", None)
        outputs = kwargs.pop("outputs", None)
        if args:
            inputs = args[0]
            if len(args) > 1:
                outputs = args[1]
            if len(args) > 2:
                kwargs.setdefault("name", args[2])
        name = kwargs.pop("name", None)
        trainable = kwargs.pop("trainable", True)
        if name is None:
            prefix = "model" if type(self) in (Model, Functional) else to_snake_case(type(self).__name__)
            name = backend.unique_object_name(prefix, zero_based=True)
        Layer.__init__(self, name=name, trainable=trainable, **kwargs)
        self._graph = None
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs`.")
            self._init_graph_network(inputs, outputs)
        init = getattr(TrainingMixin, "_init_training", None)
        if init is not None:
            init(self)

    def _init_graph_network(self, inputs, outputs):
        self._autocast = False  # a graph network does not cast inputs: its layers do (as Keras)
        self._graph = GraphNetwork(inputs, outputs)
        bump_structure_version()
        self.inputs = list(self._graph.inputs)
        self.outputs = list(self._graph.outputs)
        self.input_names = [lay.name for lay in self._graph.input_layers]
        self.output_names = [lay.name for lay in self._graph.output_layers]
        self.built = True

    # -- structure --------------------------------------------------------------------------------
    def _sublayers(self):
        if self._graph is not None:
            return list(self._graph.layers)
        return Layer._sublayers(self)

    @property
    def layers(self):
        """Direct sublayers: graph order for functional models, attribute order for subclassed ones."""
        return self._sublayers()

    def get_layer(self, name=None, index=None):
        """A layer by ``index`` (into ``layers``) or by unique ``name``."""
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has "
                                 f"{len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: {[lay.name for lay in self.layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    @property
    def input(self):
        if self._graph is None:
            return Layer.input.fget(self)
        return self._graph.inputs_structure

    @property
    def output(self):
        if self._graph is None:
            return Layer.output.fget(self)
        return self._graph.outputs_structure

    @property
    def input_shape(self):
        if self._graph is None:
            return Layer.input_shape.fget(self)
        shapes = [tuple(t.shape.as_list()) for t in self._graph.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        if self._graph is None:
            return Layer.output_shape.fget(self)
        shapes = [tuple(t.shape.as_list()) for t in self._graph.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    # -- computation --------------------------------------------------------------------------------
    def call(self, inputs, training=None, mask=None):
        if self._graph is None:
            raise NotImplementedError(
                "Unimplemented `tf.keras.Model.call()`: if you intend to create a `Model` with the Functional "
                "API, please provide `inputs` and `outputs` arguments. Otherwise, subclass `Model` with an "
                "overridden `call()` method.")
        self._graph.check_input_shapes(inputs, self.name)
        return self._graph.run(inputs)

    def _has_static_output_shape(self):
        return self._graph is not None

    def compute_output_signature(self, input_signature):
        if self._graph is None:
            return Layer.compute_output_signature(self, input_signature)
        return self._graph.output_signature(input_signature)

    def compute_output_shape(self, input_shape):
        if self._graph is None:
            return Layer.compute_output_shape(self, input_shape)
        sig = nest.map_structure(lambda s: TensorSpec(as_shape(s), self._dtype), input_shape)
        out = self._graph.output_signature(sig)
        return nest.map_structure(lambda s: s.shape, out)

    def build(self, input_shape):
        """Create the weights of a subclassed model by calling it on zeros of ``input_shape`` (None -> 1)."""
        if self._graph is not None or self.built:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling `build()` on a `Model` subclass.")
        shapes = input_shape
        # A flat list of dims is one shape, as in TF (``build([None, 28, 28, 1])``); a list of shapes is many inputs.
        if isinstance(shapes, TensorShape | tuple | list) and all(d is None or isinstance(d, int) for d in shapes):
            shapes = [shapes]
            single = True
        else:
            single = False

        arrays = [convert_to_tensor(np.zeros([1 if d is None else d for d in as_shape(s).as_list()],
                                             dtype=self._dtype.as_numpy_dtype)) for s in shapes]
        saved = _state.training
        try:
            self(arrays[0] if single else arrays, training=False)
        finally:
            _state.training = saved
        self._build_input_shape = input_shape
        self.built = True

    build._is_default = True  # the first call builds a subclassed model by running it; no build() needed

    # -- introspection and weights ------------------------------------------------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Print a table of layers, output shapes and parameter counts (as TF 2). An unbuilt model prints its
        layers with ``?`` shapes and ``0 (unbuilt)`` parameters, as Keras 3 does."""
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                      expand_nested=expand_nested, show_trainable=show_trainable, layer_range=layer_range)

    def count_params(self):
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name}, but the layer isn't built. "
                             f"You can build it manually via: `{self.name}.build(batch_input_shape)`.")
        return Layer.count_params(self)

    def get_build_config(self):
        """``{"input_shape": ...}`` for a built model (its Inputs' shapes when it has them), else None."""
        config = super().get_build_config()
        if config is None and self.built and getattr(self, "inputs", None):
            shapes = [t.shape.as_list() for t in self.inputs]
            config = {"input_shape": shapes[0] if len(shapes) == 1 else shapes}
        return config

    def get_compile_config(self):
        """The ``compile`` arguments as Keras 3 serializes them (None when the model is not compiled)."""
        if not self._is_compiled or self.optimizer is None:
            return None
        return _model_io()._compile_config(self)

    def compile_from_config(self, config):
        """``compile`` the model from :meth:`get_compile_config`'s output."""
        _model_io()._compile_from_config(self, config, None)
        if self.built:
            self.optimizer.build(self.trainable_variables)

    def stateless_call(self, trainable_variables, non_trainable_variables, *args, return_losses=False, **kwargs):
        """Call the model with the given variable VALUES instead of its own, leaving its variables unchanged.

        Returns ``(outputs, non_trainable_variables)`` -- the new values of the non-trainable variables after
        the call (e.g. BatchNormalization statistics) -- and the losses too with ``return_losses=True``.
        """
        trainable, non_trainable = list(self.trainable_variables), list(self.non_trainable_variables)
        if len(trainable_variables) != len(trainable):
            raise ValueError(f"Argument `trainable_variables` must be a list of tensors corresponding 1:1 to "
                             f"{type(self).__name__}().trainable_variables. Received list with length "
                             f"{len(trainable_variables)}, but expected {len(trainable)} variables.")
        if len(non_trainable_variables) != len(non_trainable):
            raise ValueError(f"Argument `non_trainable_variables` must be a list of tensors corresponding 1:1 to "
                             f"{type(self).__name__}().non_trainable_variables. Received list with length "
                             f"{len(non_trainable_variables)}, but expected {len(non_trainable)} variables.")
        variables = trainable + non_trainable
        saved = [v.read_value() for v in variables]
        try:
            for v, value in zip(variables, list(trainable_variables) + list(non_trainable_variables), strict=True):
                v.assign(value)
            outputs = self(*args, **kwargs)
            new_non_trainable = [v.read_value() for v in non_trainable]
            losses = list(self.losses)
        finally:
            for v, value in zip(variables, saved, strict=True):
                v.assign(value)
        if return_losses:
            return outputs, new_non_trainable, losses
        return outputs, new_non_trainable

    def save_weights(self, filepath, overwrite=True, save_format=None, options=None):
        """Write all weights: Keras 3's HDF5 layout for ``*.weights.h5``, else tfcore's NumPy ``.npz`` format."""
        if str(filepath).endswith(".weights.h5"):
            keras_format = _model_io()

            return keras_format.save_weights_h5(self, filepath, overwrite=overwrite)
        weights_format.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False, options=None):
        """Read weights written by :meth:`save_weights` or by Keras 3 (``*.weights.h5``)."""
        if str(filepath).endswith(".weights.h5"):
            keras_format = _model_io()

            if keras_format.is_hdf5(filepath):  # else an .npz written under that name by older tfcore
                return keras_format.load_weights_h5(self, filepath)
        return weights_format.load_weights(self, filepath, by_name=by_name, skip_mismatch=skip_mismatch)

    def save(self, filepath, overwrite=True, save_format=None, include_optimizer=True, **kwargs):
        """Save architecture, weights and compiled optimizer state to a Keras 3 ``.keras`` file."""
        keras_format = _model_io()

        keras_format.save_model(self, filepath, overwrite=overwrite, include_optimizer=include_optimizer)

    def export(self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs):
        """Export for inference, as Keras 3's ``Model.export``.

        ``format``: "tf_saved_model" (a SavedModel directory), "onnx" (an ``.onnx`` file), "tflite" or
        Keras's name "litert" (a ``.tflite`` file), "tfjs" (a TF.js layers-model directory). The portable
        formats take ``float16=True`` to store the weights as float16. ``input_signature`` is not used:
        the model's own input shapes are exported (batch dimension dynamic).
        """
        formats = ("tf_saved_model", "onnx", "tflite", "litert", "tfjs")
        if format not in formats:
            raise ValueError(f"Unrecognized format={format!r}. Supported formats are: {', '.join(formats)}.")
        if format == "tf_saved_model":
            if kwargs:
                raise TypeError(f"export(format='tf_saved_model') got unexpected arguments {sorted(kwargs)}")
            saved_model.save(self, str(filepath))
        else:
            if not _EXPORTER:
                raise RuntimeError("Model.export: portable formats need tfcore.export (import tfcore)")
            _EXPORTER[0](self, filepath, format="tflite" if format == "litert" else format, **kwargs)
        if verbose or verbose is None:
            print(f"Saved artifact at '{filepath}'.")

    def to_json(self, **kwargs):
        """The model's Keras 3 config as a JSON string (``tf.keras.models.model_from_json`` reads it)."""
        keras_format = _model_io()

        return keras_format.to_json(self, **kwargs)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if "layers" in config and "input_layers" in config:
            keras_format = _model_io()

            return keras_format.functional_from_config(config, custom_objects)
        return cls(**config)

    def get_config(self):
        """Functional and Sequential models serialise their architecture; subclassed ones must override this."""
        if getattr(self, "_graph", None) is not None:
            keras_format = _model_io()

            return keras_format.functional_config(self)
        if auto_config.uses_default(self, Model.get_config) and "_auto_config" in self.__dict__:
            # a subclassed model without get_config: Keras 3's automatic config (its __init__ defaults)
            config = auto_config.config(self)
            config.update({"trainable": self.trainable, "dtype": _policy.serialize(self._dtype_policy)})
            return config
        raise NotImplementedError(f"Model {type(self).__name__} cannot be serialised to a config by tfcore "
                                  "(only Sequential and functional models can); override get_config() in a subclass.")


class Functional(Model):
    """A model defined by ``Model(inputs, outputs)`` (Keras's ``Functional`` class)."""
