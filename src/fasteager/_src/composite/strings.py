"""String tensors and ``fe.strings`` (TensorFlow's ``tf.strings``).

A string tensor is an ``fe.Tensor`` of dtype ``fe.string`` whose value is a NumPy object
array of ``bytes`` (Python ``str`` is encoded as UTF-8, as TensorFlow does), so ``.numpy()``
gives bytes and printing shows ``b'...'`` as TensorFlow does.

The core moves string entries itself: its dtype masks admit object arrays for the ops
that list the ``"O"`` kind (the layout ops, ``getitem``, ``equal``, ``not_equal`` and
``add``, which concatenates as ``tf.add`` does), so ``t[i]``, ``t == "x"``, ``t + "x"``,
``fe.reshape``, ``fe.concat``, ``fe.gather``... take string tensors, and every other op
refuses them with a typed error. The ``fe.strings`` functions run their own kernels
(``_StringOp``). Inside ``fe.function`` both are recorded as graph steps, so a traced
function with string arguments replays like any other (keyed by dtype and shape).
Strings have no gradient: ops on them are never recorded on a tape.

Regular expressions (``regex_replace``, ``regex_full_match``) take RE2 syntax; they run on
Python's ``re`` module, which agrees with RE2 on the common subset (classes, groups,
quantifiers, anchors, alternation, ``\\d \\w \\s``); RE2-only syntax such as ``\\pN`` or
``(?P=name)`` differences is not translated. Rewrites use ``\\1`` .. ``\\9`` and ``\\0``.
"""
import builtins
import functools
import re

import numpy as np

from ... import _core
from ...dtypes import as_dtype, float32
from ...errors import InvalidArgumentError
from ...ops.array_ops import reshape
from ...ops.registry import as_bool, as_int, normalize_axis
from .farmhash import fingerprint64
from .siphash import siphash24
from .ragged import RaggedTensor, map_flat_values
from .summarize import summarize_value
from .values import _as_tensor, _encode, _object_array, _string_input

__all__ = ["as_string", "bytes_split", "decode_raw", "format", "join", "length", "lower",
           "reduce_join", "regex_full_match", "regex_replace", "split", "strip", "substr",
           "to_hash_bucket_fast", "to_number", "unicode_decode", "unicode_encode",
           "unicode_split", "upper"]

builtins_format = builtins.format

_vectorize_cache = {}


# ---- conversion -----------------------------------------------------------------------------


# ---- running kernels (eagerly, and as steps of an fe.function trace) -------------------------

class _StringOp:
    """A string kernel: ``forward(*arrays, **attrs)`` gives an array or a tuple of arrays.

    Calls run it now; inside ``fe.function`` they also record it into the trace (through
    a core ``Op``, which the replay runs as it runs any op), so replays recompute it."""

    def __init__(self, name, forward, multi=False):
        self.name = name
        self.forward = forward
        self.op = _core.Op(name, forward, no_grad_reason="string ops have no gradient",
                           multi=multi, kinds="fiub")
        self.op.eager_call = self     # what fe.function's eager re-runs call for this step
        self.multi = multi

    def __call__(self, *tensors, **attrs):
        arrays = [t._value for t in tensors]
        try:
            r = self.forward(*arrays, **attrs)
        except InvalidArgumentError:
            raise
        except (ValueError, TypeError, IndexError, UnicodeError) as e:
            raise InvalidArgumentError("%s: %s" % (self.name, e)) from None
        out = tuple(_core.wrap(x) for x in r) if self.multi else _core.wrap(r)
        tracer = _core.get_tracer()
        if tracer is not None:
            tracer.record(self.op, tuple(tensors), attrs or None, out)
        return out


def _elementwise(fn, otype=object):
    """``fn`` on each entry of an object array (cached NumPy vectorize)."""
    key = (fn, otype)
    v = _vectorize_cache.get(key)
    if v is None:
        v = _vectorize_cache[key] = np.vectorize(fn, otypes=[otype])

    def run(arr, **attrs):
        if arr.size == 0:
            return np.empty(arr.shape, dtype=otype)
        return np.asarray(v(arr, **attrs) if attrs else v(arr), dtype=otype)
    return run


def _check_unit(opname, unit):
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError("%s: unit must be 'BYTE' or 'UTF8_CHAR' (got %r)"
                                   % (opname, unit))


