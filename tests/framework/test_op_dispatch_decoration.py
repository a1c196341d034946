"""Type-based dispatch (``tfcore/framework/dispatch.py``) is given to the public op functions where they are
defined (``@add_dispatch_support``), not by patching the op modules after their import: one wrapper per
function, so an alias (``tf.math.mod`` of ``tf.math.floormod``, as in TF) dispatches with it."""

import ast
import importlib
import inspect
import pathlib

import pytest

import tfcore as tf
from tfcore.framework import dispatch

_DECORATED_MODULES = ("math_ops", "reduce_ops", "special_math_ops", "math_reduction_ops", "string_ops",
                      "string_hash_ops", "unicode_ops", "nn_ops")
# math_ops' gradient helpers; math_reduction_ops' segment-id checks shared by the CPU kernel and the CUDA launcher
_INTERNAL_HELPERS = {"conj_if_complex", "ones_like_", "ones_scalar", "scalar_like", "check_segment_ids",
                     "sorted_segment_count"}


@pytest.mark.parametrize("name", _DECORATED_MODULES)
def test_public_op_functions_carry_the_decorator_where_they_are_defined(name):
    module = importlib.import_module(f"tfcore.ops.{name}")
    tree = ast.parse(pathlib.Path(inspect.getsourcefile(module)).read_text())
    undecorated = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                   and not node.name.startswith("_") and node.name not in _INTERNAL_HELPERS
                   and not any(isinstance(d, ast.Name) and d.id == "add_dispatch_support" for d in node.decorator_list)]
    assert undecorated == [], f"tfcore/ops/{name}.py: public functions without @add_dispatch_support"
    for fn_name in getattr(module, "__all__", ()):
        fn = getattr(module, fn_name)
        if fn.__module__ == module.__name__:  # re-exports are the defining module's business
            assert dispatch.is_dispatch_supported(fn), (name, fn_name)


class _Marked:
    """A composite type of this test only."""


def test_an_alias_dispatches_with_the_function_it_names():
    assert tf.math.mod is tf.math.floormod  # TF: one function under two names
    handler = dispatch.dispatch_for_api(tf.math.floormod, _Marked, lambda x, y, name=None: "handled")
    try:
        assert tf.math.mod(_Marked(), 2.0) == "handled"
        assert tf.math.floormod(_Marked(), 2.0) == "handled"
        assert float(tf.math.mod(tf.constant(7.0), 2.0)) == 1.0  # dense arguments: the op as written
    finally:
        dispatch._HANDLERS[tf.math.floormod].remove((( _Marked,), handler))
