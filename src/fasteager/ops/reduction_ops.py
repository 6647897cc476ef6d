"""Reductions and scans: sums, means, extremes, products, log-sum-exp, argmax/argmin,
cumulative sums/products/log-sum-exp, and the composites built on them (variance, norms,
counts, order checks).

Sums, products and scans of integers keep the input dtype and wrap on overflow, as
NumPy and TensorFlow do (``reduce_prod`` of forty 3s in int32 wraps). The gradient of
``reduce_sum``/``reduce_mean`` is one op, ``expand_to``, that spreads the reduced
gradient over the input's shape; extremes share their gradient equally between ties
(TensorFlow's rule); ``reduce_prod``'s gradient is exact at zeros (``prod_others``).
``cumulative_logsumexp`` runs NumPy's ``logaddexp`` scan; its gradient is a reverse
cumulative log-sum-exp of the cotangent's positive and negative parts, as TensorFlow's.
"""


import builtins

import numpy as np

from .. import _core, _kernels
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .array_ops import expand_dims, reshape, transpose, zeros_like
from .elementwise_ops import (_cj, _CMP, _ones_of, _zeros_of, add_n, cast, conj, equal, exp,
                              greater, is_finite, log, logical_and, maximum, minimum, multiply,
                              not_equal, NUMERIC_C, sqrt, square, truediv, where)
from .registry import (ALL, as_bool, BOOL, composite_call, COMPOSITE_TYPES, defop, execute, FLOAT,
                       LINEAR, normalize_axis, NUMERIC, single_axis)

convert_to_tensor = _core.convert_to_tensor


# ---- reductions ---------------------------------------------------------------------------

def _kept_shape(x, axis):
    shape = list(x._value.shape)
    for a in (range(len(shape)) if axis is None else axis):
        shape[a] = 1
    return shape


def _expand_to_fwd(g, x, axis=None, keepdims=False, mean=False):
    """``g`` (a reduction's gradient, of the reduced shape) spread over ``x``'s shape,
    divided by the count of entries each output summed when ``mean``. Shapes are read from
    the arrays when it runs, so a traced gradient serves other sizes (see _src/tracing/relax.py)."""
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


# ---- argmax / argmin (integer outputs) ------------------------------------------------------

def _arg_reduce(fn, opname):
    # TF's ArgMax/ArgMin take bool too (the images tutorial's tf.argmax(parts == names))
    op = defop(opname, lambda x, axis=0, output_type=np.int64:
               fn(x, axis=axis).astype(output_type), kinds=ALL,
               no_grad="returns integer indices")

    def arg(input, axis=None, output_type=np.int64, name=None):
        x = convert_to_tensor(input)
        axis = 0 if axis is None else axis
        ax = single_axis(opname, axis, x._value.ndim)
        return execute(op, x, axis=ax, output_type=as_dtype(output_type)._np)
    arg.__name__ = opname
    return op, arg


_argmax_op, argmax = _arg_reduce(np.argmax, "argmax")
_argmin_op, argmin = _arg_reduce(np.argmin, "argmin")


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


# ---- counts, norms and order checks ---------------------------------------------------------

def _as_np_dtype(dtype):
    return as_dtype(dtype)._np


