"""Neural-network ops (``fe.nn``): activations, softmax, losses and a few composites.

Each block is one op: a comment with the math of its gradient, then ``defop``. VJPs are
written with fasteager ops, so they are differentiable in turn (second derivatives).
Softmax and the cross-entropies run the fused kernels of ``fasteager._kernels``; the
fused cross-entropy ops return ``(loss, backprop)`` as TensorFlow's do, so the first
derivative is a product with a value already computed, and the second derivative
differentiates ``backprop`` through ops. Convolution and pooling live in ``conv_ops`` and
``pool_ops``, normalization and moments in ``norm_ops``.
"""

import math

import numpy as np

from .. import _core, _kernels
from ..errors import InvalidArgumentError
from .array_ops import concat, expand_dims, transpose, zeros_like
from .elementwise_ops import (_sigmoid, cast, convert_same, exp, greater, greater_equal, less,
                              less_equal, log, log1p, logical_and, maximum, multiply, negative,
                              rsqrt, sigmoid, square, tanh, where)
from .linalg_ops import _matmul, _matmul_fwd, _matmul_into
from .random_ops import _rng_for, draw_seed
from .reduction_ops import _reduce_sum, reduce_sum
from .special_ops import _erf_kernel, erf
from .registry import (composite_call, COMPOSITE_TYPES, defop, ELEMENTWISE, execute, FLOAT,
                       moved_names, normalize_axis, NUMERIC, single_axis)
from . import conv_ops

convert_to_tensor = _core.convert_to_tensor


_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _kernel_call(opname, fn, *args):
    """Call a kernel; its ValueError ("<kernel>: problem (...)") becomes the op's error."""
    try:
        return fn(*args)
    except ValueError as e:
        raise InvalidArgumentError("%s: %s" % (opname, str(e).split(": ", 1)[-1])) from None


def _on_kernel_dtype(fn, x, *rest):
    # the kernels take float32/float64; float16 runs in float32 and is rounded back
    if x.dtype in _KERNEL_DTYPES:
        return fn(x, *rest)
    out = fn(x.astype(np.float32), *[r.astype(np.float32) for r in rest])
    if isinstance(out, tuple):
        return tuple(o.astype(x.dtype) for o in out)
    return out.astype(x.dtype)


def _mask(cond, g):
    """cond (bool tensor) as a 0/1 tensor of g's dtype: a constant for the tape."""
    return cast(cond, g._value.dtype)


def _used(g):
    """Whether an incoming gradient can matter: non-zero, or watched by a recording tape.

    The engine feeds zeros for outputs nobody differentiated (the ``backprop`` output of
    the fused losses in a first-order pass); skipping them saves the softmax recompute.
    """
    if g._value.any():
        return True
    for tape in _core.recording_tapes():
        if tape._is_watched(g):
            return True
    return False


# ---- activations -----------------------------------------------------------------------

def _relu_fwd(x):
    return np.maximum(x, 0)


def _relu_into(x, out):
    return np.maximum(x, 0, out=out)


# relu: the gradient passes where x > 0 (the mask is a constant: the second derivative is 0)
relu = defop("relu", _relu_fwd, kinds=NUMERIC, jvp=ELEMENTWISE, into=_relu_into,
             grads=[lambda g, ans, x: _relu_grad(g, x)])


def _relu_grad(g, x):
    if g._value.dtype.kind == "f" and x._value.dtype == g._value.dtype:
        return execute(relu_backprop, g, x)
    return g * _mask(greater(x, 0), g)


# g * (x > 0) in one pass: linear in g; in x its derivative is 0 wherever it exists
relu_backprop = defop("relu_backprop", lambda g, x: _kernels.relu_backward(g, x),
                      kinds=FLOAT, jvp=ELEMENTWISE,
                      grads=[lambda gg, ans, g, x: execute(relu_backprop, gg, x),
                             lambda gg, ans, g, x: zeros_like(x)])


def _relu_backprop_sum_fwd(g, x):
    if g.dtype != x.dtype or g.shape != x.shape or g.ndim < 1:
        raise InvalidArgumentError(
            "relu_backprop_sum: g and x must have one dtype and one shape of rank >= 1 "
            "(got %s %s and %s %s)" % (g.dtype, list(g.shape), x.dtype, list(x.shape)))
    if g.dtype.char not in "fd":        # float16: the two NumPy passes
        dz = g * (x > 0).astype(g.dtype)
        return dz, np.add.reduce(dz, axis=tuple(range(dz.ndim - 1)))
    return _kernels.relu_backward_sum(g, x)


def _relu_backprop_sum_dg(gs, ans, g, x):
    # dz = g * m and s = sum over rows of dz, m = (x > 0): both linear in g through m
    gdz, gs_ = gs
    return execute(relu_backprop, gdz + gs_, x)


