"""TensorBoard's profile file (``<host>.xplane.pb``): an ``XSpace`` protobuf message,
written and read here on the package's protobuf codec (``fasteager._src.io.protobuf``;
the fields used are those of TensorFlow's ``tsl/profiler/protobuf/xplane.proto``):

* ``XSpace``: planes = 1, errors = 2, warnings = 3, hostnames = 4;
* ``XPlane``: id = 1, name = 2, lines = 3, event_metadata = 4 (map int64 -> metadata),
  stat_metadata = 5 (map int64 -> metadata), stats = 6;
* ``XLine``: id = 1, name = 2, timestamp_ns = 3, events = 4, duration_ps = 9,
  display_id = 10, display_name = 11;
* ``XEvent``: metadata_id = 1, offset_ps = 2 (from the line's timestamp), duration_ps = 3,
  stats = 4;
* ``XStat``: metadata_id = 1, double_value = 2, uint64_value = 3, int64_value = 4,
  str_value = 5;
* ``XEventMetadata`` / ``XStatMetadata``: id = 1, name = 2 (``display_name`` = 4 of an
  event's).
"""
import struct

from .._src.io.protobuf import field_bytes as _bytes
from .._src.io.protobuf import field_double
from .._src.io.protobuf import field_varint
from .._src.io.protobuf import fields as _pb_fields
from .._src.io.protobuf import signed64 as _signed

__all__ = ["encode_space", "decode_space"]


# -- writing ----------------------------------------------------------------------------
def _int(field, n):
    return field_varint(field, n) if n else b""


def _str(field, text):
    return _bytes(field, text.encode("utf-8")) if text else b""


def _stat(metadata_id, value):
    out = _int(1, metadata_id)
    if isinstance(value, bool) or isinstance(value, int):
        return out + field_varint(4, int(value))
    if isinstance(value, float):
        return out + field_double(2, value)
    return out + _bytes(5, str(value).encode("utf-8"))


def encode_space(hostname, planes):
    """An XSpace's bytes. ``planes``: [(id, name, lines, event names, stat names)] where
    ``lines`` is [(id, name, timestamp_ns, [(metadata id, start_ns, end_ns,
    [(stat metadata id, value)])])] and the names map metadata ids to names."""
    out = b""
    for plane_id, name, lines, event_names, stat_names in planes:
        plane = _int(1, plane_id) + _str(2, name)
        for line_id, line_name, timestamp, events in lines:
            line = _int(1, line_id) + _str(2, line_name) + _int(3, timestamp)
            end = timestamp
            for metadata_id, start, stop, stats in events:
                event = _int(1, metadata_id) + _int(2, (start - timestamp) * 1000) + \
                    _int(3, (stop - start) * 1000)
                for stat_id, value in stats:
                    event += _bytes(4, _stat(stat_id, value))
                line += _bytes(4, event)
                end = max(end, stop)
            line += _int(9, (end - timestamp) * 1000) + _int(10, line_id) + \
                _str(11, line_name)
            plane += _bytes(3, line)
        for mid, mname in sorted(event_names.items()):
            meta = _int(1, mid) + _str(2, mname) + _str(4, mname)
            plane += _bytes(4, _int(1, mid) + _bytes(2, meta))
        for mid, mname in sorted(stat_names.items()):
            meta = _int(1, mid) + _str(2, mname)
            plane += _bytes(5, _int(1, mid) + _bytes(2, meta))
        out += _bytes(1, plane)
    return out + _str(4, hostname)


# -- reading (tests, and anyone checking a file) ------------------------------------------
def _fields(data):
    """(field, wire type, value) of a message's bytes: ints for varints, bytes otherwise;
    DataLossError (a ValueError) if malformed."""
    return _pb_fields(data, "xplane")


def _decode_stat(data, names):
    stat = {}
    for field, _, value in _fields(data):
        if field == 1:
            stat["name"] = names.get(value, value)
        elif field == 2:
            stat["value"] = struct.unpack("<d", value)[0]
        elif field in (3, 4):
            stat["value"] = _signed(value) if field == 4 else value
        elif field == 5:
            stat["value"] = value.decode("utf-8")
    return stat


def decode_space(data):
    """An XSpace's bytes as ``{"hostnames": [...], "planes": [{"id", "name", "lines":
    [{"id", "name", "timestamp_ns", "duration_ps", "events": [{"name", "offset_ps",
    "duration_ps", "stats": {name: value}}]}]}]}``."""
    space = {"hostnames": [], "planes": []}
    for field, _, value in _fields(data):
        if field == 1:
            space["planes"].append(_decode_plane(value))
        elif field == 4:
            space["hostnames"].append(value.decode("utf-8"))
    return space


def _decode_plane(data):
    plane = {"id": 0, "name": "", "lines": []}
    raw_lines, event_names, stat_names = [], {}, {}
    for field, _, value in _fields(data):
        if field == 1:
            plane["id"] = _signed(value)
        elif field == 2:
            plane["name"] = value.decode("utf-8")
        elif field == 3:
            raw_lines.append(value)
        elif field in (4, 5):
            key, meta = 0, b""
            for f, _, v in _fields(value):
                if f == 1:
                    key = _signed(v)
                elif f == 2:
                    meta = v
            name = ""
            for f, _, v in _fields(meta):
                if f == 2:
                    name = v.decode("utf-8")
            (event_names if field == 4 else stat_names)[key] = name
    for data in raw_lines:
        line = {"id": 0, "name": "", "timestamp_ns": 0, "duration_ps": 0, "events": []}
        for field, _, value in _fields(data):
            if field == 1:
                line["id"] = _signed(value)
            elif field == 2:
                line["name"] = value.decode("utf-8")
            elif field == 3:
                line["timestamp_ns"] = _signed(value)
            elif field == 9:
                line["duration_ps"] = _signed(value)
            elif field == 4:
                event = {"name": None, "offset_ps": 0, "duration_ps": 0, "stats": {}}
                for f, _, v in _fields(value):
                    if f == 1:
                        event["name"] = event_names.get(_signed(v), _signed(v))
                    elif f == 2:
                        event["offset_ps"] = _signed(v)
                    elif f == 3:
                        event["duration_ps"] = _signed(v)
                    elif f == 4:
                        stat = _decode_stat(v, stat_names)
                        event["stats"][stat.get("name")] = stat.get("value")
                line["events"].append(event)
        plane["lines"].append(line)
    return plane
