"""Elementwise math: arithmetic, powers, exp/log, trigonometric and hyperbolic functions,
comparisons, logic and bits, complex parts, select/cast/clip: forward and gradient side by
side.

Each block is one op: a comment with the math of its gradient, then ``defop``. Gradients
use fasteager ops only, so they are differentiable in turn (higher-order derivatives).

dtype rules: binary ops need one dtype (Python scalars adopt the tensor's). Integer
arithmetic keeps the input dtype and wraps on overflow, as NumPy and TensorFlow do;
floats never change width. Float-only ops (exp, log, erf ...) reject integers with
``InvalidArgumentError`` naming the op.

Complex dtypes (complex64, complex128) run through arithmetic, exp/log/sqrt/abs, the
trigonometric functions, and ``real``/``imag``/``conj``/``angle``.
Their gradients follow TensorFlow's convention: the gradient of a real loss L with
respect to z = x + iy is dL/dx + i dL/dy (twice the conjugate Wirtinger derivative
dL/d(conj z)), so a gradient step ``z - lr * grad`` descends. A holomorphic op's VJP is
therefore ``g * conj(f'(z))``: ``_cj`` below is the identity on real tensors (no op runs),
so real gradients are unchanged. HIPS autograd's ``grad`` is the conjugate of this
(dL/dx - i dL/dy).

The composites at the end (``xlogy``, ``reciprocal_no_nan``, ``polyval`` ...) are built
from the ops above and need no gradient of their own; ``nextafter`` and the bit shifts
are ops (no gradient, as in TensorFlow).
"""

import math

import numpy as np

from .. import _core, _kernels
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError, NotFoundError
from .registry import (ALL, BOOL, composite_call, COMPOSITE_TYPES, defop, ELEMENTWISE, execute,
                       FLOAT, INT, INT_BOOL, NUMERIC, STRING, unbroadcast)

convert_to_tensor = _core.convert_to_tensor


def _zeros(g):
    return _core.wrap(np.zeros_like(g._value))


_C = "c"                      # the complex kind, for the ops that take it
FLOAT_C = FLOAT + _C
NUMERIC_C = NUMERIC + _C


def _cj(t):
    """conj(t) for a complex tensor, t itself for a real one (no op, nothing recorded)."""
    if t._value.dtype.kind == "c":
        return execute(conj_op, t)
    return t


# ---- binary arithmetic --------------------------------------------------------------------

# d(x + y) = dx + dy
# (strings: concatenation, as tf.add; never recorded, strings have no gradient)
add = defop("add", np.add, kinds=NUMERIC_C + STRING,
            grads=[lambda g, ans, x, y: unbroadcast(g, x),
                   lambda g, ans, x, y: unbroadcast(g, y)])

# d(x - y) = dx - dy
subtract = defop("subtract", np.subtract, kinds=NUMERIC_C,
                 grads=[lambda g, ans, x, y: unbroadcast(g, x),
                        lambda g, ans, x, y: unbroadcast(negative(g), y)])

# d(x * y) = y dx + x dy  (complex: g conj(y), g conj(x))
multiply = defop("multiply", np.multiply, kinds=NUMERIC_C,
                 grads=[lambda g, ans, x, y: unbroadcast(g * _cj(y), x),
                        lambda g, ans, x, y: unbroadcast(g * _cj(x), y)])

# d(x / y) = dx / y - x / y^2 dy.  Integer inputs give float64 (TensorFlow's truediv rule).
def _truediv_fwd(x, y):
    # TensorFlow divides 8- and 16-bit integers in float32, wider ones in float64
    if x.dtype.kind in "iu" and x.dtype.itemsize <= 2:
        return np.true_divide(x, y, dtype=np.float32)
    return np.true_divide(x, y)


truediv = defop("truediv", _truediv_fwd, kinds=NUMERIC_C,
                grads=[lambda g, ans, x, y: unbroadcast(g / _cj(y), x),
                       lambda g, ans, x, y: unbroadcast(negative(g) * _cj(ans / y), y)],
                quiet=True)
