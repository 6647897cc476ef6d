"""``tf.train.Example`` and its parts, written and read in protobuf's wire format.

The messages of tensorflow/core/example/example.proto and feature.proto, without the
``protobuf`` package: ``Example { Features features = 1; }``,
``Features { map<string, Feature> feature = 1; }``, ``Feature { oneof kind { BytesList
bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }`` and the three
lists (``repeated bytes/float/int64 value = 1``, the numbers packed). ``SerializeToString``
gives bytes TensorFlow's parser reads; ``FromString`` reads what TensorFlow writes (packed
or not, unknown fields skipped). Reading untrusted bytes raises ``DataLossError`` with
the offset of the fault, never anything else.

>>> ex = fe.train.Example(features=fe.train.Features(feature={
...     "n": fe.train.Feature(int64_list=fe.train.Int64List(value=[7]))}))
>>> ex.SerializeToString()
b'\\n\\x0c\\n\\n\\n\\x01n\\x12\\x05\\x1a\\x03\\n\\x01\\x07'
"""
import struct

import numpy as np

from .protobuf import I32 as _I32
from .protobuf import LEN as _LEN
from .protobuf import VARINT as _VARINT
from .protobuf import Reader
from .protobuf import field_bytes as _f_bytes
from .protobuf import signed64 as _signed64
from .protobuf import varint as _varint

__all__ = ["BytesList", "Example", "Feature", "Features", "FloatList", "Int64List"]


def _expect(reader, wire, want, what):
    if wire != want:
        reader.fail("%s has wire type %d (expected %d)" % (what, wire, want))


# ---- descriptors: what protobuf's text_format reads ---------------------------------------------
# ``google.protobuf.text_format.Merge(text, fe.train.Example())`` (the ragged guide builds its
# records so) walks a message through ``DESCRIPTOR``: field names, types and repetition. These
# plain objects carry the same attributes with protobuf's enum values, so the text parser
# fills these messages without fasteager importing protobuf.

_TYPE_FLOAT, _TYPE_INT64, _TYPE_STRING, _TYPE_MESSAGE, _TYPE_BYTES = 2, 3, 9, 11, 12
_CPP = {_TYPE_FLOAT: 6, _TYPE_INT64: 2, _TYPE_STRING: 9, _TYPE_MESSAGE: 10, _TYPE_BYTES: 9}
_LABEL_OPTIONAL, _LABEL_REPEATED = 1, 3


class _Options:
    def __init__(self, map_entry):
        self.map_entry = map_entry


class _MessageDescriptor:
    is_extendable = False

    def __init__(self, name, fields, map_entry=False):
        self.name, self.full_name = name, "tensorflow." + name
        self.fields = fields
        self.fields_by_name = {f.name: f for f in fields}
        self.fields_by_number = {f.number: f for f in fields}
        for f in fields:
            f.full_name = "%s.%s" % (self.full_name, f.name)
            f.containing_type = self
        self.has_options = map_entry
        self._options = _Options(map_entry)

    def GetOptions(self):  # noqa: N802
        return self._options


class _FieldDescriptor:
    is_extension = False
    containing_oneof = None       # Feature's oneof: its setters replace the other members
    default_value = None

    def __init__(self, name, number, type_, repeated=False, message_type=None):
        self.name, self.number, self.type = name, number, type_
        self.cpp_type = _CPP[type_]
        self.is_repeated = repeated
        self.label = _LABEL_REPEATED if repeated else _LABEL_OPTIONAL
        self.message_type = message_type
        self.has_presence = type_ == _TYPE_MESSAGE and not repeated


# ---- the messages ----------------------------------------------------------------------------

def _escape(b):
    """protobuf's text-format escaping of bytes (C escapes, octal for the rest)."""
    out = []
    for c in b:
        ch = chr(c)
        if ch in "\"'\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= c < 0x7F:
            out.append(ch)
        else:
            out.append("\\%03o" % c)
    return "".join(out)


