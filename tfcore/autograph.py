"""``tf.autograph``: ``to_code``, ``to_graph``, ``experimental.do_not_convert``, ``set_verbosity``."""

import types as _types

from .function.autograph import do_not_convert, set_verbosity, to_code, to_graph

experimental = _types.SimpleNamespace(do_not_convert=do_not_convert)

__all__ = ["to_code", "to_graph", "set_verbosity", "experimental"]
