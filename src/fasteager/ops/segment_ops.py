"""Sums by ids: segment reductions (sorted and unsorted: sum, mean, sqrt_n, max, min,
prod), ``bincount``, the fixed-width histograms and ``confusion_matrix``.

``segment_sum``/``unsorted_segment_sum`` scatter-add through ``index_backward`` (their
gradient gathers back); three reductions are ops of their own, each with its gradient
beside it: ``unsorted_segment_max``/``min`` (the gradient goes to the entries equal to
their segment's extreme, shared equally between ties, TensorFlow's rule) and
``unsorted_segment_prod`` (the product of the segment's other entries, exact at zeros).
Counts and histograms are integer NumPy computations with no gradient, as in TensorFlow.
"""


import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .array_ops import _index_backward, getitem, ones_like, reshape, zeros_like
from .elementwise_ops import (_ones_of, _zeros_of, cast, clip_by_value, divide_no_nan, equal,
                              floor, greater, maximum, multiply, sqrt, subtract, truediv, where)
from .indexing_ops import _int_indices
from .reduction_ops import _as_np_dtype
from .registry import as_int, check_output_size, defop, execute, NUMERIC

convert_to_tensor = _core.convert_to_tensor


# ---- sums by segment: scatter-adds through index_backward -----------------------------------

def _segment_ids(opname, segment_ids, lead_shape):
    ids = _int_indices(opname, segment_ids, "segment_ids")
    if ids.shape != tuple(lead_shape[:ids.ndim]) or ids.ndim == 0:
        raise InvalidArgumentError("%s: segment_ids must match the leading dimensions of data "
                                   "(expected a prefix of %s, got %s)"
                                   % (opname, list(lead_shape), list(ids.shape)))
    return ids


def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of ``data`` sharing a (sorted) segment id; ``max(id) + 1`` rows out.

    >>> fe.math.segment_sum([1., 2., 3.], [0, 0, 1]).numpy()
    array([3., 3.], dtype=float32)
    """
    x = convert_to_tensor(data)
    ids = _segment_ids("segment_sum", segment_ids, x._value.shape)
    if ids.ndim != 1:
        raise InvalidArgumentError("segment_sum: segment_ids must be 1-D (got shape %s)"
                                   % list(ids.shape))
    if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
        raise InvalidArgumentError("segment_sum: segment_ids must be sorted and non-negative "
                                   "(got %s)" % ids.tolist()[:10])
    num = int(ids.max()) + 1 if ids.size else 0
    return execute(_index_backward, x, key=(ids,), shape=(num,) + x._value.shape[1:])


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the entries of ``data`` per segment id (any order; negative ids are dropped).

    ``segment_ids`` covers the leading axes of ``data``; the result has ``num_segments``
    rows. The gradient gathers the incoming gradient at the ids.
    """
    x = convert_to_tensor(data)
    ids = _segment_ids("unsorted_segment_sum", segment_ids, x._value.shape)
    num = int(np.asarray(num_segments))
    if ids.size and ids.max() >= num:
        raise InvalidArgumentError("unsorted_segment_sum: segment id %d is out of range "
                                   "(expected < num_segments = %d)" % (ids.max(), num))
    out_shape = (num,) + x._value.shape[ids.ndim:]
    if ids.size and ids.min() < 0:
        keep = ids >= 0
        x = execute(getitem, x, key=keep)
        ids = ids[keep]
    return execute(_index_backward, x, key=(ids,), shape=out_shape)


# ---- segment extremes, products and means ---------------------------------------------------

def _finite_lowest(dtype):
    # TensorFlow fills empty segments with the finite extremes (-FLT_MAX), not -inf
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _finite_highest(dtype):
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


_segment_max_op = defop("unsorted_segment_max", _segment_extreme_fwd(np.maximum, _finite_lowest),
                        nin=1, grads=[_segment_extreme_grad])