# (g * (x > 0), its sum over all axes but the last) in one pass: relu's gradient and the
# bias gradient of a fused Dense / Conv2D with relu
relu_backprop_sum = defop("relu_backprop_sum", _relu_backprop_sum_fwd, kinds=FLOAT,
                          multi=True,
                          grads=[_relu_backprop_sum_dg, lambda gs, ans, g, x: zeros_like(x)])


def _relu6_fwd(x):
    return np.minimum(np.maximum(x, 0), 6).astype(x.dtype, copy=False)


# relu6 = min(max(x, 0), 6): the gradient passes where 0 < x < 6
relu6 = defop("relu6", _relu6_fwd, kinds=NUMERIC, jvp=ELEMENTWISE,
              grads=[lambda g, ans, x: g * _mask(greater(x, 0), g) * _mask(greater(6, x), g)])


def _elu_fwd(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


# elu = x (x > 0), exp(x) - 1 (x <= 0): d/dx = 1, or exp(x) = elu(x) + 1
elu = defop("elu", _elu_fwd, kinds=FLOAT, jvp=ELEMENTWISE,
            grads=[lambda g, ans, x: g * where(greater(x, 0), 1.0, ans + 1)])

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu_fwd(x):
    neg = (_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(x, 0))
    return np.where(x > 0, _SELU_SCALE * x, neg).astype(x.dtype, copy=False)


# selu = s x (x > 0), s a (exp(x) - 1) (x <= 0): d/dx = s, or s a exp(x) = selu(x) + s a;
# at x = 0 TF's SeluGrad (which tests the output < 0) takes s, so does this
selu = defop("selu", _selu_fwd, kinds=FLOAT, jvp=ELEMENTWISE,
             grads=[lambda g, ans, x: g * where(less(ans, 0), ans + _SELU_SCALE * _SELU_ALPHA,
                                                _SELU_SCALE)])


def _leaky_relu_fwd(x, alpha=0.2):
    return np.where(x > 0, x, x * alpha).astype(x.dtype, copy=False)


# leaky_relu = x (x > 0), alpha x (x <= 0)
_leaky_relu = defop("leaky_relu", _leaky_relu_fwd, kinds=FLOAT, jvp=ELEMENTWISE,
                    grads=[lambda g, ans, x, alpha=0.2:
                           g * (alpha + (1 - alpha) * _mask(greater(x, 0), g))])


def leaky_relu(features, alpha=0.2, name=None):
    """``x`` where ``x > 0``, ``alpha * x`` elsewhere (integer input is cast to float32, as TF).

    >>> fe.nn.leaky_relu([-1., 2.]).numpy()
    array([-0.2,  2. ], dtype=float32)
    """
    x = convert_to_tensor(features)
    if x._value.dtype.kind in "iu":
        x = cast(x, np.float32)
    # TF's alpha is a 32-bit float attribute: a float64 input is scaled by float32(alpha)
    return execute(_leaky_relu, x, alpha=float(np.float32(alpha)))


def _softplus_fwd(x):
    # log(1 + e^x) = log1p(e^-|x|) + max(x, 0): never overflows
    return (np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)).astype(x.dtype, copy=False)


# d/dx log(1 + e^x) = sigmoid(x)
softplus = defop("softplus", _softplus_fwd, kinds=FLOAT, jvp=ELEMENTWISE,
                 grads=[lambda g, ans, x: g * sigmoid(x)])


# softsign = x / (1 + |x|): d/dx = 1 / (1 + |x|)^2
softsign = defop("softsign", lambda x: x / (1 + np.abs(x)), kinds=FLOAT, jvp=ELEMENTWISE,
                 grads=[lambda g, ans, x: g / square(1 + abs(x))])


def _sigmoid_np(x):
    return _sigmoid(np.asarray(x))


def _silu_fwd(x, beta=1.0):
    return (x * _sigmoid_np(x * beta)).astype(x.dtype, copy=False)


def _silu_grad(g, ans, x, beta=1.0):
    # y = x s(bx): dy/dx = s + b x s (1 - s)
    s = sigmoid(x * beta)
    return g * (s + beta * x * s * (1 - s))


_silu = defop("silu", _silu_fwd, kinds=FLOAT, jvp=ELEMENTWISE, grads=[_silu_grad])


def silu(features, beta=1.0, name=None):
    """``x * sigmoid(beta * x)`` (also ``fe.nn.swish``)."""
    if beta == 1.0:
        return execute(_silu, features)
    return execute(_silu, features, beta=float(beta))


swish = silu


# ---- gelu ------------------------------------------------------------------------------

# TF's gelu casts 1/sqrt(2) and 0.044715 from 32-bit constants (math_ops.cast of a Python
# float), so a float64 gelu uses their float32 roundings; the same constants here give the
# same float64 values. sqrt(2/pi) is a Python float in TF's tanh form: exact.
_INV_SQRT2 = float(np.float32(1.0 / math.sqrt(2.0)))
_GELU_PDF = _INV_SQRT2 / math.sqrt(math.pi)   # d/dx erf(c x) / 2 = c/sqrt(pi) exp(-(c x)^2)
_GELU_C = math.sqrt(2.0 / math.pi)
_GELU_A = float(np.float32(0.044715))


