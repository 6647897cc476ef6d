"""``fe.autograph``: Python control flow on tensors inside ``fe.function`` (TensorFlow's
``tf.autograph``).

``fe.function`` converts the function it traces (``autograph=True``, the default): an
``if``/``while``/``for`` on a tensor computed from the function's inputs becomes graph
control flow (``fe.cond`` / ``fe.while_loop``), so the function is traced once per input
signature and each call takes the branch, or runs the loop, its values ask for. Python
values keep Python semantics. See ``docs/function.md`` ("AutoGraph").

    @fe.function
    def f(x):
        if fe.reduce_sum(x) > 0:      # a traced condition: staged as fe.cond
            return x
        return -x

    print(fe.autograph.to_code(f.python_function))   # the converted source
"""
import warnings

from .._src.tracing.autograph import operators as _operators
from .._src.tracing.autograph import symbolic as _symbolic
from .._src.tracing.autograph import transformer as _transformer
from .._src.tracing.autograph.operators import print_ as _print
from .._src.tracing.autograph.transformer import convert as _convert
from .._src.tracing.autograph.transformer import set_verbosity
from .._src.tracing.autograph.transformer import source_of as _source_of
from . import experimental

__all__ = ["experimental", "set_verbosity", "to_code", "to_graph", "trace"]


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The source code of ``entity`` (a Python function or method) as AutoGraph converts
    it (``tf.autograph.to_code``)."""
    return _source_of(entity)


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``entity`` converted: a function whose Python control flow on traced tensors
    becomes graph control flow when it runs inside ``fe.function``
    (``tf.autograph.to_graph``). ValueError when it cannot be converted."""
    _source_of(entity)          # raises, naming the reason, when it cannot be converted
    return _convert(entity)


def trace(*args):
    """Print ``args`` when the code runs: in a traced function, while tracing, with traced
    tensors shown as the graph tensors they are (``tf.autograph.trace``)."""
    _print(*args)


# the modules of AutoGraph's implementation were submodules here before the engine had
# layers: still found under their old names for one release, with a DeprecationWarning
_MOVED = {"operators": _operators, "symbolic": _symbolic, "transformer": _transformer}


def __getattr__(name):
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError("module 'fasteager.autograph' has no attribute %r" % name)
    warnings.warn("fasteager.autograph.%s is deprecated and will be removed in the next "
                  "release: it is private, now %s (use fasteager.autograph's public "
                  "functions)" % (name, module.__name__), DeprecationWarning, stacklevel=2)
    return module