divide = truediv
truediv.dtype_error = TypeError     # TensorFlow's __truediv__ checks dtypes in Python

# floor(x / y) is piecewise constant: no gradient (as TensorFlow)
def _integer_division(name, fn):
    def forward(x, y):
        # TensorFlow's integer FloorDiv/FloorMod refuse a zero divisor (NumPy gives 0)
        if x.dtype.kind in "iu" and not np.all(y):
            raise InvalidArgumentError("%s: integer division by zero" % name)
        return fn(x, y)
    return forward


floordiv = defop("floordiv", _integer_division("floordiv", np.floor_divide), kinds=NUMERIC_C,
                 no_grad="piecewise constant: the gradient is zero almost everywhere", quiet=True,
                 nin=2)
# TensorFlow's FloorDiv lists complex types but has no kernel for them
floordiv.refuse_dtypes([np.complex64, np.complex128], NotFoundError)
floor_div = floordiv

# x mod y = x - floor(x / y) y  =>  d/dx = 1, d/dy = -floor(x / y)
floormod = defop("floormod", _integer_division("floormod", np.mod),
                 grads=[lambda g, ans, x, y: unbroadcast(g, x),
                        lambda g, ans, x, y: unbroadcast(
                            negative(g) * floor(truediv(x, y)), y)], quiet=True)
mod = floormod


def _pow_dy(g, ans, x, y):
    # d/dy x^y = x^y log(x), taken as 0 where x <= 0 (as TensorFlow)
    if x._value.dtype.kind == "c":      # the principal branch of log
        return unbroadcast(g * _cj(ans * log(x)), y)
    safe_x = where(greater(x, 0), x, 1)
    return unbroadcast(g * ans * log(safe_x), y)


def _pow_dx(g, ans, x, y):
    # d/dx x^y = y x^(y-1); where y = 0 it is 0 (also at x = 0, where x^-1 is inf): the
    # exponent is taken as 1 there, as HIPS autograd does
    return unbroadcast(g * _cj(y * pow(x, where(not_equal(y, 0), y - 1, 1))), x)


pow = defop("pow", np.power, kinds=NUMERIC_C,  # noqa: A001 - fe.pow is TensorFlow's name
            grads=[_pow_dx, _pow_dy], quiet=True)
pow.refuse_dtypes([np.uint8, np.uint16, np.uint32, np.uint64])   # (TensorFlow's Pow)

# max(x, y): the gradient goes to x where x >= y, else to y (TensorFlow's tie rule)
maximum = defop("maximum", np.maximum,
                grads=[lambda g, ans, x, y: unbroadcast(
                           where(greater_equal(x, y), g, _zeros(g)), x),
                       lambda g, ans, x, y: unbroadcast(
                           where(greater_equal(x, y), _zeros(g), g), y)])

# min(x, y): the gradient goes to x where x <= y, else to y
minimum = defop("minimum", np.minimum,
                grads=[lambda g, ans, x, y: unbroadcast(
                           where(less_equal(x, y), g, _zeros(g)), x),
                       lambda g, ans, x, y: unbroadcast(
                           where(less_equal(x, y), _zeros(g), g), y)])

# (x - y)^2: d/dx = 2 (x - y) g
squared_difference = defop(
    "squared_difference", lambda x, y: np.square(x - y),
    grads=[lambda g, ans, x, y: unbroadcast(g * 2 * (x - y), x),
           lambda g, ans, x, y: unbroadcast(g * -2 * (x - y), y)])

# ---- unary ------------------------------------------------------------------------------

# d(-x) = -dx
negative = defop("negative", np.negative, kinds=NUMERIC_C, grads=[lambda g, ans, x: negative(g)])
neg = negative

