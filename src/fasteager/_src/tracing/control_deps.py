"""TensorFlow's graph-era control names with their eager meanings: ``no_op``, ``group``,
``tuple`` and ``control_dependencies``. fasteager runs every op in program order, inside
a trace too, so control dependencies hold by construction."""
import builtins
import contextlib

from ...ops.array_ops import identity


def no_op(name=None):
    """Does nothing (TensorFlow's eager ``tf.no_op`` returns None)."""
    return


def group(*inputs, **kwargs):
    """Returns None, as TensorFlow's eager ``tf.group``: the ops named have already run."""
    bad = set(kwargs) - {"name"}
    if bad:
        raise TypeError("group: unknown keyword arguments: %s" % ", ".join(sorted(bad)))


def tuple(tensors, name=None, control_inputs=None):
    """The ``tensors`` (None entries kept) after every one of them is computed: a list of
    identities, as TensorFlow returns them (eager ops are already computed)."""
    _run_callables(control_inputs)
    return [None if t is None else identity(t) for t in tensors]


def _run_callables(control_inputs):
    for c in control_inputs or ():
        if callable(c):
            c()


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """A context manager in which ops run after ``control_inputs``: fasteager runs ops in
    program order (inside ``fe.function`` too), so it only calls the callables among them,
    as TensorFlow's eager ``control_dependencies`` does."""
    if control_inputs is not None and not isinstance(control_inputs, (list, builtins.tuple)):
        raise TypeError("control_dependencies: control_inputs must be a list of tensors or "
                        "operations (got %s)" % type(control_inputs).__name__)
    _run_callables(control_inputs)
    yield
