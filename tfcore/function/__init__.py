"""``tf.function``: tracing, FuncGraph, ConcreteFunction, control flow, AutoGraph, graph passes."""

from .polymorphic_function import ConcreteFunction, Function, function

__all__ = ["ConcreteFunction", "Function", "function"]
