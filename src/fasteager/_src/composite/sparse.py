"""Sparse tensors (``fe.sparse.SparseTensor``, also ``fe.SparseTensor``), as ``tf.sparse``.

A SparseTensor is three tensors: ``indices`` (int64, ``[N, rank]``), ``values`` (``[N]``)
and ``dense_shape`` (int64, ``[rank]``); entries not listed are zero. Operations are
compositions of fasteager ops on ``values`` (gathers, segment sums, scatters), so they are
differentiable in the values and in dense operands, at every order.

>>> st = fe.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
>>> fe.sparse.to_dense(st).numpy()
array([[1, 0, 0, 0],
       [0, 0, 2, 0],
       [0, 0, 0, 0]], dtype=int32)
"""
import numpy as np

from ... import _core
from ...dtypes import as_dtype
from ...errors import InvalidArgumentError
from ...ops.array_ops import broadcast_to, concat as dense_concat, transpose as dense_transpose
from ...ops.elementwise_ops import cast, where
from ...ops.indexing_ops import gather, gather_nd, scatter_nd, tensor_scatter_nd_max
from ...ops.reduction_ops import reduce_sum as dense_sum
from ...ops.segment_ops import unsorted_segment_sum
from ...ops.string_values import bytes_array
from ...tensor_shape import TensorShape
from .dispatch import register_type
from .values import _as_tensor, _np


# what fe.function's eager-fallback warning names when sparse code reads traced values
_WHAT = "the entries of a sparse tensor"


def _int64(opname, argname, value, ndim):
    arr = np.asarray(_np(value, _WHAT) if isinstance(value, _core.Tensor) else value)
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidArgumentError("%s: %s must be integers (got %s)"
                                   % (opname, argname, arr.dtype))
    if arr.ndim != ndim:
        raise InvalidArgumentError("%s: %s must have rank %d (got shape %s)"
                                   % (opname, argname, ndim, list(arr.shape)))
    return arr.astype(np.int64)


