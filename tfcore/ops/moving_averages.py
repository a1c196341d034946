"""``tf.train.ExponentialMovingAverage`` (TF's semantics, eager).

``apply(var_list)`` creates one shadow variable per variable (initialised to its value, or to zeros with
``zero_debias``) and updates ``shadow -= (1 - decay) * (shadow - variable)``; with ``num_updates`` the decay used
is ``min(decay, (1 + num_updates) / (10 + num_updates))``.
"""

from ..framework import dtypes
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.variables import Variable


class ExponentialMovingAverage:
    """Maintains moving averages of variables (``average(var)`` is the shadow variable of ``var``)."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}
        self._debias = {}

    @property
    def name(self):
        return self._name

    def _key(self, var):
        return var.ref() if hasattr(var, "ref") else id(var)

    def _current_decay(self):
        decay = float(convert_to_tensor(self._decay).numpy())
        if self._num_updates is not None:
            n = float(convert_to_tensor(self._num_updates).numpy())
            decay = min(decay, (1.0 + n) / (10.0 + n))
        return decay

    def apply(self, var_list=None):
        """Create shadows for new variables of ``var_list`` and update every shadow once."""
        if var_list is None:
            raise ValueError("`var_list` must be given in eager mode (TF's default uses graph collections).")
        var_list = list(var_list)
        for var in var_list:
            if var.dtype.base_dtype not in (dtypes.bfloat16, dtypes.float16, dtypes.float32, dtypes.float64):
                raise TypeError("The variables must be half, float, or double: " + var.name)
            key = self._key(var)
            if key in self._averages:
                continue
            base = var.name.split(":")[0]
            init = var.read_value() * 0 if self._zero_debias else var.read_value()
            self._averages[key] = Variable(init, trainable=False, name=f"{base}/{self._name}")
            if self._zero_debias:
                self._debias[key] = (Variable(init, trainable=False, name=f"{base}/{self._name}/biased"),
                                     Variable(0.0, trainable=False, name=f"{base}/{self._name}/local_step"))
        decay = self._current_decay()
        for var in var_list:
            key = self._key(var)
            shadow = self._averages[key]
            value = var.read_value()
            if self._zero_debias:
                biased, step = self._debias[key]
                biased.assign_sub((biased.read_value() - value) * (1.0 - decay))
                step.assign_add(1.0)
                bias_factor = 1.0 - decay ** float(step.numpy())
                shadow.assign(biased.read_value() / bias_factor)
            else:
                shadow.assign_sub((shadow.read_value() - value) * (1.0 - decay))
        return None

    def average(self, var):
        """The shadow variable of ``var`` (None if ``apply`` never saw it)."""
        return self._averages.get(self._key(var))

    def average_name(self, var):
        """The name of ``var``'s shadow variable: ``<var name>/<name of this EMA>``."""
        return f"{var.name.split(':')[0]}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """``{shadow name: variable}``: restore the averages into the variables from a checkpoint."""
        variables = moving_avg_variables or []
        return {self.average_name(v): v for v in variables}