def _on_flat_values(fn):
    """An elementwise string function that also takes a RaggedTensor (applied to its flat
    values, keeping the row partition), as TensorFlow dispatches them."""
    @functools.wraps(fn)
    def wrapper(input, *args, **kwargs):
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(fn(input.flat_values, *args, **kwargs))
        return fn(input, *args, **kwargs)
    return wrapper


# ---- length, case, strip -------------------------------------------------------------------

def _utf8(b, opname="strings"):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidArgumentError("%s: invalid UTF-8 in %r (%s)" % (opname, b, e)) from None


_length_bytes = _StringOp("string_length", _elementwise(len, np.int32))
_length_chars = _StringOp("string_length_utf8",
                          _elementwise(lambda b: len(_utf8(b, "length")), np.int32))


@_on_flat_values
def length(input, unit="BYTE", name=None):
    """The length of each string, in bytes (``unit='BYTE'``) or in UTF-8 characters
    (``unit='UTF8_CHAR'``), as int32.

    >>> fe.strings.length(["hi", "héllo"]).numpy()
    array([2, 6], dtype=int32)
    """
    _check_unit("length", unit)
    t = _string_input(input, "length")
    return (_length_bytes if unit == "BYTE" else _length_chars)(t)


_lower = _StringOp("string_lower", _elementwise(bytes.lower))
_upper = _StringOp("string_upper", _elementwise(bytes.upper))
_lower_utf8 = _StringOp("string_lower_utf8",
                        _elementwise(lambda b: _utf8(b, "lower").lower().encode("utf-8")))
_upper_utf8 = _StringOp("string_upper_utf8",
                        _elementwise(lambda b: _utf8(b, "upper").upper().encode("utf-8")))


def _check_encoding(opname, encoding):
    if encoding not in ("", "utf-8", "UTF-8", "utf8"):
        raise InvalidArgumentError("%s: encoding must be '' (ASCII letters only) or 'utf-8' "
                                   "(got %r)" % (opname, encoding))
    return bool(encoding)


@_on_flat_values
def lower(input, encoding="", name=None):
    """Lowercase: ASCII letters only, or every letter with ``encoding='utf-8'``."""
    full = _check_encoding("lower", encoding)
    return (_lower_utf8 if full else _lower)(_string_input(input, "lower"))


@_on_flat_values
def upper(input, encoding="", name=None):
    """Uppercase: ASCII letters only, or every letter with ``encoding='utf-8'``."""
    full = _check_encoding("upper", encoding)
    return (_upper_utf8 if full else _upper)(_string_input(input, "upper"))


# TensorFlow strips ASCII whitespace (space, \t \n \v \f \r), as bytes.strip() does
_strip = _StringOp("string_strip", _elementwise(bytes.strip))


@_on_flat_values
def strip(input, name=None):
    """Each string without leading and trailing whitespace."""
    return _strip(_string_input(input, "strip"))


# ---- join -----------------------------------------------------------------------------------

def _join_fwd(*arrays, separator):
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    parts = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    out = np.empty(shape, dtype=object)
    out.reshape(-1)[:] = [separator.join(row) for row in zip(*parts)] if parts[0].size else []
    return out


_join = _StringOp("string_join", _join_fwd)


def join(inputs, separator="", name=None):
    """Elementwise concatenation of a list of string tensors (broadcast against each
    other), with ``separator`` between them.

    >>> fe.strings.join(["abc", ["x", "y"]], separator="-").numpy()
    array([b'abc-x', b'abc-y'], dtype=object)
    """
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, (list, tuple)):
        raise InvalidArgumentError("join: inputs must be a list of string tensors (got %s)"
                                   % type(inputs).__name__)
    if not inputs:
        raise InvalidArgumentError("join: inputs must hold at least one tensor (got [])")
    if any(isinstance(x, RaggedTensor) for x in inputs):   # ragged: joined value by value
        return map_flat_values(lambda *xs: join(list(xs), separator), *inputs)
    tensors = [_string_input(x, "join", "inputs[%d]" % i) for i, x in enumerate(inputs)]
    try:
        np.broadcast_shapes(*[t._value.shape for t in tensors])
    except ValueError:
        raise InvalidArgumentError("join: inputs must broadcast to one shape (got %s)"
                                   % [list(t._value.shape) for t in tensors]) from None
    return _join(*tensors, separator=_encode(separator, "join"))


