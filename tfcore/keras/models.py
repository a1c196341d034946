"""``tf.keras.models``: Model, Sequential and (de)serialisation helpers."""

from .engine.model import Functional, Model
from .engine.sequential import Sequential
from .layers.serialization import deserialize, register, serialize

__all__ = ["Model", "Functional", "Sequential", "clone_model"]

register(Model, Functional, Sequential)


def clone_model(model, input_tensors=None, clone_function=None):
    """A new Sequential model with freshly initialised copies of ``model``'s layers (from their configs)."""
    if not isinstance(model, Sequential):
        raise NotImplementedError("tfcore's clone_model supports Sequential models only")
    clone = clone_function or (lambda layer: deserialize(serialize(layer)))
    new = Sequential(name=model.name)
    if model._input_layer is not None:
        from .engine.input_layer import Input
        new.add(Input(batch_shape=model._input_layer._batch_input_shape, dtype=model._input_layer.dtype))
    for layer in model.layers:
        new.add(clone(layer))
    return new
