"""Order: ``sort``, ``argsort``, ``top_k``, ``in_top_k``, ``approx_max_k``/``approx_min_k``
(exact on CPU, as TensorFlow's CPU kernel), ``searchsorted`` and ``unique``.

Sorting ops compute a permutation with NumPy and gather values through ``getitem``, so
their gradients scatter back through the permutation and are differentiable again (order
2). Indices are int32 (TensorFlow's ``argsort`` and ``top_k`` dtype). ``searchsorted``
(integer results, no gradient) and ``unique``/``unique_with_counts`` (TensorFlow
registers no gradient: a tape raises its LookupError) are ops, so ``fe.function``
replays them with new values.
"""

import builtins
import collections

import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from .array_ops import getitem
from .elementwise_ops import convert_same
from .indexing_ops import _int_indices
from .registry import ANY_DTYPE, as_int, defop, execute, NUMERIC, single_axis, unregistered_gradient

convert_to_tensor = _core.convert_to_tensor


# ---- sorting ------------------------------------------------------------------------------

def _argsort_np(x, axis, descending):
    # stable both ways: ties keep their original order (TensorFlow's top_k rule); the
    # descending sort runs an ascending stable sort on the reversed axis and maps back
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(rev, axis)


def _check_direction(opname, direction):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise InvalidArgumentError("%s: direction must be 'ASCENDING' or 'DESCENDING' (got %r)"
                                   % (opname, direction))
    return direction == "DESCENDING"


argsort_op = defop("argsort", lambda x, axis, descending:
                   _argsort_np(x, axis, descending).astype(np.int32),
                   kinds=NUMERIC, nin=1, no_grad="returns integer indices")


def _along_axis_key(indices, axis):
    """A NumPy key that picks ``indices`` along ``axis`` (np.take_along_axis as a getitem key),
    so the gather is differentiable through getitem's scatter-add gradient."""
    key = []
    ndim = indices.ndim
    for d in range(ndim):
        if d == axis:
            key.append(indices)
        else:
            shape = [1] * ndim
            shape[d] = indices.shape[d]
            key.append(np.arange(indices.shape[d]).reshape(shape))
    return tuple(key)


def _sort_axis(opname, x, axis):
    if x._value.ndim == 0:
        raise InvalidArgumentError("%s: input must have rank >= 1 (expected a vector or more, "
                                   "got a scalar)" % opname)
    return single_axis(opname, axis, x._value.ndim)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis`` (ties keep their order)."""
    x = convert_to_tensor(values)
    desc = _check_direction("argsort", direction)
    return execute(argsort_op, x, axis=_sort_axis("argsort", x, axis), descending=desc)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``; differentiable (the gradient follows the permutation).

    >>> fe.sort([3., 1., 2.], direction="DESCENDING").numpy()
    array([3., 2., 1.], dtype=float32)
    """
    x = convert_to_tensor(values)
    desc = _check_direction("sort", direction)
    ax = _sort_axis("sort", x, axis)
    idx = _argsort_np(_core.data_of(x, "sort"), ax, desc)
    return execute(getitem, x, key=_along_axis_key(idx, ax))


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):
    """The ``k`` largest entries along the last axis and their int32 indices.

    Returns ``(values, indices)``; ties go to the lower index; ``values`` is differentiable.
    """
    x = convert_to_tensor(input)
    if x._value.ndim == 0:
        raise InvalidArgumentError("top_k: input must have rank >= 1 (expected a vector or "
                                   "more, got a scalar)")
    k = as_int("top_k", k, "k")
    n = x._value.shape[-1]
    if not 0 <= k <= n:
        raise InvalidArgumentError("top_k: k must be in [0, last dimension] (expected "
                                   "0 <= k <= %d, got %d)" % (n, k))
    ax = x._value.ndim - 1
    idx = _argsort_np(_core.data_of(x, "top_k"), ax, True)[..., :k]
    values = execute(getitem, x, key=_along_axis_key(idx, ax))
    return TopKV2(values, _core.wrap(idx.astype(np.int32)))


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


# ---- approx_max_k / approx_min_k: exact on CPU, as TensorFlow's CPU kernel ---------------

ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _approx_k(fname, operand, k, reduction_dimension, largest):
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

