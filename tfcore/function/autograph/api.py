"""``tf.autograph``: convert a Python function's control flow for tracing (``to_graph``, ``to_code``)."""

import ast
import functools
import inspect
import logging
import textwrap

from . import operators
from .transformer import ControlFlowTransformer

_logger = logging.getLogger("tfcore")
_DO_NOT_CONVERT = "__tfc_do_not_convert__"


def _parse(f):
    src = textwrap.dedent(inspect.getsource(f))
    tree = ast.parse(src)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != f.__name__:
        raise ValueError(f"cannot locate the source of {f.__name__}")
    fdef.decorator_list = []
    return tree, fdef


def _convert(f):
    """(converted function, converted FunctionDef); raises when the source cannot be converted."""
    tree, fdef = _parse(f)
    fdef = ControlFlowTransformer().visit(fdef)
    freevars = list(f.__code__.co_freevars)
    factory = ast.FunctionDef(
        name="__ag_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in ["ag__"] + freevars], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))], decorator_list=[], returns=None,
        type_params=[], lineno=fdef.lineno, col_offset=0)
    module = ast.Module(body=[factory], type_ignores=[])
    _fix_locations(module, fdef.lineno)
    ast.increment_lineno(module, f.__code__.co_firstlineno - 1)
    filename = inspect.getsourcefile(f) or "<autograph>"
    code = compile(module, filename, "exec")
    ns = {}
    exec(code, f.__globals__, ns)  # noqa: S102 - the user's own function, re-compiled
    cells = [c.cell_contents for c in (f.__closure__ or ())]
    new = ns["__ag_factory"](operators, *cells)
    new.__defaults__ = f.__defaults__
    new.__kwdefaults__ = f.__kwdefaults__
    functools.update_wrapper(new, f, updated=())
    return new, fdef


def _fix_locations(node, lineno):
    """Every node gets a one-line location: its own line when it has one (the user's), else its parent's."""
    if "lineno" in node._attributes:
        if getattr(node, "lineno", None) is None:
            node.lineno = lineno
        lineno = node.lineno
        node.end_lineno = lineno
        if getattr(node, "col_offset", None) is None:
            node.col_offset = 0
        node.end_col_offset = node.col_offset
    for child in ast.iter_child_nodes(node):
        _fix_locations(child, lineno)


def convert_for_tracing(f):
    """The converted function tf.function traces (``f`` itself when it cannot be converted, as TF warns)."""
    target = getattr(f, "__func__", f)
    if getattr(target, _DO_NOT_CONVERT, False) or not inspect.isfunction(target) or target.__name__ == "<lambda>":
        return f
    try:
        new, _ = _convert(target)
    except Exception as e:  # noqa: BLE001 - AutoGraph falls back to the unconverted function, like TF
        _logger.warning("AutoGraph could not transform %s and will run it as-is. Cause: %s", target, e)
        return f
    if target is not f:  # a bound method
        return new.__get__(f.__self__)
    return new


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_graph``: the converted Python function."""
    return convert_for_tracing(getattr(entity, "python_function", entity))


def to_code(entity, recursive=True, experimental_optional_features=None):
    """``tf.autograph.to_code``: the source of the converted function."""
    f = getattr(entity, "python_function", entity)
    f = getattr(f, "__func__", f)
    _, fdef = _parse(f)
    fdef = ControlFlowTransformer().visit(fdef)
    ast.fix_missing_locations(fdef)
    fdef.name = f"tf__{fdef.name}"
    return ast.unparse(fdef) + "\n"


def do_not_convert(func=None):
    """``tf.autograph.experimental.do_not_convert``: tf.function traces ``func`` without conversion."""
    if func is None:
        return do_not_convert
    setattr(func, _DO_NOT_CONVERT, True)
    return func


def set_verbosity(level, alsologtostdout=False):
    """``tf.autograph.set_verbosity`` (accepted; tfcore logs conversion failures as warnings)."""
    return None
