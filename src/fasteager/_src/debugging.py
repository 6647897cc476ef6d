"""The implementation of ``fe.debugging``: runtime assertions on tensor values and shapes, and NaN/Inf checks.

Every failed assertion raises ``fe.errors.InvalidArgumentError`` (a ``ValueError``) whose
message names the condition and shows both values, as TensorFlow's eager asserts do.
Assertions return None. Shapes (``fe.TensorShape``, tuples, lists) are accepted wherever
a tensor is, so ``assert_equal(logits.shape, (32, 10))`` works.

``enable_check_numerics()`` makes every op check its float outputs and raise, naming the
op, on the first NaN or Inf (the check lives in the core's ``execute``).
"""
import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError

__all__ = ["assert_equal", "assert_near", "assert_less", "assert_greater", "assert_less_equal",
           "assert_greater_equal", "assert_none_equal", "assert_rank", "assert_rank_at_least",
           "assert_shapes", "assert_positive", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_all_finite", "assert_type", "check_numerics",
           "enable_check_numerics", "disable_check_numerics", "is_numeric_tensor"]

_SHOW = 6   # values shown in a failure message


def _value(x, argname, opname):
    if isinstance(x, (_core.Tensor, _core.VariableBase)):
        return _core.convert_to_tensor(x)._value
    if isinstance(x, tuple) and any(d is None for d in x):
        raise InvalidArgumentError("%s: %s is a shape with unknown dimensions (got %r)"
                                   % (opname, argname, x))
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        raise InvalidArgumentError("%s: %s must be a tensor or array-like (got %r)"
                                   % (opname, argname, x)) from None
    if arr.dtype.kind not in "fiubc":
        raise InvalidArgumentError("%s: %s must be numeric (got %r)" % (opname, argname, x))
    return arr


def _show(arr):
    flat = np.asarray(arr).reshape(-1)
    text = np.array2string(flat[:_SHOW], separator=", ")
    if flat.size > _SHOW:
        text = text[:-1] + ", ...]"
    return "%s (shape %s)" % (text, list(np.shape(arr)))


def _fail(opname, condition, message, x, y=None, extra=""):
    lead = "%s: " % message if message else ""
    text = "%s%s: condition %s did not hold%s (x = %s" % (lead, opname, condition, extra,
                                                          _show(x))
    if y is not None:
        text += ", y = %s" % _show(y)
    return InvalidArgumentError(text + ")")


def _compare(opname, fn, symbol):
    def assertion(x, y, message=None, summarize=None, name=None):
        a = _value(x, "x", opname)
        b = _value(y, "y", opname)
        try:
            ok = fn(a, b)
        except ValueError:
            raise InvalidArgumentError("%s: x and y do not broadcast (expected compatible "
                                       "shapes, got %s and %s)"
                                       % (opname, list(a.shape), list(b.shape))) from None
        if not np.all(ok):
            bad = np.argwhere(~np.broadcast_to(ok, np.broadcast_shapes(a.shape, b.shape)))
            where = (" at index %s" % bad[0].tolist()) if bad.size else ""
            raise _fail(opname, "x %s y" % symbol, message, a, b, where)
    assertion.__name__ = opname
    assertion.__doc__ = ("Raise InvalidArgumentError unless ``x %s y`` holds elementwise "
                         "(NumPy broadcasting)." % symbol)
    return assertion


assert_equal = _compare("assert_equal", np.equal, "==")
assert_none_equal = _compare("assert_none_equal", np.not_equal, "!=")
assert_less = _compare("assert_less", np.less, "<")
assert_greater = _compare("assert_greater", np.greater, ">")
assert_less_equal = _compare("assert_less_equal", np.less_equal, "<=")
assert_greater_equal = _compare("assert_greater_equal", np.greater_equal, ">=")


def _sign_check(opname, fn, symbol):
    def assertion(x, message=None, summarize=None, name=None):
        a = _value(x, "x", opname)
        if not np.all(fn(a, 0)):
            raise _fail(opname, "x %s 0" % symbol, message, a)
    assertion.__name__ = opname
    assertion.__doc__ = "Raise InvalidArgumentError unless ``x %s 0`` elementwise." % symbol
    return assertion


