"""The rest of ``tf.math`` and ``tf.bitwise``: segment reductions, counting, safe
logarithms, scans, order checks and bit shifts.

Most functions are composites of existing ops (so they are differentiable, to any order,
and trace in ``fe.function``); four need ops of their own, each with its gradient
beside it:

- ``unsorted_segment_max`` / ``unsorted_segment_min``: the gradient goes to the entries
  equal to their segment's extreme, shared equally between ties (TensorFlow's rule);
- ``unsorted_segment_prod``: the gradient is the product of the segment's other
  entries, exact at zeros (TensorFlow's zero-counting rule);
- ``cumulative_logsumexp``: NumPy's running ``logaddexp`` (stable for any spread of
  values); its gradient is a reverse cumulative log-sum-exp of the cotangent's positive
  and negative parts, as TensorFlow computes it, so it does not overflow either.

Integer-valued results (counts, permutations, order checks) are NumPy computations with
no gradient, as in TensorFlow.
"""
import collections

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .array_ops import getitem, reshape, zeros_like
from .indexing_ops import _int_indices, _segment_ids, unsorted_segment_sum
from .math_ops import (add_n, cast, convert_same, divide_no_nan, equal, exp, greater,
                       is_finite, log, log1p, logical_and, maximum, multiply, not_equal,
                       reduce_mean, reduce_sum, round, sqrt, square, truediv, where)
from .registry import (INT, NUMERIC, as_bool, as_int, check_output_size, defop, execute,
                       normalize_axis, single_axis)
from .special_ops import lgamma

convert_to_tensor = _core.convert_to_tensor


def _zeros_of(x):
    return _core.wrap(np.zeros((), x._value.dtype))


def _ones_of(x):
    return _core.wrap(np.ones((), x._value.dtype))


# ---- segment reductions -------------------------------------------------------------------

def _lowest(dtype):
    # TensorFlow fills empty segments with the finite extremes (-FLT_MAX), not -inf
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def _segment_extreme_fwd(ufunc, fill_of):
    def forward(x, ids, num_segments, empty_value):
        out = np.full((num_segments,) + x.shape[ids.ndim:], fill_of(x.dtype), x.dtype)
        ufunc.at(out, ids, x)
        if empty_value is not None:
            counts = np.bincount(ids.reshape(-1), minlength=num_segments)
            out[counts == 0] = empty_value
        return out
    return forward


def _segment_extreme_grad(g, ans, x, ids, num_segments, empty_value):
    # the entries equal to their segment's extreme share its gradient equally
    selected = equal(x, execute(getitem, ans, key=(ids,)))
    picked = cast(selected, x._value.dtype)
    counts = unsorted_segment_sum(picked, ids, num_segments)
    share = truediv(execute(getitem, g, key=(ids,)),
                    execute(getitem, maximum(counts, _ones_of(counts)), key=(ids,)))
    return where(selected, share, zeros_like(share))


_segment_max_op = defop("unsorted_segment_max", _segment_extreme_fwd(np.maximum, _lowest),
                        nin=1, grads=[_segment_extreme_grad])
_segment_min_op = defop("unsorted_segment_min", _segment_extreme_fwd(np.minimum, _highest),
                        nin=1, grads=[_segment_extreme_grad])


def _segment_prod_fwd(x, ids, num_segments):
    out = np.ones((num_segments,) + x.shape[ids.ndim:], x.dtype)
    np.multiply.at(out, ids, x)
    return out


def _segment_prod_grad(g, ans, x, ids, num_segments):
    # d prod / d x_i = the product of the segment's other entries: ans / x_i where x_i != 0;
    # at a segment's only zero, the product of its non-zeros; 0 when it has several zeros
    is_zero = equal(x, _zeros_of(x))
    zeros_in = unsorted_segment_sum(cast(is_zero, x._value.dtype), ids, num_segments)
    non_zero = where(is_zero, _ones_of(x) + zeros_like(x), x)
    non_zero_prod = execute(_segment_prod_op, non_zero, ids=ids, num_segments=num_segments)
    non_zero_prod = where(greater(zeros_in, _ones_of(zeros_in)), zeros_like(non_zero_prod),
                          non_zero_prod)
    others = where(is_zero, execute(getitem, non_zero_prod, key=(ids,)),
                   truediv(execute(getitem, ans, key=(ids,)), non_zero))
    return execute(getitem, g, key=(ids,)) * others


