"""``tf.TypeSpec``: the common base of value types (TensorSpec, SparseTensorSpec, RaggedTensorSpec, ...), and
``tf.type_spec_from_value``.

The concrete specs live with their values; each registers itself here as a (virtual) subclass, so
``isinstance(spec, tf.TypeSpec)`` holds for all of them without an import cycle.
"""

import abc

_FROM_VALUE = []  # (predicate, spec factory), registered by the modules that own the value types


class TypeSpec(abc.ABC):  # noqa: B024 - an interface: concrete specs register themselves
    """``tf.TypeSpec``: specifies a TensorFlow value type (abstract; see ``tf.TensorSpec`` and friends)."""

    __slots__ = ()

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else type_spec_from_value(spec_or_value)
        return type(self) is type(other) and self == other


def register_spec(spec_cls, predicate, factory):
    """Make ``spec_cls`` a TypeSpec and let ``type_spec_from_value`` build one for values ``predicate`` accepts."""
    TypeSpec.register(spec_cls)
    _FROM_VALUE.append((predicate, factory))


def type_spec_from_value(value):
    """``tf.type_spec_from_value``: the TypeSpec of a Tensor, Variable, SparseTensor, RaggedTensor or NumPy
    array (TensorSpec of its shape and dtype); TypeError for other values."""
    for predicate, factory in reversed(_FROM_VALUE):
        if predicate(value):
            return factory(value)
    raise TypeError(f"Could not build a TypeSpec for {value!r} with type {type(value).__name__}")
