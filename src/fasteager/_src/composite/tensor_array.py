"""``fe.TensorArray``: a list of same-dtype tensors written one index at a time.

It behaves as TensorFlow's eager TensorArray: ``write``, ``unstack``, ``scatter`` and
``split`` change the array and return it, so the functional style TensorFlow's graph mode
needs (``ta = ta.write(i, x)``) works too. Elements are the tensors themselves: ``read``
returns what was written and ``stack``/``gather``/``concat`` are ordinary fasteager ops,
so gradients flow from them to the written values, and inside ``fe.function`` (which
traces by running the Python code) the array is built while tracing and its ops replay.
An index that is a tensor computed from an ``fe.function``'s inputs is read as data: such
a function runs eagerly on each call (with a warning), which keeps its results right.

>>> ta = fe.TensorArray(fe.float32, size=0, dynamic_size=True)
>>> for i in range(3):
...     ta = ta.write(i, fe.constant(float(i)))
>>> ta.stack().numpy()
array([0., 1., 2.], dtype=float32)
"""
import sys as _sys

import numpy as np

from ... import _core
from ...dtypes import as_dtype
from ...errors import InvalidArgumentError, OutOfRangeError
from ...ops import array_ops
from ...tensor_shape import TensorShape

__all__ = ["TensorArray"]


