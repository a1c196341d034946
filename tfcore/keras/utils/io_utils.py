"""Interactive logging (Keras's ``io_utils``): whether progress bars and ``print_msg`` write to stdout.

With interactive logging disabled (``keras.utils.disable_interactive_logging()``), messages go to the
``logging`` module's "tfcore.keras" logger at INFO level instead, one complete line per message, which is what
Keras does (through absl logging) for non-interactive jobs.
"""

import logging
import sys
import threading

_state = threading.local()
_LOGGER = logging.getLogger("tfcore.keras")


def enable_interactive_logging():
    """Log to stdout (the default): progress bars redraw in place."""
    _state.interactive = True


def disable_interactive_logging():
    """Log through the ``logging`` module (logger "tfcore.keras", INFO) instead of stdout."""
    _state.interactive = False


def is_interactive_logging_enabled():
    """True unless :func:`disable_interactive_logging` was called in this thread."""
    return getattr(_state, "interactive", True)


def print_msg(message, line_break=True):
    """Print ``message`` to stdout, or log it when interactive logging is off."""
    if is_interactive_logging_enabled():
        sys.stdout.write(message + "\n" if line_break else message)
        sys.stdout.flush()
    else:
        _LOGGER.info(message)
