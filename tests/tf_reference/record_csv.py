"""Record what TensorFlow 2.21 does with CSV (tf.io.decode_csv, CsvDataset) and with a str
in tf.train.BytesList, into csv.json (run with TensorFlow's interpreter from the repository
root: /path/to/tf-venv/bin/python tests/tf_reference/record_csv.py).

Each case keeps its inputs (bytes as latin-1 text) so the test replays the same cases."""
import math
import os
import sys
import tempfile

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

F = ("float32", "float64")


def plain(v):
    """A recorded value: bytes as {"bytes": latin-1}, floats with nan/inf as text."""
    if isinstance(v, np.ndarray):
        return {"array": [plain(x) for x in v.reshape(-1)], "shape": list(v.shape),
                "dtype": v.dtype.name if v.dtype.kind != "O" else "string"}
    if isinstance(v, bytes):
        if len(v) > 1000 and v == v[:1] * len(v):      # a long field: its length
            return {"repeat": v[:1].decode("latin-1"), "times": len(v)}
        return {"bytes": v.decode("latin-1")}
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return {"float": "nan" if math.isnan(f) else repr(f)}
    if isinstance(v, (np.integer, int)):
        return int(v)
    raise TypeError(type(v))


def array(t):
    """A tensor's value as an ndarray (a scalar string as an object array, as a string
    tensor's elements are; np.asarray would make it a NUL-stripping bytes_ array)."""
    x = t.numpy()
    if isinstance(x, bytes):
        out = np.empty((), object)
        out[()] = x
        return out
    return np.asarray(x)


def outcome(fn):
    try:
        return {"value": fn()}
    except Exception as e:   # noqa: BLE001 - the class is what is recorded
        return {"error": type(e).__name__, "message": str(e).split(" [Op:")[0][-200:]}


def defaults(spec):
    out = []
    for dtype, value in spec:
        if value is None:
            out.append(tf.constant([], dtype))
        else:
            out.append(tf.constant(value, dtype))
    return out


def text(s):
    return s.decode("latin-1") if isinstance(s, bytes) else s


I32, I64, S = ("int32", 0), ("int64", 0), ("string", "")
F32, F64 = ("float32", 0.0), ("float64", 0.0)
DECODE = []
for rec in ['1,"2', '1,a"b', '1,"2"x', '1,"2"', '1,""', '" 1",2', ' 1,2', '"1",2', '1,2,3', '1',
            '', ',', '1,2\n', '1,2\r', '\n1,2', '1,\n', '"a"b",1', '"a" ,1', 'a""b,1',
            '""",1', '"a",', '"a\nb",1']:
    DECODE.append((rec, [I32, I32], {}))
    DECODE.append((rec, [S, S], {}))
for num in ['0x10', '3.4e39', '1e400', 'inf', '-inf', 'nan', 'NaN', 'Infinity', ' 1.5',
            '1.5 ', '1_0', '1e', '.5', '5.', '+1', '1f', '0x1p3', '1e-50', '-0', '0X1A',
            '-0x10', 'nan(1)', 'inff', '\t1', '0x1.8p1', '1e+', '+-1', '0x10p', '.', '-', ' ',
            '00.5', ' inf ', '\xa01', '0x.8', '0b1', '1e-400', '3.4028235e38',
            '3.4028236e38', '3.40282357e38', '0x1P-149', '1.0000000596046448', '16777217',
            '1.00000005960464477539062500000001', '1.000000059604644775390625',
            '0x1.000001p0', '0x1.0000010000000001p0', '2147483648', '-2147483648',
            '9223372036854775807', '9223372036854775808', '-9223372036854775809', '1.0',
            '010', '0000000000000000000000001', '1 2', '\u0663', '٣']:
        for spec in (F32, F64, I32, I64):
            DECODE.append((num, [spec], {"field_delim": ";"}))
