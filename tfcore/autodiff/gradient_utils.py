"""``tf.recompute_grad``, ``tf.grad_pass_through`` and ``tf.no_gradient``."""

import functools

from ..framework.errors import InvalidArgumentError
from ..ops.registry import REGISTRY
from .custom_gradient import custom_gradient
from .tape import GradientTape


def recompute_grad(f):
    """``tf.recompute_grad``: the backward pass runs ``f`` again under a fresh tape instead of using the
    forward pass's intermediates (only ``f``'s inputs and outputs connect it to the outer tape).
    Gradients reach ``f``'s inputs and the variables it reads."""

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        @custom_gradient
        def inner(*xs):
            result = f(*xs, **kwargs)

            def grad(*dys, variables=None):
                with GradientTape() as tape:
                    tape.watch(list(xs))
                    if variables:
                        tape.watch(list(variables))
                    again = f(*xs, **kwargs)
                targets = list(again) if isinstance(again, list | tuple) else [again]
                sources = list(xs) + list(variables or [])
                grads = tape.gradient(targets, sources, output_gradients=list(dys),
                                      unconnected_gradients="zero")
                dx = grads[:len(xs)]
                return (dx, grads[len(xs):]) if variables else dx

            return result, grad

        return inner(*args)

    return wrapper


def grad_pass_through(f):
    """``tf.grad_pass_through``: ``f`` in the forward pass, the identity in the backward pass (straight-through
    estimator)."""

    @functools.wraps(f)
    def wrapper(*args):
        @custom_gradient
        def inner(*xs):
            def grad(*dys):
                return dys[0] if len(xs) == 1 else list(dys)

            return f(*xs), grad

        return inner(*args)

    return wrapper


def no_gradient(op_type):
    """``tf.no_gradient``: declare the registered op ``op_type`` not differentiable (tapes record nothing
    for it and gradients through it are None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    op = REGISTRY.get(op_type)
    if op is None:
        raise InvalidArgumentError(None, None, f"no_gradient: no op named {op_type!r} is registered")
    op.grad = None
