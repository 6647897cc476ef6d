"""Structure-aware mutation fuzzing of the record readers: TFRecord files (plain, GZIP,
ZLIB), CSV (files and tf.io.decode_csv) and tf.train.Example / SequenceExample protobufs
through tf.io.parse_single_example.

Each case builds a VALID input with the real structure (TFRecord framing with its masked
CRC-32C recomputed after a length or payload is changed, compressed streams, properly
quoted CSV, protobuf wire format from a message tree), checks that the valid input reads
back exactly, then mutates it where the parsers look (lengths, counts, tags, wire types,
varints, quotes, delimiters, truncation, duplication, bit flips, inflated sizes far past
the file's) so the deep paths run. The property: the reader returns a result or raises
one of fasteager's typed errors, within the child's memory limit (2 GiB of address space)
and timeout, never another exception, a crash or a hang.

Cases run in a child process (``run_in_child``); FASTEAGER_FUZZ_EXAMPLES=N raises the
number of cases of each target.
"""
import gzip
import os
import struct
import tempfile
import zlib

import numpy as np
import pytest

from tests.fuzz import _support as S

# ---- helpers -----------------------------------------------------------------------------


def _masked_crc(data):
    from fasteager._src.io.tfrecord import masked_crc32c
    return masked_crc32c(data)


def _frame(data, length=None):
    """One TFRecord; ``length`` overrides its length field (whose CRC stays valid)."""
    header = struct.pack("<Q", len(data) if length is None else length)
    return (header + struct.pack("<I", _masked_crc(header)) + data
            + struct.pack("<I", _masked_crc(data)))


def _compress(raw, kind, rng):
    if kind == "GZIP":
        if rng.random() < 0.3 and len(raw) > 1:       # several members, `cat a.gz b.gz`
            cut = int(rng.integers(1, len(raw)))
            return gzip.compress(raw[:cut]) + gzip.compress(raw[cut:])
        return gzip.compress(raw)
    if kind == "ZLIB":
        return zlib.compress(raw, int(rng.integers(0, 10)))
    return raw


def _byte_edit(data, rng):
    """A bit flip, an insertion, a deletion or a truncation of ``data``."""
    data = bytearray(data)
    what = rng.integers(0, 4)
    if not data:
        return bytes(rng.integers(0, 256, int(rng.integers(1, 8)), dtype=np.uint8))
    i = int(rng.integers(0, len(data)))
    if what == 0:
        data[i] ^= 1 << int(rng.integers(0, 8))
    elif what == 1:
        data[i:i] = bytes(rng.integers(0, 256, int(rng.integers(1, 8)), dtype=np.uint8))
    elif what == 2:
        del data[i:i + int(rng.integers(1, 8))]
    else:
        del data[i:]
    return bytes(data)


def _pick(rng, options):
    """One of ``options`` (Python ints stay exact: no NumPy array of them is made)."""
    return options[int(rng.integers(0, len(options)))]


def _tmpfile(content):
    fd, path = tempfile.mkstemp(suffix=".fuzz")
    with os.fdopen(fd, "wb") as f:
        f.write(content)
    return path


def _run_removing(path, fn):
    try:
        fn()
    finally:
        os.unlink(path)


# ---- TFRecord ----------------------------------------------------------------------------

_HUGE = (2 ** 31, 2 ** 32 + 5, 2 ** 40, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1)