_segment_prod_op = defop("unsorted_segment_prod", _segment_prod_fwd, nin=1,
                         grads=[_segment_prod_grad])


def _sorted_ids(opname, x, segment_ids):
    ids = _segment_ids(opname, segment_ids, x._value.shape)
    if ids.ndim != 1:
        raise InvalidArgumentError("%s: segment_ids must be 1-D (got shape %s)"
                                   % (opname, list(ids.shape)))
    if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
        raise InvalidArgumentError("%s: segment_ids must be sorted and non-negative (got %s)"
                                   % (opname, ids.tolist()[:10]))
    return ids, (int(ids.max()) + 1 if ids.size else 0)


def _unsorted_ids(opname, x, segment_ids, num_segments):
    """The ids and count of an unsorted reduction, with the entries of negative ids
    dropped (TensorFlow ignores them)."""
    ids = _segment_ids(opname, segment_ids, x._value.shape)
    num = as_int(opname, np.asarray(num_segments).reshape(-1)[0]
                 if np.size(num_segments) == 1 else num_segments, "num_segments")
    if ids.size and ids.max() >= num:
        raise InvalidArgumentError("%s: segment id %d is out of range (expected < "
                                   "num_segments = %d)" % (opname, ids.max(), num))
    if ids.size and ids.min() < 0:
        keep = ids >= 0
        x = execute(getitem, x, key=keep)
        ids = ids[keep]
    return x, ids, num


def _extreme(op, opname, data, ids, num, empty_value):
    x = convert_to_tensor(data)
    if x._value.dtype.kind not in NUMERIC:
        raise InvalidArgumentError("%s: data must be numeric (got %s)"
                                   % (opname, x._value.dtype))
    return execute(op, x, ids=ids, num_segments=num, empty_value=empty_value)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The maximum of each segment's entries; empty segments hold the dtype's lowest value.

    >>> fe.math.unsorted_segment_max([1., 5., 3.], [1, 0, 1], 2).numpy()
    array([5., 3.], dtype=float32)
    """
    x, ids, num = _unsorted_ids("unsorted_segment_max", convert_to_tensor(data), segment_ids,
                                num_segments)
    return _extreme(_segment_max_op, "unsorted_segment_max", x, ids, num, None)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """The minimum of each segment's entries; empty segments hold the dtype's highest value."""
    x, ids, num = _unsorted_ids("unsorted_segment_min", convert_to_tensor(data), segment_ids,
                                num_segments)
    return _extreme(_segment_min_op, "unsorted_segment_min", x, ids, num, None)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of each segment's entries (1 for empty segments)."""
    x, ids, num = _unsorted_ids("unsorted_segment_prod", convert_to_tensor(data), segment_ids,
                                num_segments)
    return execute(_segment_prod_op, x, ids=ids, num_segments=num)


def _counts(ids, num, x):
    """Entries per segment, shaped to broadcast against a segment result."""
    counts = np.bincount(ids.reshape(-1), minlength=num).astype(x._value.dtype)
    return _core.wrap(counts.reshape((num,) + (1,) * (x._value.ndim - ids.ndim)))


