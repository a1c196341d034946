"""``tf.summary.experimental``: the default step, summary scopes and raw proto writes."""

import contextlib

from ..framework.context import current_name_scope, name_scope
from .summary_ops import write_raw_pb
from .writer import get_step, set_step


@contextlib.contextmanager
def summary_scope(name, default_name=None, values=None):
    """``tf.summary.experimental.summary_scope``: yields ``(tag, scope)`` for a summary named ``name``."""
    name = name or default_name
    scope = current_name_scope()
    tag = f"{scope}/{name}" if scope else name
    with name_scope(name):
        yield tag, current_name_scope() + "/"


__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