def _abs_grad(g, ans, x):
    if x._value.dtype.kind != "c":
        return g * sign(x)
    # d|z| / d(x, y) = (x, y) / |z|: the gradient z / |z| (0 at z = 0, as TensorFlow),
    # written with ops so that it is differentiable again
    zero = equal(ans, 0)
    safe = where(zero, _core.wrap(np.ones((), ans._value.dtype)), ans)
    unit = where(zero, _zeros(x), x / cast(safe, x._value.dtype))
    return cast(g, x._value.dtype) * unit


# d|x| = sign(x) dx;  complex: |z| is real, its gradient z / |z|
abs = defop("abs", np.abs, kinds=NUMERIC_C, same_dtype=False,  # noqa: A001
            grads=[_abs_grad])

# sign is piecewise constant: zero gradient (as TensorFlow)
sign = defop("sign", np.sign, grads=[lambda g, ans, x: _zeros(g)])

# d x^2 = 2 x dx
square = defop("square", np.square, kinds=NUMERIC_C,
               grads=[lambda g, ans, x: g * (2 * _cj(x))])

# d sqrt(x) = dx / (2 sqrt(x))
sqrt = defop("sqrt", np.sqrt, kinds=FLOAT_C, grads=[lambda g, ans, x: g * 0.5 / _cj(ans)],
             quiet=True)

# d x^(-1/2) = -1/2 x^(-3/2) dx
rsqrt = defop("rsqrt", lambda x: 1 / np.sqrt(x), kinds=FLOAT, jvp=ELEMENTWISE,
              grads=[lambda g, ans, x: g * -0.5 * ans * ans * ans], quiet=True)

# d/dx 1/x = -1/x^2
reciprocal = defop("reciprocal", np.reciprocal, kinds=FLOAT_C,
                   grads=[lambda g, ans, x: negative(g) * _cj(ans * ans)], quiet=True)

# d exp(x) = exp(x) dx
exp = defop("exp", np.exp, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(ans)], quiet=True)

# d (exp(x) - 1) = exp(x) dx
expm1 = defop("expm1", np.expm1, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(ans + 1)],
              quiet=True)

# d log(x) = dx / x
log = defop("log", np.log, kinds=FLOAT_C, grads=[lambda g, ans, x: g / _cj(x)], quiet=True)

# d log(1 + x) = dx / (1 + x)
log1p = defop("log1p", np.log1p, kinds=FLOAT_C, grads=[lambda g, ans, x: g / _cj(1 + x)],
              quiet=True)

# d sin(x) = cos(x) dx
sin = defop("sin", np.sin, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(cos(x))])

# d cos(x) = -sin(x) dx
cos = defop("cos", np.cos, kinds=FLOAT_C,
            grads=[lambda g, ans, x: negative(g) * _cj(sin(x))])

# d tan(x) = (1 + tan(x)^2) dx
tan = defop("tan", np.tan, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(1 + ans * ans)],
            quiet=True)

# d tanh(x) = (1 - tanh(x)^2) dx
tanh = defop("tanh", np.tanh, kinds=FLOAT_C,
             grads=[lambda g, ans, x: g * _cj(1 - ans * ans)])


def _sigmoid_into(x, out):
    # 1/(1+e) for x >= 0 and e/(1+e) for x < 0, with e = exp(-|x|) <= 1: no overflow, and
    # no cancellation for negative x, where (1 + tanh(x/2)) / 2 loses 2e-4 relative at -10
    if x.dtype == np.float32 and type(x) is np.ndarray and out.flags.c_contiguous:
        return _kernels.sigmoid_f32(x, out)         # the same formula in one SIMD pass
    e = np.exp(-np.abs(x))
    return np.divide(np.where(x < 0, e, 1), e + 1, out=out)


def _sigmoid(x):
    return _sigmoid_into(x, np.empty(np.shape(x), x.dtype))