def _gelu_fwd(x, approximate=False):
    # float16 computes in float32 (x^3 overflows float16 from |x| ~ 40) and rounds once
    xc = x.astype(np.float32) if x.dtype == np.float16 else x
    if approximate:
        inner = _GELU_C * (xc + _GELU_A * xc * xc * xc)
        return (0.5 * xc * (1 + np.tanh(inner))).astype(x.dtype, copy=False)
    return (0.5 * xc * (1 + _erf_kernel(xc * _INV_SQRT2))).astype(x.dtype, copy=False)


def _gelu_grad(g, ans, x, approximate=False):
    if approximate:
        # y = x/2 (1 + t), t = tanh(c (x + a x^3)):
        # dy/dx = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3 a x^2)
        t = tanh(_GELU_C * (x + _GELU_A * x * x * x))
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _GELU_C * (1 + 3 * _GELU_A * x * x))
    # y = x Phi(x): dy/dx = Phi(x) + x phi(x), Phi(x) = (1 + erf(c x))/2, c = 1/sqrt2
    cx = x * _INV_SQRT2
    cdf = 0.5 * (1 + erf(cx))
    pdf = _GELU_PDF * exp(-(cx * cx))
    return g * (cdf + x * pdf)


_gelu = defop("gelu", _gelu_fwd, kinds=FLOAT, jvp=ELEMENTWISE, grads=[_gelu_grad])


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit ``x * Phi(x)``; ``approximate=True`` uses the tanh form."""
    if approximate:
        return execute(_gelu, features, approximate=True)
    return execute(_gelu, features)


# ---- softmax ---------------------------------------------------------------------------

def _check_softmax(x, axis):
    if x.ndim == 0:
        raise InvalidArgumentError("softmax: logits must have at least one axis "
                                   "(expected rank >= 1, got a scalar)")


def _along(kernel, x, axis):
    """Run a last-axis kernel along ``axis`` (moving it last and back)."""
    if axis == x.ndim - 1:
        return _on_kernel_dtype(kernel, x)
    return np.moveaxis(_on_kernel_dtype(kernel, np.moveaxis(x, axis, -1)), -1, axis)


# softmax: d p = p (g - sum(g p)) along the axis
softmax_op = defop(
    "softmax", lambda x, axis: _along(_kernels.softmax, x, axis), kinds=FLOAT,
    check=_check_softmax,
    grads=[lambda g, ans, x, axis: ans * (g - reduce_sum(g * ans, axis, keepdims=True))])

# log_softmax: d l = g - exp(l) sum(g) along the axis
log_softmax_op = defop(
    "log_softmax", lambda x, axis: _along(_kernels.log_softmax, x, axis), kinds=FLOAT,
    check=_check_softmax,
    grads=[lambda g, ans, x, axis: g - exp(ans) * reduce_sum(g, axis, keepdims=True)])


def _softmax_axis(name, x, axis):
    x = convert_to_tensor(x)
    if x._value.ndim == 0:
        _check_softmax(x._value, 0)
    axis = -1 if axis is None else axis
    return x, single_axis(name, axis, x._value.ndim)


def softmax(logits, axis=None, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (the last when None).

    >>> fe.nn.softmax([0., 0.]).numpy()
    array([0.5, 0.5], dtype=float32)
    """
    x, axis = _softmax_axis("softmax", logits, axis)
    return execute(softmax_op, x, axis=axis)


def log_softmax(logits, axis=None, name=None):
    """``x - log(sum(exp(x)))`` along ``axis`` (the last when None), computed stably."""
    x, axis = _softmax_axis("log_softmax", logits, axis)
    return execute(log_softmax_op, x, axis=axis)


# ---- cross-entropy losses --------------------------------------------------------------

def _check_dense_xent(labels, logits):
    if logits.ndim == 0:
        raise InvalidArgumentError("softmax_cross_entropy_with_logits: logits must have at "
                                   "least one axis (expected rank >= 1, got a scalar)")
    if labels.shape != logits.shape:
        raise InvalidArgumentError(
            "softmax_cross_entropy_with_logits: labels and logits shapes differ "
            "(expected labels shape %s, got %s)" % (list(logits.shape), list(labels.shape)))
    if logits.shape[-1] == 0:
        raise InvalidArgumentError("softmax_cross_entropy_with_logits: logits needs at least "
                                   "one class (expected shape [..., K >= 1], got %s)"
                                   % list(logits.shape))


