"""The signature of one ``fe.function`` trace, as TensorFlow prints it.

``ConcreteFunction.function_type`` and ``Function.pretty_printed_concrete_signatures()``
describe each trace by the Python parameters it was called with: a tensor as the
TensorSpec of its shape and dtype, a Python value as ``Literal[value]``, containers by
their elements, and the outputs the same way.
"""
import inspect

from ... import _core
from .. import nest
from ..composite.structure import TensorSpec

Tensor = _core.Tensor
VariableBase = _core.VariableBase


def describe(value):
    """TensorFlow's text for the trace type of ``value``."""
    if isinstance(value, TensorSpec):
        return repr(value)
    if isinstance(value, VariableBase):
        value = value._tensor
    if isinstance(value, Tensor):
        return repr(TensorSpec(shape=value._value.shape, dtype=value.dtype))
    if value is None or isinstance(value, (bool, int, float, str, complex)):
        return "Literal[%r]" % (value,)
    if isinstance(value, list):
        return "List[%s]" % ", ".join(describe(v) for v in value)
    if isinstance(value, tuple):
        return "Tuple[%s]" % ", ".join(describe(v) for v in value)
    if isinstance(value, dict):
        return "Dict[%s]" % ", ".join("[%r, %s]" % (k, describe(v)) for k, v in value.items())
    return "<class '%s.%s'>" % (type(value).__module__, type(value).__qualname__)


class FunctionType:
    """Parameters (name, kind, trace type) and output of one trace."""

    def __init__(self, python_function, args, kwargs, output, captures=()):
        self.parameters = []
        try:
            sig = inspect.signature(python_function)
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
        except (TypeError, ValueError):
            sig = bound = None
        if bound is not None:
            for name, value in bound.arguments.items():
                kind = sig.parameters[name].kind
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    for i, v in enumerate(value):
                        self.parameters.append(("%s_%d" % (name, i), "POSITIONAL_ONLY", v))
                elif kind is inspect.Parameter.VAR_KEYWORD:
                    for k, v in value.items():
                        self.parameters.append((k, "KEYWORD_ONLY", v))
                else:
                    self.parameters.append((name, kind.name, value))
        else:
            self.parameters = [("arg_%d" % i, "POSITIONAL_ONLY", v) for i, v in enumerate(args)]
            self.parameters += [(k, "KEYWORD_ONLY", v) for k, v in kwargs.items()]
        self._params = [(n, k, describe(v)) for n, k, v in self.parameters]
        self._output = describe(output)
        self._captures = list(captures)

    def with_arguments(self, python_function, args, kwargs):
        """The same trace described by other arguments (the TensorSpecs asked for)."""
        other = FunctionType(python_function, args, kwargs, None, self._captures)
        other._output = self._output
        return other

    def __repr__(self):
        return "(%s) -> %s" % (", ".join("%s: %s" % (n, d) for n, _, d in self._params),
                               self._output)

    def pretty(self):
        lines = ["Input Parameters:"]
        lines += ["  %s (%s): %s" % p for p in self._params]
        lines += ["Output Type:", "  " + self._output, "Captures:"]
        if self._captures:
            lines += ["  %d: TensorSpec(shape=(), dtype=fe.resource, name=None)" % id(v)
                      for v in self._captures]
        else:
            lines.append("  None")
        return "\n".join(lines)


def _input_names(python_function, args, kwargs, tensors, input_signature):
    """The names TensorFlow gives a trace's tensor inputs, in the order of ``tensors``
    (saved signatures are called with them as keywords): the TensorSpec's name, else the
    parameter's (``x``; ``x_1``, ``x_2`` for the further tensors of a nested argument;
    ``args_0`` for ``*args``; the keyword for ``**kwargs``)."""
    try:
        params = [p.name for p in inspect.signature(python_function).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    specs = nest.flatten(input_signature) if input_signature is not None else None
    by_id = {}

    def name(arg, base):
        leaves = [x for x in nest.flatten(arg) if isinstance(x, Tensor)]
        for j, leaf in enumerate(leaves):
            by_id.setdefault(leaf._id, base if j == 0 else "%s_%d" % (base, j))
    for i, arg in enumerate(args):
        name(arg, params[i] if i < len(params) else "args_%d" % i)
    for k, arg in (kwargs or {}).items():
        name(arg, str(k))
    names = [by_id.get(t._id, "args_%d" % i) for i, t in enumerate(tensors)]
    if specs is not None and len(specs) == len(names):
        names = [s.name or n for s, n in zip(specs, names)]
    return names