# ---- searchsorted and unique (ops: fe.function replays them) --------------------------------

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _searchsorted_fwd(seq, vals, side, out_type):
    rows = int(np.prod(seq.shape[:-1]))      # (reshape(-1, 0) cannot tell the rows)
    s2 = seq.reshape(rows, seq.shape[-1])
    v2 = vals.reshape(rows, vals.shape[-1])
    out = np.empty(v2.shape, out_type)
    for i in builtins.range(s2.shape[0]):
        out[i] = np.searchsorted(s2[i], v2[i], side=side)
    return out.reshape(vals.shape)


searchsorted_op = defop("searchsorted", _searchsorted_fwd, kinds=NUMERIC, same_dtype=True,
                        nin=2, attrs=("side", "out_type"), no_grad="returns integer positions")


def searchsorted(sorted_sequence, values, side="left", out_type=np.int32, name=None):
    """Where each of ``values`` would go in ``sorted_sequence`` to keep it sorted, row by
    row along the innermost axis (``side='left'``: before equal entries, ``'right'``:
    after them); the leading axes of both must match.

    >>> fe.searchsorted([0, 3, 9, 10], [2, 9]).numpy()
    array([1, 2], dtype=int32)
    """
    if side not in ("left", "right"):
        raise ValueError("searchsorted: side must be either 'right' or 'left' (got %r)"
                         % (side,))
    seq, vals = convert_same(sorted_sequence, values)
    sshape, vshape = seq._value.shape, vals._value.shape
    if not sshape or not vshape:
        raise InvalidArgumentError("searchsorted: sorted_sequence and values must have rank "
                                   ">= 1 (got shapes %s and %s)" % (list(sshape), list(vshape)))
    if sshape[:-1] != vshape[:-1]:
        raise InvalidArgumentError("searchsorted: the leading dimensions of sorted_sequence "
                                   "and values must match (got shapes %s and %s)"
                                   % (list(sshape), list(vshape)))
    d = as_dtype(out_type)
    if d.name not in ("int32", "int64"):
        raise InvalidArgumentError("searchsorted: out_type must be int32 or int64 (got %s)"
                                   % d.name)
    return execute(searchsorted_op, seq, vals, side=side, out_type=d.as_numpy_dtype)


def _unique_arrays(x, out_idx):
    """(y, idx, count) of 1-D ``x``, in TensorFlow's order: that of first occurrence."""
    if x.ndim != 1:
        raise InvalidArgumentError("unique: x must be a 1-D vector (got shape %s)"
                                   % list(x.shape))
    # (every NaN is a value of its own, as TensorFlow's hash table compares them)
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, equal_nan=False)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return (x[first[order]], rank[inverse.reshape(-1)].astype(out_idx),
            counts[order].astype(out_idx))


# TensorFlow registers no gradient for either: a tape through them raises its LookupError
unique_op = defop("unique", lambda x, out_idx: _unique_arrays(x, out_idx)[:2], kinds=ANY_DTYPE,
                  same_dtype=False, multi=True, nin=1, attrs=("out_idx",),
                  joint_grad=unregistered_gradient("unique", "Unique"))
unique_with_counts_op = defop(
    "unique_with_counts", _unique_arrays, kinds=ANY_DTYPE, same_dtype=False, multi=True, nin=1,
    attrs=("out_idx",), joint_grad=unregistered_gradient("unique_with_counts", "UniqueWithCounts"))


def _out_idx(out_idx, opname):
    d = as_dtype(out_idx)
    if d.name not in ("int32", "int64"):
        raise InvalidArgumentError("%s: out_idx must be int32 or int64 (got %s)"
                                   % (opname, d.name))
    return d.as_numpy_dtype


def unique(x, out_idx=np.int32, name=None):
    """The distinct entries of 1-D ``x`` in order of first occurrence, and for each entry
    of ``x`` the index of its value in ``y``: ``Unique(y, idx)``.

    >>> fe.unique([1, 1, 2, 4, 4]).y.numpy()
    array([1, 2, 4], dtype=int32)
    """
    y, idx = execute(unique_op, convert_to_tensor(x), out_idx=_out_idx(out_idx, "unique"))
    return Unique(y, idx)


def unique_with_counts(x, out_idx=np.int32, name=None):
    """``unique`` plus how many times each distinct value occurs:
    ``UniqueWithCounts(y, idx, count)``."""
    return UniqueWithCounts(*execute(unique_with_counts_op, convert_to_tensor(x),
                                     out_idx=_out_idx(out_idx, "unique_with_counts")))
