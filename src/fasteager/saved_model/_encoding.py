"""JSON encoding of the values a saved graph holds (op attributes, Python outputs, call
keys, input signatures), and their decoding from an untrusted file.

Decoding builds only plain data (numbers, strings, tuples, lists, dicts, slices, NumPy
dtypes and arrays, fasteager dtypes and TensorSpecs); anything else in the file is a
``DataLossError``. A shape-generic graph's attributes may hold a size polynomial,
``{"__sym__": [[coefficient, [symbol, ...]], ...]}``: the sum of each coefficient times
the product of the named symbols' sizes (the call's sizes of the None dimensions).
"""
import json

import numpy as np

from .._src.composite.ragged import RaggedTensorSpec
from .._src.composite.sparse import SparseTensorSpec
from .._src.composite.structure import TensorSpec
from ..dtypes import as_dtype
from ..errors import DataLossError, UnimplementedError

_MAX_DEPTH = 64          # nesting accepted in a file's values (deeper is corruption)


def encode(value, what):
    """``value`` as JSON data; ``what`` names it in the error for what cannot be saved."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not np.isfinite(value):
            return {"__float__": repr(value)}
        return value
    if isinstance(value, np.generic):
        return {"__np__": value.dtype.str, "value": encode(value.item(), what)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, what) for v in value]}
    if isinstance(value, list):
        return [encode(v, what) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, what), encode(v, what)] for k, v in value.items()]}
    if isinstance(value, np.dtype):
        return {"__npdtype__": value.str}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"__npdtype__": np.dtype(value).str}
    if type(value).__name__ == "DType" and hasattr(value, "as_numpy_dtype"):
        return {"__dtype__": value.name}
    if type(value).__name__ == "TensorSpec" and hasattr(value, "dtype"):
        return {"__spec__": [None if value.shape is None else list(value.shape.as_list()),
                             value.dtype.name, value.name]}
    if type(value).__name__ == "RaggedTensorSpec" and hasattr(value, "ragged_rank"):
        return {"__ragged_spec__": [None if value.shape.rank is None else
                                    list(value.shape.as_list()), value.dtype.name,
                                    value.ragged_rank, value.row_splits_dtype.name]}
    if type(value).__name__ == "SparseTensorSpec" and hasattr(value, "dtype"):
        return {"__sparse_spec__": [None if value.shape.rank is None else
                                    list(value.shape.as_list()), value.dtype.name]}
    if isinstance(value, slice):
        return {"__slice__": [encode(value.start, what), encode(value.stop, what),
                              encode(value.step, what)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return {"__array__": value.tolist(), "dtype": value.dtype.str}
    raise UnimplementedError("saved_model.save: %s holds a %s, which cannot be saved "
                             "(expected numbers, strings, tuples, lists, dicts, dtypes)"
                             % (what, type(value).__name__))


def is_symbolic(value):
    return isinstance(value, dict) and "__sym__" in value


def evaluate(poly, dims):
    """The integer a size polynomial (the list of ``__sym__``) takes at sizes ``dims``."""
    if dims is None:
        raise DataLossError("saved_model.load: a size expression outside a shape-generic "
                            "graph")
    if not isinstance(poly, list):
        raise DataLossError("saved_model.load: a size expression is not a list")
    total = 0
    for term in poly:
        if not (isinstance(term, list) and len(term) == 2 and type(term[0]) is int
                and isinstance(term[1], list)):
            raise DataLossError("saved_model.load: bad term %.80r of a size expression"
                                % (term,))
        product = term[0]
        for s in term[1]:
            if type(s) is not int or not 0 <= s < len(dims):
                raise DataLossError("saved_model.load: a size expression names symbol %.40r "
                                    "(expected 0..%d)" % (s, len(dims) - 1))
            product *= dims[s]
        total += product
    return total


def decode(value, dims=None, depth=0):
    """Inverse of ``encode``; ``dims``: the sizes of a shape-generic graph's symbols."""
    if depth > _MAX_DEPTH:
        raise DataLossError("saved_model.load: values nested deeper than %d" % _MAX_DEPTH)
    if isinstance(value, list):
        return [decode(v, dims, depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    try:
        return _decode_tagged(value, dims, depth + 1)
    except DataLossError:
        raise
    except (TypeError, ValueError, KeyError, OverflowError) as e:
        raise DataLossError("saved_model.load: bad encoded value %.80r (%s)"
                            % (value, e)) from None


def _decode_tagged(value, dims, depth):
    if "__sym__" in value:
        return evaluate(value["__sym__"], dims)
    if "__tuple__" in value:
        return tuple(decode(v, dims, depth) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_hashable(decode(k, dims, depth)): decode(v, dims, depth)
                for k, v in value["__dict__"]}
    if "__float__" in value:
        return float(value["__float__"])
    if "__np__" in value:
        return np.dtype(value["__np__"]).type(decode(value["value"], dims, depth))
    if "__npdtype__" in value:
        return np.dtype(value["__npdtype__"])
    if "__dtype__" in value:
        return as_dtype(value["__dtype__"])
    if "__spec__" in value:
        shape, dtype, name = value["__spec__"]
        if shape is not None and not all(d is None or type(d) is int and d >= 0
                                         for d in shape):
            raise DataLossError("saved_model.load: bad TensorSpec shape %.80r" % (shape,))
        if name is not None and not isinstance(name, str):
            raise DataLossError("saved_model.load: bad TensorSpec name %.80r" % (name,))
        return TensorSpec(shape, dtype, name)
    if "__ragged_spec__" in value:
        shape, dtype, ragged_rank, splits_dtype = value["__ragged_spec__"]
        _check_shape(shape, "RaggedTensorSpec")
        if type(ragged_rank) is not int or ragged_rank < 1 or shape is not None and \
                ragged_rank >= len(shape) or splits_dtype not in ("int32", "int64"):
            raise DataLossError("saved_model.load: bad RaggedTensorSpec %.80r" % (value,))
        return RaggedTensorSpec(shape, dtype, ragged_rank, splits_dtype)
    if "__sparse_spec__" in value:
        shape, dtype = value["__sparse_spec__"]
        _check_shape(shape, "SparseTensorSpec")
        return SparseTensorSpec(shape, dtype)
    if "__slice__" in value:
        return slice(*[decode(v, dims, depth) for v in value["__slice__"]])
    if "__ellipsis__" in value:
        return Ellipsis
    if "__array__" in value:
        dtype = np.dtype(value["dtype"])
        if dtype.kind not in "biuf":
            raise DataLossError("saved_model.load: an array attribute of dtype %s" % dtype)
        return np.asarray(decode(value["__array__"], dims, depth), dtype=dtype)
    raise DataLossError("saved_model.load: unknown encoded value %.80r" % (value,))


def _check_shape(shape, what):
    if shape is not None and not (isinstance(shape, list) and all(
            d is None or type(d) is int and d >= 0 for d in shape)):
        raise DataLossError("saved_model.load: bad %s shape %.80r" % (what, shape))


def _hashable(key):
    try:
        hash(key)
    except TypeError:
        raise DataLossError("saved_model.load: a dict key %.80r is not hashable"
                            % (key,)) from None
    return key


def key_text(key):
    """The text a call signature's key is stored under."""
    return json.dumps(encode(key, "a call signature"), sort_keys=True)