# d sigmoid(x) = sigmoid(x) sigmoid(-x) dx (not s (1 - s), which cancels for large x)
sigmoid = defop("sigmoid", _sigmoid, kinds=FLOAT, jvp=ELEMENTWISE, into=_sigmoid_into,
                grads=[lambda g, ans, x: g * ans * sigmoid(negative(x))])

# floor, ceil, round: piecewise constant
floor = defop("floor", np.floor, kinds=FLOAT, grads=[lambda g, ans, x: _zeros(g)])
ceil = defop("ceil", np.ceil, kinds=FLOAT, grads=[lambda g, ans, x: _zeros(g)])
# integers come back unchanged, in their dtype (TensorFlow's round returns them as they are)
round = defop("round", np.round, kinds=FLOAT + INT, jvp=ELEMENTWISE,  # noqa: A001 - TF's name
              grads=[lambda g, ans, x: _zeros(g)])

# ---- comparisons and logic (no gradient: the outputs are bool) --------------------------
_CMP = "comparison: the output is bool"
equal = defop("equal", np.equal, kinds=ALL + _C + STRING, no_grad=_CMP)
not_equal = defop("not_equal", np.not_equal, kinds=ALL + _C + STRING,
                 no_grad=_CMP)
less = defop("less", np.less, no_grad=_CMP)
less_equal = defop("less_equal", np.less_equal, no_grad=_CMP)
greater = defop("greater", np.greater, no_grad=_CMP)
greater_equal = defop("greater_equal", np.greater_equal, no_grad=_CMP)
logical_and = defop("logical_and", np.logical_and, kinds=BOOL, no_grad=_CMP)
logical_or = defop("logical_or", np.logical_or, kinds=BOOL, no_grad=_CMP)
logical_xor = defop("logical_xor", np.logical_xor, kinds=BOOL, no_grad=_CMP)
logical_not = defop("logical_not", np.logical_not, kinds=BOOL, no_grad=_CMP)
_BITS = "bitwise: integer or bool values only"
bitwise_and = defop("bitwise_and", np.bitwise_and, kinds=INT_BOOL, no_grad=_BITS)
bitwise_or = defop("bitwise_or", np.bitwise_or, kinds=INT_BOOL, no_grad=_BITS)
bitwise_xor = defop("bitwise_xor", np.bitwise_xor, kinds=INT_BOOL, no_grad=_BITS)
invert = defop("invert", np.invert, kinds=INT_BOOL, no_grad=_BITS)
is_nan = defop("is_nan", np.isnan, kinds=FLOAT, no_grad=_CMP)
is_inf = defop("is_inf", np.isinf, kinds=FLOAT, no_grad=_CMP)
is_finite = defop("is_finite", np.isfinite, kinds=FLOAT, no_grad=_CMP)

# ---- complex parts --------------------------------------------------------------------------

# conj is real-linear: the gradient of conj(z) is conj(g)
conj_op = defop("conj", np.conj, kinds=_C, grads=[lambda g, ans, z: execute(conj_op, g)])

# real(z) = x: the gradient is g + 0i;  imag(z) = y: the gradient is 0 + i g
real_op = defop("real", np.real, kinds=_C, same_dtype=False,
                grads=[lambda g, ans, z: cast(g, z._value.dtype)])
imag_op = defop("imag", np.imag, kinds=_C, same_dtype=False,
                grads=[lambda g, ans, z: cast(g, z._value.dtype)
                       * _core.wrap(np.asarray(1j, z._value.dtype))])


def _complex_dtype(x):
    return np.result_type(x._value.dtype, np.complex64)


def conj(x, name=None):
    """The complex conjugate (a real tensor as it is)."""
    if type(x) in COMPOSITE_TYPES:
        return composite_call("conj", x, x)
    x = convert_to_tensor(x)
    return execute(conj_op, x) if x._value.dtype.kind == "c" else x