def _tfrecord_case(rng):
    import fasteager as tf
    kind = ("", "GZIP", "ZLIB")[int(rng.integers(0, 3))]
    records = [bytes(rng.integers(0, 256, int(rng.integers(0, 64)), dtype=np.uint8))
               for _ in range(int(rng.integers(0, 6)))]
    frames = [_frame(r) for r in records]
    mutation = ("none", "length", "payload", "truncate", "duplicate", "bytes",
                "compressed_bytes", "bomb", "huge_length")[int(rng.integers(0, 9))]
    expect = list(records)
    if frames and mutation == "length":                # valid CRC, wrong length
        i = int(rng.integers(0, len(frames)))
        length = _pick(rng, [len(records[i]) + int(rng.integers(-3, 40)), _pick(rng, _HUGE)])
        frames[i] = _frame(records[i], max(length, 0))
        expect = None
    elif frames and mutation == "payload":             # new payload, CRCs recomputed
        i = int(rng.integers(0, len(frames)))
        records[i] = _byte_edit(records[i], rng)
        frames[i] = _frame(records[i])
        expect = list(records)
    elif mutation == "duplicate" and frames:
        i = int(rng.integers(0, len(frames)))
        frames.insert(i, frames[i])
        expect = records[:i] + [records[i]] + records[i:]
    elif mutation == "huge_length":
        frames.append(_frame(b"tail", _pick(rng, _HUGE)))
        expect = None
    raw = b"".join(frames)
    if mutation == "truncate" and raw:
        raw = raw[:int(rng.integers(0, len(raw)))]
        expect = None
    elif mutation == "bytes":
        raw = _byte_edit(raw, rng)
        expect = None
    take = None
    if mutation == "bomb":
        # many large records in a small compressed file: only the first ones are read
        kind = kind or "ZLIB"
        big = _frame(bytes(int(rng.integers(1, 8)) << 20))
        deflate = zlib.compressobj(9, zlib.DEFLATED, 31 if kind == "GZIP" else 15)
        block = deflate.compress(big) + deflate.flush(zlib.Z_FULL_FLUSH)
        content = deflate.compress(b"") + block * 1500
        take, expect = 2, [big[12:-4]] * 2
    else:
        content = _compress(raw, kind, rng)
        if mutation == "compressed_bytes":
            content = _byte_edit(content, rng)
            expect = None
    path = _tmpfile(content)

    def thunk():
        def read():
            ds = tf.data.TFRecordDataset(path, compression_type=kind or None)
            if take is not None:
                ds = ds.take(take)
            got = [r.numpy() for r in ds]
            if expect is not None:
                assert got == expect, (len(got), len(expect))
        _run_removing(path, read)
    return "%s %s, %d records" % (mutation, kind or "plain", len(records)), thunk


# ---- CSV ---------------------------------------------------------------------------------

_NUMBERS = [b"0", b"-1", b"+7", b" 12 ", b"0x10", b"3.4e39", b"-3.4e39", b"1e400", b"1e-400",
            b"inf", b"-Infinity", b"nan", b"NaN(abc)", b"2147483648", b"-2147483649",
            b"9223372036854775808", b"1_0", b".5", b"5.", b"1e", b"0x", b"0x1.8p1",
            b"1" * 5000, b"0" * 3000 + b"1", b"1.0000000596046448", b"\xef\xbc\x91"]


def _field(rng, delim):
    pick = int(rng.integers(0, 9))
    if pick == 0:
        return b""
    if pick == 1:
        return _NUMBERS[int(rng.integers(0, len(_NUMBERS)))]
    if pick == 2:                                            # past csv's 128 KiB limit
        return bytes([int(rng.integers(97, 123))]) * int(rng.integers(1, 200_000))
    if pick == 3:                                            # not UTF-8
        return bytes(rng.integers(128, 256, int(rng.integers(1, 6)), dtype=np.uint8))
    alphabet = b'ab 1"' + delim + b"\n\r\t"
    return bytes(alphabet[int(i)] for i in rng.integers(0, len(alphabet),
                                                       int(rng.integers(0, 12))))


def _quote(field, delim):
    """``field`` written so that TensorFlow reads it back (quoted when it must be)."""
    if any(c in field for c in (b'"', delim, b"\n", b"\r")):
        return b'"' + field.replace(b'"', b'""') + b'"'
    return field