class SparseTensor:
    """``values`` at ``indices`` of a tensor of ``dense_shape``; zeros elsewhere."""
    __module__ = 'fasteager.sparse'     # its public home (printed types, pickles)

    __slots__ = ("_indices", "_values", "_dense_shape")

    def __init__(self, indices, values, dense_shape):
        idx = _int64("SparseTensor", "indices", indices, 2)
        shape = _int64("SparseTensor", "dense_shape", dense_shape, 1)
        vals = _as_tensor(values, "SparseTensor")
        if vals._value.ndim != 1 or vals._value.shape[0] != idx.shape[0]:
            raise InvalidArgumentError("SparseTensor: values must be a vector with one value per "
                                       "index (expected shape [%d], got %s)"
                                       % (idx.shape[0], list(vals._value.shape)))
        if idx.shape[0] and idx.shape[1] != shape.size:
            raise InvalidArgumentError("SparseTensor: each index needs one entry per dimension "
                                       "(expected indices of shape [N, %d], got %s)"
                                       % (shape.size, list(idx.shape)))
        if idx.size and (idx.min() < 0 or np.any(idx >= shape)):
            bad = np.flatnonzero(np.any((idx < 0) | (idx >= shape), axis=1))[0]
            raise InvalidArgumentError("SparseTensor: index %s is out of bounds for dense_shape "
                                       "%s" % (idx[bad].tolist(), shape.tolist()))
        self._indices = _core.wrap(idx.reshape(-1, shape.size))
        self._values = vals
        self._dense_shape = _core.wrap(shape)

    @classmethod
    def from_value(cls, value):
        return value if isinstance(value, SparseTensor) else from_dense(value)

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        return TensorShape(self._dense_shape._value.tolist())

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return int(self._dense_shape._value.size)

    def with_values(self, new_values):
        """The same indices and shape with other values (one per index)."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices, self._values, self._dense_shape)

    def __add__(self, other):
        return add(self, other)

    __radd__ = __add__

    def __neg__(self):
        return self.with_values(-self._values)

    def __mul__(self, other):
        # a scalar or a dense tensor broadcast to the entries (TF's sparse * dense)
        if isinstance(other, (int, float)):       # a Python number takes the values' dtype
            return self.with_values(self._values * other)
        o = _as_tensor(other, "SparseTensor")
        if o._value.ndim == 0:
            return self.with_values(self._values * o)
        dense = broadcast_to(o, self._dense_shape._value.tolist())
        return self.with_values(self._values * gather_nd(dense, self._indices))

    __rmul__ = __mul__

    __hash__ = object.__hash__

    # composite protocol of fasteager.nest (expand_composites): fe.function returns
    # sparse tensors through their three component tensors
    def _to_components(self):
        return (self._indices, self._values, self._dense_shape)

    def _from_components(self, parts):
        return SparseTensor(*parts)


class SparseTensorSpec:
    """The type of a SparseTensor (``tf.SparseTensorSpec``): its dense shape (dimensions
    may be None) and dtype."""
    __module__ = 'fasteager.sparse'     # its public home (printed types, pickles)

    def __init__(self, shape=None, dtype="float32"):
        self.shape = TensorShape(shape)
        self.dtype = as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype)

    @property
    def value_type(self):
        """The class of the values this spec describes."""
        return SparseTensor

    def is_compatible_with(self, value):
        return isinstance(value, SparseTensor) and value.dtype == self.dtype and \
            self.shape.is_compatible_with(value.shape)

    def __eq__(self, other):
        return isinstance(other, SparseTensorSpec) and (self.shape, self.dtype) == \
            (other.shape, other.dtype)

    def __hash__(self):
        return hash((tuple(self.shape.as_list()) if self.shape.rank is not None else None,
                     self.dtype))

    def __repr__(self):
        return "SparseTensorSpec(TensorShape(%s), %r)" % (
            self.shape.as_list() if self.shape.rank is not None else None, self.dtype)


def _check_sparse(opname, sp, argname="sp_input"):
    if not isinstance(sp, SparseTensor):
        raise InvalidArgumentError("%s: %s must be a SparseTensor (got %s)"
                                   % (opname, argname, type(sp).__name__))
    return sp


def _order_problem(idx):
    """The first index that is repeated or out of lexicographic order, or None."""
    if idx.shape[0] < 2:
        return None
    diff = idx[1:] - idx[:-1]
    first = np.argmax(diff != 0, axis=1)
    lead = diff[np.arange(diff.shape[0]), first]
    bad = np.flatnonzero(lead <= 0)
    return None if bad.size == 0 else int(bad[0]) + 1


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: ``values`` at ``indices``, ``default_value`` (zero) elsewhere.
    With ``validate_indices``, indices must be sorted and unique (TensorFlow's rule)."""
    sp = _check_sparse("to_dense", sp_input)
    idx = sp._indices._value
    shape = sp._dense_shape._value.tolist()
    if validate_indices:
        k = _order_problem(idx)
        if k is not None:
            raise InvalidArgumentError("to_dense: indices[%d] = %s is %s (use fe.sparse.reorder)"
                                       % (k, idx[k].tolist(),
                                          "repeated" if np.array_equal(idx[k], idx[k - 1])
                                          else "out of order"))
    vals = sp._values
    if vals._value.dtype.kind == "O":
        fill = b"" if default_value is None else bytes_array(default_value).reshape(-1)[0]
        out = np.full(shape, fill, dtype=object)
        out[tuple(idx.T)] = _np(vals, _WHAT)
        return _core.wrap(out)
    dense = scatter_nd(idx, vals, shape) if idx.shape[0] else \
        _core.wrap(np.zeros(shape, dtype=vals._value.dtype))
    if default_value is None:
        return dense
    mask = np.zeros(shape, dtype=bool)
    mask[tuple(idx.T)] = True
    default = default_value if isinstance(default_value, _core.Tensor) else \
        _core.convert_to_tensor(default_value, dtype=vals.dtype)
    return where(mask, dense, default)