class TensorArray:
    """A resizable (``dynamic_size=True``) or fixed-size array of tensors of one dtype."""
    __module__ = 'fasteager.tensor_array'     # its public home (printed types, pickles)

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self._dtype = as_dtype(dtype)
        if size is None:
            if not dynamic_size:
                raise ValueError("TensorArray: size must be given unless dynamic_size=True")
            size = 0
        n = self._index(size, "size")
        self._elements = [None] * n
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._previously_read = set()
        self._infer_shape = bool(infer_shape)
        # None: not known yet (TensorShape has no unknown rank)
        self._element_shape = TensorShape(element_shape) if element_shape is not None \
            else None

    # ---- properties -------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def element_shape(self):
        """The shape every element has: a TensorShape once known (given, or inferred from
        the first write), None before."""
        return self._element_shape

    @property
    def handle(self):
        return self

    @property
    def flow(self):
        return self

    def size(self, name=None):
        """The number of elements (an int32 scalar)."""
        return _core.wrap(np.asarray(len(self._elements), np.int32))

    # ---- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _index(index, what):
        if isinstance(index, (_core.Tensor, _core.VariableBase)):
            t = index._read() if isinstance(index, _core.VariableBase) else index
            arr = np.asarray(_core.data_of(t, "TensorArray %s" % what))
        else:
            arr = np.asarray(index)
        if arr.ndim != 0 or arr.dtype.kind not in "iu":
            raise InvalidArgumentError("TensorArray: %s must be an integer scalar (got %s of "
                                       "dtype %s)" % (what, list(arr.shape), arr.dtype))
        return int(arr)

    def _indices(self, indices, what):
        if isinstance(indices, (_core.Tensor, _core.VariableBase)):
            t = indices._read() if isinstance(indices, _core.VariableBase) else indices
            arr = np.asarray(_core.data_of(t, "TensorArray %s" % what))
        else:
            arr = np.asarray(indices)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise InvalidArgumentError("TensorArray: %s must be a 1-D integer vector (got %s "
                                       "of dtype %s)" % (what, list(arr.shape), arr.dtype))
        return [int(i) for i in arr.tolist()]

    def _convert(self, value, opname):
        if isinstance(value, _core.VariableBase):
            value = value._read()
        if isinstance(value, _core.Tensor):
            if value.dtype != self._dtype:
                raise InvalidArgumentError(
                    "TensorArray.%s: TensorArray dtype is %s but the value has dtype %s"
                    % (opname, self._dtype.name, value.dtype.name))
            return value
        return _core.convert_to_tensor(value, self._dtype)

    def _set_shape(self, shape, opname):
        known = self._element_shape
        if known is not None and not known.is_compatible_with(shape):
            raise ValueError("TensorArray.%s: incompatible shape for value (%s), expected (%s)"
                             % (opname, shape, known))
        if self._infer_shape:
            self._element_shape = TensorShape(shape) if known is None else TensorShape(
                [a if a is not None else b for a, b in zip(known, shape)])

    def _element(self, index, opname):
        """Element ``index`` for reading: zeros for one never written (when the element
        shape is known), an error for one cleared by an earlier read."""
        if index < 0:
            raise OutOfRangeError("TensorArray.%s: reading from negative indices (index %d) "
                                  "is not allowed" % (opname, index))
        if index >= len(self._elements):
            raise OutOfRangeError("TensorArray.%s: tried to read from index %d but array size "
                                  "is: %d" % (opname, index, len(self._elements)))
        value = self._elements[index]
        if value is None:
            if index in self._previously_read:
                raise InvalidArgumentError(
                    "TensorArray.%s: could not read index %d twice because it was cleared "
                    "after a previous read (perhaps try setting clear_after_read = false?)"
                    % (opname, index))
            value = self._elements[index] = self._zeros(opname)
        return value

    def _zeros(self, opname):
        if self._element_shape is None or not self._element_shape.is_fully_defined():
            raise InvalidArgumentError(
                "TensorArray.%s: an element was never written and the element shape is not "
                "known (got %s), so it cannot be read as zeros" % (opname, self._element_shape))
        return array_ops.zeros(self._element_shape.as_list(), self._dtype)

    # ---- reading ----------------------------------------------------------------------------
    def read(self, index, name=None):
        """Element ``index`` (cleared afterwards unless ``clear_after_read=False``)."""
        i = self._index(index, "index")
        value = self._element(i, "read")
        if self._clear_after_read:
            self._elements[i] = None
            self._previously_read.add(i)
        return value

    def stack(self, name=None):
        """All elements stacked along a new first axis."""
        if not self._elements:
            return self._empty()
        return array_ops.stack([self._element(i, "stack") for i in range(len(self._elements))])

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        idx = self._indices(indices, "indices")
        if not idx:
            return self._empty()
        return array_ops.stack([self._element(i, "gather") for i in idx])

    def concat(self, name=None):
        """All elements concatenated along their first axis."""
        if not self._elements:
            return self._empty()
        return array_ops.concat([self._element(i, "concat")
                                 for i in range(len(self._elements))], axis=0)

    def _empty(self):
        known = self._element_shape
        rest = known.as_list() if known is not None and known.is_fully_defined() else []
        return array_ops.zeros([0] + rest, self._dtype)

    # ---- writing ----------------------------------------------------------------------------
    def write(self, index, value, name=None):
        """Set element ``index`` to ``value``; returns the array."""
        i = self._index(index, "index")
        t = self._convert(value, "write")
        if i < 0:
            raise InvalidArgumentError("TensorArray.write: writing to negative indices (index "
                                       "%d) is not allowed" % i)
        if i >= len(self._elements):
            if not self._dynamic_size:
                raise InvalidArgumentError(
                    "TensorArray.write: tried to write to index %d but array is not resizeable "
                    "and size is: %d" % (i, len(self._elements)))
            self._elements.extend([None] * (i + 1 - len(self._elements)))
        self._set_shape(t.shape, "write")
        self._elements[i] = t
        return self

    def unstack(self, value, name=None):
        """Write the rows of ``value`` to elements 0, 1, ...; returns the array."""
        t = self._convert(value, "unstack")
        if t.shape.rank == 0:
            raise InvalidArgumentError("TensorArray.unstack: value must have rank >= 1")
        n = t.shape[0]
        if n > len(self._elements) and not self._dynamic_size:
            raise InvalidArgumentError("TensorArray.unstack: cannot unstack %d tensors into a "
                                       "TensorArray of static size %d" % (n, len(self._elements)))
        for i, row in enumerate(array_ops.unstack(t) if n else []):
            self.write(i, row)
        return self

    def scatter(self, indices, value, name=None):
        """Write the rows of ``value`` to the elements at ``indices``; returns the array."""
        idx = self._indices(indices, "indices")
        t = self._convert(value, "scatter")
        if t.shape.rank == 0 or t.shape[0] != len(idx):
            raise InvalidArgumentError("TensorArray.scatter: value must have one row per index "
                                       "(expected %d rows, got shape %s)" % (len(idx), t.shape))
        for i, row in zip(idx, array_ops.unstack(t) if idx else []):
            self.write(i, row)
        return self

    def split(self, value, lengths, name=None):
        """Split ``value`` along its first axis into pieces of ``lengths`` and write them
        to elements 0, 1, ...; returns the array."""
        sizes = self._indices(lengths, "lengths")
        t = self._convert(value, "split")
        if t.shape.rank == 0 or sum(sizes) != t.shape[0] or any(s < 0 for s in sizes):
            raise InvalidArgumentError("TensorArray.split: lengths %s must be non-negative and "
                                       "sum to the first dimension of value (shape %s)"
                                       % (sizes, t.shape))
        if len(sizes) > len(self._elements) and not self._dynamic_size:
            raise InvalidArgumentError("TensorArray.split: cannot split into %d tensors in a "
                                       "TensorArray of static size %d"
                                       % (len(sizes), len(self._elements)))
        saved_infer = self._infer_shape
        self._infer_shape = False       # pieces may differ in their first dimension
        try:
            pieces = array_ops.split(t, sizes, axis=0) if sizes else []
            for i, piece in enumerate(pieces):
                self.write(i, piece)
        finally:
            self._infer_shape = saved_infer
        if self._infer_shape and pieces:
            rest = t.shape.as_list()[1:]
            same = len(set(sizes)) == 1
            self._element_shape = TensorShape([sizes[0] if same else None] + rest)
        return self

    # ---- TensorFlow's no-ops ----------------------------------------------------------------
    def identity(self):
        return self

    def mark_used(self):
        pass

    def close(self, name=None):
        self._elements = []

    def __repr__(self):
        return "<fe.TensorArray dtype=%s size=%d element_shape=%s>" % (
            self._dtype.name, len(self._elements), self._element_shape)


# The classes here keep the module name they had before the move into fasteager._src
# (their printed types and saved references, pickles among them, name it), so that name
# still imports, as this module.
_sys.modules.setdefault("fasteager.tensor_array", _sys.modules[__name__])
