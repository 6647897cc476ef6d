"""Data types: ``fe.float32`` and friends, and ``fe.as_dtype``.

A ``DType`` wraps a NumPy dtype. It compares equal to itself, to the NumPy dtype and to
its name, so ``t.dtype == np.float32`` and ``t.dtype == "float32"`` both hold. NumPy code
can use it as a NumPy dtype: ``np.dtype(t.dtype)`` (NumPy reads its ``dtype``
attribute), so ``np.zeros(3, t.dtype)`` and ``np.issubdtype(t.dtype, np.floating)`` work,
and the NumPy dtype's attributes (``.kind``, ``.type``, ``.itemsize``, ``.char`` ...)
read through.
"""

# attributes of numpy.dtype that a DType reads through (TensorFlow's own names win; not
# ``shape``/``ndim``, which code testing "is this array-like" looks for)
_NUMPY_ATTRS = frozenset(("kind", "type", "itemsize", "char", "num", "str", "byteorder",
                          "alignment", "descr", "isbuiltin", "isnative", "fields", "names",
                          "subdtype", "flags", "hasobject", "metadata", "isalignedstruct"))
import numpy as np


class DType:
    """A tensor element type (``fe.float32``, ``fe.int32`` ...)."""

    __slots__ = ("_np", "name", "_hash")

    def __init__(self, np_dtype):
        self._np = np.dtype(np_dtype)
        self.name = ("bool" if self._np == np.bool_ else
                     "string" if self._np == np.object_ else self._np.name)
        self._hash = hash(self._np)

    @property
    def as_numpy_dtype(self):
        return self._np.type

    @property
    def dtype(self):
        """The NumPy dtype (what ``np.dtype(this)`` returns)."""
        return self._np

    def __getattr__(self, name):
        if name in _NUMPY_ATTRS:
            return getattr(self._np, name)
        raise AttributeError("'DType' object has no attribute %r" % name)

    @property
    def base_dtype(self):
        return self

    @property
    def is_floating(self):
        return self._np.kind == "f"

    @property
    def is_integer(self):
        return self._np.kind in "iu"

    @property
    def is_unsigned(self):
        return self._np.kind == "u"

    @property
    def is_bool(self):
        return self._np.kind == "b"

    @property
    def is_string(self):
        return self._np.kind == "O"

    @property
    def is_complex(self):
        return self._np.kind == "c"

    @property
    def size(self):
        return self._np.itemsize

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._np == other._np
        if isinstance(other, str) and other == "string":    # np.dtype("string") is bytes
            return self._np.kind == "O"
        try:
            return self._np == np.dtype(other)
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return "fe.%s" % self.name

    def __str__(self):
        return "<dtype: %r>" % self.name

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = half = DType(np.float16)
float32 = DType(np.float32)
float64 = double = DType(np.float64)
int8 = DType(np.int8)
int16 = DType(np.int16)
int32 = DType(np.int32)
int64 = DType(np.int64)
uint8 = DType(np.uint8)
uint16 = DType(np.uint16)
uint32 = DType(np.uint32)
uint64 = DType(np.uint64)
bool = DType(np.bool_)  # noqa: A001 - the public name is fe.bool, as in TensorFlow
complex64 = DType(np.complex64)
complex128 = DType(np.complex128)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       bool, complex64, complex128)
# fe.string: byte strings in NumPy object arrays (see fasteager/strings.py); no numeric op
# takes them, so it is not in ALL
string = DType(np.object_)
_BY_NUM = {d._np.num: d for d in ALL + (string,)}
_BY_NAME = {d.name: d for d in ALL + (string,)}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "bool_": bool})


def as_dtype(value):
    """Return the ``DType`` for a DType, NumPy dtype/type or name (``"float32"``)."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        d = np.dtype(value)
    except (TypeError, ValueError):     # np.dtype(tensor) is a ValueError
        raise TypeError("as_dtype: cannot convert %r to a dtype (expected a DType, NumPy dtype or "
                        "a name such as 'float32')" % (value,)) from None
    try:
        return _BY_NUM[d.num]
    except KeyError:
        for known in ALL:
            if known._np == d:
                return known
        raise TypeError("as_dtype: unsupported dtype %s (expected one of %s)"
                        % (d, ", ".join(x.name for x in ALL))) from None


def from_numpy(np_dtype):
    """Fast path used by the core: the DType of an ndarray's dtype."""
    try:
        return _BY_NUM[np_dtype.num]
    except KeyError:
        return as_dtype(np_dtype)
