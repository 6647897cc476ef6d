"""``tf.io.parse_example`` / ``parse_single_example`` and their feature specs.

Each serialized ``tf.train.Example`` is decoded by ``example`` (``fe.train.Example``, the
protobuf wire format, read defensively); its features become tensors by the spec:
``FixedLenFeature`` a dense tensor ``[batch] + shape`` (the default where missing),
``VarLenFeature`` a SparseTensor ``[batch, longest]`` and ``RaggedFeature`` a RaggedTensor
``[batch, None]``. As TensorFlow, the result lists the VarLen keys, then the FixedLen ones,
then the Ragged ones, each in sorted order. Malformed records, missing required features
and dtype or length mismatches raise InvalidArgumentError naming the record and key.
"""
import collections

import numpy as np

from ... import _core
from ...dtypes import as_dtype
from ...errors import DataLossError, InvalidArgumentError, UnimplementedError
from ...ops.string_values import bytes_array
from ..composite.ragged import RaggedTensor
from ..composite.sparse import SparseTensor
from ..composite.values import _np
from .example import Example

__all__ = ["FixedLenFeature", "RaggedFeature", "VarLenFeature", "parse_example",
           "parse_single_example"]

# the list each parseable dtype is stored in, and its name in TensorFlow's messages
_LIST_OF = {"string": ("bytes_list", "string"), "float32": ("float_list", "float"),
            "int64": ("int64_list", "int64")}
_KIND_NAME = {"bytes_list": "string", "float_list": "float", "int64_list": "int64"}


def _feature_dtype(cls_name, dtype):
    d = as_dtype(dtype)
    if d.name not in _LIST_OF:
        raise ValueError("%s: dtype must be string, float32 or int64 (got %s)"
                         % (cls_name, d.name))
    return d


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A feature of a fixed number of values, parsed into a dense tensor of ``shape``."""
    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        shape = list(shape) if isinstance(shape, (list, tuple)) else [int(shape)]
        if any(d is None for d in shape):
            raise UnimplementedError("FixedLenFeature: unknown dimensions (allow_missing "
                                     "sequence features) are not supported (got shape %s)"
                                     % shape)
        return super().__new__(cls, shape, _feature_dtype("FixedLenFeature", dtype),
                               default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any number of values, parsed into a SparseTensor."""
    __slots__ = ()

    def __new__(cls, dtype):
        return super().__new__(cls, _feature_dtype("VarLenFeature", dtype))


class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype",
                          "validate"])):
    """A feature of any number of values, parsed into a RaggedTensor (one row a record).
    ``value_key`` reads the values from another key; ``partitions`` (further ragged axes
    from other features) are not supported."""
    __slots__ = ()

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype="int32",
                validate=False):
        if partitions:
            raise UnimplementedError("RaggedFeature: partitions are not supported (expected "
                                     "(), got %r)" % (tuple(partitions),))
        splits = as_dtype(row_splits_dtype)
        if splits.name not in ("int32", "int64"):
            raise ValueError("RaggedFeature: row_splits_dtype must be int32 or int64 (got %s)"
                             % splits.name)
        return super().__new__(cls, _feature_dtype("RaggedFeature", dtype), value_key,
                               tuple(partitions), splits, validate)


def _records(opname, serialized):
    if isinstance(serialized, _core.Tensor):
        # parsing is NumPy-level work a graph replay could not redo: inside fe.function,
        # records computed from the inputs make it run eagerly (with a warning) rather
        # than keep the first call's values
        _np(serialized, "the records %s parses" % opname)
    try:
        arr = bytes_array(serialized, opname)
    except (InvalidArgumentError, TypeError, ValueError) as e:
        raise InvalidArgumentError("%s: serialized must be a string tensor (%s)"
                                   % (opname, e)) from None
    return arr


def _decode(opname, index, record):
    try:
        return Example.FromString(record)
    except DataLossError as e:
        raise InvalidArgumentError("%s: could not parse example input %d (%s)"
                                   % (opname, index, e)) from None


def _values(opname, index, example, key, dtype):
    """The values of feature ``key`` of one record as a NumPy array, or None if absent."""
    feature = example.features.feature.get(key)
    if feature is None:
        return None
    want, want_name = _LIST_OF[dtype.name]
    kind = feature.WhichOneof("kind")
    if kind is None:          # an empty Feature{} is a missing feature, as in TensorFlow
        return None
    if kind != want:
        raise InvalidArgumentError("%s: Name: <unknown>, Key: %s, Index: %d. Data types don't "
                                   "match. Expected type: %s, Actual type: %s"
                                   % (opname, key, index, want_name, _KIND_NAME[kind]))
    vals = getattr(feature, kind).value
    if dtype.name == "string":
        out = np.empty(len(vals), dtype=object)
        out[:] = list(vals)
        return out
    return np.asarray(vals, dtype=dtype._np)


