"""TensorFlow's ops on sparse tensors: the handlers ``fasteager.sparse`` registers.

TensorFlow dispatches a few ops on ``SparseTensor``: the unary ones that map zero to zero
(so the implicit zeros stay zeros), ``cast``, and division by a scalar. They run on the
values and keep the indices; other ops refuse a SparseTensor (use ``fe.sparse.to_dense``
or ``fe.sparse.map_values``). The core hands an op call with a SparseTensor argument to
``_dispatch_op``; ``fe.cast`` reaches its handler through ``ops.registry.COMPOSITE_TYPES``.
"""
from . import _core
from .errors import InvalidArgumentError
from .ops.registry import register_composite
from .sparse import SparseTensor

# f(0) == 0: the entries not stored stay zero (TensorFlow's list)
_ZERO_PRESERVING = frozenset(("abs", "negative", "sign", "square", "sqrt", "sin", "tan",
                              "asin", "atan", "tanh", "asinh", "atanh", "erf"))


def _dispatch_op(op, args, attrs):
    if op.name in _ZERO_PRESERVING and len(args) == 1:
        return args[0].with_values(_core.execute(op, (args[0].values,), attrs))
    if op.name == "truediv" and len(args) == 2 and isinstance(args[0], SparseTensor) \
            and not isinstance(args[1], SparseTensor):
        divisor = _core.convert_to_tensor(args[1]) if not isinstance(args[1], (int, float)) \
            else args[1]
        if isinstance(divisor, _core.Tensor) and divisor._value.ndim != 0:
            raise InvalidArgumentError("truediv: a SparseTensor divides by a scalar only (got "
                                       "shape %s)" % list(divisor._value.shape))
        return args[0].with_values(_core.execute(op, (args[0].values, divisor), attrs))
    raise InvalidArgumentError(
        "%s: does not take a SparseTensor (TensorFlow's sparse dispatch covers %s, cast and "
        "division by a scalar; use fe.sparse.to_dense or fe.sparse.map_values)"
        % (op.name, ", ".join(sorted(_ZERO_PRESERVING))))


def _cast(x, dtype, name=None):
    from .ops.math_ops import cast
    return x.with_values(cast(x.values, dtype))


_core.register_dispatch(SparseTensor, _dispatch_op)
register_composite(SparseTensor, {"cast": _cast})
