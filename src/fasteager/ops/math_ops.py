"""Elementwise math, comparisons, reductions and matmul: forward and gradient side by side.

Each block is one op: a comment with the math of its gradient, then ``defop``. Gradients
use fasteager ops only, so they are differentiable in turn (higher-order derivatives).

dtype rules: binary ops need one dtype (Python scalars adopt the tensor's). Integer
arithmetic, sums, products and scans keep the input dtype and wrap on overflow, as NumPy
and TensorFlow do (``reduce_prod`` of forty 3s in int32 wraps); floats never change
width. Float-only ops (exp, log, logsumexp, erf ...) reject integers with
``InvalidArgumentError`` naming the op.

Complex dtypes (complex64, complex128) run through arithmetic, exp/log/sqrt/abs, the
trigonometric functions, matmul, sums and means, and ``real``/``imag``/``conj``/``angle``.
Their gradients follow TensorFlow's convention: the gradient of a real loss L with
respect to z = x + iy is dL/dx + i dL/dy (twice the conjugate Wirtinger derivative
dL/d(conj z)), so a gradient step ``z - lr * grad`` descends. A holomorphic op's VJP is
therefore ``g * conj(f'(z))``: ``_cj`` below is the identity on real tensors (no op runs),
so real gradients are unchanged. HIPS autograd's ``grad`` is the conjugate of this
(dL/dx - i dL/dy).
"""
import numpy as np