def _reduce_join_fwd(arr, axes, keepdims, separator):
    moved = np.moveaxis(arr, axes, builtins.range(arr.ndim - len(axes), arr.ndim))
    lead = moved.shape[:arr.ndim - len(axes)]
    flat = moved.reshape(lead + (-1,))
    out = np.empty(lead, dtype=object)
    out.reshape(-1)[:] = [separator.join(row) for row in flat.reshape(-1, flat.shape[-1])] \
        if out.size else []
    if keepdims:
        out = out.reshape(tuple(1 if i in axes else d for i, d in enumerate(arr.shape)))
    return out


_reduce_join = _StringOp("reduce_join", _reduce_join_fwd)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Join the strings along ``axis`` (all axes when None), with ``separator``.

    >>> fe.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1).numpy()
    array([b'ab', b'cd'], dtype=object)
    """
    t = _string_input(inputs, "reduce_join", "inputs")
    rank = t._value.ndim
    axes = normalize_axis("reduce_join", axis, rank)
    if axes is None:
        axes = tuple(builtins.range(rank))
    return _reduce_join(t, axes=axes, keepdims=as_bool("reduce_join", keepdims, "keepdims"),
                        separator=_encode(separator, "reduce_join"))


# ---- substr ---------------------------------------------------------------------------------

def _substr_fwd(arr, pos, ln, unit):
    shape = np.broadcast_shapes(arr.shape, pos.shape, ln.shape)
    out = np.empty(shape, dtype=object)
    a, p, n = (np.broadcast_to(x, shape).reshape(-1) for x in (arr, pos, ln))
    res = []
    for s, i, k in zip(a, p.tolist(), n.tolist()):
        seq = s if unit == "BYTE" else _utf8(s, "substr")
        size = len(seq)
        if i < -size or i > size:
            raise InvalidArgumentError("substr: pos %d is out of range for a string of length "
                                       "%d (expected -%d <= pos <= %d)" % (i, size, size, size))
        if k < 0:
            raise InvalidArgumentError("substr: len must be non-negative (got %d)" % k)
        start = i + size if i < 0 else i
        piece = seq[start:start + k]
        res.append(piece if unit == "BYTE" else piece.encode("utf-8"))
    out.reshape(-1)[:] = res
    return out


_substr = _StringOp("substr", _substr_fwd)


@_on_flat_values
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's name
    """The substrings of ``len`` bytes (or UTF-8 characters) starting at ``pos`` (negative:
    from the end); ``pos`` beyond the string is an error, ``len`` is clipped to its end.

    >>> fe.strings.substr("Hello World", 6, 5).numpy()
    b'World'
    """
    _check_unit("substr", unit)
    t = _string_input(input, "substr")
    p = _int_tensor(pos, "substr", "pos")
    n = _int_tensor(len, "substr", "len")
    try:
        np.broadcast_shapes(t._value.shape, p._value.shape, n._value.shape)
    except ValueError:
        raise InvalidArgumentError("substr: input, pos and len must broadcast (got shapes %s, "
                                   "%s, %s)" % (list(t._value.shape), list(p._value.shape),
                                                list(n._value.shape))) from None
    return _substr(t, p, n, unit=unit)


def _int_tensor(value, opname, argname):
    t = _as_tensor(value, opname)
    if t._value.dtype.kind not in "iu":
        raise InvalidArgumentError("%s: %s must be int32 or int64 (got %s)"
                                   % (opname, argname, t.dtype.name))
    return t


# ---- numbers <-> strings --------------------------------------------------------------------

def _to_number_fwd(arr, dtype):
    np_dtype = np.dtype(dtype)
    out = np.empty(arr.shape, dtype=np_dtype)
    flat = out.reshape(-1)
    for i, s in enumerate(arr.reshape(-1)):
        text = s.strip()
        try:
            if np_dtype.kind == "f":
                v = float(text)
            else:
                v = int(text)
                if not np.iinfo(np_dtype).min <= v <= np.iinfo(np_dtype).max:
                    raise ValueError
        except ValueError:
            raise InvalidArgumentError("to_number: StringToNumberOp could not correctly "
                                       "convert string: %s (expected a %s)"
                                       % (s.decode("utf-8", "replace"), np_dtype.name)) from None
        flat[i] = v
    return out


_to_number = _StringOp("string_to_number", _to_number_fwd)


@_on_flat_values
def to_number(string_tensor, out_type=None, name=None):
    """Each string parsed as a number of ``out_type`` (float32 by default).

    >>> fe.strings.to_number(["1.5", "-2"]).numpy()
    array([ 1.5, -2. ], dtype=float32)
    """
    dt = float32 if out_type is None else as_dtype(out_type)
    if dt._np.kind not in "fi":
        raise InvalidArgumentError("to_number: out_type must be float32, float64, int32 or "
                                   "int64 (got %s)" % dt.name)
    return _to_number(_string_input(string_tensor, "to_number", "string_tensor"),
                      dtype=dt._np.str)


def _as_string_fwd(arr, precision, scientific, shortest, width, fill):
    # a printf conversion as a Python format spec: [0][width][.precision]type
    kind = arr.dtype.kind
    pad = ("0" if fill == "0" else "") + (str(width) if width > 0 else "")
    if kind in "iu":
        spec = pad + "d"
    else:
        spec = pad + ("" if precision < 0 else ".%d" % precision) + \
            ("g" if shortest else "e" if scientific else "f")
    out = np.empty(arr.shape, dtype=object)
    if kind == "b":
        res = [("true" if v else "false").rjust(max(width, 0)) for v in arr.reshape(-1).tolist()]
    else:
        res = [builtins_format(v, spec) for v in arr.reshape(-1).tolist()]
    out.reshape(-1)[:] = [r.encode("ascii") for r in res]
    return out


_as_string = _StringOp("as_string", _as_string_fwd)


@_on_flat_values
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):
    """Each number as a string, as C's printf does it (floats: ``%f``, 6 decimals unless
    ``precision``; ``scientific``: ``%e``; ``shortest``: ``%g``), bools as true/false,
    right-aligned to ``width`` with ``fill`` (``''`` or ``' '``: spaces, ``'0'``: zeros).

    >>> fe.strings.as_string([3.5, 2.0]).numpy()
    array([b'3.500000', b'2.000000'], dtype=object)
    """
    t = _as_tensor(input, "as_string")
    if t._value.dtype.kind not in "fiub":
        raise InvalidArgumentError("as_string: input must be numeric or bool (got %s)"
                                   % t.dtype.name)
    if fill not in ("", " ", "0"):
        raise InvalidArgumentError("as_string: fill must be '', ' ' or '0' (got %r)" % fill)
    if scientific and shortest:
        raise InvalidArgumentError("as_string: cannot set both scientific and shortest")
    return _as_string(t, precision=int(precision), scientific=bool(scientific),
                      shortest=bool(shortest), width=int(width), fill=fill)


# ---- format -----------------------------------------------------------------------------------

def _format_fwd(*arrays, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = pieces[0]
    for arr, piece in zip(arrays, pieces[1:]):
        out += summarize_value(arr, summarize, quote_scalar=True) + piece
    return _object_array(out.encode("utf-8"))


_format = _StringOp("string_format", _format_fwd)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """``template`` with each ``placeholder`` replaced by the next of ``inputs``, shown as
    TensorFlow's formatter shows tensors (``summarize`` entries at each end of an axis).

    >>> fe.strings.format("x = {}", fe.constant([1, 2])).numpy()
    b'x = [1 2]'
    """
    if isinstance(inputs, (list, tuple)):
        values = list(inputs)
    else:
        values = [inputs]
    tensors = [_as_tensor(v, "format") for v in values]
    count = template.count(placeholder)
    if count != len(tensors):
        raise InvalidArgumentError("format: the template has %d placeholders %r but %d inputs "
                                   "were given" % (count, placeholder, len(tensors)))
    return _format(*tensors, template=template, placeholder=placeholder,
                   summarize=int(summarize))


# ---- regular expressions ----------------------------------------------------------------------

_rewrite_group = re.compile(rb"\\(\d)")


def _python_rewrite(rewrite):
    # RE2 rewrites name groups \0..\9 (\0 the whole match); Python's re wants \g<n>
    return _rewrite_group.sub(rb"\\g<\1>", rewrite)


def _compile(opname, pattern):
    try:
        return re.compile(_encode(pattern, opname))
    except re.error as e:
        raise InvalidArgumentError("%s: invalid pattern %r (%s)" % (opname, pattern, e)) from None


def _regex_replace_fwd(arr, pattern, rewrite, replace_global):
    rx = re.compile(pattern)
    count = 0 if replace_global else 1
    out = np.empty(arr.shape, dtype=object)
    out.reshape(-1)[:] = [rx.sub(rewrite, s, count=count) for s in arr.reshape(-1)]
    return out


_regex_replace = _StringOp("regex_replace", _regex_replace_fwd)


@_on_flat_values
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Replace the matches of ``pattern`` (RE2 syntax, the subset Python's ``re`` shares)
    with ``rewrite`` (``\\1`` names a group); only the first match unless
    ``replace_global``.

    >>> fe.strings.regex_replace("a1b22", r"\\d+", "#").numpy()
    b'a#b#'
    """
    t = _string_input(input, "regex_replace")
    rx = _compile("regex_replace", pattern)
    return _regex_replace(t, pattern=rx.pattern,
                          rewrite=_python_rewrite(_encode(rewrite, "regex_replace")),
                          replace_global=bool(replace_global))


