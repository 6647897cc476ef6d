"""Ragged tensors (``fe.RaggedTensor``, ``fe.ragged``), as TensorFlow's ``tf.RaggedTensor``.

A RaggedTensor is ``values`` (a Tensor, or a RaggedTensor for several ragged axes) split
into rows by ``row_splits`` (int64 unless given int32): row ``i`` is
``values[row_splits[i]:row_splits[i + 1]]``. Values stay ordinary tensors, so every
operation here is fasteager ops on them (gathers, scatters, elementwise math) and
gradients flow to the flat values.

Elementwise operators (``+ - * / // % ** < <= > >= & | ^``, unary ``- abs ~``) work
between ragged tensors of the same row partition and with scalars or dense tensors that
broadcast against the flat values (or, for one ragged axis, against ``[nrows, 1]``);
``fe.ragged.map_flat_values(op, rt, ...)`` applies any op to the flat values. Reductions:
``fe.ragged.reduce_sum/mean/max/min/prod(rt, axis)``.

TensorFlow's own ops take ragged tensors too (``ragged_ops``, above this module):
elementwise ops through the core's dispatch hook, and ``fe.reduce_*``, ``fe.concat``,
``fe.tile`` and the elementwise Python-level functions through
``ops.registry.COMPOSITE_TYPES``; both are registered through ``dispatch.register_type``.
"""
import builtins

import numpy as np

from ... import _core
from ...dtypes import as_dtype
from ...errors import InvalidArgumentError
from ...ops import elementwise_ops, reduction_ops
from ...ops.array_ops import concat, constant as dense_constant, getitem, reshape
from ...ops.elementwise_ops import cast, where
from ...ops.indexing_ops import boolean_mask as dense_mask, gather, scatter_nd
from ...ops.registry import execute
from ...ops.string_values import bytes_array, is_string_value
from ...tensor_shape import TensorShape
from .sparse import SparseTensor
from .values import _as_tensor, _np

_range = builtins.range    # fe.ragged.range below takes the name

__all__ = ["RaggedTensor", "constant", "map_flat_values", "range",
           "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum",
           "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack", "boolean_mask",
           "RaggedTensorSpec"]


def _is_string(t):
    return t._value.dtype.kind == "O"


def _values_tensor(values):
    if isinstance(values, RaggedTensor):
        return values
    return _as_tensor(values, "RaggedTensor")


def _partition(opname, argname, value):
    """A row-partition tensor: int64 unless already an int32/int64 tensor."""
    if isinstance(value, _core.Tensor):
        if value._value.dtype not in (np.int32, np.int64):
            raise InvalidArgumentError("%s: %s must be int32 or int64 (got %s)"
                                       % (opname, argname, value.dtype.name))
        t = value
    else:
        arr = np.asarray(value)
        if arr.size and arr.dtype.kind not in "iu":
            raise InvalidArgumentError("%s: %s must be integers (got %s)"
                                       % (opname, argname, arr.dtype))
        t = _core.wrap(arr.astype(np.int64))
    if t._value.ndim != 1:
        raise InvalidArgumentError("%s: %s must be a vector (got shape %s)"
                                   % (opname, argname, list(t._value.shape)))
    return t


def _nvals(values):
    return values.nrows_int() if isinstance(values, RaggedTensor) else \
        (values._value.shape[0] if values._value.ndim else None)