class _Message:
    """What the messages share: equality, text-format printing, parsing from bytes."""

    __slots__ = ()

    def SerializeToString(self, deterministic=None):  # noqa: N802 - protobuf's name
        return bytes(self._encode())

    def ByteSize(self):  # noqa: N802
        return len(self._encode())

    @classmethod
    def FromString(cls, data):  # noqa: N802
        out = cls()
        out.MergeFromString(data)
        return out

    def ParseFromString(self, data):  # noqa: N802
        self.Clear()
        return self.MergeFromString(data)

    def MergeFromString(self, data):  # noqa: N802
        if isinstance(data, str) or not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("%s.MergeFromString: expected bytes (got %s)"
                            % (type(self).__name__, type(data).__name__))
        data = bytes(data)
        self._merge(Reader(data, what="tf.train.Example"))
        return len(data)

    def CopyFrom(self, other):  # noqa: N802
        self.ParseFromString(other.SerializeToString())

    def SetInParent(self):  # noqa: N802
        """Mark this (sub)message as set in its parent, as protobuf's (text_format)."""
        parent = getattr(self, "_parent", None)
        if parent is not None:
            parent[0]._adopt(parent[1], self)

    def __eq__(self, other):
        return type(other) is type(self) and self._text(0) == other._text(0)

    __hash__ = None      # mutable, as protobuf's messages

    def __str__(self):
        return self._text(0)

    __repr__ = __str__


class _Values(list):
    """A list's ``value``: as protobuf's repeated fields, every value put in is checked
    (a ``str`` in a BytesList is a TypeError when it is appended, not when serialized)."""

    __slots__ = ("_check",)

    def __init__(self, check, values=()):
        self._check = check
        super().__init__(check(v) for v in values)

    def append(self, v):
        super().append(self._check(v))

    def extend(self, values):
        super().extend([self._check(v) for v in values])

    def insert(self, i, v):
        super().insert(i, self._check(v))

    def __setitem__(self, i, v):
        super().__setitem__(i, [self._check(x) for x in v] if isinstance(i, slice)
                            else self._check(v))

    def __iadd__(self, values):
        self.extend(values)
        return self


class _List(_Message):
    __slots__ = ("_value", "_parent")
    _kind = None

    def __init__(self, value=()):
        self._parent = None
        self._value = _Values(self._check, value)

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, values):
        self._value = _Values(self._check, values)

    def Clear(self):  # noqa: N802
        self._value = _Values(self._check)

    def _text(self, indent):
        pad = " " * indent
        return "".join("%svalue: %s\n" % (pad, self._show(v)) for v in self.value)


class BytesList(_List):
    """``repeated bytes value = 1``: bytes only, as protobuf's (a str, even ASCII, or a
    bytearray is a TypeError with protobuf's message)."""
    __slots__ = ()

    @staticmethod
    def _check(v):
        if isinstance(v, bytes):
            return bytes(v)
        t = type(v)
        name = t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__,
                                                                         t.__qualname__)
        raise TypeError("expected bytes, %s found" % name)

    @staticmethod
    def _show(v):
        return '"%s"' % _escape(v)

    def _encode(self):
        return b"".join(_f_bytes(1, self._check(v)) for v in self.value)

    def _merge(self, r):
        for number, wire, span in r.fields():
            if number == 1:
                _expect(r, wire, _LEN, "BytesList.value")
                list.append(self._value, r.bytes_of(span))