def _fixed(opname, examples, key, spec, batched):
    size = int(np.prod(spec.shape, dtype=np.int64))
    default = None
    if spec.default_value is not None:
        if spec.dtype.name == "string":
            d = bytes_array(spec.default_value, opname)
        else:
            d = np.asarray(spec.default_value.numpy() if isinstance(
                spec.default_value, _core.Tensor) else spec.default_value, dtype=spec.dtype._np)
        try:
            default = np.broadcast_to(d, spec.shape)
        except ValueError:
            raise InvalidArgumentError("%s: the default_value of %s does not fit its shape "
                                       "%s (got shape %s)" % (opname, key, spec.shape,
                                                              list(d.shape))) from None
    rows = []
    for i, ex in enumerate(examples):
        v = _values(opname, i, ex, key, spec.dtype)
        if v is None:
            if default is None:
                raise InvalidArgumentError("%s: Name: <unknown>, Feature: %s (data type: %s) is "
                                           "required but could not be found."
                                           % (opname, key, _LIST_OF[spec.dtype.name][1]))
            rows.append(default)
            continue
        if v.size != size:
            raise InvalidArgumentError("%s: Name: <unknown>, Key: %s, Index: %d. Number of %s "
                                       "values != expected. Values size: %d but output shape: "
                                       "%s" % (opname, key, i, _LIST_OF[spec.dtype.name][1],
                                               v.size, spec.shape))
        rows.append(v.reshape(spec.shape))
    if batched:
        out = np.stack(rows) if rows else np.zeros([0] + spec.shape, dtype=spec.dtype._np)
    else:
        out = rows[0]
    return _core.wrap(np.array(out, dtype=spec.dtype._np))    # (ascontiguousarray: >= 1-D)


def _lists(opname, examples, key, dtype):
    out = []
    for i, ex in enumerate(examples):
        v = _values(opname, i, ex, key, dtype)
        out.append(v if v is not None else np.zeros(0, dtype=dtype._np))
    return out


def _var_len(opname, examples, key, spec, batched):
    lists = _lists(opname, examples, key, spec.dtype)
    lengths = [len(v) for v in lists]
    flat = np.concatenate(lists) if lists else np.zeros(0, dtype=spec.dtype._np)
    if spec.dtype.name == "string":
        flat = flat.astype(object)
    if batched:
        rows = np.repeat(np.arange(len(lists), dtype=np.int64), lengths)
        cols = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]) if lists \
            else np.zeros(0, np.int64)
        indices = np.stack([rows, cols], axis=1)
        shape = [len(lists), max(lengths, default=0)]
    else:
        indices = np.arange(lengths[0], dtype=np.int64)[:, None]
        shape = [lengths[0]]
    return SparseTensor(indices, _core.wrap(flat), np.array(shape, dtype=np.int64))


def _ragged(opname, examples, key, spec, batched):
    lists = _lists(opname, examples, spec.value_key or key, spec.dtype)
    flat = np.concatenate(lists) if lists else np.zeros(0, dtype=spec.dtype._np)
    if spec.dtype.name == "string":
        flat = flat.astype(object)
    if not batched:
        return _core.wrap(flat)
    splits = np.concatenate([[0], np.cumsum([len(v) for v in lists])]).astype(
        spec.row_splits_dtype._np)
    return RaggedTensor.from_row_splits(_core.wrap(flat), _core.wrap(splits), validate=False)


_ORDER = ((VarLenFeature, _var_len), (FixedLenFeature, _fixed), (RaggedFeature, _ragged))


def _parse(opname, records, features, batched):
    if not isinstance(features, dict):
        raise TypeError("%s: features must be a dict of feature specs (got %s)"
                        % (opname, type(features).__name__))
    for key, spec in features.items():
        if not isinstance(spec, (FixedLenFeature, VarLenFeature, RaggedFeature)):
            raise TypeError("%s: the spec of %r must be a FixedLenFeature, VarLenFeature or "
                            "RaggedFeature (got %s)" % (opname, key, type(spec).__name__))
    examples = [_decode(opname, i, r) for i, r in enumerate(records)]
    out = {}
    for cls, build in _ORDER:
        for key in sorted(k for k, s in features.items() if isinstance(s, cls)):
            out[key] = build(opname, examples, key, features[key], batched)
    return out


def parse_example(serialized, features, example_names=None, name=None):
    """Parse a vector of serialized ``tf.train.Example`` records into a dict of tensors,
    one batch row per record (see the module docstring for each spec's result)."""
    arr = _records("parse_example", serialized)
    if arr.ndim != 1:
        raise InvalidArgumentError("parse_example: serialized must be a vector (got shape %s)"
                                   % list(arr.shape))
    return _parse("parse_example", list(arr), features, True)


def parse_single_example(serialized, features, example_names=None, name=None):
    """Parse one serialized ``tf.train.Example`` (a scalar string) into a dict of tensors
    without the batch axis: FixedLen ``shape``, VarLen a rank-1 SparseTensor, Ragged a
    dense vector."""
    arr = _records("parse_single_example", serialized)
    if arr.ndim != 0:
        raise InvalidArgumentError("parse_single_example: serialized must be a scalar (got "
                                   "shape %s)" % list(arr.shape))
    return _parse("parse_single_example", [arr.reshape(-1)[0]], features, False)