def _csv_case(rng):
    import fasteager as tf
    delim = [b",", b";", b"\t", b"|"][int(rng.integers(0, 4))]
    ncols = int(rng.integers(1, 5))
    rows = [[_field(rng, delim) for _ in range(ncols)] for _ in range(int(rng.integers(1, 6)))]
    ending = [b"\n", b"\r\n", b"\r"][int(rng.integers(0, 3))]
    content = ending.join(delim.join(_quote(f, delim) for f in row) for row in rows)
    expect = rows
    if rng.random() < 0.5:
        content += ending
    elif rows[-1] == [b""]:           # nothing after the last line end: no record there
        expect = rows[:-1]
    mutated = rng.random() < 0.6
    if mutated:
        content = _byte_edit(content, rng) if rng.random() < 0.5 else content.replace(
            b'"', b"", 1) if b'"' in content else content + b'"'
    # the columns' types: strings read every field back; other types may refuse them
    strings = rng.random() < 0.5
    types = [["", "", 0, 0.0, np.float64(0), np.int64(0), tf.constant([], tf.string),
              tf.float32][0 if strings else int(rng.integers(0, 8))] for _ in range(ncols)]
    all_strings = all(isinstance(t, str) for t in types) and not mutated
    kind = ("", "GZIP", "ZLIB")[int(rng.integers(0, 3))]
    path = _tmpfile(_compress(content, kind, rng))
    as_string = rng.random() < 0.5
    use_quote = bool(rng.random() < 0.8)

    def thunk():
        def read():
            ds = tf.data.experimental.CsvDataset(path, types, compression_type=kind or None,
                                                 field_delim=delim.decode())
            got = [[v.numpy() for v in r] for r in ds]
            if all_strings:
                assert got == expect, "records differ"
            # the same records through tf.io.decode_csv, where their text allows
            lines = [ln for ln in content.replace(b"\r\n", b"\n").split(b"\n")]
            if as_string and lines:
                S.call_or_typed_error(tf.io.decode_csv, lines, types,
                                      field_delim=delim.decode(),
                                      use_quote_delim=use_quote)
        _run_removing(path, read)
    return "csv %d cols %s %s%s" % (ncols, delim, kind or "plain",
                                    " mutated" if mutated else ""), thunk


# ---- tf.train.Example / SequenceExample as protobuf trees --------------------------------
# A node is [field number, wire type, payload]: an int (varint), bytes (a length-delimited
# leaf or fixed-width bytes) or a list of nodes (a nested message); an optional 4th item
# changes the length written for a length-delimited node.

def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v > 0x7F:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _encode(nodes):
    out = bytearray()
    for node in nodes:
        number, wire, payload = node[:3]
        out += _varint(number << 3 | wire)
        if isinstance(payload, int):
            out += _varint(payload)
            continue
        body = _encode(payload) if isinstance(payload, list) else payload
        if wire == 2:
            out += _varint(len(body) + (node[3] if len(node) > 3 else 0))
        out += body
    return bytes(out)


def _feature_node(rng, shapes=None, name=None):
    """A Feature node (bytes_list = 1, float_list = 2, int64_list = 3) of 0..4 values;
    ``shapes[name]`` records its (kind, count) for a matching spec."""
    kind = int(rng.integers(1, 4))
    n = int(rng.integers(0, 5))
    if shapes is not None:
        shapes[name] = (kind, n)
    if kind == 1:
        values = [[1, 2, bytes(rng.integers(0, 256, int(rng.integers(0, 6)),
                                           dtype=np.uint8))] for _ in range(n)]
    elif kind == 2:
        values = [[1, 2, np.asarray(rng.standard_normal(n), "<f4").tobytes()]] if n else []
        if n and rng.random() < 0.3:                         # unpacked floats
            values = [[1, 5, struct.pack("<f", float(x))] for x in rng.standard_normal(n)]
    else:
        ints = [int(x) for x in rng.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64)]
        values = [[1, 2, b"".join(_varint(x) for x in ints)]] if n else []
        if n and rng.random() < 0.3:                         # unpacked int64s
            values = [[1, 0, x & ((1 << 64) - 1)] for x in ints]
    return [kind, 2, values]


def _features_node(rng, names, shapes):
    return [[1, 2, [[1, 2, name.encode()], [2, 2, [_feature_node(rng, shapes, name)]]]]
            for name in names]


def _example_tree(rng, names, shapes):
    if rng.random() < 0.25:
        # a SequenceExample: context (Features) = 1, feature_lists = 2 with
        # FeatureLists { map<string, FeatureList> feature_list = 1 } and
        # FeatureList { repeated Feature feature = 1 }; parse_single_example sees field 1
        lists = [[1, 2, [[1, 2, b"seq"], [2, 2, [[1, 2, [_feature_node(rng)]]
                                                 for _ in range(int(rng.integers(0, 3)))]]]]]
        return [[1, 2, _features_node(rng, names, shapes)], [2, 2, lists]]
    return [[1, 2, _features_node(rng, names, shapes)]]


def _all_nodes(nodes, out):
    for node in nodes:
        out.append(node)
        if isinstance(node[2], list):
            _all_nodes(node[2], out)
    return out


