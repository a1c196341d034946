"""``tf.distribute.ReduceOp``."""

import enum

from tfcore.framework.variables import VariableAggregation


class ReduceOp(enum.Enum):
    """How values from several replicas combine: SUM or MEAN."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        mapping = {VariableAggregation.SUM: ReduceOp.SUM, VariableAggregation.MEAN: ReduceOp.MEAN}
        if aggregation not in mapping:
            raise ValueError(f"Could not convert from {aggregation} to a ReduceOp")
        return mapping[aggregation]
