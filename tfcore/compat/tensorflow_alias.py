"""Run unchanged ``import tensorflow as tf`` / ``import keras`` programs on tfcore (opt in).

:func:`install_as_tensorflow` registers ``tensorflow`` as the ``tfcore`` module object and ``keras`` as
``tfcore.keras`` in ``sys.modules``, and puts a meta-path finder first on ``sys.meta_path`` for their
submodules: ``import tensorflow.keras.layers`` or ``from keras import ops`` resolves the dotted name through
tfcore's public API (``tfcore.keras.layers``) and registers that same module object under the alias, so
no module is ever loaded twice and ``tensorflow.keras is tfcore.keras``. A name tfcore lacks
(``tensorflow.python.framework``, ``keras.src``) raises ``ModuleNotFoundError`` naming it.

It refuses (``ImportError``) when the real TensorFlow or Keras is already imported in this process: two
frameworks' tensors would meet in one program.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

_ALIASES = {"tensorflow": "tfcore", "keras": "tfcore.keras"}
_installed = [False]


def is_installed():
    """True once :func:`install_as_tensorflow` has run in this process."""
    return _installed[0]


def _target_module(alias_name):
    """The tfcore module object that ``alias_name`` (``tensorflow.keras.layers``) names, or None."""
    root, _, rest = alias_name.partition(".")
    base = _ALIASES.get(root)
    if base is None:
        return None
    module = importlib.import_module(base)
    if not rest:
        return module
    path = base
    for part in rest.split("."):
        path = f"{path}.{part}"
        value = getattr(module, part, None)
        if not isinstance(value, types.ModuleType):
            try:  # a subpackage not imported by its parent yet (a tfcore module path)
                value = importlib.import_module(path)
            except ImportError:
                return None
        module = value
        path = module.__name__
    return module


class _ExistingModuleLoader(importlib.abc.Loader):
    """Gives the import system an already-imported module (the tfcore module an alias names)."""

    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        pass  # already executed under its tfcore name


class _AliasFinder(importlib.abc.MetaPathFinder):
    """``tensorflow.*`` / ``keras.*`` submodules as tfcore's own module objects."""

    def find_spec(self, fullname, path=None, target=None):
        root = fullname.partition(".")[0]
        if root not in _ALIASES:
            return None
        module = _target_module(fullname)
        if module is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: tfcore (installed as {root!r} by tfcore.compat."
                f"install_as_tensorflow) has no module {fullname.replace(root, _ALIASES[root], 1)!r}",
                name=fullname)
        return importlib.machinery.ModuleSpec(fullname, _ExistingModuleLoader(module),
                                              is_package=hasattr(module, "__path__"))


def _real_module_imported(name, ours):
    mod = sys.modules.get(name)
    return mod is not None and mod is not ours


def install_as_tensorflow():
    """Make ``import tensorflow`` / ``import keras`` (and their submodules) give tfcore's modules.

    Idempotent. Raises ImportError, changing nothing, when the real TensorFlow or Keras is already
    imported. Returns the ``tfcore`` module.
    """
    tfcore = importlib.import_module("tfcore")
    keras = importlib.import_module("tfcore.keras")
    if _installed[0]:
        return tfcore
    for name, ours in (("tensorflow", tfcore), ("keras", keras)):
        if _real_module_imported(name, ours):
            where = getattr(sys.modules[name], "__file__", None)
            raise ImportError(f"install_as_tensorflow: the real {name!r} is already imported (from {where}); "
                              f"call it before anything imports {name}, or run the program with "
                              "`python -m tfcore run script.py`")
    sys.modules["tensorflow"] = tfcore
    sys.modules["keras"] = keras
    sys.meta_path.insert(0, _AliasFinder())
    _installed[0] = True
    return tfcore