def real(input, name=None):
    """The real part (a real tensor as it is)."""
    if type(input) in COMPOSITE_TYPES:
        return composite_call("real", input, input)
    x = convert_to_tensor(input)
    return execute(real_op, x) if x._value.dtype.kind == "c" else x


def imag(input, name=None):
    """The imaginary part (zeros for a real tensor)."""
    if type(input) in COMPOSITE_TYPES:
        return composite_call("imag", input, input)
    x = convert_to_tensor(input)
    return execute(imag_op, x) if x._value.dtype.kind == "c" else x * 0


def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """``real + 1j * imag`` from two float tensors (complex64 from float32, complex128
    from float64); differentiable in both."""
    re, im = convert_same(real, imag)
    if re._value.dtype.kind != "f" or re._value.dtype != im._value.dtype:
        raise InvalidArgumentError("complex: real and imag must be float tensors of one dtype "
                                   "(got %s and %s)" % (re._value.dtype, im._value.dtype))
    cd = _complex_dtype(re)
    return cast(re, cd) + cast(im, cd) * _core.wrap(np.asarray(1j, cd))


def angle(input, name=None):
    """The argument of a complex number, ``atan2(imag, real)`` (a composite; for real input
    pi where ``input < 0`` and 0 elsewhere, -0.0 and NaN included, as TensorFlow)."""
    if type(input) in COMPOSITE_TYPES:
        return composite_call("angle", input, input)
    x = convert_to_tensor(input)
    if x._value.dtype.kind != "c":
        if x._value.dtype.kind != "f":
            # TensorFlow cannot write pi in an integer (or bool) dtype: a TypeError
            raise TypeError("angle: input must be a float or complex tensor (got %s)"
                            % x.dtype.name)
        # not atan2(x * 0, x): x * 0 is -0.0 for x < 0, which gives -pi
        dt = x._value.dtype
        return where(less(x, _core.wrap(np.zeros((), dt))), _core.wrap(np.asarray(math.pi, dt)),
                     _core.wrap(np.zeros((), dt)))
    return atan2(imag(x), real(x))


# ---- select, cast, clip -----------------------------------------------------------------

def _check_where(c, x, y):
    if c.dtype != np.bool_:
        raise InvalidArgumentError("where: condition must be bool (expected bool, got %s)"
                                   % c.dtype)
    if x.dtype != y.dtype:
        raise InvalidArgumentError("where: x and y must have the same dtype (expected %s, got %s)"
                                   % (x.dtype, y.dtype))


def _where_dx(g, ans, c, x, y):
    return unbroadcast(select(c, g, _zeros(g)), x)


def _where_dy(g, ans, c, x, y):
    return unbroadcast(select(c, _zeros(g), g), y)


# where(c, x, y): the gradient flows to x where c holds, to y elsewhere
select = defop("select", np.where, kinds=ALL + _C + STRING, same_dtype=False,
               check=_check_where, grads=[None, _where_dx, _where_dy])


def divide_no_nan(x, y, name=None):
    """``x / y``, with 0 wherever ``y`` is 0 (its gradient too: the division runs on a
    safe denominator there)."""
    x, y = convert_same(x, y)
    zero = equal(y, _core.wrap(np.zeros((), y._value.dtype)))
    safe = where(zero, _core.wrap(np.ones((), y._value.dtype)), y)
    return where(zero, _core.wrap(np.zeros((), x._value.dtype)), truediv(x, safe))


def multiply_no_nan(x, y, name=None):
    """``x * y``, with 0 wherever ``y`` is 0 even when ``x`` is infinite or NaN."""
    x, y = convert_same(x, y)
    zero = equal(y, _core.wrap(np.zeros((), y._value.dtype)))
    return where(zero, _core.wrap(np.zeros((), x._value.dtype)),
                 multiply(where(zero, _core.wrap(np.zeros((), x._value.dtype)), x), y))


