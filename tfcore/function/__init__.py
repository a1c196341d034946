"""``tf.function``: tracing, FuncGraph, ConcreteFunction, control flow, AutoGraph, graph passes."""

from .control_flow import (
    case,
    cond,
    control_dependencies,
    foldl,
    foldr,
    init_scope,
    map_fn,
    numpy_function,
    py_function,
    scan,
    switch_case,
    while_loop,
)
from .polymorphic_function import ConcreteFunction, Function, function

__all__ = ["ConcreteFunction", "Function", "function", "case", "cond", "control_dependencies", "foldl", "foldr",
           "init_scope", "map_fn", "numpy_function", "py_function", "scan", "switch_case", "while_loop"]
