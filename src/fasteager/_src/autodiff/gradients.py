"""``tf.gradients`` and ``tf.hessians`` (graph-mode APIs: fasteager is always eager, so
they raise TensorFlow's eager RuntimeError; use ``fe.GradientTape``) and
``tf.AggregationMethod``."""


def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None,
              unconnected_gradients=None):
    """TensorFlow's graph-mode ``tf.gradients``: fasteager is always eager, so this raises
    TensorFlow's eager RuntimeError (inside ``fe.function`` too); use ``fe.GradientTape``."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. Use "
                       "tf.GradientTape instead.")


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """Graph-mode ``tf.hessians``: raises as ``gradients`` does; use nested GradientTapes."""
    return gradients(ys, xs)


class AggregationMethod:
    """How gradients of one tensor used several times are summed (``tf.AggregationMethod``);
    fasteager's tapes always add them as they come, which all methods give up to rounding."""
    __module__ = "fasteager"   # its public name (tf.AggregationMethod)
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2