def _full_match_fwd(arr, pattern):
    rx = re.compile(pattern)
    return np.array([rx.fullmatch(s) is not None for s in arr.reshape(-1)],
                    dtype=bool).reshape(arr.shape)


_full_match = _StringOp("regex_full_match", _full_match_fwd)


@_on_flat_values
def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches ``pattern`` (RE2 syntax, see ``regex_replace``)."""
    t = _string_input(input, "regex_full_match")
    return _full_match(t, pattern=_compile("regex_full_match", pattern).pattern)


# ---- splitting: rank-0 input gives a vector, rank-1 a RaggedTensor ----------------------------

def _split_rows(arr, piece):
    """(flat values, row_splits) of ``piece(s)`` for each string of a 1-D array."""
    values, splits = [], [0]
    for s in arr.reshape(-1):
        parts = piece(s)
        values.extend(parts)
        splits.append(splits[-1] + len(parts))
    return values, np.array(splits, dtype=np.int64)


def _ragged_kernel(piece, otype):
    def forward(arr):
        values, splits = _split_rows(arr, piece)
        return np.array(values, dtype=otype).reshape(-1), splits
    return forward


def _split_result(kernel, t, opname):
    rank = t._value.ndim
    if rank > 1:
        raise InvalidArgumentError("%s: input must be a scalar or a vector (got rank %d)"
                                   % (opname, rank))
    values, splits = kernel(t)
    if rank == 0:
        return values
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def _split_on(sep, maxsplit):
    if sep:
        return lambda s: s.split(sep, maxsplit) if s else []
    return lambda s: s.split(None, maxsplit)


_split_kernels = {}


def split(input, sep=None, maxsplit=-1, name=None):
    """Split each string at ``sep`` (runs of whitespace when None or ''), at most
    ``maxsplit`` times: a scalar gives a vector, a vector a ``RaggedTensor``.

    >>> fe.strings.split("Gray wolf")
    <fe.Tensor: shape=(2,), dtype=string, numpy=array([b'Gray', b'wolf'], dtype=object)>
    """
    t = _string_input(input, "split")
    sep_b = _encode(sep, "split") if sep else b""
    key = (sep_b, int(maxsplit))
    kernel = _split_kernels.get(key)
    if kernel is None:
        kernel = _split_kernels[key] = _StringOp(
            "string_split", _ragged_kernel(_split_on(sep_b, int(maxsplit)), object), multi=True)
    return _split_result(kernel, t, "split")


_bytes_split = _StringOp("bytes_split",
                         _ragged_kernel(lambda s: [s[i:i + 1] for i in builtins.range(len(s))],
                                        object), multi=True)


def bytes_split(input, name=None):
    """Each string as a list of one-byte strings (a vector for a scalar, else ragged)."""
    return _split_result(_bytes_split, _string_input(input, "bytes_split"), "bytes_split")


def _check_input_encoding(opname, encoding):
    if encoding not in ("UTF-8", "utf-8", "UTF8", "utf8"):
        raise InvalidArgumentError("%s: only UTF-8 is supported (got input_encoding %r)"
                                   % (opname, encoding))


def _decoder(errors, replacement_char):
    if errors not in ("replace", "strict", "ignore"):
        raise InvalidArgumentError("unicode_decode: errors must be 'replace', 'strict' or "
                                   "'ignore' (got %r)" % errors)
    handler = {"replace": "replace", "strict": "strict", "ignore": "ignore"}[errors]

    def codepoints(s):
        try:
            text = s.decode("utf-8", handler)
        except UnicodeDecodeError as e:
            raise InvalidArgumentError("unicode_decode: invalid UTF-8 in %r (%s)" % (s, e)) \
                from None
        cps = [ord(c) for c in text]
        if handler == "replace" and replacement_char != 0xFFFD:
            cps = [replacement_char if c == 0xFFFD else c for c in cps]
        return cps
    return codepoints


_decode_kernels = {}


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None):
    """The Unicode code points of each string, as int32 (a vector for a scalar, else a
    ``RaggedTensor``). Invalid bytes become ``replacement_char`` (``errors='replace'``),
    are dropped (``'ignore'``) or raise (``'strict'``).

    >>> fe.strings.unicode_decode("né", "UTF-8").numpy()
    array([110, 233], dtype=int32)
    """
    _check_input_encoding("unicode_decode", input_encoding)
    key = (errors, int(replacement_char))
    kernel = _decode_kernels.get(key)
    if kernel is None:
        kernel = _decode_kernels[key] = _StringOp(
            "unicode_decode", _ragged_kernel(_decoder(errors, int(replacement_char)), np.int32),
            multi=True)
    return _split_result(kernel, _string_input(input, "unicode_decode"), "unicode_decode")


_unicode_split = _StringOp(
    "unicode_split",
    _ragged_kernel(lambda s: [c.encode("utf-8") for c in s.decode("utf-8", "replace")],
                   object), multi=True)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """Each string as a list of its UTF-8 characters (a vector for a scalar, else ragged)."""
    _check_input_encoding("unicode_split", input_encoding)
    return _split_result(_unicode_split, _string_input(input, "unicode_split"),
                         "unicode_split")


def _encode_rows_fwd(values, splits, lead_shape):
    out = np.empty(len(splits) - 1, dtype=object)
    vals = values.tolist()
    try:
        out[:] = ["".join(map(chr, vals[a:b])).encode("utf-8")
                  for a, b in zip(splits[:-1].tolist(), splits[1:].tolist())]
    except (ValueError, OverflowError) as e:
        raise InvalidArgumentError("unicode_encode: invalid code point (%s)" % e) from None
    return out.reshape(lead_shape)


_unicode_encode = _StringOp("unicode_encode", _encode_rows_fwd)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,
                   name=None):
    """Code points (int32, the last axis, or the rows of a ``RaggedTensor``) encoded as
    UTF-8 strings: the result has one axis fewer.

    >>> fe.strings.unicode_encode([104, 105], "UTF-8").numpy()
    b'hi'
    """
    if output_encoding not in ("UTF-8", "utf-8", "UTF8", "utf8"):
        raise InvalidArgumentError("unicode_encode: only UTF-8 is supported (got "
                                   "output_encoding %r)" % output_encoding)
    if isinstance(input, RaggedTensor):
        if input.ragged_rank != 1 or input.flat_values._value.ndim != 1:
            raise InvalidArgumentError("unicode_encode: a ragged input must have ragged rank 1 "
                                       "and scalar values (got ragged rank %d)"
                                       % input.ragged_rank)
        return _unicode_encode(input.values, input.row_splits,
                               lead_shape=(len(input.row_splits._value) - 1,))
    t = _int_tensor(input, "unicode_encode", "input")
    arr = t._value
    if arr.ndim == 0:
        raise InvalidArgumentError("unicode_encode: input must have rank >= 1 (got a scalar)")
    n = arr.shape[-1]
    rows = int(np.prod(arr.shape[:-1], dtype=np.int64))
    splits = _core.wrap(np.arange(rows + 1, dtype=np.int64) * n)
    return _unicode_encode(reshape(t, [-1]), splits, lead_shape=arr.shape[:-1])


# ---- hashing ----------------------------------------------------------------------------------

def _bucket(b, num_buckets):
    return fingerprint64(b) % num_buckets


_hash_bucket_fast = _StringOp("string_to_hash_bucket_fast", _elementwise(_bucket, np.int64))


@_on_flat_values
def to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's bucket in ``[0, num_buckets)``: FarmHash ``Fingerprint64`` modulo
    ``num_buckets``, as TensorFlow computes it (int64; the same ids as TensorFlow's).

    >>> fe.strings.to_hash_bucket_fast(["Hello"], 10).dtype
    fe.int64
    """
    n = _positive_int("to_hash_bucket_fast", num_buckets, "num_buckets")
    return _hash_bucket_fast(_string_input(input, "to_hash_bucket_fast"), num_buckets=n)


