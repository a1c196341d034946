"""``tf.keras.mixed_precision.Policy`` and the global policy (``set_global_policy`` / ``global_policy``).

A policy names two dtypes: the one a layer computes in (``compute_dtype``) and the one its
variables are stored in (``variable_dtype``). ``'mixed_float16'`` and ``'mixed_bfloat16'``
compute in 16 bits and keep float32 variables; any other floating dtype name gives a policy
with both dtypes equal. Layers created without ``dtype=`` take the global policy (float32
unless set), as in TF.

This module owns the global policy: only :func:`set_global_policy` changes it.
"""

from ...framework import dtypes
from .. import backend

__all__ = ["Policy", "set_global_policy", "global_policy", "serialize", "deserialize", "as_policy"]

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}


class Policy:
    """A dtype policy for a Keras layer: ``Policy('mixed_float16')``, ``Policy('float32')``, ...

    Args:
      name: ``'mixed_float16'``, ``'mixed_bfloat16'`` or the name of a dtype (``'float32'``,
        ``'float16'``, ``'bfloat16'``, ``'float64'``, ...; non-floating dtypes too, as TF).
    """

    def __init__(self, name):
        if isinstance(name, dtypes.DType):
            raise TypeError("'name' must be a string, not a DType. Instead, pass DType.name. "
                            f"Got: {name.name}")
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name!r}")
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse(name)

    @property
    def name(self):
        """The policy's name (``'mixed_float16'``)."""
        return self._name

    @property
    def compute_dtype(self):
        """The dtype of the layer's computations and outputs, as a string."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype of the layer's variables, as a string."""
        return self._variable_dtype

    def get_config(self):
        return {"name": self._name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'  # Keras 3's class name (Policy is its alias)


def _parse(name):
    """(compute dtype name, variable dtype name) of a policy name; ValueError naming the valid ones."""
    if name in _MIXED:
        compute, variable = _MIXED[name]
        if compute == "bfloat16" and dtypes.bfloat16 is None:
            raise ValueError(f"Policy {name!r} needs bfloat16, which comes with the optional ml_dtypes package: "
                             "pip install 'tfcore[bf16]'")
        return compute, variable
    if name.endswith("_float32_vars"):
        raise ValueError(f"Policies ending in '_float32_vars' have been removed from TensorFlow. Please use the "
                         f"'mixed_float16' or 'mixed_bfloat16' policy instead. Got policy name: {name!r}")
    if name == "bfloat16" and dtypes.bfloat16 is None:
        raise ValueError("Policy 'bfloat16' needs the optional ml_dtypes package: pip install 'tfcore[bf16]'")
    try:
        dtype = dtypes.as_dtype(name)
    except (TypeError, ValueError, KeyError):
        raise ValueError(f"Cannot convert value {name!r} to a mixed precision Policy. Valid policies include "
                         "'mixed_float16', 'mixed_bfloat16', and the name of any dtype such as 'float32'.") from None
    return dtype.name, dtype.name


_GLOBAL = [None]  # the policy set by set_global_policy (None: floatx)


def global_policy():
    """The policy of layers created without ``dtype=``: the one set, else ``Policy(floatx())``."""
    policy = _GLOBAL[0]
    return policy if policy is not None else Policy(backend.floatx())


def set_global_policy(policy):
    """Set the default policy of layers created from now on (a Policy, a policy name, or None to reset).

    Only floating-point policies are accepted (``'float32'``, ``'mixed_float16'``, ...), as TF.
    """
    if policy is not None and not isinstance(policy, Policy):
        policy = Policy(policy)
    if policy is not None and not dtypes.as_dtype(policy.compute_dtype).is_floating:
        raise ValueError("set_global_policy can only be used to set the global policy to floating-point policies, "
                         f"such as \"float32\" and \"mixed_float16\", but got policy: {policy.name}")
    _GLOBAL[0] = policy


def as_policy(dtype):
    """The Policy a layer's ``dtype=`` argument means: None -> the global policy; a Policy; a policy or
    dtype name; a DType; a serialized policy dict."""
    if dtype is None:
        return global_policy()
    if isinstance(dtype, Policy):
        return dtype
    if isinstance(dtype, dict):
        return deserialize(dtype)
    if isinstance(dtype, dtypes.DType):
        return Policy(dtype.name)
    if hasattr(dtype, "compute_dtype") and hasattr(dtype, "variable_dtype") and hasattr(dtype, "name"):
        return Policy(dtype.name)  # a Policy-like object from elsewhere
    return Policy(dtypes.as_dtype(dtype).name if not isinstance(dtype, str) else dtype)


def serialize(policy):
    """A layer config's ``dtype`` entry: the name for single-dtype policies, else a class/config dict."""
    if policy.compute_dtype == policy.variable_dtype and policy.name == policy.compute_dtype:
        return policy.name
    return {"class_name": "Policy", "config": policy.get_config()}


def deserialize(config, custom_objects=None):
    """The inverse of :func:`serialize` (also accepts a plain name)."""
    if isinstance(config, str):
        return Policy(config)
    if not isinstance(config, dict) or config.get("class_name") not in ("Policy", "DTypePolicy"):
        raise ValueError(f"Cannot deserialize a mixed precision Policy from {config!r}")
    return Policy.from_config(config.get("config", {}))
