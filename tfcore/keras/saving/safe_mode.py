"""Keras 3's ``safe_mode``: Python bytecode in a config (a ``lambda``) is refused unless the user opts out.

Keras 3 stores a Python ``lambda`` (a ``Lambda`` layer's function, a lambda activation) as
``{"class_name": "__lambda__", ...}`` holding marshalled bytecode. Loading one runs code from the
file, so ``load_model``/``deserialize_keras_object`` refuse it by default with Keras 3's messages
(``keras/src/saving/serialization_lib.py``, ``keras/src/layers/core/lambda_layer.py``). Passing
``safe_mode=False`` (or calling ``keras.config.enable_unsafe_deserialization()``) loads it, as
Keras 3 does, for files the user trusts.

``SafeModeScope`` is thread-local and nests (the innermost decides); after
``enable_unsafe_deserialization()`` lambdas load everywhere, as that function's name promises.
"""

import base64
import binascii
import marshal
import threading
import types

LAMBDA_MESSAGE = (
    "Requested the deserialization of a Python lambda. This carries a potential risk of arbitrary code "
    "execution and thus it is disallowed by default. If you trust the source of the artifact, you can override "
    "this error by passing `safe_mode=False` to the loading function, or calling "
    "`keras.config.enable_unsafe_deserialization()."
)
LAMBDA_LAYER_MESSAGE = (
    "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This carries a "
    "potential risk of arbitrary code execution and thus it is disallowed by default. If you trust the source of "
    "the artifact, you can override this error by passing `safe_mode=False` to the loading function, or calling "
    "`keras.config.enable_unsafe_deserialization()."
)


class _State(threading.local):
    def __init__(self):
        self.stack = []


_state = _State()
_unsafe_globally = [False]


class SafeModeScope:
    """``with SafeModeScope(False):`` allows lambdas to be deserialized inside the block (None: no change)."""

    def __init__(self, safe_mode=True):
        self.safe_mode = safe_mode

    def __enter__(self):
        _state.stack.append(self.safe_mode)
        return self

    def __exit__(self, *exc):
        _state.stack.pop()


def in_safe_mode():
    """Whether lambdas are refused here: not after ``enable_unsafe_deserialization()``, else the innermost scope."""
    if _unsafe_globally[0]:
        return False
    for value in reversed(_state.stack):
        if value is not None:
            return bool(value)
    return True


def enable_unsafe_deserialization():
    """``keras.config.enable_unsafe_deserialization()``: allow lambdas everywhere (for trusted files only)."""
    _unsafe_globally[0] = True


def is_lambda_config(value):
    return isinstance(value, dict) and value.get("class_name") == "__lambda__"


def load_lambda(config, layer=False):
    """The function a ``__lambda__`` config holds; ``ValueError`` (Keras 3's message) in safe mode."""
    if in_safe_mode():
        raise ValueError(LAMBDA_LAYER_MESSAGE if layer else LAMBDA_MESSAGE)
    inner = config.get("config")
    if not isinstance(inner, dict):
        raise ValueError(f"Invalid `__lambda__` config: expected a dict under 'config', got {inner!r}")
    if "value" in inner:  # serialization_lib's form: value = [code, defaults, closure]
        code, defaults, closure = (list(inner["value"]) + [None, None])[:3]
    else:  # the Lambda layer's form
        code, defaults, closure = inner.get("code"), inner.get("defaults"), inner.get("closure")
    return func_load(code, defaults, closure)


def func_dump(fn):
    """``(code, defaults, closure)`` of a Python function as Keras stores it (base64 marshalled bytecode)."""
    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return code, fn.__defaults__, closure


def func_load(code, defaults=None, closure=None):
    """Rebuild a function from :func:`func_dump`'s output (runs bytecode: only ever after the safe-mode check)."""
    try:
        raw = base64.decodebytes(code.encode("ascii"))
    except (UnicodeEncodeError, binascii.Error, AttributeError):
        raise ValueError("Invalid `__lambda__` config: its code is not base64 text") from None
    try:
        code_obj = marshal.loads(raw)
    except (EOFError, ValueError, TypeError) as e:
        raise ValueError(f"Invalid `__lambda__` config: its bytecode cannot be read by this Python ({e})") from None
    if not isinstance(code_obj, types.CodeType):
        raise ValueError("Invalid `__lambda__` config: it does not hold a code object")
    if closure is not None:
        closure = tuple(types.CellType(v) for v in closure)
    if isinstance(defaults, list):
        defaults = tuple(defaults)
    return types.FunctionType(code_obj, globals(), name=code_obj.co_name, argdefs=defaults, closure=closure)