def _dense_xent_fwd(labels, logits):
    k = logits.shape[-1]
    loss, d = _kernel_call("softmax_cross_entropy_with_logits", _on_kernel_dtype,
                           _kernels.softmax_xent, logits.reshape(-1, k), labels.reshape(-1, k))
    return loss.reshape(logits.shape[:-1]), d.reshape(logits.shape)


def _dense_xent_dlabels(g, ans, labels, logits):
    # loss = -sum(y log_softmax(x)): dloss/dy = -log_softmax(x)
    gl, gb = g
    dy = -expand_dims(gl, -1) * log_softmax(logits)
    if _used(gb):
        # backprop = p sum(y) - y: its VJP in y is sum(gb p) - gb
        p = softmax(logits)
        dy = dy + (reduce_sum(gb * p, -1, keepdims=True) - gb)
    return dy


def _dense_xent_dlogits(g, ans, labels, logits):
    # dloss/dx = backprop = softmax(x) sum(y) - y
    gl, gb = g
    dx = expand_dims(gl, -1) * ans[1]
    if _used(gb):
        # d backprop/dx = sum(y) (diag(p) - p p^T): VJP sum(y) p (gb - sum(gb p))
        p = softmax(logits)
        ysum = reduce_sum(labels, -1, keepdims=True)
        dx = dx + ysum * p * (gb - reduce_sum(gb * p, -1, keepdims=True))
    return dx


_dense_xent = defop("softmax_cross_entropy_with_logits", _dense_xent_fwd, kinds=FLOAT,
                    multi=True, check=_check_dense_xent,
                    grads=[_dense_xent_dlabels, _dense_xent_dlogits])


def _xent_args(fname, args, labels, logits):
    if len(args) > 2:
        raise TypeError("%s: takes labels and logits (expected at most 2 positional "
                        "arguments, got %d)" % (fname, len(args)))
    if args:
        if labels is not None or (len(args) == 2 and logits is not None):
            raise TypeError("%s: labels/logits given both by position and by keyword" % fname)
        labels = args[0]
        if len(args) == 2:
            logits = args[1]
    if labels is None or logits is None:
        raise ValueError("%s: both labels and logits are required (call it as %s(labels=..., "
                         "logits=...))" % (fname, fname))
    return labels, logits


def softmax_cross_entropy_with_logits(*args, labels=None, logits=None, axis=-1, name=None,
                                      dim=None):
    """Cross-entropy ``-sum(labels * log_softmax(logits), axis)`` with dense labels.

    Both labels and logits get gradients. Arguments as TensorFlow 2 (``labels`` first);
    pass them by keyword (``labels=..., logits=...``) to be safe from swapping.

    >>> fe.nn.softmax_cross_entropy_with_logits(labels=[[0., 1.]], logits=[[0., 0.]])
    """
    name_ = "softmax_cross_entropy_with_logits"
    labels, logits = _xent_args(name_, args, labels, logits)
    labels, logits = convert_same(labels, logits)
    if logits._value.dtype != labels._value.dtype:
        raise InvalidArgumentError("%s: labels and logits dtypes differ (expected %s, got %s)"
                                   % (name_, logits._value.dtype, labels._value.dtype))
    axis = axis if dim is None else dim
    rank = logits._value.ndim
    if rank:
        ax = single_axis(name_, axis, rank)
        if ax != rank - 1 and labels._value.ndim == rank:
            perm = [i for i in range(rank) if i != ax] + [ax]
            labels, logits = transpose(labels, perm), transpose(logits, perm)
    return execute(_dense_xent, labels, logits)[0]


softmax_cross_entropy_with_logits_v2 = softmax_cross_entropy_with_logits


def _check_sparse_xent(labels, logits):
    name = "sparse_softmax_cross_entropy_with_logits"
    if labels.dtype.kind not in "iu":
        raise InvalidArgumentError("%s: labels must be integer class ids (expected int32 or "
                                   "int64, got %s)" % (name, labels.dtype))
    if logits.dtype.kind != "f":
        raise InvalidArgumentError("%s: logits must be floating (expected float32 or float64, "
                                   "got %s)" % (name, logits.dtype))
    if logits.ndim == 0 or labels.shape != logits.shape[:-1]:
        raise InvalidArgumentError(
            "%s: labels must have the shape of logits without the last axis (expected labels "
            "shape %s, got labels %s and logits %s)"
            % (name, list(logits.shape[:-1]) if logits.ndim else "[...]", list(labels.shape),
               list(logits.shape)))
    if logits.shape[-1] == 0:
        raise InvalidArgumentError("%s: logits needs at least one class (expected shape "
                                   "[..., K >= 1], got %s)" % (name, list(logits.shape)))


def _sparse_xent_fwd(labels, logits):
    k = logits.shape[-1]
    flat = labels.reshape(-1)
    if flat.dtype not in (np.int32, np.int64):
        flat = flat.astype(np.int64)
    loss, d = _kernel_call("sparse_softmax_cross_entropy_with_logits", _on_kernel_dtype,
                           lambda x: _kernels.sparse_softmax_xent(x, flat), logits.reshape(-1, k))
    return loss.reshape(labels.shape), d.reshape(logits.shape)


