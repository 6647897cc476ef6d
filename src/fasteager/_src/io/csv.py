"""CSV as TensorFlow reads it, for ``tf.io.decode_csv`` and
``tf.data.experimental.CsvDataset`` (and ``make_csv_dataset``): one scanner of fields and
records, and the conversion of a field to its column's type.

Fields are bytes, never decoded text (a string column returns its bytes, valid UTF-8 or
not) and have no size limit but the input's. The grammar is TensorFlow's: a field that
starts with ``"`` (with ``use_quote_delim``) is quoted, ``""`` inside it is one quote, and
its closing quote must be followed by the delimiter or the end of the record; an unquoted
field may not hold a quote. In a file (``lines=True``) a record ends at ``\\n``, ``\\r\\n``
or ``\\r`` outside quotes; in a string given to decode_csv (``lines=False``) a ``\\n`` or
``\\r`` at the start of a field is skipped and anywhere else in an unquoted field is an
error, as TensorFlow's DecodeCSV kernel does.

Numbers follow TensorFlow's ``safe_strto32/64`` and ``safe_strtof/d``: ASCII whitespace
around the number is allowed; integers are decimal and in range; floats take decimal or
hexadecimal (``0x10`` is 16.0) notation, ``inf``, ``infinity`` and ``nan`` in any case,
and overflow to ``inf`` (``3.4e39`` as float32). A float32 is rounded once, from the
exact decimal value (never through float64 first).
"""
import re
import struct
from fractions import Fraction

import numpy as np

from ... import _core
from ...dtypes import DType, as_dtype
from ...errors import InvalidArgumentError
from ...ops.string_values import bytes_array
from ..composite.strings import _StringOp

__all__ = ["TYPES", "Scanner", "column_defaults", "convert", "decode_csv", "parse_number"]

TYPES = ("float32", "float64", "int32", "int64", "string")
# TensorFlow's names of the column types in its messages
_TF_NAME = {"float32": "float", "float64": "double", "int32": "int32", "int64": "int64",
            "string": "string"}

# ---- numbers ------------------------------------------------------------------------------