def from_dense(tensor, name=None):
    """The non-zero entries of a dense tensor (row-major order) as a SparseTensor."""
    t = _as_tensor(tensor, "from_dense")
    arr = _np(t, _WHAT)     # where the non-zeros are (fe.function: runs eagerly)
    if arr.ndim == 0:
        raise InvalidArgumentError("from_dense: tensor must have rank >= 1 (got a scalar)")
    zero = b"" if arr.dtype.kind == "O" else 0
    idx = np.argwhere(arr != zero).astype(np.int64)
    values = gather_nd(t, idx) if idx.shape[0] else \
        _core.wrap(np.zeros(0, dtype=arr.dtype))
    return SparseTensor(idx, values, np.array(arr.shape, dtype=np.int64))


def reorder(sp_input, name=None):
    """The same tensor with its indices in row-major (lexicographic) order."""
    sp = _check_sparse("reorder", sp_input)
    idx = sp._indices._value
    order = np.lexsort(idx.T[::-1]) if idx.shape[0] else np.zeros(0, np.int64)
    return SparseTensor(idx[order], gather(sp._values, order), sp._dense_shape)


def _summed(idx, values, shape, threshold=None):
    """Entries with equal indices summed, sorted, those below ``threshold`` dropped."""
    if idx.shape[0] == 0:
        return SparseTensor(idx, values, shape)
    uniq, inverse = np.unique(idx, axis=0, return_inverse=True)
    summed = unsorted_segment_sum(values, inverse.reshape(-1), uniq.shape[0])
    if threshold is not None:
        keep = np.flatnonzero(np.abs(_np(summed, _WHAT)) >= threshold)
        if keep.size != uniq.shape[0]:
            uniq, summed = uniq[keep], gather(summed, keep)
    return SparseTensor(uniq, summed, shape)