def _sparse_xent_dlogits(g, ans, labels, logits):
    # dloss/dx = backprop = softmax(x) - onehot(label)
    gl, gb = g
    dx = expand_dims(gl, -1) * ans[1]
    if _used(gb):
        # d backprop/dx = diag(p) - p p^T: VJP p (gb - sum(gb p))
        p = softmax(logits)
        dx = dx + p * (gb - reduce_sum(gb * p, -1, keepdims=True))
    return dx


# labels are integer class ids: they have no gradient
_sparse_xent = defop("sparse_softmax_cross_entropy_with_logits", _sparse_xent_fwd,
                     kinds="fiu", same_dtype=False, multi=True, check=_check_sparse_xent,
                     grads=[None, _sparse_xent_dlogits])


def sparse_softmax_cross_entropy_with_logits(*args, labels=None, logits=None, name=None):
    """Cross-entropy of integer class ``labels`` (shape ``logits.shape[:-1]``) and ``logits``.

    ``loss = logsumexp(logits) - logits[label]``, stable for large logits and -inf masks.
    Arguments as TensorFlow 2 (``labels`` first); keywords are safest.

    >>> fe.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=[[0., 0.]])
    """
    fname = "sparse_softmax_cross_entropy_with_logits"
    labels, logits = _xent_args(fname, args, labels, logits)
    labels, logits = convert_to_tensor(labels), convert_to_tensor(logits)
    if labels._value.dtype.kind == "f" and logits._value.dtype.kind in "iu":
        raise InvalidArgumentError("%s: labels and logits look swapped (expected integer "
                                   "labels and float logits, got labels %s and logits %s)"
                                   % (fname, labels._value.dtype, logits._value.dtype))
    return execute(_sparse_xent, labels, logits)[0]


def _check_sigmoid_xent(labels, logits):
    if labels.shape != logits.shape:
        raise InvalidArgumentError(
            "sigmoid_cross_entropy_with_logits: labels and logits shapes differ "
            "(expected labels shape %s, got %s)" % (list(logits.shape), list(labels.shape)))


def _sigmoid_xent_fwd(labels, logits):
    # max(x, 0) - x z + log(1 + exp(-|x|)) (TensorFlow's stable form)
    x, z = logits, labels
    loss = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    if not np.isfinite(x).all():
        # masks: x = -inf with z = 0 (or +inf with z = 1) costs 0, not inf - inf
        zero = ((x == -np.inf) & (z == 0)) | ((x == np.inf) & (z == 1))
        loss[zero] = 0
    return loss.astype(x.dtype, copy=False)


# loss = max(x, 0) - x z + log(1 + e^-|x|): d/dx = sigmoid(x) - z, d/dz = -x
_sigmoid_xent = defop("sigmoid_cross_entropy_with_logits", _sigmoid_xent_fwd, kinds=FLOAT,
                      check=_check_sigmoid_xent, quiet=True,
                      grads=[lambda g, ans, z, x: g * -x,
                             lambda g, ans, z, x: g * (sigmoid(x) - z)])


def sigmoid_cross_entropy_with_logits(*args, labels=None, logits=None, name=None):
    """Elementwise logistic loss of ``labels`` (in [0, 1]) and ``logits``, computed stably."""
    fname = "sigmoid_cross_entropy_with_logits"
    labels, logits = _xent_args(fname, args, labels, logits)
    logits, labels = convert_same(logits, labels)
    return execute(_sigmoid_xent, labels, logits)


# l2_loss = sum(x^2) / 2: d/dx = x
l2_loss = defop("l2_loss", lambda x: np.asarray(np.vdot(x, x) * 0.5, dtype=x.dtype),
                kinds=FLOAT, grads=[lambda g, ans, x: g * x])


# ---- bias_add --------------------------------------------------------------------------

def _check_bias_add(value, bias, nc=False):
    if bias.ndim != 1 or value.ndim < 2:
        raise InvalidArgumentError(
            "bias_add: bias must be 1-D and value at least 2-D (expected bias [C], got "
            "value %s and bias %s)" % (list(value.shape), list(bias.shape)))
    c = value.shape[1] if nc else value.shape[-1]
    if bias.shape[0] != c:
        raise InvalidArgumentError(
            "bias_add: bias size differs from the channel dimension of value (expected "
            "bias [%d], got value %s and bias %s)" % (c, list(value.shape), list(bias.shape)))


def _bias_add_fwd(value, bias, nc=False):
    if nc:
        return value + bias.reshape((-1,) + (1,) * (value.ndim - 2))
    return value + bias


def _bias_add_into(value, bias, out, nc=False):
    if nc:
        bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
    return np.add(value, bias, out)