def _float_data(opname, data):
    x = convert_to_tensor(data)
    if x._value.dtype.kind not in "fc":
        raise InvalidArgumentError("%s: data must be floating point (got %s)"
                                   % (opname, x._value.dtype))
    return x


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of each segment's entries (0 for empty segments)."""
    x, ids, num = _unsorted_ids("unsorted_segment_mean",
                                _float_data("unsorted_segment_mean", data), segment_ids,
                                num_segments)
    return divide_no_nan(unsorted_segment_sum(x, ids, num), _counts(ids, num, x))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum divided by the square root of its size (0 for empty segments)."""
    x, ids, num = _unsorted_ids("unsorted_segment_sqrt_n",
                                _float_data("unsorted_segment_sqrt_n", data), segment_ids,
                                num_segments)
    return divide_no_nan(unsorted_segment_sum(x, ids, num), sqrt(_counts(ids, num, x)))


def segment_max(data, segment_ids, name=None):
    """The maximum of the rows sharing a (sorted) segment id; ids with no rows give 0.

    >>> fe.math.segment_max([1., 5., 3.], [0, 0, 2]).numpy()
    array([5., 0., 3.], dtype=float32)
    """
    x = convert_to_tensor(data)
    ids, num = _sorted_ids("segment_max", x, segment_ids)
    return _extreme(_segment_max_op, "segment_max", x, ids, num, 0)


def segment_min(data, segment_ids, name=None):
    """The minimum of the rows sharing a (sorted) segment id; ids with no rows give 0."""
    x = convert_to_tensor(data)
    ids, num = _sorted_ids("segment_min", x, segment_ids)
    return _extreme(_segment_min_op, "segment_min", x, ids, num, 0)


def segment_prod(data, segment_ids, name=None):
    """The product of the rows sharing a (sorted) segment id; ids with no rows give 1."""
    x = convert_to_tensor(data)
    ids, num = _sorted_ids("segment_prod", x, segment_ids)
    return execute(_segment_prod_op, x, ids=ids, num_segments=num)


def segment_mean(data, segment_ids, name=None):
    """The mean of the rows sharing a (sorted) segment id; ids with no rows give 0."""
    x = _float_data("segment_mean", data)
    ids, num = _sorted_ids("segment_mean", x, segment_ids)
    return divide_no_nan(unsorted_segment_sum(x, ids, num), _counts(ids, num, x))


# ---- counting -----------------------------------------------------------------------------

def _as_np_dtype(dtype):
    from ..dtypes import as_dtype
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
        from .math_ops import conj
        return sqrt(reduce_sum(x * conj(x), axis, keepdims=keepdims))
    return sqrt(reduce_sum(square(x), axis, keepdims=keepdims))


def zero_fraction(value, name=None):
    """The fraction of entries of ``value`` equal to zero, as a float32 scalar."""
    x = convert_to_tensor(value)
    return reduce_mean(cast(equal(x, _zeros_of(x)), np.float32))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=np.int32, name=None,
             axis=None, binary_output=False):
    """Counts (or summed ``weights``) of each non-negative integer in ``arr``.

    ``axis=-1`` counts each row of a 2-D ``arr`` separately; ``binary_output`` gives 1 for
    every value present. Summed weights are differentiable in ``weights``.

    >>> fe.math.bincount([1, 1, 3]).numpy()
    array([0, 2, 0, 1], dtype=int32)
    """
    ids = _int_indices("bincount", arr, "arr")
    if ids.size and ids.min() < 0:
        raise InvalidArgumentError("bincount: input arr must be non-negative (got %d)"
                                   % ids.min())
    if axis not in (None, 0, -1):
        raise InvalidArgumentError("bincount: axis must be None, 0 or -1 (got %r)" % (axis,))
    if axis == -1 and ids.ndim != 2:
        raise InvalidArgumentError("bincount: axis=-1 needs a 2-D arr (got shape %s)"
                                   % list(ids.shape))
    size = int(ids.max()) + 1 if ids.size else 0
    if minlength is not None:
        size = max(size, as_int("bincount", minlength, "minlength"))
    if maxlength is not None:
        size = min(size, as_int("bincount", maxlength, "maxlength"))
    rows = ids.shape[0] if axis == -1 else None
    check_output_size("bincount", (size,) if rows is None else (rows, size), np.int64,
                      "the largest value or minlength")
    flat = ids.reshape(-1)
    keep = flat < size
    slot = flat + (np.repeat(np.arange(rows), ids.shape[1]) * size if rows is not None else 0)
    slot = slot[keep]
    out_shape = (rows, size) if rows is not None else (size,)
    total = (rows or 1) * size
    if weights is None or binary_output:
        counts = np.bincount(slot, minlength=total)
        if binary_output:
            counts = np.minimum(counts, 1)
        out_dtype = _as_np_dtype(dtype) if weights is None else convert_to_tensor(
            weights)._value.dtype
        return _core.wrap(counts.reshape(out_shape).astype(out_dtype))
    w = convert_to_tensor(weights)
    if w._value.shape != ids.shape:
        raise InvalidArgumentError("bincount: weights must have the shape of arr (expected "
                                   "%s, got %s)" % (list(ids.shape), list(w._value.shape)))
    w = execute(getitem, reshape(w, [-1]), key=keep)
    return reshape(unsorted_segment_sum(w, slot, total), list(out_shape))


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=np.int32,
                     name=None):
    """The ``num_classes x num_classes`` matrix counting (or summing ``weights`` of) each
    (label, prediction) pair: rows are labels, columns predictions.

    >>> fe.math.confusion_matrix([1, 2], [2, 2], num_classes=3).numpy()
    array([[0, 0, 0],
           [0, 0, 1],
           [0, 0, 1]], dtype=int32)
    """
    lab = _int_indices("confusion_matrix", labels, "labels").reshape(-1)
    pred = _int_indices("confusion_matrix", predictions, "predictions").reshape(-1)
    if lab.shape != pred.shape:
        raise InvalidArgumentError("confusion_matrix: labels and predictions must have one "
                                   "size (got %d and %d)" % (lab.size, pred.size))
    for what, v in (("labels", lab), ("predictions", pred)):
        if v.size and v.min() < 0:
            raise InvalidArgumentError("confusion_matrix: `%s` contains negative values (got "
                                       "%d)" % (what, v.min()))
    if num_classes is None:
        n = int(max(lab.max(initial=-1), pred.max(initial=-1))) + 1
    else:
        n = as_int("confusion_matrix", num_classes, "num_classes")
        for what, v in (("labels", lab), ("predictions", pred)):
            if v.size and v.max() >= n:
                raise InvalidArgumentError("confusion_matrix: `%s` out of bound (expected < "
                                           "num_classes = %d, got %d)" % (what, n, v.max()))
    np_dtype = _as_np_dtype(dtype)
    w = (_core.wrap(np.ones(lab.shape, np_dtype)) if weights is None
         else cast(reshape(convert_to_tensor(weights), [-1]), np_dtype))
    return reshape(unsorted_segment_sum(w, lab * n + pred, n * n), [n, n])


def in_top_k(targets, predictions, k, name=None):
    """Whether each row's target class is among its ``k`` largest predictions (ties count
    in its favour; a row with a non-finite prediction gives False), as ``tf.math.in_top_k``.

    >>> fe.math.in_top_k([1, 0], [[0.1, 0.9, 0.0], [0.5, 0.5, 0.1]], 1).numpy()
    array([ True,  True])
    """
    p = convert_to_tensor(predictions)
    pv = _core.data_of(p, "in_top_k")
    if pv.ndim != 2 or pv.dtype.kind != "f":
        raise InvalidArgumentError("in_top_k: predictions must be a 2-D float tensor (got %s "
                                   "of shape %s)" % (pv.dtype, list(pv.shape)))
    t = _int_indices("in_top_k", targets, "targets")
    if t.shape != (pv.shape[0],):
        raise InvalidArgumentError("in_top_k: targets must have one entry per row of "
                                   "predictions (expected shape [%d], got %s)"
                                   % (pv.shape[0], list(t.shape)))
    k = as_int("in_top_k", k, "k")
    valid = (t >= 0) & (t < pv.shape[1])
    target = pv[np.arange(pv.shape[0]), np.where(valid, t, 0)]
    with np.errstate(invalid="ignore"):
        more = np.sum(pv > target[:, None], axis=1)
    finite = np.all(np.isfinite(pv), axis=1)
    return _core.wrap(valid & finite & (more < k))


def invert_permutation(x, name=None):
    """The inverse of the permutation ``x`` of ``0..n-1`` (``y[x[i]] = i``)."""
    p = _int_indices("invert_permutation", convert_to_tensor(x), "x")
    if p.ndim != 1:
        raise InvalidArgumentError("invert_permutation: x must be 1-D (got shape %s)"
                                   % list(p.shape))
    n = p.size
    if n and (p.min() < 0 or p.max() >= n):
        bad = p[(p < 0) | (p >= n)][0]
        raise InvalidArgumentError("invert_permutation: %d is not between 0 and %d" % (bad, n))
    seen = np.bincount(p, minlength=n) if n else np.zeros(0, np.int64)
    if n and seen.max() > 1:
        raise InvalidArgumentError("invert_permutation: %d is duplicated in the input"
                                   % np.argmax(seen > 1))
    out = np.empty(n, p.dtype)
    out[p] = np.arange(n, dtype=p.dtype)
    return _core.wrap(out)


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


# ---- elementwise --------------------------------------------------------------------------

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


def _zero_where_x_zero(fname, fn, x, y):
    # the 0 branch also guards fn's gradient: y is replaced by 1 wherever x is 0
    x, y = convert_same(x, y)
    if x._value.dtype.kind not in "fc":
        raise InvalidArgumentError("%s: x must be floating point or complex (got %s)"
                                   % (fname, x._value.dtype))
    zero = equal(x, _zeros_of(x))
    safe_y = where(zero, _ones_of(y) + zeros_like(y), y)
    return where(zero, zeros_like(x * safe_y), fn(x, safe_y))


def xlogy(x, y, name=None):
    """``x * log(y)``, and 0 wherever ``x`` is 0 (even where ``y`` is 0 or NaN).

    >>> fe.math.xlogy([0., 1.], [0., 2.]).numpy()
    array([0.       , 0.6931472], dtype=float32)
    """
    return _zero_where_x_zero("xlogy", lambda a, b: a * log(b), x, y)


def xlog1py(x, y, name=None):
    """``x * log1p(y)``, and 0 wherever ``x`` is 0."""
    return _zero_where_x_zero("xlog1py", lambda a, b: a * log1p(b), x, y)


def xdivy(x, y, name=None):
    """``x / y``, and 0 wherever ``x`` is 0."""
    return _zero_where_x_zero("xdivy", truediv, x, y)


def rint(x, name=None):
    """The nearest integer, halves to even (``rint(2.5) == 2``), as a float."""
    return round(x)


def polyval(coeffs, x, name=None):
    """``coeffs[0] * x^(n-1) + ... + coeffs[n-1]`` by Horner's rule (0 for no coefficients).

    >>> fe.math.polyval([2., 3., 4.], 2.).numpy()
    18.0
    """
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError("polyval: coeffs must be a list of tensors (got %s)"
                         % type(coeffs).__name__)
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    total = convert_same(x, coeffs[0])[1]
    for c in coeffs[1:]:
        total = total * x + convert_same(x, c)[1]
    return total + zeros_like(x) if total._value.shape != x._value.shape else total


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of a list of tensors (TensorFlow 2 deprecates it for ``add_n``)."""
    return add_n(inputs)


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``."""
    x = convert_to_tensor(x)
    if x._value.ndim == 0:
        raise InvalidArgumentError("lbeta: x must have rank >= 1 (got a scalar)")
    return reduce_sum(lgamma(x), -1) - lgamma(reduce_sum(x, -1))


nextafter_op = defop("nextafter", np.nextafter, kinds="f",
                     no_grad="the next representable float is piecewise constant")


def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` in the direction of ``x2``."""
    x1, x2 = convert_same(x1, x2)
    return execute(nextafter_op, x1, x2)


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


