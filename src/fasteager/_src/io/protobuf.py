"""The package's one protobuf wire-format codec (no ``protobuf`` package needed).

Wire format (https://protobuf.dev/programming-guides/encoding/): a message is a sequence
of fields, each a key, the varint ``field_number << 3 | wire_type``, then its value:
wire type 0 a varint, 1 eight little-endian bytes, 2 a varint length and that many bytes
(strings, bytes, sub-messages, packed repeated numbers), 5 four little-endian bytes
(3/4 are the deprecated groups). Fields may come in any order; a default value may be
left out. The message-specific encoders and decoders (TensorBoard's ``Event``,
``tf.train.Example``, the profiler's ``XSpace``, ``GraphDef``) live with their subsystem
and are built on the functions here.

Writing: ``field_varint``, ``field_double``, ``field_float``, ``field_bytes`` give a
field's bytes; a message is their concatenation. Reading: ``Reader`` walks the fields of
``data[start:end]`` without copying and raises ``DataLossError`` (a ValueError) naming
the message and the byte offset on any fault, so untrusted bytes never raise anything
else; ``fields`` is the copying convenience over it.
"""
import struct

from ...errors import DataLossError

__all__ = ["I32", "I64", "LEN", "VARINT", "Reader", "field_bytes", "field_double",
           "field_float", "field_varint", "fields", "key", "signed64", "varint"]

VARINT, I64, LEN, I32 = 0, 1, 2, 5
_MASK64 = (1 << 64) - 1
# protobuf's field numbers are 1 .. 2**29 - 1 (a key is a uint32)
_MAX_FIELD = (1 << 29) - 1


# ---- writing -----------------------------------------------------------------------------

def varint(value):
    """``value`` as a base-128 varint; a negative int64 is its 10-byte two's complement."""
    value &= _MASK64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(field, wire_type):
    return varint((field << 3) | wire_type)


def field_varint(field, value):
    return key(field, VARINT) + varint(value)


def field_double(field, value):
    return key(field, I64) + struct.pack("<d", value)


def field_float(field, value):
    return key(field, I32) + struct.pack("<f", value)


def field_bytes(field, payload):
    """A length-delimited field; a str payload is written as UTF-8."""
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return key(field, LEN) + varint(len(payload)) + payload


def signed64(v):
    """A varint read back as int64 (two's complement)."""
    return v - (1 << 64) if v >> 63 else v


# ---- reading -----------------------------------------------------------------------------

class Reader:
    """The fields of one message in ``data[start:end]``; every fault is a DataLossError
    ``"<what>: malformed protobuf at byte <offset> (<why>)"``."""

    __slots__ = ("data", "pos", "end", "what")

    def __init__(self, data, start=0, end=None, what="protobuf"):
        self.data, self.pos, self.what = data, start, what
        self.end = len(data) if end is None else end

    def fail(self, why):
        raise DataLossError("%s: malformed protobuf at byte %d (%s)" % (self.what, self.pos, why))

    def varint(self):
        result = shift = 0
        data, pos, end = self.data, self.pos, self.end
        for _ in range(10):
            if pos >= end:
                self.fail("a varint runs past the end of its message")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                self.pos = pos
                return result & _MASK64
            shift += 7
        self.fail("a varint is longer than 10 bytes")

    def fields(self):
        """Yield ``(field_number, wire_type, value)``: an int for varints, a
        ``(start, end)`` span of ``data`` for length-delimited and fixed-width fields."""
        while self.pos < self.end:
            k = self.varint()
            number, wire = k >> 3, k & 7
            if not 1 <= number <= _MAX_FIELD:
                self.fail("field number %d" % number)
            if wire == VARINT:
                yield number, wire, self.varint()
            elif wire in (I64, I32):
                width = 8 if wire == I64 else 4
                if self.pos + width > self.end:
                    self.fail("a fixed-width field runs past the end of its message")
                yield number, wire, (self.pos, self.pos + width)
                self.pos += width
            elif wire == LEN:
                length = self.varint()
                if length > self.end - self.pos:
                    self.fail("a length of %d runs past the end of its message" % length)
                yield number, wire, (self.pos, self.pos + length)
                self.pos += length
            else:          # 3/4 are groups (no message here has them); 6/7 do not exist
                self.fail("wire type %d" % wire)

    def sub(self, span):
        """A reader of the sub-message in ``span``."""
        return Reader(self.data, span[0], span[1], self.what)

    def bytes_of(self, span):
        return bytes(self.data[span[0]:span[1]])


def fields(data, what="protobuf"):
    """``(field_number, wire_type, value)`` of a message's bytes: an int for varints, the
    bytes of the value otherwise. DataLossError (a ValueError) if it is malformed."""
    reader = Reader(data, what=what)
    for number, wire, value in reader.fields():
        yield number, wire, value if wire == VARINT else reader.bytes_of(value)