def _bias_add_dbias(g, ans, value, bias, nc=False):
    # the bias is broadcast over every axis but the channel one: sum them
    rank = value._value.ndim
    axes = [a for a in range(rank) if a != (1 if nc else rank - 1)]
    return reduce_sum(g, axes)


bias_add_op = defop("bias_add", _bias_add_fwd, kinds=NUMERIC, check=_check_bias_add,
                    into=_bias_add_into,
                    grads=[lambda g, ans, value, bias, nc=False: g, _bias_add_dbias])


# ---- fused_matmul: a Dense layer's matmul + bias_add (+ relu) as one op ------------------
# (TensorFlow's grappler makes the same fusion, _FusedMatMul.) One tape record and one
# gradient call instead of three; the bias and relu run in place on the product.

_FUSED_ACTIVATIONS = ("linear", "relu")


def _check_fused_matmul(x, kernel, bias, activation="linear"):
    if x.ndim != 2 or kernel.ndim != 2 or bias.ndim != 1:
        raise InvalidArgumentError(
            "fused_matmul: expected x [M, K], kernel [K, N] and bias [N] (got shapes %s, "
            "%s and %s)" % (list(x.shape), list(kernel.shape), list(bias.shape)))
    if x.shape[1] != kernel.shape[0] or kernel.shape[1] != bias.shape[0]:
        raise InvalidArgumentError(
            "fused_matmul: shapes do not chain (expected x [M, K], kernel [K, N], bias [N]; "
            "got %s, %s and %s)" % (list(x.shape), list(kernel.shape), list(bias.shape)))
    if activation not in _FUSED_ACTIVATIONS:
        raise InvalidArgumentError("fused_matmul: activation must be one of %s (got %r)"
                                   % (list(_FUSED_ACTIVATIONS), activation))


def _fused_matmul_into(x, kernel, bias, out, activation="linear"):
    _matmul_into(x, kernel, out)
    np.add(out, bias, out)
    if activation == "relu":
        np.maximum(out, 0, out=out)
    return out


def _fused_matmul_fwd(x, kernel, bias, activation="linear"):
    y = _matmul_fwd(x, kernel)
    np.add(y, bias, y)
    if activation == "relu":
        np.maximum(y, 0, out=y)
    return y


def _fused_matmul_grad(g, ans, inputs, attrs, needs):
    # y = act(x W + b): dz = g * act'(z), where relu'(z) = (y > 0); then dx = dz W^T,
    # dW = x^T dz, db = the column sums of dz
    # (the core's execute directly: this runs for every Dense layer of every step)
    x, kernel, bias = inputs
    g, db = _activation_and_bias_grads(g, ans, attrs, needs[2], _COLUMN_SUM)
    dx = _core.execute(_matmul, (g, kernel), _TRANSPOSE_B) if needs[0] else None
    dw = _core.execute(_matmul, (x, g), _TRANSPOSE_A) if needs[1] else None
    return [dx, dw, db]


def _activation_and_bias_grads(g, ans, attrs, need_bias, bias_axes):
    """(dz, db) of a fused y = act(z), z = product + bias: dz = g * act'(z), with relu'(z)
    = (y > 0); db = dz summed over ``bias_axes`` (None unless ``need_bias``). With relu
    and a bias gradient, both come from one pass (relu_backprop_sum)."""
    if attrs.get("activation") == "relu":
        if need_bias:
            return _core.execute(relu_backprop_sum, (g, ans), None)
        return _core.execute(relu_backprop, (g, ans), None), None
    return g, _core.execute(_reduce_sum, (g,), bias_axes) if need_bias else None


_TRANSPOSE_A = {"transpose_a": True}
_TRANSPOSE_B = {"transpose_b": True}
_COLUMN_SUM = {"axis": (0,), "keepdims": False}


fused_matmul_op = defop("fused_matmul", _fused_matmul_fwd, kinds=FLOAT,
                        check=_check_fused_matmul, into=_fused_matmul_into, nin=3,
                        attrs=("activation",), joint_grad=_fused_matmul_grad)


def fused_matmul(x, kernel, bias, activation="linear"):
    """``act(x @ kernel + bias)`` for 2-D ``x``, with ``act`` "linear" or "relu", as one
    op (what ``keras.layers.Dense`` runs on the CPU)."""
    return execute(fused_matmul_op, x, kernel, bias, activation=activation)


# ---- fused_conv2d: a Conv2D layer's conv2d + bias_add (+ relu) as one op ----------------
# (TensorFlow's grappler makes the same fusion, _FusedConv2D.) The direct conv kernel adds
# the bias and clamps in its registers, so the output is written once; one tape record.

