"""``tf.compat`` names tfcore has, and the opt-in ``tensorflow`` alias (:func:`install_as_tensorflow`).

``import tfcore`` alone never aliases anything: ``install_as_tensorflow()`` (or ``python -m tfcore run
script.py``) does.
"""

from .tensorflow_alias import install_as_tensorflow, is_installed

__all__ = ["install_as_tensorflow", "is_installed"]