def add(a, b, threshold=0, name=None):
    """``a + b``: sparse + sparse gives a SparseTensor (entries at equal indices summed,
    sums with ``abs < threshold`` dropped); sparse + dense gives a dense tensor."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        if a._dense_shape._value.tolist() != b._dense_shape._value.tolist():
            raise InvalidArgumentError("add: operands must have the same dense_shape (got %s "
                                       "and %s)" % (a._dense_shape._value.tolist(),
                                                    b._dense_shape._value.tolist()))
        if a.dtype != b.dtype:
            raise InvalidArgumentError("add: operands must have the same dtype (got %s and %s)"
                                       % (a.dtype.name, b.dtype.name))
        idx = np.concatenate([a._indices._value, b._indices._value])
        vals = dense_concat([a._values, b._values], axis=0)
        th = threshold._value if isinstance(threshold, _core.Tensor) else threshold
        return _summed(idx, vals, a._dense_shape._value, th if th else None)
    if isinstance(b, SparseTensor):
        a, b = b, a
    if not isinstance(a, SparseTensor):
        raise InvalidArgumentError("add: at least one operand must be a SparseTensor (got %s "
                                   "and %s)" % (type(a).__name__, type(b).__name__))
    dense = _as_tensor(b, "add")
    if list(dense._value.shape) != a._dense_shape._value.tolist():
        raise InvalidArgumentError("add: the dense operand must have the sparse one's shape "
                                   "(expected %s, got %s)" % (a._dense_shape._value.tolist(),
                                                             list(dense._value.shape)))
    return dense + to_dense(a, validate_indices=False)


def reduce_sum(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """The sum over ``axis`` (all entries when None), as a dense tensor (or a
    SparseTensor with ``output_is_sparse``)."""
    sp = _check_sparse("reduce_sum", sp_input)
    if axis is None and not keepdims:
        out = dense_sum(sp._values)
    else:
        out = dense_sum(to_dense(sp, validate_indices=False), axis=axis, keepdims=keepdims)
    return from_dense(out) if output_is_sparse and out._value.ndim else out


def _reduced_axes(opname, axis, ndim):
    axes = range(ndim) if axis is None else np.atleast_1d(np.asarray(axis)).tolist()
    out = set()
    for a in axes:
        if not -ndim <= int(a) < ndim:
            raise InvalidArgumentError("%s: axis %d is out of range for a SparseTensor of rank "
                                       "%d" % (opname, a, ndim))
        out.add(int(a) % ndim)
    return sorted(out)


def reduce_max(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """The maximum of the stored entries over ``axis`` (all when None). As TensorFlow's,
    the implicit zeros take no part; a group without stored entries is 0 in the dense
    result and absent from the sparse one (``output_is_sparse``)."""
    sp = _check_sparse("reduce_max", sp_input)
    if sp._values._value.dtype.kind not in "iuf":
        raise InvalidArgumentError("reduce_max: sp_input must hold numbers (got %s)"
                                   % sp.dtype.name)
    ndim = sp.ndim
    axes = _reduced_axes("reduce_max", axis, ndim)
    kept = [d for d in range(ndim) if d not in axes]
    shape = sp._dense_shape._value
    idx = sp._indices._value
    if keepdims:
        out_shape = [1 if d in axes else int(shape[d]) for d in range(ndim)]
        keys = idx.copy()
        keys[:, axes] = 0
    else:
        out_shape = [int(shape[d]) for d in kept]
        keys = idx[:, kept]
    np_dtype = sp._values._value.dtype
    lowest = np.finfo(np_dtype).min if np_dtype.kind == "f" else np.iinfo(np_dtype).min
    start = _core.wrap(np.full(out_shape, lowest, dtype=np_dtype))
    if keys.shape[1] == 0:          # a full reduction: one group, the scalar output
        keys = np.zeros((idx.shape[0], 0), np.int64)
    if idx.shape[0]:
        best = tensor_scatter_nd_max(start, keys.reshape(idx.shape[0], -1), sp._values) \
            if keys.shape[1] else tensor_scatter_nd_max(
                start[None], np.zeros((idx.shape[0], 1), np.int64), sp._values)[0]
    else:
        best = start
    filled = np.zeros(out_shape, dtype=bool)
    if idx.shape[0]:
        filled[tuple(keys.T)] = True
    if output_is_sparse:
        where_filled = np.argwhere(filled).astype(np.int64)
        values = gather_nd(best, where_filled) if where_filled.shape[0] else \
            _core.wrap(np.zeros(0, dtype=np_dtype))
        return SparseTensor(where_filled, values, np.array(out_shape, dtype=np.int64))
    return where(filled, best, _core.wrap(np.zeros(out_shape, dtype=np_dtype)))


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` for a rank-2 SparseTensor and a dense matrix, without densifying
    ``sp_a``: each entry scales a row of ``b`` into its output row (a segment sum).
    Differentiable in ``sp_a.values`` and ``b``."""
    sp = _check_sparse("sparse_dense_matmul", sp_a, "sp_a")
    if sp.ndim != 2:
        raise InvalidArgumentError("sparse_dense_matmul: sp_a must have rank 2 (got %d)"
                                   % sp.ndim)
    dense = _as_tensor(b, "sparse_dense_matmul")
    if dense._value.ndim != 2:
        raise InvalidArgumentError("sparse_dense_matmul: b must be a matrix (got shape %s)"
                                   % list(dense._value.shape))
    if adjoint_b:
        dense = dense_transpose(dense)
    idx = sp._indices._value
    rows, cols = (idx[:, 1], idx[:, 0]) if adjoint_a else (idx[:, 0], idx[:, 1])
    m, k = sp._dense_shape._value.tolist()
    if adjoint_a:
        m, k = k, m
    if dense._value.shape[0] != k:
        raise InvalidArgumentError("sparse_dense_matmul: inner dimensions differ (sp_a is "
                                   "%s%s, b is %s%s)"
                                   % ([m, k], " after adjoint" if adjoint_a else "",
                                      list(dense._value.shape),
                                      " after adjoint" if adjoint_b else ""))
    if sp._values.dtype != dense.dtype:
        raise InvalidArgumentError("sparse_dense_matmul: sp_a and b must have the same dtype "
                                   "(got %s and %s)" % (sp._values.dtype.name, dense.dtype.name))
    scaled = gather(dense, cols) * sp._values[:, None]
    return unsorted_segment_sum(scaled, rows, m)