def count_nonzero(input, axis=None, keepdims=None, dtype=np.int64, name=None):
    """The number of non-zero entries over ``axis`` (int64 by default).

    >>> fe.math.count_nonzero([[1, 0], [2, 3]], axis=1).numpy()
    array([1, 2])
    """
    x = convert_to_tensor(input)
    nonzero = cast(not_equal(x, _zeros_of(x)) if x._value.dtype.kind != "b" else x,
                   _as_np_dtype(dtype))
    return reduce_sum(nonzero, axis, keepdims=bool(keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``sqrt(sum(x^2))`` over ``axis``; integer inputs give the norm truncated to their dtype.

    >>> fe.math.reduce_euclidean_norm([[1., 2.], [3., 4.]], axis=1).numpy()
    array([2.236068, 5.      ], dtype=float32)
    """
    x = convert_to_tensor(input_tensor)
    if x._value.dtype.kind in "iu":
        axes = normalize_axis("reduce_euclidean_norm", axis, x._value.ndim)
        v = np.sqrt(np.sum(np.square(x._value.astype(np.float64)), axis=axes,
                           keepdims=bool(keepdims)))
        return _core.wrap(v.astype(x._value.dtype))
    if x._value.dtype.kind == "c":      # |x|^2 = x conj(x): the result stays complex, as TF
        return sqrt(reduce_sum(x * conj(x), axis, keepdims=keepdims))
    return sqrt(reduce_sum(square(x), axis, keepdims=keepdims))


def zero_fraction(value, name=None):
    """The fraction of entries of ``value`` equal to zero, as a float32 scalar."""
    x = convert_to_tensor(value)
    return reduce_mean(cast(equal(x, _zeros_of(x)), np.float32))


def _monotone(opname, x, strict):
    v = _core.data_of(convert_to_tensor(x), opname)
    if v.dtype.kind not in NUMERIC:
        raise InvalidArgumentError("%s: input must be numeric (got %s)" % (opname, v.dtype))
    d = np.diff(v.reshape(-1))
    return _core.wrap(np.array(bool(np.all(d > 0) if strict else np.all(d >= 0))))


def is_non_decreasing(x, name=None):
    """True when the entries of ``x``, read in row-major order, never decrease."""
    return _monotone("is_non_decreasing", x, False)


def is_strictly_increasing(x, name=None):
    """True when the entries of ``x``, read in row-major order, always increase."""
    return _monotone("is_strictly_increasing", x, True)


# ---- cumulative log-sum-exp ---------------------------------------------------------------

def _clse_fwd(x, axis, exclusive=False, reverse=False):
    if reverse:
        x = np.flip(x, axis)
    out = np.logaddexp.accumulate(x, axis=axis) if x.shape[axis] else x.copy()
    if exclusive and out.shape[axis]:
        shifted = np.empty_like(out)
        lead = (slice(None),) * axis
        shifted[lead + (slice(0, 1),)] = -np.inf
        shifted[lead + (slice(1, None),)] = out[lead + (slice(None, -1),)]
        out = shifted
    return np.flip(out, axis) if reverse else out


def _clse_grad(g, ans, x, axis, exclusive=False, reverse=False):
    # dx_j = sum_{i >= j} g_i exp(x_j - ans_i): a reverse cumulative log-sum-exp of
    # log|g| - ans, split by the sign of g so the logarithm exists (TensorFlow's rule)
    # ans_i = -inf (an empty or all -inf prefix) takes no gradient: its weights
    # exp(x_j - ans_i) are undefined, and -inf - -inf would make the rest NaN
    minus_inf = _core.wrap(np.array(-np.inf, x._value.dtype))
    one = _ones_of(g)
    defined = is_finite(ans)
    safe_ans = where(defined, ans, zeros_like(ans))

    def part(mask, magnitude):
        mask = logical_and(mask, defined)
        logged = where(mask, log(where(mask, magnitude, one + zeros_like(g))) - safe_ans,
                       minus_inf + zeros_like(g))
        return exp(execute(_clse_op, logged, axis=axis, exclusive=exclusive,
                           reverse=not reverse) + x)
    zero = _zeros_of(g)
    return part(greater(g, zero), g) - part(greater(zero, g), -g)


_clse_op = defop("cumulative_logsumexp", _clse_fwd, kinds="f", quiet=True, grads=[_clse_grad])


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """``log(cumsum(exp(x)))`` along ``axis``, computed stably (``exclusive`` starts at
    ``-inf``; ``reverse`` runs from the end).

    >>> fe.math.cumulative_logsumexp([1., 2., 3.]).numpy()
    array([1.       , 2.3132617, 3.4076061], dtype=float32)
    """
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError("cumulative_logsumexp: x must be floating point (got %s)"
                                   % x._value.dtype)
    if x._value.ndim == 0:
        raise InvalidArgumentError("cumulative_logsumexp: x must have rank >= 1 (got a "
                                   "scalar)")
    ax = single_axis("cumulative_logsumexp", axis, x._value.ndim)
    return execute(_clse_op, x, axis=ax, exclusive=as_bool("cumulative_logsumexp", exclusive,
                                                           "exclusive"),
                   reverse=as_bool("cumulative_logsumexp", reverse, "reverse"))


# ---- clipping by norm -----------------------------------------------------------------------

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


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``, where
    ``global_norm`` is the L2 norm of all of them together; returns
    ``(list_clipped, global_norm)``. None entries stay None; an infinite norm gives NaNs,
    as in TensorFlow.

    >>> clipped, norm = fe.clip_by_global_norm([fe.constant([3., 4.])], 1.0)
    >>> float(norm)
    5.0
    """
    if not isinstance(t_list, (list, builtins.tuple)) or isinstance(t_list, str):
        raise TypeError("clip_by_global_norm: t_list should be a sequence of tensors (got %s)"
                        % type(t_list).__name__)
    ts = [None if t is None else
          (t._read() if isinstance(t, _core.VariableBase) else _core.convert_to_tensor(t))
          for t in t_list]
    present = [t for t in ts if t is not None]
    if use_norm is None:
        if not present:
            raise InvalidArgumentError("clip_by_global_norm: t_list holds no tensor")
        squares = [reduce_sum(square(cast(t, present[0].dtype))) for t in present]
        global_norm = sqrt(add_n(squares))
    else:
        global_norm = _core.convert_to_tensor(use_norm)
    dtype = global_norm.dtype
    c = _core.convert_to_tensor(clip_norm, dtype)
    one = np.asarray(1.0, dtype.as_numpy_dtype)
    scale = multiply(c, minimum(truediv(one, global_norm), truediv(one, c)))
    # an infinite (or NaN) norm makes every entry NaN, as in TensorFlow
    scale = where(is_finite(global_norm), scale, np.asarray(np.nan, dtype.as_numpy_dtype))
    clipped = [None if t is None else multiply(t, cast(scale, t.dtype)) for t in ts]
    return clipped, global_norm
