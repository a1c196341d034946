"""``tf.compat`` names tfcore has (``v2`` is tfcore itself; ``v1`` only TF1 protos), and the opt-in
``tensorflow`` alias (:func:`install_as_tensorflow`).

``import tfcore`` alone never aliases anything: ``install_as_tensorflow()`` (or ``python -m tfcore run
script.py``) does.
"""

from . import v1
from .tensorflow_alias import install_as_tensorflow, is_installed

__all__ = ["install_as_tensorflow", "is_installed"]