matmul = sparse_dense_matmul


def slice(sp_input, start, size, name=None):  # noqa: A001 - TensorFlow's name
    """The entries inside the box ``[start, start + size)``, shifted to start at zero."""
    sp = _check_sparse("slice", sp_input)
    start = _int64("slice", "start", start, 1)
    size = _int64("slice", "size", size, 1)
    shape = sp._dense_shape._value
    if start.size != shape.size or size.size != shape.size or np.any(start < 0) \
            or np.any(size < 0):
        raise InvalidArgumentError("slice: start and size need one non-negative entry per "
                                   "dimension (expected %d, got %s and %s)"
                                   % (shape.size, start.tolist(), size.tolist()))
    idx = sp._indices._value
    keep = np.flatnonzero(np.all((idx >= start) & (idx < start + size), axis=1))
    new_shape = np.maximum(np.minimum(size, shape - start), 0)
    return SparseTensor(idx[keep] - start, gather(sp._values, keep), new_shape)


def transpose(sp_input, perm=None, name=None):
    """The axes permuted by ``perm`` (reversed when None), indices reordered."""
    sp = _check_sparse("transpose", sp_input)
    n = sp.ndim
    perm = list(range(n))[::-1] if perm is None else [int(p) for p in perm]
    if sorted(perm) != list(range(n)):
        raise InvalidArgumentError("transpose: perm must be a permutation of %s (got %s)"
                                   % (list(range(n)), perm))
    return reorder(SparseTensor(sp._indices._value[:, perm], sp._values,
                                sp._dense_shape._value[perm]))


def map_values(op, *args, **kwargs):
    """``op`` applied to the values of the SparseTensor arguments (which must share their
    indices and shape); the result keeps them."""
    sparse = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sparse:
        raise InvalidArgumentError("map_values: no argument is a SparseTensor")
    first = sparse[0]
    for other in sparse[1:]:
        if not (np.array_equal(first._indices._value, other._indices._value)
                and np.array_equal(first._dense_shape._value, other._dense_shape._value)):
            raise InvalidArgumentError("map_values: SparseTensor arguments must have the same "
                                       "indices and dense_shape")

    def unwrap(x):
        return x._values if isinstance(x, SparseTensor) else x
    out = op(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
    return first.with_values(out)


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """SparseTensors joined along ``axis`` (their other dimensions must agree, or with
    ``expand_nonconcat_dims`` take the largest); the result's indices are sorted."""
    sps = [_check_sparse("concat", sp, "sp_inputs") for sp in sp_inputs]
    if not sps:
        raise InvalidArgumentError("concat: sp_inputs must hold at least one SparseTensor")
    rank = sps[0].ndim
    ax = int(axis) + rank if int(axis) < 0 else int(axis)
    if not 0 <= ax < rank or any(sp.ndim != rank for sp in sps):
        raise InvalidArgumentError("concat: axis %r is out of range, or the inputs' ranks differ "
                                   "(got ranks %s)" % (axis, [sp.ndim for sp in sps]))
    shapes = np.stack([sp._dense_shape._value for sp in sps])
    others = np.delete(shapes, ax, axis=1)
    if not expand_nonconcat_dims and np.any(others != others[0]):
        raise InvalidArgumentError("concat: the dimensions other than axis %d must agree (got "
                                   "shapes %s)" % (ax, shapes.tolist()))
    out_shape = shapes.max(axis=0)
    out_shape[ax] = shapes[:, ax].sum()
    offsets = np.concatenate([[0], np.cumsum(shapes[:, ax])[:-1]])
    idx = []
    for sp, off in zip(sps, offsets):
        i = sp._indices._value.copy()
        i[:, ax] += off
        idx.append(i)
    values = dense_concat([sp._values for sp in sps], axis=0)
    return reorder(SparseTensor(np.concatenate(idx), values, out_shape))


# ---- TensorFlow's ops on sparse tensors (the handlers fe.sparse registers) -------------

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
    return x.with_values(cast(x.values, dtype))


register_type(SparseTensor, functions={"cast": _cast}, op_handler=_dispatch_op)


