"""Running tfcore from a plain copy of the checkout (``PYTHONPATH=<repo root>``, no install).

The repository keeps ``kernels/`` (the CUDA sources) and ``distribute/`` (``tf.distribute``) at the top
level; an install maps them to ``tfcore.kernels`` and ``tfcore.distribute`` (``package-dir`` in
pyproject.toml). A GPU machine often gets a copy of the working tree and no install (its setuptools may
be older than the 77 this pyproject needs), so when this package sits in such a source tree, a finder
maps exactly those two names to the sibling folders. In an installed wheel the subpackages exist inside
``tfcore/`` and nothing is changed. This module imports nothing from tfcore (it runs first).
"""

import importlib.abc
import importlib.util
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
MAPPED = {"tfcore.kernels": "kernels", "tfcore.distribute": "distribute"}


class SourceTreeFinder(importlib.abc.MetaPathFinder):
    """Finds ``tfcore.kernels`` / ``tfcore.distribute`` in ``<root>/kernels`` / ``<root>/distribute``."""

    def __init__(self, root):
        self.root = Path(root)

    def find_spec(self, fullname, path=None, target=None):
        folder = MAPPED.get(fullname)
        if folder is None:
            return None
        init = self.root / folder / "__init__.py"
        if not init.is_file():
            return None
        return importlib.util.spec_from_file_location(fullname, init, submodule_search_locations=[str(init.parent)])


def source_root():
    """The checkout this package runs from (the folder holding ``tfcore/``, ``kernels/`` and
    ``distribute/``), or None when running from an install."""
    if all((PACKAGE_DIR / folder).is_dir() for folder in MAPPED.values()):
        return None  # an installed wheel: the subpackages are inside tfcore/
    root = PACKAGE_DIR.parent
    if all((root / folder / "__init__.py").is_file() for folder in MAPPED.values()):
        return root
    return None


def install():
    """Put a :class:`SourceTreeFinder` first on ``sys.meta_path`` when running from a source tree (before
    an editable install's finder, which may point at another checkout); returns the root or None."""
    root = source_root()
    if root is None:
        return None
    if not any(isinstance(f, SourceTreeFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, SourceTreeFinder(root))
    return root