_WS = rb"[ \t\n\v\f\r]*"
_INT = re.compile(_WS + rb"([+-]?)0*([0-9]+)" + _WS + rb"\Z")
_FLOAT = re.compile(
    _WS + rb"([+-]?)(?:"
    rb"0[xX](?P<hm>[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP](?P<he>[+-]?[0-9]+))?"
    rb"|(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    rb"|(?P<inf>[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    rb"|(?P<nan>[nN][aA][nN](?:\([0-9A-Za-z_]*\))?))" + _WS + rb"\Z")
_INT_RANGE = {"int32": 1 << 31, "int64": 1 << 63}
_F32_EDGE = 2.0 ** 128 - 2.0 ** 103     # halfway between float32's max and 2**128
_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = 2.0 ** -126                 # below: float32 subnormals keep fewer bits
# a float64 at or above _F32_TINY is halfway between two float32 numbers when the 29 bits
# float32 drops are exactly 1000...0
_BITS, _BITS_D = struct.Struct("<Q"), struct.Struct("<d")
_LOW29, _HALF29 = (1 << 29) - 1, 1 << 28


def _parse_int(field, dtype):
    m = _INT.match(field)
    if m is None or len(m.group(2)) > 20:       # (more digits: out of range anyway)
        return None
    value = int(m.group(2))
    value = -value if m.group(1) == b"-" else value
    bound = _INT_RANGE[dtype]
    return value if -bound <= value < bound else None


def _exact(m):
    """The exact rational value of a matched finite decimal or hexadecimal number."""
    if m.group("dec") is not None:
        value = Fraction(m.group("dec").decode("ascii"))
    else:
        whole, _, frac = m.group("hm").decode("ascii").partition(".")
        value = Fraction(int((whole + frac) or "0", 16)) * Fraction(2) ** (
            int(m.group("he") or 0) - 4 * len(frac))
    return -value if m.group(1) == b"-" else value


def _to_float32(x, m):
    """float64 ``x`` (the value of match ``m`` rounded once) rounded to float32, as if the
    exact value were: only when ``x`` lies exactly halfway between two float32 numbers
    (or past float32's largest) can rounding twice differ, and then the exact value
    decides."""
    ax = abs(x)
    if ax > _F32_MAX and ax != float("inf"):
        # past the largest float32: below the halfway point to 2**128 it rounds down to
        # it, above to inf; exactly there (in float64) the exact value decides
        up = ax > _F32_EDGE or ax == _F32_EDGE and abs(_exact(m)) >= Fraction(_F32_EDGE)
        return np.float32(np.copysign(np.inf if up else _F32_MAX, x))
    if ax >= _F32_TINY and _BITS.unpack(_BITS_D.pack(x))[0] & _LOW29 != _HALF29:
        return np.float32(x)                # not halfway: one rounding is exact enough
    y = np.float32(x)
    if float(y) == x or x != x:
        return y
    other = np.nextafter(y, np.float32(np.inf if x > float(y) else -np.inf))
    mid = (float(y) + float(other)) / 2
    if x != mid:
        return y
    exact, half = _exact(m), Fraction(mid)
    if exact == half:
        return y                                   # a true tie: NumPy rounded to even
    lo, hi = sorted((y, other), key=float)
    return hi if exact > half else lo


def _parse_float(field, dtype):
    m = _FLOAT.match(field)
    if m is None:
        return None
    negative = m.group(1) == b"-"
    if m.group("nan") is not None:
        x = float("nan")
    elif m.group("inf") is not None:
        x = float("-inf") if negative else float("inf")
    elif m.group("dec") is not None:
        x = float(m.group(1) + m.group("dec"))
    else:
        whole, _, frac = m.group("hm").decode("ascii").partition(".")
        try:
            x = float.fromhex("0x%s.%sp%d" % (whole or "0", frac, int(m.group("he") or 0)))
        except OverflowError:
            x = float("inf")
        x = -x if negative else x
    if dtype == "float32":
        return _to_float32(x, m)
    return np.float64(x)


def parse_number(field, dtype):
    """``field`` (bytes) as a value of ``dtype`` (a TYPES name but string), or None."""
    if dtype.startswith("int"):
        return _parse_int(field, dtype)
    return _parse_float(field, dtype)


# ---- columns ------------------------------------------------------------------------------

def column_defaults(opname, record_defaults, to_array):
    """``[(dtype name, default ndarray scalar or None for a required column)]`` of each
    entry of ``record_defaults``: a dtype, an empty tensor (required) or one value."""
    if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
        raise ValueError("%s: record_defaults must be a non-empty list (got %r)"
                         % (opname, record_defaults))
    out = []
    for i, value in enumerate(record_defaults):
        if isinstance(value, DType):
            dtype, default = value, None
        else:
            if value is None:
                raise ValueError("%s: record_defaults[%d] is None (expected a default value, "
                                 "an empty tensor or a dtype)" % (opname, i))
            arr = np.asarray(to_array(value))
            dtype = as_dtype(arr.dtype)
            if arr.ndim > 1:
                raise InvalidArgumentError("%s: each record default should be at most rank 1 "
                                           "(record_defaults[%d] has shape %s)"
                                           % (opname, i, list(arr.shape)))
            if arr.size > 1:
                raise InvalidArgumentError("%s: there should only be 1 default per field but "
                                           "field %d has %d" % (opname, i, arr.size))
            default = arr.reshape(()) if arr.size else None
        if dtype.name not in TYPES:
            raise TypeError("%s: record_defaults[%d] has dtype %s (expected one of %s)"
                            % (opname, i, dtype.name, ", ".join(TYPES)))
        out.append((dtype.name, default))
    return out


def convert(opname, fields, columns, na_value, where):
    """The tuple of NumPy scalars of one record's selected ``fields`` (bytes)."""
    if len(fields) != len(columns):
        raise InvalidArgumentError("%s: expect %d fields but have %d in %s"
                                   % (opname, len(columns), len(fields), where))
    out = []
    for i, (field, (dtype, default)) in enumerate(zip(fields, columns)):
        if field == b"" or field == na_value:
            if default is None:
                raise InvalidArgumentError("%s: field %d is required but missing in %s "
                                           "(expected a value: the column has no default)"
                                           % (opname, i, where))
            out.append(default)
        elif dtype == "string":
            value = np.empty((), object)
            value[()] = field
            out.append(value)
        else:
            value = parse_number(field, dtype)
            if value is None:
                raise InvalidArgumentError(
                    "%s: field %d in %s is not a valid %s: %r"
                    % (opname, i, where, _TF_NAME[dtype],
                       field[:200].decode("utf-8", "backslashreplace")))
            out.append(np.asarray(value, dtype))
    return tuple(out)


# ---- fields and records -------------------------------------------------------------------

_PIECE = 1 << 16


class Scanner:
    """The records of CSV data, each a list of its fields (bytes).

    ``data``: bytes (one record of decode_csv, ``lines=False``) or a binary file object
    (``lines=True``), read in pieces: memory is bounded by the fields kept, and a field
    ``keep(i)`` rejects is scanned without being stored."""

    def __init__(self, opname, data, delim, use_quote, lines):
        self.opname, self.where = opname, "record 0"     # (for messages; callers update)
        if isinstance(data, (bytes, bytearray)):
            self._buf, self._file = bytes(data), None
        else:
            self._buf, self._file = b"", data
        self._pos = 0
        self._delim = delim
        self._quote = bool(use_quote)
        self._lines = lines
        stops = delim + b"\n\r" + (b'"' if use_quote else b"")
        self._stop = re.compile(b"[" + b"".join(re.escape(bytes([c])) for c in stops) + b"]")

    # -- the buffer --
    def _more(self):
        """Read another piece into the buffer (dropping what was consumed); False at the
        end of the data."""
        if self._file is None:
            return False
        piece = self._file.read(_PIECE)
        if not piece:
            self._file = None
            return False
        self._buf = self._buf[self._pos:] + piece
        self._pos = 0
        return True

    def _peek(self, ahead=0):
        """The byte ``ahead`` places past the position (an int), or None at the end."""
        while self._pos + ahead >= len(self._buf):
            if not self._more():
                return None
        return self._buf[self._pos + ahead]

    # -- fields --
    def _fail(self, what):
        raise InvalidArgumentError("%s: %s, in %s" % (self.opname, what, self.where))

    def _unquoted(self, keep):
        pieces = []
        while True:
            m = self._stop.search(self._buf, self._pos)
            end = m.start() if m else len(self._buf)
            if keep:
                pieces.append(self._buf[self._pos:end])
            self._pos = end
            if m is not None:
                c = self._buf[end]
                if c == self._delim[0]:
                    self._pos += 1
                    return b"".join(pieces), True
                if c == 0x22 or not self._lines:      # a quote, or a line end in a string
                    self._fail("unquoted fields cannot have quotes%s inside"
                               % ("" if self._lines else "/CRLFs"))
                return b"".join(pieces), False          # the record's end (not consumed)
            if not self._more():
                return b"".join(pieces), False

    def _quoted(self, keep):
        pieces = []
        self._pos += 1                                  # the opening quote
        while True:
            end = self._buf.find(b'"', self._pos)
            if end < 0:
                if keep:
                    pieces.append(self._buf[self._pos:])
                self._pos = len(self._buf)
                if not self._more():
                    self._fail("quoted field has to end with quote followed by delim or end "
                               "(the data ends inside a quoted field)")
                continue
            if keep:
                pieces.append(self._buf[self._pos:end])
            self._pos = end
            after = self._peek(1)
            if after == 0x22:                             # "" is one quote
                if keep:
                    pieces.append(b'"')
                self._pos += 2
            elif after is not None and after == self._delim[0]:
                self._pos += 2
                return b"".join(pieces), True
            elif after is None or self._lines and after in (0x0A, 0x0D):
                self._pos += 1
                return b"".join(pieces), False
            else:
                self._fail("quote inside a string has to be escaped by another quote (a "
                           "quoted field must end with a quote followed by the delimiter or "
                           "the end of the record)")

    def record(self, keep=None):
        """The next record's fields of a file (those ``keep(i)`` accepts), or None at the
        end of the data."""
        if self._peek() is None:
            return None
        fields, n, more = [], 0, True
        while more:
            include = keep is None or keep(n)
            if self._quote and self._peek() == 0x22:
                field, more = self._quoted(include)
            else:
                field, more = self._unquoted(include)
            n += 1
            if include:
                fields.append(field)
        c = self._peek()                                  # the line end: \n, \r\n or \r
        if c == 0x0D:
            self._pos += 1
            c = self._peek()
        if c == 0x0A:
            self._pos += 1
        return fields

    def skip_line(self):
        """Move past the next line end (after a malformed record, to read on)."""
        while True:
            ends = [i for i in (self._buf.find(b"\n", self._pos),
                                self._buf.find(b"\r", self._pos)) if i >= 0]
            if ends:
                self._pos = min(ends)
                if self._peek() == 0x0D:
                    self._pos += 1
                if self._peek() == 0x0A:
                    self._pos += 1
                return
            self._pos = len(self._buf)
            if not self._more():
                return

    def string_record(self, keep=None, stop_after=None):
        """The fields of a string record (decode_csv), as TensorFlow's DecodeCSV splits
        it: no field in an empty string, a line end at a field's start skipped, an empty
        last field after a trailing delimiter; with ``stop_after`` kept fields, the rest of
        the record is not read."""
        data, fields, n = self._buf, [], 0
        while self._pos < len(data):
            if data[self._pos] in (0x0A, 0x0D):
                self._pos += 1
                continue
            include = keep is None or keep(n)
            if self._quote and data[self._pos] == 0x22:
                field, _ = self._quoted(include)
            else:
                field, _ = self._unquoted(include)
            n += 1
            if include:
                fields.append(field)
                if stop_after is not None and len(fields) == stop_after:
                    return fields
        if data and data[-1] == self._delim[0] and (keep is None or keep(n)):
            fields.append(b"")
        return fields


# ---- tf.io.decode_csv ---------------------------------------------------------------------

def _default_array(value):
    if isinstance(value, _core.VariableBase):
        value = value._read()
    return _core.convert_to_tensor(value)._value


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Split each CSV record of the string tensor ``records`` into columns: a list of
    tensors of ``records``' shape, one per entry of ``record_defaults`` (its dtype is the
    column's: float32, float64, int32, int64 or string; an empty tensor makes the column
    required; an empty field or ``na_value`` takes the default).

    >>> fe.io.decode_csv(fe.constant("a.jpg,3"), ["", 0])
    [<... b'a.jpg'>, <... 3>]
    """
    op = "decode_csv"
    if not isinstance(use_quote_delim, (bool, np.bool_)):
        raise TypeError("%s: expected bool for argument 'use_quote_delim' not %r"
                        % (op, use_quote_delim))
    if isinstance(records, (int, float, bool)) and not isinstance(records, str):
        raise TypeError("%s: cannot convert %r to a string tensor" % (op, records))
    arr = bytes_array(records, op)
    columns = column_defaults(op, record_defaults, _default_array)
    if select_cols is not None:
        select = [int(c) for c in np.asarray(select_cols).reshape(-1)]
        if any(b <= a for a, b in zip(select, select[1:])):
            raise ValueError("%s: select_cols is not strictly increasing (got %s)"
                             % (op, select))
        if select and select[0] < 0:
            raise ValueError("%s: select_cols contains negative values (got %s)" % (op, select))
        if len(select) != len(columns):
            raise ValueError("%s: length of select_cols and record_defaults do not match "
                             "(%d and %d)" % (op, len(select), len(columns)))
        keep, stop_after = set(select).__contains__, len(select)
    else:
        keep = stop_after = None
    delim = field_delim.encode("utf-8") if isinstance(field_delim, str) else field_delim
    if not isinstance(delim, bytes) or len(delim) != 1:
        raise InvalidArgumentError("%s: field_delim should be only 1 char (got %r)"
                                   % (op, field_delim))
    na = na_value.encode("utf-8") if isinstance(na_value, str) else bytes(na_value)
    return list(_decode_csv_op(_core.wrap(arr), columns=tuple(columns), delim=delim,
                               use_quote=bool(use_quote_delim), na=na, keep=keep,
                               stop_after=stop_after))


def _decode_csv_forward(arr, columns, delim, use_quote, na, keep, stop_after):
    """The kernel of decode_csv (an ``fe.strings`` op, so that a traced function records it
    and its replays parse their own records)."""
    op = "decode_csv"
    flat = arr.reshape(-1)
    out = [np.empty(flat.shape, object if d == "string" else d) for d, _ in columns]
    for i, record in enumerate(flat):
        scanner = Scanner(op, record, delim, use_quote, lines=False)
        scanner.where = "record %d" % i
        fields = scanner.string_record(keep, stop_after)
        for column, value in zip(out, convert(op, fields, columns, na, scanner.where)):
            column[i] = value[()]
    return tuple(c.reshape(arr.shape) for c in out)


_decode_csv_op = _StringOp("decode_csv", _decode_csv_forward, multi=True)