DECODE += [
    (b'\xff\xfe,1', [S, I32], {}),
    ('a,,c', [S, ("string", "z"), S], {}),
    ('a,NA,c', [S, ("string", "z"), S], {"na_value": "NA"}),
    ('a,"NA",c', [S, ("string", "z"), S], {"na_value": "NA"}),
    ('a,,c', [S, ("string", None), S], {}),
    ('a,,c', [S, ("int32", None), S], {}),
    ('a,"",c', [S, ("string", None), S], {}),
    ('a,b,c', [S, S], {"select_cols": [0, 2]}),
    ('a,b', [S, S], {"select_cols": [0, 3]}),
    ('1,"2', [I32], {"select_cols": [0]}),
    ('1,x', [I32], {"select_cols": [0]}),
    ('1,2,3', [I32], {"select_cols": [1]}),
    ('1;2', [I32, I32], {"field_delim": ";"}),
    ('1,"2"', [I32, I32], {"use_quote_delim": False}),
    ('1,"2', [S, S], {"use_quote_delim": False}),
    ('1,2', [I32, I32], {"na_value": "1"}),
    ('1\t2', [I32, I32], {"field_delim": "\t"}),
    ('1,2', [I64, F64], {}),
    (['1,2', '3,4'], [I32, F32], {}),
    ([['1,2', '3,4'], ['5,6', '7,8']], [I32, S], {}),
    (['1,2', '3,"4'], [I32, I32], {}),
    (['1,2', '3,x'], [I32, I32], {}),
    (['1,2', '3,'], [I32, ("int32", None)], {}),
    (['1,2', '3'], [I32, I32], {}),
]


def run_decode(rec, spec, kwargs):
    def fn():
        out = tf.io.decode_csv(rec, defaults(spec), **kwargs)
        return [plain(array(t)) for t in out]
    return outcome(fn)


FILES = []
for content in [b'1,2\n3,4\n', b'1,2\n3,4', b'1,2\r\n3,4\r\n', b'1,2\r3,4\r', b'1,2\n\n3,4\n',
                b'"1",2\n', b'1,"2\n3",4\n', b'1,"2', b'1,a"b\n', b'1,"2"x\n', b'1,"2" \n',
                b'1,""\n', b',\n', b'1\n', b'1,2,3\n', b'', b'\n', b'1,"a""b"\n',
                b'1,"a\r\nb"\n', b'1,2,\n', b'"a"\rb\n', b'1,\xff\xfe\n',
                b'0x10,3.4e39\n', ("1,", "x", 200000, "\n")]:
    FILES.append((content, [F32, S], {}))
FILES += [
    (b'h1,h2\n1,2\n', [I32, I32], {"header": True}),
    (b'"h\n1",h2\n1,2\n', [I32, S], {"header": True}),
    (b'h1,h2', [I32, I32], {"header": True}),
    (b'', [I32, I32], {"header": True}),
    (b'1,2,3\n4,5,6\n', [I32, I32], {"select_cols": [0, 2]}),
    (b'1,2,3\n4,5\n', [I32, I32], {"select_cols": [0, 2]}),
    (b'1,2,3,4\n', [I32, I32], {"select_cols": [0, 2]}),
    (b'1,2,"3\n', [I32], {"select_cols": [0]}),
    (b'1,2,3\n', [I32, I32], {"exclude_cols": [1]}),
    (b'1,2\n', [I32, I32], {"exclude_cols": [5]}),
    (b'1,NA\n', [I32, ("int32", 7)], {"na_value": "NA"}),
    (b'1,"NA"\n', [I32, ("int32", 7)], {"na_value": "NA"}),
    (b' 1, 2\n', [I32, S], {}),
]


def file_bytes(content):
    """A file's bytes: text, or (prefix, byte, times, suffix) for a long field."""
    if isinstance(content, tuple):
        prefix, byte, times, suffix = content
        return (prefix + byte * times + suffix).encode("latin-1")
    return content


def run_file(content, spec, kwargs):
    content = file_bytes(content)

    def fn():
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f.csv")
            with open(path, "wb") as f:
                f.write(content)
            ds = tf.data.experimental.CsvDataset(path, defaults(spec), **kwargs)
            return [[plain(array(t)) for t in r] for r in ds]
    return outcome(fn)


def bytes_list(value):
    def fn():
        return [plain(v) for v in tf.train.BytesList(value=value).value]
    return outcome(fn)


def main():
    values = {
        "decode_csv": [{"records": {"latin1": text(r)} if isinstance(r, bytes) else r,
                        "defaults": s, "kwargs": k, "result": run_decode(r, s, k)}
                       for r, s, k in DECODE],
        "csv_dataset": [{"content": c if isinstance(c, tuple) else text(c), "defaults": s,
                         "kwargs": k, "result": run_file(c, s, k)} for c, s, k in FILES],
        "bytes_list": [{"value": v, "result": bytes_list(v)} for v in (["str"], [1])],
    }
    save("csv", values)


if __name__ == "__main__":
    main()