def where(condition, x=None, y=None, name=None):
    """Elementwise ``x if condition else y`` (NumPy broadcasting); with only ``condition``,
    the int64 indices of its True entries, shape ``(n, rank)``."""
    for v in (condition, x):
        if type(v) in COMPOSITE_TYPES:
            return composite_call("where", v, condition, x, y)
    if x is None and y is None:
        return _where_indices(condition)
    if x is None or y is None:
        raise InvalidArgumentError("where: give both x and y, or neither")
    x, y = convert_same(x, y)
    return execute(select, condition, x, y)


_where_indices = defop("where_indices", lambda c: np.argwhere(c).astype(np.int64), kinds=ALL,
                       no_grad="returns integer indices")


def convert_same(*values):
    """Convert values to tensors; Python scalars and lists adopt the first tensor's dtype."""
    ref = None
    for v in values:
        if isinstance(v, (_core.Tensor, _core.VariableBase, np.ndarray, np.generic)):
            ref = np.asarray(v).dtype if not isinstance(v, (_core.Tensor, _core.VariableBase)) \
                else convert_to_tensor(v)._value.dtype
            break
    out = []
    for v in values:
        if ref is not None and not isinstance(v, (_core.Tensor, _core.VariableBase, np.ndarray,
                                                  np.generic)):
            out.append(convert_to_tensor(v, ref))
        else:
            out.append(convert_to_tensor(v))
    return out


def _cast_grad(g, ans, x, dtype):
    # the gradient passes through casts between float and complex types; integers have
    # none. Real to complex: only the real part of the gradient reaches the real input.
    if x._value.dtype.kind in "fc" and np.dtype(dtype).kind in "fc":
        if x._value.dtype.kind == "f" and g._value.dtype.kind == "c":
            g = execute(real_op, g)
        return cast(g, x._value.dtype)
    return None


_cast = defop("cast", lambda x, dtype: x.astype(dtype, copy=False), kinds=ALL + "c",
              grads=[_cast_grad])


def cast(x, dtype, name=None):
    """Cast to ``dtype`` (floats to ints truncate toward zero, as TensorFlow)."""
    if type(x) in COMPOSITE_TYPES:
        return composite_call("cast", x, x, dtype)
    np_dtype = as_dtype(dtype)._np
    t = convert_to_tensor(x)
    if t._value.dtype == np_dtype:
        return t
    return execute(_cast, t, dtype=np_dtype)


