"""Hinge metrics (Keras 3's ``hinge_metrics.py``); the functions are the losses'."""

from .. import losses as losses_mod
from .reduction_metrics import _wrapper

hinge = losses_mod.hinge
squared_hinge = losses_mod.squared_hinge
categorical_hinge = losses_mod.categorical_hinge
huber = losses_mod.huber


Hinge = _wrapper("Hinge", hinge, "hinge", "Mean of ``hinge(y_true, y_pred)``.", __name__)
SquaredHinge = _wrapper("SquaredHinge", squared_hinge, "squared_hinge", "Mean of ``squared_hinge``.", __name__)
CategoricalHinge = _wrapper("CategoricalHinge", categorical_hinge, "categorical_hinge",
                            "Mean of ``categorical_hinge``.", __name__)
