"""AutoGraph: ``ast`` conversion of Python control flow on tensors into tf.cond / tf.while_loop."""

from .api import convert_for_tracing, do_not_convert, set_verbosity, to_code, to_graph

__all__ = ["convert_for_tracing", "do_not_convert", "set_verbosity", "to_code", "to_graph"]