# clip: the gradient passes where lo <= x <= hi; lo and hi take the rest
clip_by_value_op = defop(
    "clip_by_value", np.clip,
    grads=[lambda g, ans, x, lo, hi: unbroadcast(
               where(logical_or(less(x, lo), greater(x, hi)), _zeros(g), g), x),
           lambda g, ans, x, lo, hi: unbroadcast(where(less(x, lo), g, _zeros(g)), lo),
           lambda g, ans, x, lo, hi: unbroadcast(where(greater(x, hi), g, _zeros(g)), hi)])


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clip ``t`` elementwise into ``[clip_value_min, clip_value_max]``."""
    if type(t) in COMPOSITE_TYPES:
        return composite_call("clip_by_value", t, t, clip_value_min, clip_value_max)
    t, lo, hi = convert_same(t, clip_value_min, clip_value_max)
    return execute(clip_by_value_op, t, lo, hi)


def add_n(inputs, name=None):
    """The sum of a list of tensors of one shape and dtype."""
    for v in inputs:
        if type(v) in COMPOSITE_TYPES:
            return composite_call("add_n", v, inputs)
    inputs = list(inputs)
    if not inputs:
        raise InvalidArgumentError("add_n: inputs must be a non-empty list")
    total = convert_to_tensor(inputs[0])
    for x in inputs[1:]:
        total = add(total, x)
    return total


# ---- hyperbolic and inverse trigonometric functions --------------------------------------

# Complex inputs (as TensorFlow's): the gradient is g * conj(f'(z)) (see _cj above).
# d sinh(x) = cosh(x) dx;  d cosh(x) = sinh(x) dx
sinh = defop("sinh", np.sinh, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(cosh(x))],
             quiet=True)
cosh = defop("cosh", np.cosh, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(sinh(x))],
             quiet=True)

# d asinh(x) = dx / sqrt(x^2 + 1)
asinh = defop("asinh", np.arcsinh, kinds=FLOAT_C,
              grads=[lambda g, ans, x: g / _cj(sqrt(square(x) + 1))])

# d acosh(x) = dx / (sqrt(x - 1) sqrt(x + 1))  (x > 1; the principal branch for complex x,
# where sqrt(x^2 - 1) would take the other sign left of the imaginary axis)
acosh = defop("acosh", np.arccosh, kinds=FLOAT_C,
              grads=[lambda g, ans, x: g / _cj(sqrt(x - 1) * sqrt(x + 1))], quiet=True)

# d atanh(x) = dx / (1 - x^2)
atanh = defop("atanh", np.arctanh, kinds=FLOAT_C,
              grads=[lambda g, ans, x: g / _cj(1 - square(x))], quiet=True)

# d asin(x) = dx / sqrt(1 - x^2);  d acos(x) = -dx / sqrt(1 - x^2)
asin = defop("asin", np.arcsin, kinds=FLOAT,
             grads=[lambda g, ans, x: g * rsqrt(1 - square(x))], quiet=True)
acos = defop("acos", np.arccos, kinds=FLOAT,
             grads=[lambda g, ans, x: -(g * rsqrt(1 - square(x)))], quiet=True)

# d atan(x) = dx / (1 + x^2)
atan = defop("atan", np.arctan, kinds=FLOAT, grads=[lambda g, ans, x: g / (1 + square(x))])


def _atan2_dy(g, ans, y, x):
    # d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
    return unbroadcast(g * x / (square(x) + square(y)), y)


def _atan2_dx(g, ans, y, x):
    return unbroadcast(-(g * y) / (square(x) + square(y)), x)


atan2_op = defop("atan2", np.arctan2, kinds=FLOAT, grads=[_atan2_dy, _atan2_dx], quiet=True)

# hypot(x, y) = sqrt(x^2 + y^2) without overflow: d/dx = x / hypot, d/dy = y / hypot
hypot_op = defop("hypot", np.hypot, kinds=FLOAT, quiet=True,
                 grads=[lambda g, ans, x, y: unbroadcast(g * x / ans, x),
                        lambda g, ans, x, y: unbroadcast(g * y / ans, y)])

_LN2 = math.log(2.0)

# d 2^x = 2^x log(2) dx  (exp2 is exact at integers, which exp(x log 2) is not)
exp2 = defop("exp2", np.exp2, kinds=FLOAT_C, grads=[lambda g, ans, x: g * _cj(ans) * _LN2],
             quiet=True)


def atan2(y, x, name=None):
    """The angle of the point ``(x, y)``, in ``[-pi, pi]`` (TensorFlow's argument order).

    >>> fe.math.atan2(1.0, 1.0).numpy()
    0.7853981
    """
    y, x = convert_same(y, x)
    return execute(atan2_op, y, x)


def hypot(x, y, name=None):
    """``sqrt(x**2 + y**2)`` elementwise, without overflow or underflow in between."""
    x, y = convert_same(x, y)
    return execute(hypot_op, x, y)


def _zeros_of(x):
    return _core.wrap(np.zeros((), x._value.dtype))


def _ones_of(x):
    return _core.wrap(np.ones((), x._value.dtype))


# ---- composites: scalar_mul, reciprocal_no_nan, rint, accumulate_n; nextafter ---------------

def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a 0-D ``scalar`` (``ValueError`` otherwise, as TensorFlow)."""
    shape = np.shape(scalar._value if isinstance(scalar, _core.Tensor) else scalar)
    if shape != ():
        raise ValueError("scalar_mul: the input scalar must be a 0-D value. Received shape "
                         "%s." % (tuple(shape),))
    x, s = convert_same(x, scalar)
    return multiply(s, x)


def reciprocal_no_nan(x, name=None):
    """``1 / x``, with 0 where ``x`` is 0 (floating and complex dtypes only)."""
    x = convert_to_tensor(x)
    if x._value.dtype.kind not in "fc":
        raise InvalidArgumentError("reciprocal_no_nan: x must be floating point or complex "
                                   "(got %s)" % x._value.dtype)
    return divide_no_nan(_ones_of(x), x)


def rint(x, name=None):
    """The nearest integer, halves to even (``rint(2.5) == 2``), as a float."""
    return round(x)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of a list of tensors (TensorFlow 2 deprecates it for ``add_n``)."""
    return add_n(inputs)


nextafter_op = defop("nextafter", np.nextafter, kinds="f",
                     no_grad="the next representable float is piecewise constant")


def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` in the direction of ``x2``."""
    x1, x2 = convert_same(x1, x2)
    return execute(nextafter_op, x1, x2)


# ---- bit shifts (tf.bitwise) --------------------------------------------------------------

_SHIFT = "bit shifts of integers have no gradient"


def _clamped_shift(shift):
    # TensorFlow's CPU kernels clamp the amount to [0, bits - 1]: a negative shift leaves x
    # as it is, a too-large one shifts by bits - 1 (NumPy's answer there is undefined/0)
    def forward(x, y):
        x, y = np.asarray(x), np.asarray(y)
        bits = x.dtype.itemsize * 8
        return np.asarray(shift(x, np.clip(y, 0, bits - 1).astype(y.dtype, copy=False)))
    return forward


left_shift_op = defop("left_shift", _clamped_shift(np.left_shift), kinds=INT, nin=2,
                      no_grad=_SHIFT)
right_shift_op = defop("right_shift", _clamped_shift(np.right_shift), kinds=INT, nin=2,
                       no_grad=_SHIFT)


def left_shift(x, y, name=None):
    """``x << y`` elementwise (integers; the shift is clamped to ``[0, bits - 1]``, as
    TensorFlow's CPU kernel)."""
    x, y = convert_same(x, y)
    return execute(left_shift_op, x, y)


def right_shift(x, y, name=None):
    """``x >> y`` elementwise, arithmetic for signed integers (the shift clamped to
    ``[0, bits - 1]``)."""
    x, y = convert_same(x, y)
    return execute(right_shift_op, x, y)


# ---- TensorFlow's division variants: realdiv, truncatediv, truncatemod ----------------------

def realdiv(x, y, name=None):
    """``x / y`` for floating-point (or complex) tensors of one dtype."""
    a, b = convert_same(x, y)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        raise InvalidArgumentError("realdiv: expects floating-point or complex tensors (got "
                                   "%s)" % a.dtype.name)
    return truediv(a, b)


def _integer_zero_check(opname, b):
    if b.dtype.is_integer:
        d = _core.data_of(b, opname)
        if np.any(d == 0):
            raise InvalidArgumentError("%s: integer division by zero" % opname)


def truncatediv(x, y, name=None):
    """``x / y`` rounded toward zero (C's integer division): ``truncatediv(-7, 2) == -3``."""
    a, b = convert_same(x, y)
    if a.dtype.is_integer:
        _integer_zero_check("truncatediv", b)
        return multiply(multiply(sign(a), sign(b)), floordiv(abs(a), abs(b)))
    if not a.dtype.is_floating:
        raise InvalidArgumentError("truncatediv: expects numbers (got %s)" % a.dtype.name)
    q = truediv(a, b)
    return multiply(sign(q), floor(abs(q)))


def truncatemod(x, y, name=None):
    """The remainder of ``truncatediv``: it has the sign of ``x`` (C's ``fmod``)."""
    a, b = convert_same(x, y)
    return subtract(a, multiply(truncatediv(a, b), b))
