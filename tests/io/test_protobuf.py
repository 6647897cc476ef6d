"""The io layer's one protobuf wire codec (fasteager._src.io.protobuf): what it writes
reads back, and malformed bytes are a DataLossError naming the message and offset. The
summary, profiler and tf.train.Example files are written with it (their own tests check
the files against TensorBoard's and TensorFlow's readers)."""
import struct

import pytest

from fasteager._src.io import protobuf as pb
from fasteager.errors import DataLossError


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2 ** 32, 2 ** 63 - 1, -1, -(2 ** 63)])
def test_varint_round_trip(value):
    data = pb.field_varint(3, value)
    ((number, wire, got),) = list(pb.fields(data))
    assert (number, wire) == (3, pb.VARINT)
    assert pb.signed64(got) == value
    # a negative int64 is ten bytes of two's complement, as protobuf writes it
    if value < 0:
        assert len(pb.varint(value)) == 10


def test_fields_of_every_wire_type():
    data = (pb.field_bytes(1, "héllo") + pb.field_double(2, 1.5) + pb.field_float(3, 2.5)
            + pb.field_varint(4, 7) + pb.field_bytes(536870911, b""))
    got = list(pb.fields(data))
    assert got == [(1, pb.LEN, "héllo".encode()), (2, pb.I64, struct.pack("<d", 1.5)),
                   (3, pb.I32, struct.pack("<f", 2.5)), (4, pb.VARINT, 7),
                   (536870911, pb.LEN, b"")]


def test_reader_spans_and_sub_messages():
    inner = pb.field_varint(1, 5) + pb.field_bytes(2, b"ab")
    data = pb.field_bytes(7, inner)
    reader = pb.Reader(data, what="Outer")
    ((number, wire, span),) = list(reader.fields())
    assert (number, wire) == (7, pb.LEN) and reader.bytes_of(span) == inner
    sub = reader.sub(span)
    assert [(n, w, v if w == pb.VARINT else sub.bytes_of(v)) for n, w, v in sub.fields()] == \
        [(1, pb.VARINT, 5), (2, pb.LEN, b"ab")]


@pytest.mark.parametrize("data, why", [
    (b"\x0a\xff\xff\xff\xff\x0f", "runs past the end"),       # a length past the end
    (b"\x08" + b"\xff" * 10 + b"\x01", "longer than 10 bytes"),  # an 11-byte varint
    (b"\x0b", "wire type 3"),                                 # a group
    (b"\x0f", "wire type 7"),                                 # no such wire type
    (b"\x00\x01", "field number 0"),
    (pb.varint(1 << 32 | 2) + b"\x00", "field number 536870912"),  # past protobuf's range
    (b"\x08", "runs past the end"),                           # a key without its value
    (b"\x11\x00\x00", "fixed-width field runs past"),         # a fixed64 cut short
])
def test_malformed_bytes_are_data_loss_with_the_offset(data, why):
    with pytest.raises(DataLossError, match=r"^Msg: malformed protobuf at byte \d+ \(.*%s"
                       % why):
        list(pb.fields(data, "Msg"))
    # a DataLossError is a ValueError, which the summary metadata check relies on
    assert issubclass(DataLossError, ValueError)