class FloatList(_List):
    """``repeated float value = 1 [packed = true]`` (float32)."""
    __slots__ = ()

    @staticmethod
    def _check(v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)):
            raise TypeError("FloatList: values must be numbers (got %s)" % type(v).__name__)
        return float(np.float32(v))

    @staticmethod
    def _show(v):
        f = np.float32(v)
        return "nan" if np.isnan(f) else ("inf" if f == np.inf else
                                          "-inf" if f == -np.inf else str(f))

    def _encode(self):
        if not self.value:
            return b""
        body = np.asarray([self._check(v) for v in self.value], dtype="<f4").tobytes()
        return _f_bytes(1, body)

    def _merge(self, r):
        for number, wire, span in r.fields():
            if number != 1:
                continue
            if wire == _LEN:
                if (span[1] - span[0]) % 4:
                    r.fail("packed FloatList.value of %d bytes (not a multiple of 4)"
                           % (span[1] - span[0]))
                list.extend(self._value, np.frombuffer(
                    r.data, "<f4", (span[1] - span[0]) // 4, span[0]).astype(float).tolist())
            elif wire == _I32:
                list.append(self._value, struct.unpack_from("<f", r.data, span[0])[0])
            else:
                r.fail("FloatList.value has wire type %d (expected 2 or 5)" % wire)


class Int64List(_List):
    """``repeated int64 value = 1 [packed = true]``."""
    __slots__ = ()

    @staticmethod
    def _check(v):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError("Int64List: values must be integers (got %s)" % type(v).__name__)
        v = int(v)
        if not -(1 << 63) <= v < (1 << 63):
            raise ValueError("Int64List: value %d is out of the int64 range" % v)
        return v

    @staticmethod
    def _show(v):
        return str(v)

    def _encode(self):
        if not self.value:
            return b""
        return _f_bytes(1, b"".join(_varint(self._check(v)) for v in self.value))

    def _merge(self, r):
        for number, wire, span in r.fields():
            if number != 1:
                continue
            if wire == _LEN:
                packed = r.sub(span)
                while packed.pos < packed.end:
                    list.append(self._value, _signed64(packed.varint()))
            elif wire == _VARINT:
                list.append(self._value, _signed64(span))
            else:
                r.fail("Int64List.value has wire type %d (expected 0 or 2)" % wire)


_KINDS = (("bytes_list", BytesList, 1), ("float_list", FloatList, 2),
          ("int64_list", Int64List, 3))


class Feature(_Message):
    """One of ``bytes_list``, ``float_list`` or ``int64_list`` (a oneof: setting one clears
    the others); ``WhichOneof("kind")`` names the one set."""

    __slots__ = ("_kind", "_list")

    def __init__(self, bytes_list=None, float_list=None, int64_list=None):
        self._kind = self._list = None
        given = [(name, v) for (name, _, _), v in zip(_KINDS, (bytes_list, float_list,
                                                               int64_list)) if v is not None]
        if len(given) > 1:
            raise ValueError("Feature: only one of bytes_list, float_list and int64_list may "
                             "be set (got %s)" % ", ".join(n for n, _ in given))
        for name, v in given:
            cls = dict((n, c) for n, c, _ in _KINDS)[name]
            if not isinstance(v, cls):
                raise TypeError("Feature: %s must be a %s (got %s)"
                                % (name, cls.__name__, type(v).__name__))
            self._kind, self._list = name, v

    def Clear(self):  # noqa: N802
        self._kind = self._list = None

    def WhichOneof(self, group):  # noqa: N802
        if group != "kind":
            raise ValueError("Feature: no oneof named %r (it has 'kind')" % (group,))
        return self._kind

    def HasField(self, name):  # noqa: N802
        return self._kind == name

    def _get(self, name, cls):
        # reading a oneof member that is not set gives an empty one (protobuf's default);
        # SetInParent on it makes it the member set
        if self._kind == name:
            return self._list
        out = cls()
        out._parent = (self, name)
        return out

    def _adopt(self, name, value):
        self._kind, self._list = name, value

    bytes_list = property(lambda self: self._get("bytes_list", BytesList))
    float_list = property(lambda self: self._get("float_list", FloatList))
    int64_list = property(lambda self: self._get("int64_list", Int64List))

    def _encode(self):
        if self._kind is None:
            return b""
        number = [n for name, _, n in _KINDS if name == self._kind][0]
        return _f_bytes(number, self._list._encode())

    def _merge(self, r):
        for number, wire, span in r.fields():
            if 1 <= number <= 3:
                name, cls, _ = _KINDS[number - 1]
                _expect(r, wire, _LEN, "Feature." + name)
                if self._kind != name:         # another member of the oneof: replaced
                    self._kind, self._list = name, cls()
                self._list._merge(r.sub(span))

    def _text(self, indent):
        if self._kind is None:
            return ""
        pad = " " * indent
        return "%s%s {\n%s%s}\n" % (pad, self._kind, self._list._text(indent + 2), pad)


class _FeatureEntry(_Message):
    """One entry of the ``Features.feature`` map (text_format parses entries into these)."""
    __slots__ = ("key", "_value")

    def __init__(self):
        self.key, self._value = "", None

    @property
    def value(self):
        if self._value is None:
            self._value = Feature()
        return self._value

    def HasField(self, name):  # noqa: N802
        return self._value is not None if name == "value" else False


class _FeatureMap(dict):
    """``Features.feature``: a dict, and protobuf's message map (a missing key reads as a
    new Feature stored under it; ``GetEntryClass`` for text_format)."""

    def __missing__(self, key):
        if not isinstance(key, str):
            raise TypeError("Features.feature: keys must be str (got %s)" % type(key).__name__)
        self[key] = value = Feature()
        return value

    @staticmethod
    def GetEntryClass():  # noqa: N802
        return _FeatureEntry


class Features(_Message):
    """``feature``: a dict from feature name (str) to Feature."""

    __slots__ = ("_feature",)

    @property
    def feature(self):
        return self._feature

    @feature.setter
    def feature(self, value):
        self._feature = _FeatureMap(value)

    def __init__(self, feature=None):
        self.feature = {}
        for name, value in (feature or {}).items():
            if not isinstance(name, str):
                raise TypeError("Features: feature names must be str (got %s)"
                                % type(name).__name__)
            if not isinstance(value, Feature):
                raise TypeError("Features: feature %r must be a Feature (got %s)"
                                % (name, type(value).__name__))
            self.feature[name] = value

    def Clear(self):  # noqa: N802
        self.feature = {}

    def __eq__(self, other):            # a map: equal whatever the order of its keys
        return type(other) is Features and self.feature == other.feature

    def _encode(self):
        out = []
        for name, value in self.feature.items():
            entry = _f_bytes(1, name.encode("utf-8")) + _f_bytes(2, value._encode())
            out.append(_f_bytes(1, entry))
        return b"".join(out)

    def _merge(self, r):
        for number, wire, span in r.fields():
            if number != 1:
                continue
            _expect(r, wire, _LEN, "Features.feature")
            entry = r.sub(span)
            name, value = "", Feature()
            for n, w, s in entry.fields():
                if n == 1:
                    _expect(entry, w, _LEN, "the key of Features.feature")
                    try:
                        name = entry.bytes_of(s).decode("utf-8")
                    except UnicodeDecodeError:
                        entry.fail("a feature name is not UTF-8")
                elif n == 2:
                    _expect(entry, w, _LEN, "the value of Features.feature")
                    value._merge(entry.sub(s))
            self.feature[name] = value     # a repeated key: the last one wins

    def _text(self, indent):
        pad = " " * indent
        out = []
        for name in self.feature:
            out.append('%sfeature {\n%s  key: "%s"\n%s  value {\n%s%s  }\n%s}\n' % (
                pad, pad, _escape(name.encode("utf-8")), pad,
                self.feature[name]._text(indent + 4), pad, pad))
        return "".join(out)


class Example(_Message):
    """``features``: one record of named features (``tf.train.Example``)."""

    __slots__ = ("_features",)

    def __init__(self, features=None):
        if features is not None and not isinstance(features, Features):
            raise TypeError("Example: features must be a Features (got %s)"
                            % type(features).__name__)
        self._features = features

    @property
    def features(self):
        if self._features is None:
            self._features = Features()
        return self._features

    def HasField(self, name):  # noqa: N802
        if name != "features":
            raise ValueError("Example: no field named %r" % (name,))
        return self._features is not None

    def _adopt(self, name, value):
        self._features = value

    def Clear(self):  # noqa: N802
        self._features = None

    def __eq__(self, other):
        return type(other) is Example and self.features == other.features

    def _encode(self):
        return b"" if self._features is None else _f_bytes(1, self._features._encode())

    def _merge(self, r):
        for number, wire, span in r.fields():
            if number == 1:
                _expect(r, wire, _LEN, "Example.features")
                self.features._merge(r.sub(span))

    def _text(self, indent):
        if self._features is None:
            return ""
        pad = " " * indent
        return "%sfeatures {\n%s%s}\n" % (pad, self._features._text(indent + 2), pad)


# the descriptors of the messages above (see "descriptors" at the top)
BytesList.DESCRIPTOR = _MessageDescriptor(
    "BytesList", [_FieldDescriptor("value", 1, _TYPE_BYTES, repeated=True)])
FloatList.DESCRIPTOR = _MessageDescriptor(
    "FloatList", [_FieldDescriptor("value", 1, _TYPE_FLOAT, repeated=True)])
Int64List.DESCRIPTOR = _MessageDescriptor(
    "Int64List", [_FieldDescriptor("value", 1, _TYPE_INT64, repeated=True)])
Feature.DESCRIPTOR = _MessageDescriptor("Feature", [
    _FieldDescriptor(name, number, _TYPE_MESSAGE, message_type=cls.DESCRIPTOR)
    for name, cls, number in _KINDS])
_FeatureEntry.DESCRIPTOR = _MessageDescriptor("Features.FeatureEntry", [
    _FieldDescriptor("key", 1, _TYPE_STRING),
    _FieldDescriptor("value", 2, _TYPE_MESSAGE, message_type=Feature.DESCRIPTOR)],
    map_entry=True)
Features.DESCRIPTOR = _MessageDescriptor("Features", [
    _FieldDescriptor("feature", 1, _TYPE_MESSAGE, repeated=True,
                     message_type=_FeatureEntry.DESCRIPTOR)])
Example.DESCRIPTOR = _MessageDescriptor("Example", [
    _FieldDescriptor("features", 1, _TYPE_MESSAGE, message_type=Features.DESCRIPTOR)])