# ---- bit shifts (tf.bitwise) --------------------------------------------------------------

_SHIFT = "bit shifts of integers have no gradient"
left_shift_op = defop("left_shift", np.left_shift, kinds=INT, no_grad=_SHIFT)
right_shift_op = defop("right_shift", np.right_shift, kinds=INT, no_grad=_SHIFT)


def left_shift(x, y, name=None):
    """``x << y`` elementwise (integers; shifts outside ``[0, bits)`` are undefined)."""
    x, y = convert_same(x, y)
    return execute(left_shift_op, x, y)


def right_shift(x, y, name=None):
    """``x >> y`` elementwise, arithmetic for signed integers."""
    x, y = convert_same(x, y)
    return execute(right_shift_op, x, y)



# ---- approx_max_k / approx_min_k: exact on CPU, as TensorFlow's CPU kernel ---------------

ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _approx_k(fname, operand, k, reduction_dimension, largest):
    from .special_ops import _along_axis_key, _argsort_np
    x = convert_to_tensor(operand)
    if x._value.ndim == 0:
        raise InvalidArgumentError("%s: operand must have rank >= 1 (got a scalar)" % fname)
    ax = single_axis(fname, reduction_dimension, x._value.ndim, "reduction_dimension")
    k = as_int(fname, k, "k")
    n = x._value.shape[ax]
    if not 0 <= k <= n:
        raise InvalidArgumentError("%s: k must be in [0, %d] (got %d)" % (fname, n, k))
    v = _core.data_of(x, fname)
    idx = _argsort_np(v, ax, largest)       # stable: ties go to the lower index
    idx = np.take(idx, np.arange(k), axis=ax)
    values = execute(getitem, x, key=_along_axis_key(idx, ax))
    return ApproxTopK(values, _core.wrap(idx.astype(np.int32)))


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``(values, indices)`` of the ``k`` largest entries along ``reduction_dimension``;
    computed exactly (recall 1), as TensorFlow's CPU kernel does."""
    return _approx_k("approx_max_k", operand, k, reduction_dimension, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``(values, indices)`` of the ``k`` smallest entries along ``reduction_dimension``
    (exact)."""
    return _approx_k("approx_min_k", operand, k, reduction_dimension, False)
