"""Tensors made by ``fasteager.numpy`` keep NumPy's promotion under Python operators.

Tensors the namespace makes from non-tensors (creation functions, random, conversion of
arrays and lists) are marked (``_np_rules``) and ops on marked tensors return marked
tensors (the core propagates the flag); the core passes operators on a marked tensor (``x * 0.5``, ``a + b`` of two dtypes, ``v @ w``
with 1-D operands) to ``operator`` below, which calls the namespace's function of the
same name. Ops on marked tensors return marked tensors, so the rule follows the data.
"""
import functools
import types

from .. import _core
from ..errors import UnimplementedError
from ._elementwise import FUNCTIONS
from ._reductions import matmul

_BY_OP = {"add": "add", "subtract": "subtract", "multiply": "multiply",
          "truediv": "true_divide", "floordiv": "floor_divide", "floormod": "mod",
          "pow": "power", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
          "bitwise_xor": "bitwise_xor", "less": "less", "less_equal": "less_equal",
          "greater": "greater", "greater_equal": "greater_equal", "equal": "equal",
          "not_equal": "not_equal"}


def mark(x):
    """Mark the tensors in ``x`` (a tensor, or a tuple/list of them) as NumPy-rules."""
    if type(x) is _core.Tensor:
        x._np_rules = True
    elif isinstance(x, (tuple, list)):
        for v in x:
            mark(v)
    return x


def numpy_rules(fn):
    """Decorate a namespace function so that its tensor results are marked."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return mark(fn(*args, **kwargs))
    wrapper.__wrapped_numpy__ = fn
    return wrapper


def mark_module(namespace, module_prefix="fasteager.numpy"):
    """Wrap the public functions defined under ``module_prefix`` in ``namespace``.

    Only functions that make tensors from non-tensors need it (creation, random): ops on
    marked tensors return marked tensors by themselves (the core propagates the flag).
    """
    for name, value in list(namespace.items()):
        if name.startswith("_") or not isinstance(value, types.FunctionType):
            continue
        if not getattr(value, "__module__", "").startswith(module_prefix):
            continue
        if hasattr(value, "__wrapped_numpy__"):
            continue
        namespace[name] = numpy_rules(value)


def operator(op, a, b):
    """A Tensor operator with a NumPy-rules operand: NumPy's function of the same name."""
    if op.name == "matmul":
        return mark(matmul(a, b))
    name = _BY_OP.get(op.name)
    if name is None:
        raise UnimplementedError("fasteager.numpy: the operator for %s has no NumPy-rules "
                                 "form" % op.name)
    return mark(FUNCTIONS[name](a, b))


_core.set_numpy_operator_hook(operator)