def _check_fused_conv2d(x, filters, bias, strides, padding, dilations, activation="linear"):
    conv_ops._check_conv2d(x, filters, strides, padding, dilations)
    if bias.ndim != 1 or bias.shape[0] != filters.shape[3]:
        raise InvalidArgumentError(
            "fused_conv2d: bias must have one value per output channel (expected shape "
            "[%d], got %s)" % (filters.shape[3], list(bias.shape)))
    if activation not in _FUSED_ACTIVATIONS:
        raise InvalidArgumentError("fused_conv2d: activation must be one of %s (got %r)"
                                   % (list(_FUSED_ACTIVATIONS), activation))


def _fused_conv2d_fwd(x, filters, bias, strides, padding, dilations, activation="linear"):
    relu = activation == "relu"
    if x.size == 0 or filters.size == 0:
        y = conv_ops._conv2d_fwd(x, filters, strides, padding, dilations) + bias
        return np.maximum(y, 0, out=y) if relu else y
    return conv_ops._kernel_call("fused_conv2d", _kernels.conv2d_forward, x, filters, strides,
                                 padding, dilations, "auto", bias, relu)


def _fused_conv2d_grad(g, ans, inputs, attrs, needs):
    # y = act(conv(x, w) + b): dz = g * act'(z), relu'(z) = (y > 0); then dx and dw are
    # conv2d's two adjoint ops of dz, db the sum of dz over batch, rows and columns
    x, filters, bias = inputs
    g, db = _activation_and_bias_grads(g, ans, attrs, needs[2], _PIXEL_SUM)
    conv = {"strides": attrs["strides"], "padding": attrs["padding"],
            "dilations": attrs["dilations"]}
    dx, dw = conv_ops._conv2d_grad(g, None, (x, filters), conv, needs[:2])
    return [dx, dw, db]


_PIXEL_SUM = {"axis": (0, 1, 2), "keepdims": False}


fused_conv2d_op = defop("fused_conv2d", _fused_conv2d_fwd, kinds=FLOAT,
                        check=_check_fused_conv2d, nin=3,
                        attrs=("strides", "padding", "dilations", "activation"),
                        joint_grad=_fused_conv2d_grad)


