"""Weight arguments shared by the layers that own weights (Dense, the convolutions, the RNN cells,
the normalizations, Embedding).

Keras names each weight by a role (``kernel``, ``bias``, ``gamma``, ``depthwise``, ...) and keeps three
attributes per role: ``<role>_initializer``, ``<role>_regularizer`` and ``<role>_constraint``. These
helpers set them from constructor arguments, create the weight from them and serialize them, so a
layer states only its roles.
"""

from .. import constraints, initializers, regularizers


def serialize_or_none(obj, module):
    """``module.serialize(obj)``, or None for an unset regularizer or constraint."""
    return module.serialize(obj) if obj is not None else None


def set_weight_args(layer, role, initializer, regularizer=None, constraint=None):
    """Resolve and store ``<role>_initializer``, ``<role>_regularizer`` and ``<role>_constraint``."""
    setattr(layer, f"{role}_initializer", initializers.get(initializer))
    setattr(layer, f"{role}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{role}_constraint", constraints.get(constraint))


def add_role_weight(layer, role, shape, name=None, initializer=None, **kwargs):
    """``layer.add_weight(name or role, shape, **kwargs)`` with the role's initializer (unless one is
    given), regularizer and constraint."""
    return layer.add_weight(name or role, shape=shape,
                            initializer=initializer or getattr(layer, f"{role}_initializer"),
                            regularizer=getattr(layer, f"{role}_regularizer"),
                            constraint=getattr(layer, f"{role}_constraint"), **kwargs)


def add_bias(layer, shape, initializer=None):
    """The ``bias`` weight of ``shape`` when ``layer.use_bias``, else None."""
    return add_role_weight(layer, "bias", shape, initializer=initializer) if layer.use_bias else None


def weights_config(layer, roles):
    """Keras's config entries for the weight roles, in Keras's order: the initializers, the regularizers,
    ``activity_regularizer``, the constraints."""
    config = {f"{r}_initializer": serialize_or_none(getattr(layer, f"{r}_initializer"), initializers) for r in roles}
    config.update({f"{r}_regularizer": serialize_or_none(getattr(layer, f"{r}_regularizer"), regularizers)
                   for r in roles})
    config["activity_regularizer"] = serialize_or_none(layer.activity_regularizer, regularizers)
    config.update({f"{r}_constraint": serialize_or_none(getattr(layer, f"{r}_constraint"), constraints)
                   for r in roles})
    return config


def initializers_config(layer, roles):
    """``{"<role>_initializer": serialized}`` for the roles (the layers that serialize only those)."""
    return {f"{r}_initializer": serialize_or_none(getattr(layer, f"{r}_initializer"), initializers) for r in roles}