def _mutate_tree(tree, rng):
    nodes = _all_nodes(tree, [])
    node = nodes[int(rng.integers(0, len(nodes)))]
    what = int(rng.integers(0, 9))
    if what == 0:                                            # the tag's field number
        node[0] = _pick(rng, [0, 1, 2, 3, 4, 15, 2 ** 29 - 1])
    elif what == 1:                                          # the wire type
        node[1] = int(rng.integers(0, 8))
    elif what == 2 and node[1] == 2:                         # a length off or past the end
        node.append(_pick(rng, [-1, 1, 2, 100, 2 ** 31, 2 ** 62]))
    elif what == 3:                                          # a varint's value
        node[1], node[2] = 0, _pick(rng, [0, 1, 2 ** 63, 2 ** 64 - 1, 127, 128])
    elif what == 4:                                          # duplicated, or dropped
        siblings = [n for n in nodes if isinstance(n[2], list) and node in n[2]] or [
            [0, 0, tree]]
        parent = siblings[0][2]
        if rng.random() < 0.5:
            parent.append(list(node))
        else:
            parent.remove(node)
    elif what == 5:                                          # a huge repeated count
        node[1] = 2
        node[2] = [[1, 2, b"\x01" * int(rng.integers(1, 400_000))]] if rng.random() < 0.5 \
            else [[1, 0, 1]] * int(rng.integers(1, 20_000))
    elif what == 6:                                          # deep nesting
        inner = node
        for _ in range(int(rng.integers(1, 300))):
            inner = [1, 2, [inner]]
        tree.append(inner)
    elif what == 7:                                          # a payload's bytes
        if isinstance(node[2], bytes):
            node[2] = _byte_edit(node[2], rng)
    data = _encode(tree)
    if what == 8:
        data = _byte_edit(data, rng)
    return data


def _spec(rng, tf, shapes):
    """A spec of each feature: mostly of its kind (and, for FixedLen, its count), so that
    parsing gets past the type checks; sometimes anything."""
    spec = {}
    dtypes = [tf.string, tf.float32, tf.int64]
    for name, (kind, count) in shapes.items():
        dtype = dtypes[kind - 1] if rng.random() < 0.8 else dtypes[int(rng.integers(0, 3))]
        pick = int(rng.integers(0, 4))
        if pick == 0:
            spec[name] = tf.io.VarLenFeature(dtype)
        elif pick == 1:
            spec[name] = tf.io.RaggedFeature(dtype)
        else:
            shape = [[count], [], [2], [0], [1, 2]][int(rng.integers(0, 5)) if
                                                    rng.random() < 0.4 else 0]
            default = None
            if pick == 3:
                size = int(np.prod(shape, dtype=np.int64))
                default = ([b"d"] if dtype == tf.string else [1]) * size
                default = default[0] if shape == [] else np.reshape(
                    np.asarray(default, object if dtype == tf.string else None), shape)
            spec[name] = tf.io.FixedLenFeature(shape, dtype, default_value=default)
    return spec


def _example_case(rng):
    import fasteager as tf
    names = ["f%d" % i for i in range(int(rng.integers(1, 4)))]
    shapes = {}
    tree = _example_tree(rng, names, shapes)
    valid = _encode(tree)
    mutated = rng.random() < 0.8
    data = _mutate_tree(tree, rng) if mutated else valid
    spec = _spec(rng, tf, shapes)

    def thunk():
        # the valid record is read by Example.FromString without error
        again = tf.train.Example.FromString(valid)
        assert set(again.features.feature) == set(names)
        got, _ = S.call_or_typed_error(tf.io.parse_single_example, data, spec)
        S.call_or_typed_error(tf.io.parse_example, [data, valid], spec)
        if got is not None and not mutated:          # the valid record: every value count
            for name, (kind, count) in shapes.items():
                values = got[name]
                if isinstance(spec[name], tf.io.VarLenFeature):
                    values = values.values
                if not isinstance(spec[name], tf.io.FixedLenFeature) and count:
                    assert values.shape[0] == count, (name, values.shape, count)
    return "example %s %d bytes" % ("mutated" if mutated else "valid", len(data)), thunk


CHILD_TARGETS = {"tfrecord": _tfrecord_case, "csv": _csv_case, "example": _example_case}


@pytest.mark.parametrize("target,count", [("tfrecord", 60), ("csv", 60), ("example", 150)])
def test_record_readers_survive_mutated_inputs(target, count):
    n = S.examples(count)
    assert S.run_in_child(__name__, target, seed=31, n=n, timeout=max(240, 2 * n),
                          memory_mb=2048) == n