def fused_conv2d(x, filters, bias, strides=(1, 1), padding="VALID", dilations=(1, 1),
                 activation="linear"):
    """``act(conv2d(x, filters) + bias)`` for NHWC ``x`` and HWIO ``filters``, with ``act``
    "linear" or "relu", as one op (what ``keras.layers.Conv2D`` runs on the CPU).
    ``strides`` and ``dilations`` are (h, w) pairs; ``padding`` 'SAME' or 'VALID'."""
    return execute(fused_conv2d_op, x, filters, bias, strides=tuple(strides),
                   padding=padding, dilations=tuple(dilations), activation=activation)


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` with a 1-D ``bias`` on the channel axis (last, or 1 for 'NC...')."""
    value, bias = convert_same(value, bias)
    if data_format is not None and str(data_format).startswith("NC"):
        return execute(bias_add_op, value, bias, nc=True)
    return execute(bias_add_op, value, bias)


# ---- composites (no gradient of their own) ---------------------------------------------

def _float_input(opname, x):
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("%s: x must be floating (expected float16, float32 or "
                                   "float64, got %s)" % (opname, x._value.dtype))
    return x


def dropout(x, rate=None, noise_shape=None, seed=None, name=None, keep_prob=None):
    """Zero each entry with probability ``rate`` and scale the rest by ``1 / (1 - rate)``.

    ``noise_shape`` (broadcastable to x's shape) shares one draw along its size-1 axes.
    Random draws follow ``fe.random``'s seed rules. ``keep_prob=`` (the TF1 keyword) is
    accepted as ``rate = 1 - keep_prob``.
    """
    x = _float_input("dropout", x)
    if (rate is None) == (keep_prob is None):
        raise InvalidArgumentError("dropout: give exactly one of rate and keep_prob (got rate=%r, "
                                   "keep_prob=%r)" % (rate, keep_prob))
    if keep_prob is not None:
        rate = 1.0 - float(convert_to_tensor(keep_prob))
    if isinstance(rate, (_core.Tensor, _core.VariableBase)):
        rate = float(convert_to_tensor(rate))
    try:
        rate = float(rate)
    except (TypeError, ValueError):     # float("x") is a ValueError
        raise InvalidArgumentError("dropout: rate must be a number (expected a float, got "
                                   "%r)" % (rate,)) from None
    if not 0.0 <= rate < 1.0:
        raise InvalidArgumentError("dropout: rate must be in [0, 1) (expected 0 <= rate < 1, "
                                   "got %r)" % rate)
    if rate == 0.0:
        return x
    shape = x._value.shape if noise_shape is None else tuple(
        int(d) if d is not None else x._value.shape[i]
        for i, d in enumerate(np.asarray(noise_shape).tolist()))
    try:
        np.broadcast_shapes(shape, x._value.shape)
    except ValueError:
        raise InvalidArgumentError("dropout: noise_shape must broadcast to x's shape (expected "
                                   "one compatible with %s, got %s)"
                                   % (list(x._value.shape), list(shape))) from None
    tracer = _core.get_tracer()
    if tracer is not None and tracer.parent is None:
        # inside fe.function: the mask is an op on a seed drawn by a step of the graph, so
        # every call draws a new mask (a frozen draw would make the function run eagerly)
        key = tracer.random_seed(draw_seed(seed))
        mask = execute(dropout_mask, x, key, rate=rate,
                       noise_shape=None if noise_shape is None else shape)
        return multiply(x, mask)
    keep = _rng_for(seed).random(shape) >= rate
    scale = np.asarray(1.0 / (1.0 - rate), dtype=x._value.dtype)
    return multiply(x, _core.wrap(keep.astype(x._value.dtype) * scale))


def _dropout_mask_fwd(x, key, rate, noise_shape=None):
    """The scaled keep-mask of ``dropout`` for ``x``, drawn from seed ``key`` (two int64
    words): 0 with probability ``rate``, else ``1 / (1 - rate)``."""
    words = np.asarray(key).reshape(-1)
    if x.dtype.kind != "f" or words.dtype.kind not in "iu":
        raise InvalidArgumentError("dropout_mask: expected a floating x and an integer key "
                                   "(got %s and %s)" % (x.dtype, words.dtype))
    if words.size != 2:
        raise InvalidArgumentError("dropout_mask: key must hold 2 integers (got %d)"
                                   % words.size)
    rng = np.random.default_rng([int(w) & 0xFFFFFFFFFFFFFFFF for w in words])
    keep = rng.random(x.shape if noise_shape is None else noise_shape) >= rate
    return keep.astype(x.dtype) * np.asarray(1.0 / (1.0 - rate), dtype=x.dtype)


# the mask of dropout inside fe.function (see dropout): deterministic in its key
dropout_mask = defop("dropout_mask", _dropout_mask_fwd, kinds="fiu", same_dtype=False,
                     nin=2, attrs=("rate", "noise_shape"),
                     no_grad="a random mask: no gradient with respect to x or the key")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x^2, axis), epsilon))``."""
    x = _float_input("l2_normalize", x)
    axis = axis if dim is None else dim
    axes = normalize_axis("l2_normalize", axis, x._value.ndim)
    return x * rsqrt(maximum(reduce_sum(square(x), axes, keepdims=True), epsilon))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|.

    A composite of softplus, whose gradient gives d/dx = sigmoid(-x) (0.5 at 0, where the
    min/abs form had a kink of each and gave 1).

    >>> fe.math.log_sigmoid(0.0).numpy()
    -0.6931472
    """
    if type(x) in COMPOSITE_TYPES:
        return composite_call("log_sigmoid", x, x)
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("log_sigmoid: input must be floating (expected float, got "
                                   "%s)" % x._value.dtype)
    return negative(softplus(negative(x)))


# ---- crelu and the weighted losses (composites) ---------------------------------------------

def crelu(features, axis=-1, name=None):
    """``concat([relu(x), relu(-x)], axis)``: the positive and negative parts side by side."""
    x = convert_to_tensor(features)
    return concat([relu(x), relu(-x)], axis)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``exp(log_input) - log_input * targets``; ``compute_full_loss`` adds Stirling's
    approximation of ``log(targets!)`` where ``targets > 1``.

    >>> fe.nn.log_poisson_loss([1., 3.], [-1., 2.]).numpy()
    array([1.3678794, 1.3890562], dtype=float32)
    """
    log_input, targets = convert_same(log_input, targets)
    if log_input._value.shape != targets._value.shape:
        raise ValueError("log_poisson_loss: log_input and targets must have the same shape "
                         "(%s vs %s)" % (list(log_input._value.shape),
                                         list(targets._value.shape)))
    result = exp(log_input) - log_input * targets
    if not compute_full_loss:
        return result
    zeros = zeros_like(targets)
    small = logical_and(greater_equal(targets, zeros), less_equal(targets, zeros + 1))
    safe = where(small, zeros + 1, targets)    # log() only where the branch is taken
    stirling = safe * log(safe) - safe + 0.5 * log(2 * math.pi * safe)
    return result + where(small, zeros, stirling)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight``, in the
    stable form ``(1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + max(-x, 0))``."""
    logits, labels, pos_weight = convert_same(logits, labels, pos_weight)
    if logits._value.shape != labels._value.shape:
        raise ValueError("weighted_cross_entropy_with_logits: logits and labels must have "
                         "the same shape (%s vs %s)" % (list(logits._value.shape),
                                                        list(labels._value.shape)))
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(-abs(logits))) + relu(-logits))


# names that moved to other topic modules when ops/ was regrouped: the old paths warn for
# one release
__getattr__ = moved_names(__name__, {
    **dict.fromkeys(("conv2d"), "conv_ops"),
    **dict.fromkeys(("batch_normalization", "moments"), "norm_ops"),
})