from .. import _core, _gemm, _kernels
from ..errors import InvalidArgumentError, NotFoundError
from .registry import (ALL, BOOL, COMPOSITE_TYPES, ELEMENTWISE, FLOAT, INT_BOOL, LINEAR,
                       MULTILINEAR, NUMERIC, STRING, as_bool, composite_call, defop, execute,
                       normalize_axis, single_axis, unbroadcast)

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
round = defop("round", np.round, kinds=FLOAT, jvp=ELEMENTWISE,  # noqa: A001 - TensorFlow's name
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
    """The argument of a complex number, ``atan2(imag, real)`` (a composite; 0 or pi for
    real input)."""
    if type(input) in COMPOSITE_TYPES:
        return composite_call("angle", input, input)
    from .special_ops import atan2
    x = convert_to_tensor(input)
    if x._value.dtype.kind != "c":
        return atan2(x * 0, x)
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
    from ..dtypes import as_dtype
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


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Scale ``t`` so its L2 norm (over ``axes``) is at most ``clip_norm`` (a composite op)."""
    t = convert_to_tensor(t)
    clip_norm = convert_to_tensor(clip_norm, t._value.dtype)
    l2sum = reduce_sum(t * t, axes, keepdims=True)
    positive = greater(l2sum, 0)
    # sqrt at 0 has an infinite gradient: take it only where the sum is positive
    l2sum_safe = where(positive, l2sum, _core.wrap(np.ones_like(l2sum._value)))
    l2norm = where(positive, sqrt(l2sum_safe), l2sum)
    return t * clip_norm / maximum(l2norm, clip_norm)


# ---- reductions ---------------------------------------------------------------------------

def _kept_shape(x, axis):
    shape = list(x._value.shape)
    for a in (range(len(shape)) if axis is None else axis):
        shape[a] = 1
    return shape


def _expand_to_fwd(g, x, axis=None, keepdims=False, mean=False):
    """``g`` (a reduction's gradient, of the reduced shape) spread over ``x``'s shape,
    divided by the count of entries each output summed when ``mean``. Shapes are read from
    the arrays when it runs, so a traced gradient serves other sizes (see _relax)."""
    shape = x.shape
    if mean:
        g = g / np.asarray(_count_axes(shape, axis), g.dtype)
    if not keepdims and g.ndim:             # (a scalar broadcasts as it is)
        g = g.reshape(_kept_shape_of(shape, range(len(shape)) if axis is None else axis))
    return np.broadcast_to(g, shape)


def _expand_to_grad(gg, ans, g, x, axis=None, keepdims=False, mean=False):
    # the adjoint of spreading: summing (averaging) back over the same axes
    return (reduce_mean if mean else reduce_sum)(gg, axis, keepdims)


# the gradient of reduce_sum / reduce_mean, as one op on the reduced gradient and the input
# (the input gives only its shape: no gradient)
expand_to = defop("expand_to", _expand_to_fwd, kinds=NUMERIC_C, same_dtype=False, nin=2,
                  attrs=("axis", "keepdims", "mean"), grads=[_expand_to_grad, None])


def _expand_to_input(g, x, axis, keepdims, mean=False):
    attrs = {"axis": axis, "keepdims": bool(keepdims)}
    if mean:
        attrs["mean"] = True
    return _core.execute(expand_to, (g, x), attrs)


# np.add.reduce is np.sum without its Python wrapper (~2 us a call); the results are the
# same (tests/ops/test_reductions_fast.py checks them bitwise)
_add_reduce = np.add.reduce


def _middle_run(x, axis):
    """(a0, a1) when ``axis`` is a run of axes a0..a1-1 of a C-contiguous float32/float64
    ``x`` with at least 8 entries kept after it (each row of the run then has a vector's
    worth of entries) and 2 or more rows to add: the reductions _kernels.sum_middle_axes
    does in NumPy's order. None otherwise."""
    if type(axis) is not tuple or not axis or x.dtype.char not in "fd" \
            or not x.flags.c_contiguous:
        return None
    a0, a1 = axis[0], axis[-1] + 1
    if a1 - a0 != len(axis) or a1 >= x.ndim:
        return None
    inner = 1
    for d in x.shape[a1:]:
        inner *= d
    n = 1
    for d in x.shape[a0:a1]:
        n *= d
    return (a0, a1) if inner >= 8 and n >= 2 and x.size else None


def _sum_axes(x, axis, keepdims):
    run = _middle_run(x, axis)
    if run is None:
        dtype = x.dtype if x.dtype.kind in "iu" else None
        return _add_reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)
    out = _kernels.sum_middle_axes(x, *run)
    return out.reshape(_kept_shape_of(x.shape, axis)) if keepdims else out


def _kept_shape_of(shape, axis):
    return tuple(1 if a in axis else d for a, d in enumerate(shape))


def _sum_fwd(x, axis=None, keepdims=False):
    return _sum_axes(x, axis, keepdims)


def _mean_fwd(x, axis=None, keepdims=False):
    if x.dtype.kind in "iu":
        # TensorFlow's integer mean truncates toward zero
        s = _add_reduce(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        n = x.size // max(np.size(s), 1) if x.size else 1
        return (np.sign(s) * (np.abs(s) // max(n, 1))).astype(x.dtype)
    if x.dtype != np.float32 and x.dtype != np.float64 or not x.size:
        return np.mean(x, axis=axis, keepdims=keepdims)
    # np.mean's steps for float32/float64: the sum, then a division by the count as an
    # intp (so float32 sums are divided in float64 and rounded once)
    s = _sum_axes(x, axis, keepdims)
    n = np.intp(_count_axes(x.shape, axis))
    if type(s) is np.ndarray:
        return np.true_divide(s, n, out=s, casting="unsafe")
    return s.dtype.type(s / n)


def _count_axes(shape, axis):
    n = 1
    for a in (range(len(shape)) if axis is None else axis):
        n *= shape[a]
    return n


def _count(x, axis):
    return _count_axes(x._value.shape, axis)


def _extreme_fwd(fn, lowest):
    def forward(x, axis=None, keepdims=False):
        if x.size:
            return fn(x, axis=axis, keepdims=keepdims)
        # empty: the lowest (highest) value of the dtype, as TensorFlow
        return fn(x, axis=axis, keepdims=keepdims, initial=lowest(x.dtype))
    return forward


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else (False if dtype.kind == "b" else np.iinfo(dtype).min)


def _highest(dtype):
    return np.inf if dtype.kind == "f" else (True if dtype.kind == "b" else np.iinfo(dtype).max)


def _extreme_grad(g, ans, x, axis=None, keepdims=False):
    # the gradient is shared equally by the entries equal to the extreme (TensorFlow's rule)
    from .array_ops import reshape
    if not keepdims:
        ans = reshape(ans, _kept_shape(x, axis))
        g = reshape(g, _kept_shape(x, axis))
    hits = cast(equal(x, ans), g._value.dtype)
    count = reduce_sum(hits, axis, keepdims=True)
    return hits * (g / count)


_reduce_sum = defop("reduce_sum", _sum_fwd, kinds=NUMERIC_C, jvp=LINEAR,
                    grads=[lambda g, ans, x, axis=None, keepdims=False:
                           _expand_to_input(g, x, axis, keepdims)])
# (the division comes first: on the reduced shape it is fewer divisions, same values)
_reduce_mean = defop("reduce_mean", _mean_fwd, kinds=NUMERIC_C, jvp=LINEAR,
                     grads=[lambda g, ans, x, axis=None, keepdims=False:
                            _expand_to_input(g, x, axis, keepdims, mean=True)])
_reduce_max = defop("reduce_max", _extreme_fwd(np.max, _lowest), grads=[_extreme_grad])
_reduce_min = defop("reduce_min", _extreme_fwd(np.min, _highest), grads=[_extreme_grad])
_reduce_any = defop("reduce_any", lambda x, axis=None, keepdims=False:
                    np.any(x, axis=axis, keepdims=keepdims), kinds=BOOL, no_grad=_CMP)
_reduce_all = defop("reduce_all", lambda x, axis=None, keepdims=False:
                    np.all(x, axis=axis, keepdims=keepdims), kinds=BOOL, no_grad=_CMP)


def _reduction(op):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        if type(input_tensor) in COMPOSITE_TYPES:
            return composite_call(op.name, input_tensor, input_tensor, axis, keepdims)
        x = convert_to_tensor(input_tensor)
        axes = normalize_axis(op.name, axis, x._value.ndim)
        if keepdims is not False and keepdims is not True:
            keepdims = as_bool(op.name, keepdims, "keepdims")
        if axes is None and not keepdims:
            return _core.execute(op, (x,), None)
        return _core.execute(op, (x,), {"axis": axes, "keepdims": bool(keepdims)})
    reduce.__name__ = op.name
    reduce.__doc__ = ("%s over ``axis`` (all axes when None); ``keepdims`` keeps reduced "
                      "axes with size 1." % op.name)
    return reduce


reduce_sum = _reduction(_reduce_sum)
reduce_mean = _reduction(_reduce_mean)
reduce_max = _reduction(_reduce_max)
reduce_min = _reduction(_reduce_min)
reduce_any = _reduction(_reduce_any)
reduce_all = _reduction(_reduce_all)


# ---- matmul -------------------------------------------------------------------------------

def _matmul_fwd(a, b, transpose_a=False, transpose_b=False):
    # 2-D float32 products of the thin shapes where fasteager's kernel beats OpenBLAS
    c = _gemm.sgemm_if_pays(a, b, transpose_a, transpose_b)
    if c is not None:
        return c
    if a.ndim < 2 or b.ndim < 2:
        _check_matmul(a, b, transpose_a, transpose_b)
    x = np.swapaxes(a, -1, -2) if transpose_a else a
    y = np.swapaxes(b, -1, -2) if transpose_b else b
    try:
        return np.matmul(x, y)
    except ValueError:
        _check_matmul(a, b, transpose_a, transpose_b)   # says which dimensions differ
        raise


def _check_matmul(a, b, transpose_a=False, transpose_b=False):
    if a.ndim < 2 or b.ndim < 2:
        raise InvalidArgumentError(
            "matmul: inputs must have rank >= 2 (expected matrices, got shapes %s and %s)"
            % (list(a.shape), list(b.shape)))
    ka = a.shape[-2] if transpose_a else a.shape[-1]
    kb = b.shape[-1] if transpose_b else b.shape[-2]
    if ka != kb:
        raise InvalidArgumentError(
            "matmul: inner dimensions differ (a is %s%s, b is %s%s: expected %d == %d)"
            % (list(a.shape), " transposed" if transpose_a else "",
               list(b.shape), " transposed" if transpose_b else "", ka, kb))


def _matmul_da(g, ans, a, b, transpose_a=False, transpose_b=False):
    # C = A B: dA = dC B^T (and the transposed variants)
    b = _cj(b)          # complex: dA = dC B^H
    if not transpose_a:
        da = _mm(g, b, False, not transpose_b)
    else:
        da = _mm(b, g, transpose_b, True)
    return unbroadcast(da, a)


def _matmul_db(g, ans, a, b, transpose_a=False, transpose_b=False):
    # C = A B: dB = A^T dC (and the transposed variants)
    a = _cj(a)          # complex: dB = A^H dC
    if not transpose_b:
        db = _mm(a, g, not transpose_a, False)
    else:
        db = _mm(g, a, True, transpose_a)
    return unbroadcast(db, b)


def _mm(a, b, ta, tb):
    if ta or tb:
        return execute(_matmul, a, b, transpose_a=ta, transpose_b=tb)
    return execute(_matmul, a, b)


# (shapes are checked in the kernel, and explained by _check_matmul only on failure)
def _matmul_into(a, b, out, transpose_a=False, transpose_b=False):
    if _gemm.sgemm_if_pays(a, b, transpose_a, transpose_b, out) is not None:
        return out
    x = np.swapaxes(a, -1, -2) if transpose_a else a
    y = np.swapaxes(b, -1, -2) if transpose_b else b
    return np.matmul(x, y, out)


# quiet: products of large values overflow to inf as in TensorFlow, without a NumPy warning
_matmul = defop("matmul", _matmul_fwd, kinds=NUMERIC_C, grads=[_matmul_da, _matmul_db],
                into=_matmul_into, quiet=True, jvp=MULTILINEAR)
# TensorFlow's MatMul takes no 8- or 16-bit signed integers and has no kernel for unsigned
_matmul.refuse_dtypes([np.int8, np.int16])
_matmul.refuse_dtypes([np.uint8, np.uint16, np.uint32, np.uint64], NotFoundError)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None):
    """Matrix product of the last two axes; leading (batch) axes broadcast.

    >>> fe.matmul([[2.]], [[2.]]).numpy()
    array([[4.]], dtype=float32)
    """
    try:
        ta = bool(transpose_a or adjoint_a)
        tb = bool(transpose_b or adjoint_b)
    except ValueError:      # an array for a flag
        raise InvalidArgumentError("matmul: transpose and adjoint flags must be bools (got "
                                   "%r, %r, %r, %r)" % (transpose_a, transpose_b, adjoint_a,
                                                        adjoint_b)) from None
    if not (type(a) is _core.Tensor and type(b) is _core.Tensor):
        # as TensorFlow: a converts alone, b to a's dtype where it can
        a = convert_to_tensor(a)
        b = _core.convert_hinted(b, a._value.dtype)
    if adjoint_a:       # the adjoint conjugates too (a no-op for real tensors)
        a = _cj(a)
    if adjoint_b:
        b = _cj(b)
    out = _mm(a, b, ta, tb)
    if output_type is not None:
        out = cast(out, output_type)
    return out


# ---- argmax / argmin (integer outputs) ------------------------------------------------------

def _arg_reduce(fn, opname):
    # TF's ArgMax/ArgMin take bool too (the images tutorial's tf.argmax(parts == names))
    op = defop(opname, lambda x, axis=0, output_type=np.int64:
               fn(x, axis=axis).astype(output_type), kinds=ALL,
               no_grad="returns integer indices")

    def arg(input, axis=None, output_type=np.int64, name=None):
        from ..dtypes import as_dtype
        x = convert_to_tensor(input)
        axis = 0 if axis is None else axis
        ax = single_axis(opname, axis, x._value.ndim)
        return execute(op, x, axis=ax, output_type=as_dtype(output_type)._np)
    arg.__name__ = opname
    return op, arg


_argmax_op, argmax = _arg_reduce(np.argmax, "argmax")
_argmin_op, argmin = _arg_reduce(np.argmin, "argmin")


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


# ---- products, log-sum-exp, scans ---------------------------------------------------------

def _prod_fwd(x, axis=None, keepdims=False):
    # integers keep their dtype and wrap on overflow (as NumPy with dtype= and TensorFlow)
    dtype = x.dtype if x.dtype.kind in "iu" else None
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=dtype)


def _prod_others_fwd(x):
    # out_i = prod_{j != i} x_j along the last axis: the exclusive cumprod from the left
    # times the one from the right. No division, so zeros in x give exact results.
    out = np.ones_like(x)
    if x.shape[-1] > 1:
        right = np.ones_like(x)
        np.cumprod(x[..., :-1], axis=-1, dtype=x.dtype, out=out[..., 1:])
        np.cumprod(x[..., :0:-1], axis=-1, dtype=x.dtype, out=right[..., -2::-1])
        out *= right
    return out


def _prod_others_grad(g, ans, x):
    # d out_i / d x_k = prod_{j not in {i, k}} x_j for k != i (0 for k = i). Row i of m is
    # x with x_i replaced by 1, so prod_others(m)[i, k] is that product; summing g_i times
    # it over i gives dx_k. Exact at zeros and differentiable again, at O(n^2) per slice
    # (only when differentiating twice: reduce_prod's own VJP is O(n)).
    from .array_ops import expand_dims
    diag = _core.wrap(np.eye(x._value.shape[-1], dtype=bool))
    m = where(diag, _core.wrap(np.ones((), x._value.dtype)), expand_dims(x, -2))
    terms = where(diag, _core.wrap(np.zeros((), x._value.dtype)),
                  expand_dims(g, -1) * _cj(prod_others(m)))
    return reduce_sum(terms, axis=-2)


# the VJP of reduce_prod: the products of the other elements along the last axis
prod_others = defop("prod_others", _prod_others_fwd, kinds=NUMERIC_C, grads=[_prod_others_grad])


def _prod_grad(g, ans, x, axis=None, keepdims=False):
    # d/dx_i prod(x) = prod_{j != i} x_j (prod_others), over the reduced axes flattened
    # into one: no division, so zeros in x are handled (TensorFlow's ProdGrad trick), and
    # written with ops whose own gradients are exact, so higher derivatives are too
    from .array_ops import reshape, transpose
    shape = x._value.shape
    rank = len(shape)
    reduced = list(range(rank)) if axis is None else list(axis)
    kept = [a for a in range(rank) if a not in reduced]
    perm = kept + reduced
    n = 1
    for a in reduced:
        n *= shape[a]
    xt = reshape(transpose(x, perm), [shape[a] for a in kept] + [n])
    others = reshape(prod_others(xt), [shape[a] for a in perm])
    others = transpose(others, np.argsort(perm).tolist())
    return _expand_to_input(g, x, axis, keepdims) * _cj(others)


_reduce_prod = defop("reduce_prod", _prod_fwd, kinds=NUMERIC_C, grads=[_prod_grad])
reduce_prod = _reduction(_reduce_prod)


def _logsumexp_fwd(x, axis=None, keepdims=False):
    # log sum exp(x) = m + log sum exp(x - m) with m = max(x): no overflow; an all -inf
    # (or empty) slice gives -inf, an inf gives inf
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0).astype(x.dtype, copy=False)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        out = np.squeeze(out, axis=axis)
    return out.astype(x.dtype, copy=False)


# d/dx logsumexp(x) = exp(x - logsumexp(x)) (the softmax)
_reduce_logsumexp = defop(
    "reduce_logsumexp", _logsumexp_fwd, kinds=FLOAT, quiet=True,
    grads=[lambda g, ans, x, axis=None, keepdims=False:
           _expand_to_input(g, x, axis, keepdims)
           * exp(x - _expand_to_input(ans, x, axis, keepdims))])
reduce_logsumexp = _reduction(_reduce_logsumexp)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The (biased) variance over ``axis``: mean((x - mean(x))^2) (a composite op)."""
    x = convert_to_tensor(input_tensor)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("reduce_variance: input must be floating (expected float, "
                                   "got %s)" % x._value.dtype)
    mean = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(square(x - mean), axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over ``axis``: sqrt(reduce_variance) (a composite op)."""
    return sqrt(reduce_variance(input_tensor, axis, keepdims=keepdims))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|.

    A composite of softplus, whose gradient gives d/dx = sigmoid(-x) (0.5 at 0, where the
    min/abs form had a kink of each and gave 1).

    >>> fe.math.log_sigmoid(0.0).numpy()
    -0.6931472
    """
    if type(x) in COMPOSITE_TYPES:
        return composite_call("log_sigmoid", x, x)
    from .nn_ops import softplus    # nn_ops builds on this module
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("log_sigmoid: input must be floating (expected float, got "
                                   "%s)" % x._value.dtype)
    return negative(softplus(negative(x)))


def _shift(out, axis, fill):
    # exclusive scans: out[i] <- out[i - 1] along axis, out[0] <- fill
    res = np.empty_like(out)
    lead = (slice(None),) * axis
    res[lead + (slice(0, 1),)] = fill
    res[lead + (slice(1, None),)] = out[lead + (slice(None, -1),)]
    return res


def _scan_fwd(fn, fill):
    def forward(x, axis, exclusive=False, reverse=False):
        if reverse:
            x = np.flip(x, axis)
        out = fn(x, axis=axis, dtype=x.dtype)   # integers wrap, as TensorFlow
        if exclusive and out.shape[axis]:
            out = _shift(out, axis, fill)
        if reverse:
            out = np.flip(out, axis)
        return out
    return forward


# cumsum is linear: its adjoint is the cumsum running the other way
_cumsum = defop("cumsum", _scan_fwd(np.cumsum, 0), kinds=NUMERIC_C, jvp=LINEAR,
                grads=[lambda g, ans, x, axis, exclusive=False, reverse=False:
                       cumsum(g, axis, exclusive=exclusive, reverse=not reverse)])

# y_i = prod_{j <= i} x_j: dy_i/dx_j = y_i / x_j, so dx = reverse-cumsum(g y) / x.
# Like TensorFlow's, this divides by x: inputs with zeros get inf/nan gradients
# (reduce_prod's gradient does not go through here and is exact at zeros).
_cumprod = defop("cumprod", _scan_fwd(np.cumprod, 1), kinds=NUMERIC_C,
                 grads=[lambda g, ans, x, axis, exclusive=False, reverse=False:
                        cumsum(g * _cj(ans), axis, exclusive=exclusive, reverse=not reverse)
                        / _cj(x)])


def _scan(op):
    def scan(x, axis=0, exclusive=False, reverse=False, name=None):
        x = convert_to_tensor(x)
        if x._value.ndim == 0:
            raise InvalidArgumentError("%s: input must have rank >= 1 (expected a vector or "
                                       "more, got a scalar)" % op.name)
        ax = single_axis(op.name, axis, x._value.ndim)
        return execute(op, x, axis=ax, exclusive=as_bool(op.name, exclusive, "exclusive"),
                       reverse=as_bool(op.name, reverse, "reverse"))
    scan.__name__ = op.name
    scan.__doc__ = ("%s along ``axis``; ``exclusive`` leaves out the current element, "
                    "``reverse`` scans from the end.\n\n    >>> fe.%s([1, 2, 3]).numpy()\n"
                    "    array([1, %s], dtype=int32)"
                    % (op.name, op.name, "3, 6" if op.name == "cumsum" else "2, 6"))
    return scan


cumsum = _scan(_cumsum)
cumprod = _scan(_cumprod)
