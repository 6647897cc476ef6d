"""The enums code passes to variables: ``tf.VariableAggregation`` and
``tf.VariableSynchronization``."""
import enum


class VariableAggregation(enum.Enum):
    """How a distributed variable's per-replica updates combine (TF's
    ``tf.VariableAggregation``)."""
    __module__ = "fasteager"   # its public name (tf.VariableAggregation)
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas are synchronized
    (``tf.VariableSynchronization``)."""
    __module__ = "fasteager"   # its public name (tf.VariableSynchronization)
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3