_segment_min_op = defop("unsorted_segment_min", _segment_extreme_fwd(np.minimum, _finite_highest),
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


# ---- counting: bincount, confusion_matrix ---------------------------------------------------

def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=np.int32, name=None,
             axis=None, binary_output=False):
    """Counts (or summed ``weights``) of each non-negative integer in ``arr``.

    ``axis=-1`` counts each row of a 2-D ``arr`` separately (a 1-D ``arr`` as a whole);
    ``binary_output`` gives 1 for every value present. Summed weights are differentiable in
    ``weights``.

    >>> fe.math.bincount([1, 1, 3]).numpy()
    array([0, 2, 0, 1], dtype=int32)
    """
    ids = _int_indices("bincount", arr, "arr")
    if ids.size and ids.min() < 0:
        raise InvalidArgumentError("bincount: input arr must be non-negative (got %d)"
                                   % ids.min())
    if axis not in (None, 0, -1):
        raise InvalidArgumentError("bincount: axis must be None, 0 or -1 (got %r)" % (axis,))
    if axis == -1 and ids.ndim not in (1, 2):
        raise InvalidArgumentError("bincount: axis=-1 needs a 1-D or 2-D arr (got shape %s)"
                                   % list(ids.shape))
    if axis == -1 and ids.ndim == 1:
        axis = None     # the last axis of a 1-D arr is the whole of it (TensorFlow's answer)
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


# ---- fixed-width histograms -----------------------------------------------------------------

def _histogram_args(values, value_range, nbins, dtype, opname):
    v = convert_to_tensor(values)
    r = convert_to_tensor(value_range, v.dtype)
    n = as_int(opname, nbins, "nbins")
    if n <= 0:
        raise InvalidArgumentError("%s: nbins should be a positive number (got %d)"
                                   % (opname, n))
    lo_hi = _core.data_of(r, opname)
    if lo_hi.shape != (2,):
        raise InvalidArgumentError("%s: value_range must have shape [2] (got %s)"
                                   % (opname, list(lo_hi.shape)))
    if not lo_hi[0] < lo_hi[1]:
        raise InvalidArgumentError("%s: value_range should satisfy value_range[0] < "
                                   "value_range[1] (got %s)" % (opname, lo_hi.tolist()))
    d = as_dtype(dtype)
    if d.name not in ("int32", "int64"):
        raise InvalidArgumentError("%s: dtype must be int32 or int64 (got %s)" % (opname, d.name))
    return v, r, n, d


def _bins(v, r, n):
    """TensorFlow's bin of each value: floor(nbins * (v - lo) / (hi - lo)), clipped."""
    scaled = truediv(subtract(v, r[0]), subtract(r[1], r[0]))
    idx = floor(multiply(scaled, np.asarray(n, scaled.dtype.as_numpy_dtype)))
    return clip_by_value(cast(idx, np.int64), 0, n - 1)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=np.int32, name=None):
    """The bin of each of ``values`` among ``nbins`` equal bins over ``value_range``
    (values outside go to the first or last bin).

    >>> fe.histogram_fixed_width_bins([-1., 1.5, 15.], [0., 5.], nbins=5).numpy()
    array([0, 1, 4], dtype=int32)
    """
    v, r, n, d = _histogram_args(values, value_range, nbins, dtype,
                                 "histogram_fixed_width_bins")
    return cast(_bins(v, r, n), d)


def histogram_fixed_width(values, value_range, nbins=100, dtype=np.int32, name=None):
    """How many of ``values`` fall in each of ``nbins`` equal bins over ``value_range``
    (values outside count in the first or last bin).

    >>> fe.histogram_fixed_width([-1., 0., 1.5, 2., 5., 15.], [0., 5.], nbins=5).numpy()
    array([2, 1, 1, 0, 2], dtype=int32)
    """
    v, r, n, d = _histogram_args(values, value_range, nbins, dtype, "histogram_fixed_width")
    bins = reshape(_bins(v, r, n), [-1])
    return cast(unsorted_segment_sum(ones_like(bins), bins, n), d)