class RaggedTensor:
    """Rows of different lengths: ``values`` split by ``row_splits``.

    >>> rt = fe.RaggedTensor.from_row_lengths([3, 1, 4, 1, 5], row_lengths=[2, 0, 3])
    >>> print(rt)
    <fe.RaggedTensor [[3, 1], [], [4, 1, 5]]>
    """
    __module__ = 'fasteager.ragged'     # its public home (printed types, pickles)

    __slots__ = ("_values", "_row_splits", "_uniform_row_length")

    def __init__(self, values, row_splits, internal=False, uniform_row_length=None):
        if not internal:
            raise TypeError("RaggedTensor: use a factory such as RaggedTensor.from_row_splits "
                            "or fe.ragged.constant (the constructor is internal)")
        self._values = values
        self._row_splits = row_splits
        self._uniform_row_length = uniform_row_length   # rows of one known length (or None)

    # -- factories ----------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        values = _values_tensor(values)
        splits = _partition("from_row_splits", "row_splits", row_splits)
        if validate:
            s = _np(splits)
            n = _nvals(values)
            if n is None:
                raise InvalidArgumentError("from_row_splits: values must have rank >= 1 (got "
                                           "a scalar)")
            if s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0) or s[-1] != n:
                raise InvalidArgumentError(
                    "from_row_splits: row_splits must start at 0, never decrease and end at "
                    "the number of values (expected ... %d, got %s)" % (n, s.tolist()[:10]))
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        lengths = _partition("from_row_lengths", "row_lengths", row_lengths)
        ln = _np(lengths)
        if ln.size and ln.min() < 0:
            raise InvalidArgumentError("from_row_lengths: row_lengths must be non-negative "
                                       "(got %s)" % ln.tolist()[:10])
        splits = np.zeros(ln.size + 1, dtype=ln.dtype)
        np.cumsum(ln, out=splits[1:])
        return cls.from_row_splits(values, _core.wrap(splits), validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        ids = _np(_partition("from_value_rowids", "value_rowids", value_rowids))
        if ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0)):
            raise InvalidArgumentError("from_value_rowids: value_rowids must be sorted and "
                                       "non-negative (got %s)" % ids.tolist()[:10])
        n = int(nrows) if nrows is not None else (int(ids.max()) + 1 if ids.size else 0)
        if ids.size and ids.max() >= n:
            raise InvalidArgumentError("from_value_rowids: value_rowids must be < nrows = %d "
                                       "(got %d)" % (n, ids.max()))
        lengths = np.bincount(ids, minlength=n).astype(ids.dtype)
        return cls.from_row_lengths(values, _core.wrap(lengths), validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        values = _values_tensor(values)
        starts = _np(_partition("from_row_starts", "row_starts", row_starts))
        splits = np.append(starts, _nvals(values)).astype(starts.dtype)
        return cls.from_row_splits(values, _core.wrap(splits), validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        limits = _np(_partition("from_row_limits", "row_limits", row_limits))
        splits = np.insert(limits, 0, 0).astype(limits.dtype)
        return cls.from_row_splits(values, _core.wrap(splits), validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None):
        """Rows of ``uniform_row_length`` values each; the axis stays known in ``shape``
        (``(2, 2, None)``), as in TensorFlow."""
        values = _values_tensor(values)
        n = _nvals(values)
        length = int(uniform_row_length)
        if n is None or length < 0 or (length and n % length) or (not length and nrows is None):
            raise InvalidArgumentError(
                "from_uniform_row_length: %s values do not split into rows of %d (expected a "
                "multiple of it%s)" % (n, length, "" if length else ", and nrows for length 0"))
        rows = n // length if length else int(nrows)
        if nrows is not None and int(nrows) != rows:
            raise InvalidArgumentError("from_uniform_row_length: nrows=%d does not match %d "
                                       "values in rows of %d" % (int(nrows), n, length))
        splits = _core.wrap(np.arange(rows + 1, dtype=np.int64) * length)
        return cls(values, splits, internal=True, uniform_row_length=length)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=np.int64):
        """The rows of a 2-D SparseTensor whose entries are left-aligned in their rows
        (row i holds columns 0 .. n_i - 1), as TensorFlow requires."""
        if not isinstance(st_input, SparseTensor):
            raise TypeError("from_sparse: st_input must be a SparseTensor (got %s)"
                            % type(st_input).__name__)
        idx = _np(st_input.indices)
        shape = _np(st_input.dense_shape)
        if shape.size != 2:
            raise InvalidArgumentError("from_sparse: st_input must be 2-D (got dense_shape %s)"
                                       % shape.tolist())
        rows = idx[:, 0] if idx.size else np.zeros(0, np.int64)
        lengths = np.bincount(rows, minlength=int(shape[0])).astype(np.int64)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        if np.any(np.diff(rows) < 0) or (idx.size and np.any(
                idx[:, 1] != np.arange(rows.size) - starts)):
            raise InvalidArgumentError("from_sparse: st_input must be in row-major order with "
                                       "each row's entries in columns 0, 1, ... (left-aligned)")
        return cls.from_row_lengths(st_input.values, lengths.astype(np.dtype(row_splits_dtype)))

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = _values_tensor(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        result = _values_tensor(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=np.int64):
        """The rows of a dense tensor; ``lengths`` (per row) or ``padding`` (a value whose
        trailing run is dropped) trim them."""
        t = _as_tensor(tensor, "from_tensor")
        arr = t._value
        if arr.ndim < 2:
            raise InvalidArgumentError("from_tensor: tensor must have rank >= 2 (got rank %d)"
                                       % arr.ndim)
        if ragged_rank != 1:
            raise InvalidArgumentError("from_tensor: only ragged_rank=1 is supported (got %r)"
                                       % (ragged_rank,))
        if lengths is not None and padding is not None:
            raise InvalidArgumentError("from_tensor: give lengths or padding, not both")
        nrows, ncols = arr.shape[:2]
        if padding is not None:
            pad = np.asarray(_np(_as_tensor(padding, "from_tensor")))
            is_pad = np.all((_np(t) == pad).reshape(nrows, ncols, -1), axis=-1)
            keep = ~is_pad
            ln = np.where(keep.any(axis=1), ncols - np.argmax(keep[:, ::-1], axis=1), 0)
        elif lengths is not None:
            ln = np.asarray(_np(lengths) if isinstance(lengths, _core.Tensor) else lengths)
            if ln.shape != (nrows,) or (ln.size and (ln.min() < 0 or ln.max() > ncols)):
                raise InvalidArgumentError("from_tensor: lengths must give one length in "
                                           "[0, %d] per row (expected %d of them, got %s)"
                                           % (ncols, nrows, ln.tolist()))
        else:
            ln = np.full(nrows, ncols)
        mask = np.arange(ncols)[None, :] < np.asarray(ln)[:, None]
        values = execute(getitem, t, key=mask)
        return cls.from_row_lengths(values, np.asarray(ln, dtype=np.dtype(row_splits_dtype)))

    # -- structure ------------------------------------------------------------------------
    @property
    def values(self):
        return self._values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt._row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self._row_splits.dtype

    @property
    def shape(self):
        """``[nrows, None, ...]``: None for the ragged axes, then the values' inner dims."""
        dims = [self.nrows_int()]
        rt = self
        while isinstance(rt, RaggedTensor):
            dims.append(rt._uniform_row_length)
            rt = rt._values
        return TensorShape(tuple(dims) + rt._value.shape[1:])

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return len(self.shape)

    def nrows_int(self):
        return self._row_splits._value.shape[0] - 1

    def nrows(self, out_type=None, name=None):
        dt = self._row_splits._value.dtype if out_type is None else _np_dtype(out_type)
        return _core.wrap(np.array(self.nrows_int(), dtype=dt))

    def row_lengths(self, axis=1, name=None):
        if axis not in (1, -self.ndim + 1) and not (axis == -1 and self.ragged_rank == 1):
            if axis >= 2 and isinstance(self._values, RaggedTensor):
                return self.with_values(self._values.row_lengths(axis - 1))
            raise InvalidArgumentError("row_lengths: axis must be a ragged axis (got %r)"
                                       % (axis,))
        s = _np(self._row_splits)
        return _core.wrap(np.diff(s))

    def nested_row_lengths(self, name=None):
        return tuple(_core.wrap(np.diff(_np(s))) for s in self.nested_row_splits)

    def value_rowids(self, name=None):
        s = _np(self._row_splits)
        return _core.wrap(np.repeat(np.arange(s.size - 1, dtype=s.dtype), np.diff(s)))

    def row_starts(self, name=None):
        return _core.wrap(np.array(_np(self._row_splits)[:-1]))

    def row_limits(self, name=None):
        return _core.wrap(np.array(_np(self._row_splits)[1:]))

    def bounding_shape(self, axis=None, name=None, out_type=None):
        dims = [self.nrows_int()]
        rt = self
        while isinstance(rt, RaggedTensor):
            ln = np.diff(_np(rt._row_splits))
            dims.append(int(ln.max()) if ln.size else 0)
            rt = rt._values
        dims += list(rt._value.shape[1:])
        dt = self._row_splits._value.dtype if out_type is None else _np_dtype(out_type)
        out = np.array(dims, dtype=dt)
        return _core.wrap(out if axis is None else np.array(out[axis]))

    def with_values(self, new_values):
        return RaggedTensor(_values_tensor(new_values), self._row_splits, internal=True)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        new = _values_tensor(new_values)
        if new._value.shape[:1] != self._values._value.shape[:1]:
            raise InvalidArgumentError("with_flat_values: the new values must keep the number "
                                       "of values (expected %d, got shape %s)"
                                       % (self._values._value.shape[0], list(new._value.shape)))
        return self.with_values(new)

    # -- conversion -------------------------------------------------------------------------
    def _flat_positions(self):
        """(dense shape, index of every flat value in the dense bounding box)."""
        shape = [int(d) for d in self.bounding_shape()._value]
        rt = self
        levels = []
        while isinstance(rt, RaggedTensor):
            levels.append(_np(rt._row_splits))
            rt = rt._values
        # walk down: each level maps its rows' values to (row, column)
        rows = np.arange(levels[0].size - 1)
        coords = [rows]
        for splits in levels:
            lengths = np.diff(splits)
            parent = np.repeat(np.arange(lengths.size), lengths)
            col = np.arange(splits[-1]) - np.repeat(splits[:-1], lengths)
            coords = [c[parent] for c in coords] + [col]
        return shape, coords

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor: rows padded with ``default_value`` (zero or ``b''``) to the
        longest row, or cut/padded to ``shape``. Differentiable in the values."""
        box, coords = self._flat_positions()
        flat = self.flat_values
        if shape is not None:
            want = [None if d is None or d == -1 else int(d) for d in list(shape)]
            if len(want) != len(box):
                raise InvalidArgumentError("to_tensor: shape must have rank %d (got %s)"
                                           % (len(box), list(shape)))
            box = [b if w is None else w for b, w in zip(box, want)]
            keep = np.ones(flat._value.shape[0], dtype=bool)
            for c, d in zip(coords, box):
                keep &= c < d
            if not keep.all():
                coords = [c[keep] for c in coords]
                flat = execute(getitem, flat, key=keep)
            inner_want = box[len(coords):]
            if list(flat._value.shape[1:]) != inner_want:
                raise InvalidArgumentError("to_tensor: shape %s does not fit the values' inner "
                                           "shape %s" % (list(shape),
                                                         list(flat._value.shape[1:])))
        if _is_string(flat):
            fill = b"" if default_value is None else _bytes_scalar(default_value)
            out = np.full(box, fill, dtype=object)
            out[tuple(coords)] = _np(flat)
            return _core.wrap(out)
        dense = scatter_nd(np.stack(coords, axis=-1).astype(np.int64).reshape(-1, len(coords)),
                           flat, box)
        if default_value is None:
            return dense
        mask = np.zeros(box[:len(coords)], dtype=bool)
        mask[tuple(coords)] = True
        mask = mask.reshape(mask.shape + (1,) * (len(box) - len(coords)))
        default = _core.convert_to_tensor(default_value, dtype=flat.dtype) \
            if not isinstance(default_value, _core.Tensor) else default_value
        return where(np.broadcast_to(mask, box), dense, default)

    def to_list(self):
        """Nested Python lists (bytes for strings, Python numbers for numbers)."""
        flat = _np(self.flat_values)
        items = list(flat)
        items = [x.tolist() if isinstance(x, np.ndarray) else
                 (x if isinstance(x, bytes) else x.item() if hasattr(x, "item") else x)
                 for x in items]
        for splits in reversed(self.nested_row_splits):
            s = _np(splits).tolist()
            items = [items[a:b] for a, b in zip(s[:-1], s[1:])]
        return items

    def numpy(self):
        """An object array of one NumPy array per row (as TensorFlow's ``numpy()``)."""
        rows = []
        for i in _range(self.nrows_int()):
            row = self[i]
            rows.append(row.numpy() if isinstance(row, RaggedTensor) else
                        np.asarray(_np(row)))
        out = np.empty(len(rows), dtype=object)
        out[:] = rows
        return out

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if not key:
            return self
        first, rest = key[0], key[1:]
        if first is Ellipsis:
            raise InvalidArgumentError("RaggedTensor: ... in an index is not supported")
        s = _np(self._row_splits)
        n = s.size - 1
        if isinstance(first, slice):
            start, stop, step = first.indices(n)
            if step != 1:
                raise InvalidArgumentError("RaggedTensor: slices of rows need step 1 (got %d)"
                                           % step)
            stop = max(start, stop)
            sub_values = _slice_values(self._values, int(s[start]), int(s[stop]))
            sub = RaggedTensor(sub_values, _core.wrap(s[start:stop + 1] - s[start]),
                               internal=True)
            if not rest:
                return sub
            if isinstance(rest[0], slice) and len(rest) == 1:
                return sub._slice_each_row(rest[0])
            raise InvalidArgumentError("RaggedTensor: after a slice of rows only a slice of "
                                       "the ragged axis may follow (got %r)" % (rest,))
        try:
            i = int(first)
        except TypeError:
            raise InvalidArgumentError("RaggedTensor: rows are indexed by an int or a slice "
                                       "(got %r)" % (first,)) from None
        if not -n <= i < n:
            raise InvalidArgumentError("RaggedTensor: row %d is out of range (expected "
                                       "-%d <= row < %d)" % (i, n, n))
        i %= n
        row = _slice_values(self._values, int(s[i]), int(s[i + 1]))
        return _index_inner(row, rest) if rest else row

    def _slice_each_row(self, sl):
        """``rt[:, a:b]``: the same slice of every row (Python's rules per row)."""
        if sl == slice(None):
            return self
        s = _np(self._row_splits)
        keep = np.zeros(int(s[-1]), dtype=bool)
        lengths = np.zeros(s.size - 1, dtype=s.dtype)
        for i in _range(s.size - 1):
            idx = _range(int(s[i]), int(s[i + 1]))[sl]
            if idx.step != 1:
                raise InvalidArgumentError("RaggedTensor: slices of a ragged axis need step 1 "
                                           "(got %r)" % (sl,))
            keep[idx.start:idx.stop] = True
            lengths[i] = len(idx)
        if isinstance(self._values, RaggedTensor):
            values = boolean_mask(self._values, keep)
        else:
            values = execute(getitem, self._values, key=keep)
        return RaggedTensor.from_row_lengths(values, _core.wrap(lengths), validate=False)

    def to_sparse(self, name=None):
        """The same values as a SparseTensor over the bounding shape."""
        box, coords = self._flat_positions()
        idx = np.stack(coords, axis=-1).astype(np.int64).reshape(-1, len(coords))
        flat = self.flat_values
        if flat._value.ndim > 1:
            raise InvalidArgumentError("to_sparse: only scalar values are supported (got "
                                       "values of shape %s)" % list(flat._value.shape))
        return SparseTensor(idx, flat, np.array(box, dtype=np.int64))

    def __iter__(self):
        for i in _range(self.nrows_int()):
            yield self[i]

    def __len__(self):
        return self.nrows_int()

    # -- printing -----------------------------------------------------------------------------
    def __repr__(self):
        return "<fe.RaggedTensor %s>" % _format_rows(_printed_array(self))

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("The truth value of a RaggedTensor is ambiguous (use fe.reduce_any on "
                        "its flat_values)")

    # -- elementwise operators ----------------------------------------------------------------
    def _binary(self, other, fn, reverse=False):
        a, b = _align(self, other, fn)
        out = fn(b, a) if reverse else fn(a, b)
        return self.with_flat_values(out)

    def __add__(self, o): return self._binary(o, _op("add"))
    def __radd__(self, o): return self._binary(o, _op("add"), True)
    def __sub__(self, o): return self._binary(o, _op("subtract"))
    def __rsub__(self, o): return self._binary(o, _op("subtract"), True)
    def __mul__(self, o): return self._binary(o, _op("multiply"))
    def __rmul__(self, o): return self._binary(o, _op("multiply"), True)
    def __truediv__(self, o): return self._binary(o, _op("truediv"))
    def __rtruediv__(self, o): return self._binary(o, _op("truediv"), True)
    def __floordiv__(self, o): return self._binary(o, _op("floordiv"))
    def __rfloordiv__(self, o): return self._binary(o, _op("floordiv"), True)
    def __mod__(self, o): return self._binary(o, _op("floormod"))
    def __rmod__(self, o): return self._binary(o, _op("floormod"), True)
    def __pow__(self, o): return self._binary(o, _op("pow"))
    def __rpow__(self, o): return self._binary(o, _op("pow"), True)
    def __lt__(self, o): return self._binary(o, _op("less"))
    def __le__(self, o): return self._binary(o, _op("less_equal"))
    def __gt__(self, o): return self._binary(o, _op("greater"))
    def __ge__(self, o): return self._binary(o, _op("greater_equal"))
    def __and__(self, o): return self._binary(o, _op("logical_and"))
    def __or__(self, o): return self._binary(o, _op("logical_or"))
    def __xor__(self, o): return self._binary(o, _op("logical_xor"))

    def __neg__(self): return self.with_flat_values(-self.flat_values)
    def __abs__(self): return self.with_flat_values(abs(self.flat_values))
    def __invert__(self): return self.with_flat_values(~self.flat_values)

    __hash__ = object.__hash__


# Printing follows TensorFlow's: NumPy's array2string with ", " between entries (wrapping
# lines as it does), applied to the array TensorFlow's numpy() gives, each entry by str().
def _printed_array(rt):
    """The rows as TensorFlow's ``RaggedTensor.numpy()`` gives them: one dense array when
    the rows have one length, else an object array of rows."""
    values = rt._values
    arr = _printed_array(values) if isinstance(values, RaggedTensor) else np.asarray(_np(values))
    s = _np(rt._row_splits)
    rows = [arr[s[i]:s[i + 1]] for i in _range(s.size - 1)]
    if not rows:
        return np.zeros((0, 0) + arr.shape[1:], dtype=arr.dtype)
    if any(len(r) != len(rows[0]) for r in rows):
        out = np.empty(len(rows), dtype=object)
        out[:] = rows
        return out
    return np.array(rows)


def _format_rows(x):
    if isinstance(x, np.ndarray):
        if x.size:
            return np.array2string(x, separator=", ", formatter={"all": _format_rows})
        return repr(x.tolist())     # array2string shows any empty array as []
    return str(x)


def _op(name):
    return getattr(elementwise_ops, name)


def _np_dtype(dtype):
    return as_dtype(dtype)._np


def _bytes_scalar(v):
    arr = bytes_array(v, "to_tensor")
    return arr.reshape(-1)[0]


def _slice_values(values, a, b):
    if isinstance(values, RaggedTensor):
        return values[a:b]
    return execute(getitem, values, key=slice(a, b))


def _index_inner(row, rest):
    if isinstance(row, RaggedTensor):
        return row[rest]
    return execute(getitem, row, key=_core.normalize_index(tuple(rest)))


def _same_partition(a, b):
    sa, sb = a.nested_row_splits, b.nested_row_splits
    return len(sa) == len(sb) and all(
        x is y or (x._value.shape == y._value.shape and np.array_equal(_np(x), _np(y)))
        for x, y in zip(sa, sb))


def _align(rt, other, fn):
    """(flat values of rt, the other operand lined up with them)."""
    flat = rt.flat_values
    if isinstance(other, RaggedTensor):
        if not _same_partition(rt, other):
            raise InvalidArgumentError("%s: ragged operands must have the same row partition "
                                       "(got row lengths %s and %s)"
                                       % (getattr(fn, "name", None) or
                                          getattr(fn, "__name__", fn),
                                          [np.diff(_np(s)).tolist() for s in
                                           rt.nested_row_splits],
                                          [np.diff(_np(s)).tolist() for s in
                                           other.nested_row_splits]))
        return flat, other.flat_values
    o = other if isinstance(other, (int, float, bool)) else _as_tensor(other, "RaggedTensor")
    if isinstance(o, _core.Tensor):
        shape = o._value.shape
        inner = flat._value.shape[1:]
        if rt.ragged_rank == 1 and len(shape) >= 2 and shape[0] == rt.nrows_int() \
                and shape[1] == 1:
            # one value per row ([nrows, 1, ...]): repeat it for each of the row's values
            per_row = reshape(o, (shape[0],) + shape[2:])
            return flat, gather(per_row, rt.value_rowids())
        lead = len(shape) - len(inner)
        if lead > 0 and len(shape) <= rt.ndim and all(d == 1 for d in shape[:lead]):
            # size-1 axes over the ragged ones broadcast: only the inner part matters
            return flat, reshape(o, shape[lead:])
        if lead > 0:
            raise InvalidArgumentError(
                "RaggedTensor: a dense operand of shape %s does not broadcast against ragged "
                "shape %s (expected a scalar, the values' inner shape %s, or [nrows, 1])"
                % (list(shape), rt.shape.as_list(), list(inner)))
    return flat, o


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the ragged arguments (which must share one row
    partition); the result has that partition.

    >>> rt = fe.ragged.constant([[1, 2], [3]])
    >>> print(fe.ragged.map_flat_values(fe.square, rt))
    <fe.RaggedTensor [[1, 4], [9]]>
    """
    partition = []

    def flat(x):
        if isinstance(x, RaggedTensor):
            partition.append(x)
            return x.flat_values
        if isinstance(x, (list, tuple)):
            return type(x)(flat(v) for v in x)
        if isinstance(x, dict):
            return {k: flat(v) for k, v in x.items()}
        return x
    fargs = flat(list(args))
    fkwargs = flat(dict(kwargs))
    if not partition:
        raise InvalidArgumentError("map_flat_values: no argument is a RaggedTensor")
    first = partition[0]
    for other in partition[1:]:
        if not _same_partition(first, other):
            raise InvalidArgumentError("map_flat_values: ragged arguments must have the same "
                                       "row partition")
    out = op(*fargs, **fkwargs)
    out = _values_tensor(out)
    if out._value.shape[:1] != first.flat_values._value.shape[:1]:
        raise InvalidArgumentError("map_flat_values: op must keep the number of values "
                                   "(expected %d rows of flat values, got shape %s)"
                                   % (first.flat_values._value.shape[0],
                                      list(out._value.shape)))
    return first.with_flat_values(out)


def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001 - TF's name
          row_splits_dtype="int64"):
    """Row ``i`` is ``fe.range(starts[i], limits[i], deltas[i])`` (``tf.ragged.range``);
    one argument is the limits, starting at 0. Scalars broadcast against vectors. The dtype
    is that of the tensor arguments; Python numbers alone give int32 (float32 if a float)."""
    if limits is None:
        starts, limits = 0, starts
    args = (starts, limits, deltas)
    arrays = [np.asarray(_np(a) if isinstance(a, _core.Tensor) else a) for a in args]
    for argname, a in zip(("starts", "limits", "deltas"), arrays):
        if a.ndim > 1:
            raise InvalidArgumentError("ragged.range: %s must be a scalar or a vector (got "
                                       "shape %s)" % (argname, list(a.shape)))
        if a.dtype.kind not in "iuf":
            raise InvalidArgumentError("ragged.range: %s must be numbers (got %s)"
                                       % (argname, a.dtype))
    if dtype is not None:
        out_dtype = as_dtype(dtype)._np
    else:
        typed = [a.dtype for x, a in zip(args, arrays) if isinstance(x, _core.Tensor)]
        out_dtype = typed[0] if typed else (
            np.dtype(np.float32) if any(a.dtype.kind == "f" for a in arrays)
            else np.dtype(np.int32))
    try:
        st, li, de = np.broadcast_arrays(*(np.atleast_1d(a) for a in arrays))
    except ValueError:
        raise InvalidArgumentError("ragged.range: starts, limits and deltas must have the same "
                                   "length (got %s)" % [list(a.shape) for a in arrays]) from None
    if np.any(de == 0):
        raise InvalidArgumentError("ragged.range: deltas must not be zero")
    rows = [np.arange(a, b, d).astype(out_dtype) for a, b, d in zip(st, li, de)]
    lengths = np.array([r.size for r in rows], dtype=as_dtype(row_splits_dtype)._np)
    flat = np.concatenate(rows) if rows else np.zeros(0, out_dtype)
    return RaggedTensor.from_row_lengths(_core.wrap(flat.astype(out_dtype)),
                                         _core.wrap(lengths), validate=False)


# ---- fe.ragged.constant -----------------------------------------------------------------------

def _depth(x):
    if isinstance(x, (list, tuple)):
        return None if not x else 1 + _max_depth(x)
    if isinstance(x, np.ndarray):
        return x.ndim
    return 0


def _max_depth(xs):
    ds = [d for d in (_depth(v) for v in xs) if d is not None]
    if len(set(ds)) > 1:
        raise ValueError("all scalar values must have the same nesting depth")   # (TF's text)
    if ds:
        return ds[0]
    # only empty lists below: they still count as one level (TensorFlow's [[], []] is 2-D)
    return 1 if any(isinstance(v, (list, tuple)) for v in xs) else 0


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=np.int64):
    """A RaggedTensor from nested Python lists of different lengths (numbers or strings).

    >>> print(fe.ragged.constant([[1, 2], [3]]))
    <fe.RaggedTensor [[1, 2], [3]]>
    """
    if not isinstance(pylist, (list, tuple)):
        return _as_tensor(pylist, "ragged.constant")
    depth = _depth(pylist) or 1
    inner = 0 if inner_shape is None else len(inner_shape)
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - inner)
    if ragged_rank == 0:
        return _as_tensor(pylist, "ragged.constant")
    if not 0 < ragged_rank < depth:
        raise InvalidArgumentError("ragged.constant: ragged_rank must be in [0, %d) for lists "
                                   "nested %d deep (got %d)" % (depth, depth, ragged_rank))
    nested = []
    level = list(pylist)
    for _ in _range(ragged_rank):
        lengths = [len(v) for v in level]
        nested.append(np.array(lengths, dtype=np.dtype(row_splits_dtype)))
        level = [x for v in level for x in v]
    if is_string_value(level):
        if not all(isinstance(v, (str, bytes, np.str_, np.bytes_)) for v in level):
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        values = _core.wrap(bytes_array(level, "ragged.constant"))
    else:
        values = dense_constant(level if level else np.zeros(
            (0,) + tuple(inner_shape or ()), dtype=_np_dtype(dtype or "float32")), dtype=dtype)
    return RaggedTensor.from_nested_row_lengths(values, [_core.wrap(n) for n in nested])


# ---- reductions over ragged axes --------------------------------------------------------------

def _reduce(name, rt, axis, keepdims, pad_of):
    if not isinstance(rt, RaggedTensor):
        return getattr(reduction_ops, name)(rt, axis=axis, keepdims=keepdims)
    flat = rt.flat_values
    if axis is None:
        if name == "reduce_mean" and flat.dtype._np.kind in "iub":
            flat = cast(flat, "float64")
        return getattr(reduction_ops, name)(flat, keepdims=False)
    ndim = rt.ndim
    ax = axis + ndim if axis < 0 else axis
    if not 0 <= ax < ndim:
        raise InvalidArgumentError("%s: axis %d is out of range for a ragged tensor of rank %d"
                                   % (name, axis, ndim))
    if rt.ragged_rank != 1:
        raise InvalidArgumentError("%s: only ragged rank 1 is supported (got %d)"
                                   % (name, rt.ragged_rank))
    if ax >= 2:      # a dense inner axis: reduce the values, keep the partition
        return rt.with_values(getattr(reduction_ops, name)(flat, axis=ax - 1, keepdims=keepdims))
    dt = flat.dtype
    if name == "reduce_mean":
        dense = rt.to_tensor()
        count = RaggedTensor(_core.wrap(np.ones(flat._value.shape[:1], dt._np)),
                             rt._row_splits, internal=True).to_tensor()
        count = count.reshape(count.shape.as_list() + [1] * (dense.ndim - 2))
        s = reduction_ops.reduce_sum(dense, axis=ax, keepdims=keepdims)
        c = reduction_ops.reduce_sum(count, axis=ax, keepdims=keepdims)
        return s / c        # integers: true division to float64, as TensorFlow's guide shows
    dense = rt.to_tensor(default_value=_core.wrap(np.array(pad_of(dt), dtype=dt._np)))
    return getattr(reduction_ops, name)(dense, axis=ax, keepdims=keepdims)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over ``axis`` (0: across rows, 1: within each row; None: all values)."""
    return _reduce("reduce_sum", input_tensor, axis, keepdims, lambda dt: 0)


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product over ``axis`` (an empty row gives 1)."""
    return _reduce("reduce_prod", input_tensor, axis, keepdims, lambda dt: 1)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    """Maximum over ``axis``; an empty row gives the dtype's lowest value (TensorFlow's
    rule)."""
    return _reduce("reduce_max", input_tensor, axis, keepdims, lambda dt: dt.min)


def reduce_min(input_tensor, axis=None, keepdims=False, name=None):
    """Minimum over ``axis``; an empty row gives the dtype's highest value."""
    return _reduce("reduce_min", input_tensor, axis, keepdims, lambda dt: dt.max)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over ``axis`` (an empty row gives NaN; integer values give float64)."""
    return _reduce("reduce_mean", input_tensor, axis, keepdims, None)


def stack(values, axis=0, name=None):
    """Ragged tensors (or lists) stacked as the rows of one, along axis 0."""
    if axis != 0:
        raise InvalidArgumentError("ragged.stack: only axis=0 is supported (got %r)" % (axis,))
    rts = [v if isinstance(v, RaggedTensor) else constant(v) for v in values]
    if not all(isinstance(r, RaggedTensor) and r.ragged_rank == rts[0].ragged_rank
               for r in rts):
        raise InvalidArgumentError("ragged.stack: values must be ragged tensors of one ragged "
                                   "rank")
    rows = [r.nrows_int() for r in rts]
    return RaggedTensor.from_row_lengths(_concat_rows(rts), np.array(rows, dtype=np.int64))


def _concat_rows(rts):
    """The rows of ragged tensors of one ragged rank, one after another (concat on axis 0)."""
    return RaggedTensor.from_nested_row_lengths(
        concat([r.flat_values for r in rts], axis=0),
        [_core.wrap(np.concatenate([np.diff(_np(r.nested_row_splits[k])) for r in rts]))
         for k in _range(rts[0].ragged_rank)])


def boolean_mask(data, mask, name=None):
    """The rows of ``data`` where ``mask`` (one bool per row) holds."""
    m = np.asarray(_np(_as_tensor(mask, "ragged.boolean_mask")))
    if not isinstance(data, RaggedTensor):
        return dense_mask(data, m)
    if m.dtype != np.bool_ or m.shape != (data.nrows_int(),):
        raise InvalidArgumentError("ragged.boolean_mask: mask must be one bool per row "
                                   "(expected shape [%d] of bool, got %s of %s)"
                                   % (data.nrows_int(), list(m.shape), m.dtype))
    value_mask = m[data.value_rowids()._value]
    values = data._values
    if isinstance(values, RaggedTensor):
        kept = boolean_mask(values, value_mask)
    else:
        kept = execute(getitem, values, key=value_mask)
    return RaggedTensor.from_row_lengths(kept, np.diff(_np(data._row_splits))[m])


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    s = _np(_partition("row_splits_to_segment_ids", "splits", splits))
    dt = s.dtype if out_type is None else _np_dtype(out_type)
    return _core.wrap(np.repeat(np.arange(s.size - 1), np.diff(s)).astype(dt))


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    ids = _np(_partition("segment_ids_to_row_splits", "segment_ids", segment_ids))
    n = int(num_segments) if num_segments is not None else (int(ids.max()) + 1 if ids.size
                                                            else 0)
    splits = np.zeros(n + 1, dtype=ids.dtype if out_type is None else _np_dtype(out_type))
    np.cumsum(np.bincount(ids, minlength=n), out=splits[1:])
    return _core.wrap(splits)


def _components(rt):
    return (rt.flat_values,) + rt.nested_row_splits


def _from_components(rt, parts):
    return RaggedTensor.from_nested_row_splits(parts[0], parts[1:], validate=False)


# composite protocol of fasteager.nest (expand_composites): fe.function returns ragged
# tensors through their component tensors
RaggedTensor._to_components = _components
RaggedTensor._from_components = _from_components


class RaggedTensorSpec:
    """The type of a RaggedTensor (``tf.RaggedTensorSpec``): its shape (``None`` for the
    ragged axes), dtype and ragged rank. ``fe.map_fn`` takes one as
    ``fn_output_signature`` to stack its results as the rows of a RaggedTensor."""
    __module__ = 'fasteager.ragged'     # its public home (printed types, pickles)

    def __init__(self, shape=None, dtype="float32", ragged_rank=None,
                 row_splits_dtype="int64", flat_values_spec=None):
        self.shape = TensorShape(shape) if shape is not None else TensorShape(None)
        self.dtype = as_dtype(dtype)
        rank = self.shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("RaggedTensorSpec: ragged_rank must be given when the shape's "
                                 "rank is unknown")
            ragged_rank = rank - 1
        self.ragged_rank = int(ragged_rank)
        self.row_splits_dtype = as_dtype(row_splits_dtype)
        self.flat_values_spec = flat_values_spec

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)

    @property
    def value_type(self):
        """The class of the values this spec describes."""
        return RaggedTensor

    def is_compatible_with(self, value):
        return isinstance(value, RaggedTensor) and value.dtype == self.dtype and \
            self.shape.is_compatible_with(value.shape)

    def __eq__(self, other):
        return isinstance(other, RaggedTensorSpec) and (self.shape, self.dtype,
                                                        self.ragged_rank) == \
            (other.shape, other.dtype, other.ragged_rank)

    __hash__ = object.__hash__

    def __repr__(self):
        return "RaggedTensorSpec(TensorShape(%s), %r, %d, %r)" % (
            self.shape.as_list() if self.shape.rank is not None else None, self.dtype,
            self.ragged_rank, self.row_splits_dtype)
