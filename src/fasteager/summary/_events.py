"""TensorBoard ``Event`` records: their protobuf messages and their TFRecord files.

TensorBoard reads ``events.out.tfevents.*`` files: a sequence of TFRecords, each
``uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)``
(all little-endian), whose data is a serialized ``tensorboard.Event``. Only the few
messages a summary writer needs are encoded here, so neither TensorFlow nor the
``protobuf`` package is needed. Field numbers follow tensorboard/compat/proto
(event.proto, summary.proto, tensor.proto, tensor_shape.proto, types.proto).

The wire format is the package's one codec (``fasteager._src.io.protobuf``), the
framing and CRC-32C its TFRecord module's (``fasteager._src.io.tfrecord``).
"""

from .._src.io.protobuf import field_bytes as _f_bytes
from .._src.io.protobuf import field_double as _f_double
from .._src.io.protobuf import field_varint as _f_varint
from .._src.io.protobuf import fields
from .._src.io.tensor_proto import string_tensor_proto, tensor_proto
from .._src.io.tfrecord import crc32c, frame_record, masked_crc32c, read_records

__all__ = [
    "DATA_CLASS_BLOB_SEQUENCE",
    "DATA_CLASS_SCALAR",
    "DATA_CLASS_TENSOR",
    "check_summary_metadata",
    "crc32c",
    "event",
    "file_version_event",
    "frame_record",
    "iter_records",
    "masked_crc32c",
    "string_tensor_proto",
    "summary_metadata",
    "summary_value",
    "tensor_proto",
]

# DataClass enum (summary.proto): how TensorBoard's data provider exposes a time series.
DATA_CLASS_SCALAR = 1
DATA_CLASS_TENSOR = 2
DATA_CLASS_BLOB_SEQUENCE = 3



def iter_records(fileobj):
    """Yield the data of each TFRecord in a binary file object, checking both CRCs.

    Raises DataLossError (a ValueError) on a truncated record or a CRC mismatch. Used by
    tests and for debugging; TensorBoard has its own reader.
    """
    return read_records(fileobj)


# ---------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------

def summary_metadata(plugin_name, data_class, description=None, display_name=None,
                     content=b""):
    """Serialize a SummaryMetadata naming the TensorBoard plugin that owns the series."""
    plugin_data = _f_bytes(1, plugin_name)
    if content:
        plugin_data += _f_bytes(2, content)
    parts = [_f_bytes(1, plugin_data)]
    if display_name:
        parts.append(_f_bytes(2, display_name))
    if description:
        parts.append(_f_bytes(3, description))
    if data_class:
        parts.append(_f_varint(4, data_class))
    return b"".join(parts)


def check_summary_metadata(data):
    """Raise ValueError unless ``data`` parses as a SummaryMetadata.

    A malformed message, or a string field that is not UTF-8 (plugin_name = 1.1,
    display_name = 2, summary_description = 3), would make TensorBoard reject the whole
    event file, so user-supplied metadata is checked before it is written.
    """
    data = bytes(data)
    for field, wire_type, payload in fields(data, "SummaryMetadata"):
        if wire_type != 2:
            continue
        if field in (2, 3):
            payload.decode("utf-8")
        elif field == 1:
            for sub, sub_type, sub_payload in fields(payload, "SummaryMetadata.plugin_data"):
                if sub == 1 and sub_type == 2:
                    sub_payload.decode("utf-8")


def summary_value(tag, tensor, metadata=b""):
    """Serialize a Summary.Value: tag = 1, tensor = 8, metadata = 9."""
    parts = [_f_bytes(1, tag)]
    if metadata:
        parts.append(_f_bytes(9, metadata))
    parts.append(_f_bytes(8, tensor))
    return b"".join(parts)


def event(wall_time, step, values=(), raw_summary=None):
    """Serialize an Event holding a Summary of the given serialized Summary.Values.

    ``raw_summary`` (an already serialized Summary) is used instead of ``values``
    when given.
    """
    summary = raw_summary if raw_summary is not None else b"".join(
        _f_bytes(1, v) for v in values)
    return b"".join((_f_double(1, wall_time), _f_varint(2, int(step)), _f_bytes(5, summary)))


def file_version_event(wall_time):
    """Serialize the first Event of every file: ``file_version = "brain.Event:2"``."""
    return _f_double(1, wall_time) + _f_bytes(3, "brain.Event:2")