assert_positive = _sign_check("assert_positive", np.greater, ">")
assert_negative = _sign_check("assert_negative", np.less, "<")
assert_non_negative = _sign_check("assert_non_negative", np.greater_equal, ">=")
assert_non_positive = _sign_check("assert_non_positive", np.less_equal, "<=")


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raise unless ``|x - y| <= atol + rtol * |y|`` elementwise (TensorFlow's rule).

    ``rtol`` and ``atol`` default to ``10 * eps`` of the dtype (float32: about 1.2e-6).
    """
    a = _value(x, "x", "assert_near")
    b = _value(y, "y", "assert_near")
    dtype = np.result_type(a, b)
    eps = np.finfo(dtype).eps if dtype.kind in "fc" else 0.0
    rtol = 10 * eps if rtol is None else float(np.asarray(rtol))
    atol = 10 * eps if atol is None else float(np.asarray(atol))
    try:
        diff = np.abs(a - b)
    except ValueError:
        raise InvalidArgumentError("assert_near: x and y do not broadcast (expected compatible "
                                   "shapes, got %s and %s)" % (list(a.shape), list(b.shape))) \
            from None
    if not np.all(diff <= atol + rtol * np.abs(b)):
        raise _fail("assert_near", "|x - y| <= atol + rtol * |y|", message, a, b,
                    " (rtol=%g, atol=%g, max |x - y| = %g)" % (rtol, atol, np.max(diff)))


def assert_all_finite(t, message=None, name=None):
    """Raise unless every entry of ``t`` is finite (no NaN, no Inf)."""
    check_numerics(t, message or "assert_all_finite")


def assert_rank(x, rank, message=None, name=None):
    """Raise unless ``x`` has rank ``rank``."""
    r = _value(x, "x", "assert_rank").ndim
    want = int(np.asarray(rank))
    if r != want:
        lead = "%s: " % message if message else ""
        raise InvalidArgumentError("%sassert_rank: tensor has the wrong rank (expected rank %d, "
                                   "got rank %d with shape %s)"
                                   % (lead, want, r, list(np.shape(_value(x, "x", "")))))


def assert_rank_at_least(x, rank, message=None, name=None):
    """Raise unless ``x`` has rank ``rank`` or more."""
    shape = np.shape(_value(x, "x", "assert_rank_at_least"))
    want = int(np.asarray(rank))
    if len(shape) < want:
        lead = "%s: " % message if message else ""
        raise InvalidArgumentError("%sassert_rank_at_least: tensor rank is too low (expected "
                                   "rank >= %d, got rank %d with shape %s)"
                                   % (lead, want, len(shape), list(shape)))


def assert_type(tensor, tf_type, message=None, name=None):
    """Raise unless ``tensor`` has dtype ``tf_type``."""
    t = _core.convert_to_tensor(tensor)
    if t.dtype != as_dtype(tf_type):
        lead = "%s: " % message if message else ""
        raise InvalidArgumentError("%sassert_type: wrong dtype (expected %s, got %s)"
                                   % (lead, as_dtype(tf_type).name, t.dtype.name))


def _is_any(d):
    return d is None or d == "."


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Check the shapes of several tensors and the relations between their dimensions.

    ``shapes``: a dict ``{tensor: shape}`` or a list of ``(tensor, shape)`` pairs. A shape
    entry is an int (that size), a string or other hashable symbol (the same size wherever
    the symbol appears), or None / ``'.'`` (any size). A first entry ``...`` or ``'*'``
    lets any number of outer dimensions precede the rest. Scalars and ``()`` both count as
    shape ``[1]`` (TensorFlow's rule).

    >>> fe.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N", "D"))])
    """
    items = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes = {}
    lead = "%s: " % message if message else ""
    for i, item in enumerate(items):
        try:
            tensor, spec = item
        except (TypeError, ValueError):
            raise InvalidArgumentError("assert_shapes: entry %d must be a (tensor, shape) pair "
                                       "(got %r)" % (i, item)) from None
        shape = list(np.shape(_value(tensor, "tensor %d" % i, "assert_shapes")))
        spec = list(spec)
        prefix = bool(spec) and (spec[0] is Ellipsis or spec[0] == "*")
        if prefix:
            spec = spec[1:]
        if not shape:
            shape = [1]
        if not spec and not prefix:
            spec = [1]
        if (len(shape) < len(spec)) if prefix else (len(shape) != len(spec)):
            raise InvalidArgumentError(
                "%sassert_shapes: tensor %d has the wrong rank (expected %s%s, got shape %s)"
                % (lead, i, "at least " if prefix else "", len(spec), shape))
        dims = shape[len(shape) - len(spec):]
        for j, (sym, d) in enumerate(zip(spec, dims)):
            if _is_any(sym):
                continue
            try:
                want = int(sym)
            except (TypeError, ValueError):
                want = sizes.setdefault(sym, d)
            if want != d:
                what = "%r" % (sym,) if not isinstance(sym, (int, np.integer)) else "size"
                raise InvalidArgumentError(
                    "%sassert_shapes: tensor %d, dimension %d does not match %s (expected %d, "
                    "got %d in shape %s)" % (lead, i, len(shape) - len(spec) + j, what, want,
                                             d, shape))


def check_numerics(tensor, message, name=None):
    """``tensor`` unchanged if it has no NaN or Inf; else raise, quoting ``message``."""
    t = _core.convert_to_tensor(tensor)
    arr = t._value
    if arr.dtype.kind not in "fc":
        raise InvalidArgumentError("check_numerics: tensor must be floating (expected float, "
                                   "got %s)" % arr.dtype)
    if arr.size and not np.isfinite(arr).all():
        what = "NaN" if np.isnan(arr).any() else "Inf"
        raise InvalidArgumentError("%s : Tensor had %s values (check_numerics: shape %s, "
                                   "dtype %s)" % (message, what, list(arr.shape), arr.dtype))
    return t


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on every op checks its float outputs and raises, naming the op, on NaN/Inf."""
    _core.set_check_numerics(True)


def disable_check_numerics():
    """Stop the per-op NaN/Inf checks started by ``enable_check_numerics``."""
    _core.set_check_numerics(False)


def is_numeric_tensor(tensor):
    """True for a tensor of a numeric (not bool) dtype."""
    return isinstance(tensor, _core.Tensor) and tensor._value.dtype.kind in "fiuc"