def _bucket_strong(b, num_buckets, k0, k1):
    return siphash24(k0, k1, b) % num_buckets


_hash_bucket_strong = _StringOp("string_to_hash_bucket_strong",
                                _elementwise(_bucket_strong, np.int64))


@_on_flat_values
def to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string's bucket in ``[0, num_buckets)``: SipHash-2-4 under ``key`` (two
    integers, taken modulo 2**64) modulo ``num_buckets``, as TensorFlow computes it
    (int64; the same ids as TensorFlow's).

    >>> fe.strings.to_hash_bucket_strong(["Hello"], 10, key=[1, 2]).dtype
    fe.int64
    """
    n = _positive_int("to_hash_bucket_strong", num_buckets, "num_buckets")
    key = list(key) if isinstance(key, (list, tuple, np.ndarray)) else [key]
    if len(key) != 2:
        raise InvalidArgumentError("to_hash_bucket_strong: key must have 2 elements (got %d)"
                                   % len(key))
    k0, k1 = (as_int("to_hash_bucket_strong", k, "key") for k in key)
    return _hash_bucket_strong(_string_input(input, "to_hash_bucket_strong"), num_buckets=n,
                               k0=k0 & (2 ** 64 - 1), k1=k1 & (2 ** 64 - 1))


def _positive_int(opname, value, argname):
    n = as_int(opname, value, argname)
    if n < 1:
        raise InvalidArgumentError("%s: %s must be at least 1 (got %d)" % (opname, argname, n))
    return n


# ---- raw bytes as numbers (tf.io.decode_raw) ---------------------------------------------

def _decode_raw_fwd(arr, dtype, little_endian):
    dt = np.dtype(dtype).newbyteorder("<" if little_endian else ">")
    flat = arr.reshape(-1)
    sizes = {len(s) for s in flat}
    if len(sizes) > 1:
        raise InvalidArgumentError("decode_raw: every string must have the same length (got "
                                   "lengths %s)" % sorted(sizes))
    size = sizes.pop() if sizes else 0
    if size % dt.itemsize:
        raise InvalidArgumentError("decode_raw: the string length %d is not a multiple of %d, "
                                   "the size of %s" % (size, dt.itemsize, np.dtype(dtype).name))
    n = size // dt.itemsize
    if dt.kind == "b":      # TensorFlow copies the bytes: any nonzero byte reads as True
        out = np.frombuffer(b"".join(flat), dtype=np.uint8) != 0
    else:
        out = np.frombuffer(b"".join(flat), dtype=dt).astype(np.dtype(dtype))
    return out.reshape(arr.shape + (n,))


_decode_raw = _StringOp("decode_raw", _decode_raw_fwd)


# DecodeRaw's allowed out_type (fasteager's dtype name: TensorFlow's listing name)
_DECODE_RAW_TYPES = {"float16": "half", "float32": "float", "float64": "double",
                     "int32": "int32", "uint16": "uint16", "uint8": "uint8", "int16": "int16",
                     "int8": "int8", "int64": "int64", "complex64": "complex64",
                     "complex128": "complex128", "bool": "bool", "bfloat16": "bfloat16"}


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """The bytes of each string read as numbers of ``out_type`` (a new last axis).

    >>> fe.io.decode_raw(fe.constant("Duck"), fe.uint8).numpy()
    array([ 68, 117,  99, 107], dtype=uint8)
    """
    if fixed_length is not None:
        raise InvalidArgumentError("decode_raw: fixed_length is not supported (got %r)"
                                   % (fixed_length,))
    dt = as_dtype(out_type)
    if dt.name not in _DECODE_RAW_TYPES:
        raise InvalidArgumentError(
            "decode_raw: Value for attr 'out_type' of %s is not in the list of allowed "
            "values: %s" % (dt.name, ", ".join(_DECODE_RAW_TYPES.values())))
    return _decode_raw(_string_input(input_bytes, "decode_raw", "input_bytes"),
                       dtype=dt._np.str, little_endian=bool(little_endian))
