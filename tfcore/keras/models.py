"""``tf.keras.models``: Model, Sequential and (de)serialisation helpers."""

from .engine.input_layer import Input
from .engine.model import Functional, Model
from .engine.sequential import Sequential
from .layers.serialization import deserialize, register, serialize
from .saving.keras_format import model_from_config, model_from_json
from .saving.saving_api import load_model
from .saving.saving_api import save_model as _save_model

__all__ = ["Model", "Functional", "Sequential", "clone_model", "load_model", "save_model", "model_from_json",
           "model_from_config"]


def save_model(model, filepath, overwrite=True, **kwargs):
    """``tf.keras.models.save_model``: as ``model.save(filepath)`` (a ``.keras`` file)."""
    _save_model(model, filepath, overwrite=overwrite, include_optimizer=kwargs.get("include_optimizer", True))

register(Model, Functional, Sequential)


def clone_model(model, input_tensors=None, clone_function=None):
    """A new Sequential model with freshly initialised copies of ``model``'s layers (from their configs)."""
    if not isinstance(model, Sequential):
        raise NotImplementedError("tfcore's clone_model supports Sequential models only")
    clone = clone_function or (lambda layer: deserialize(serialize(layer)))
    new = Sequential(name=model.name)
    if model._input_layer is not None:
        new.add(Input(batch_shape=model._input_layer._batch_input_shape, dtype=model._input_layer.dtype))
    for layer in model.layers:
        new.add(clone(layer))
    return new
