"""tf.io.decode_csv, CsvDataset and tf.train.BytesList against TensorFlow 2.21's recorded
values and error classes (tests/tf_reference/record_csv.py writes csv.json): TensorFlow's
quoting rules, numbers (hex floats, inf, float32 overflow and rounding, int ranges),
required columns, select/exclude_cols, bytes that are not UTF-8 and fields past 128 KiB."""
import math

import numpy as np
import pytest

import fasteager as tf
from tests.tf_reference import load

REF = load("csv")


def _defaults(spec):
    return [tf.constant([], dtype) if value is None else tf.constant(value, dtype)
            for dtype, value in spec]


def _plain(v):
    """A value in the recorder's form (see record_csv.plain)."""
    if isinstance(v, np.ndarray):
        return {"array": [_plain(x) for x in v.reshape(-1)], "shape": list(v.shape),
                "dtype": v.dtype.name if v.dtype.kind != "O" else "string"}
    if isinstance(v, bytes):
        if len(v) > 1000 and v == v[:1] * len(v):
            return {"repeat": v[:1].decode("latin-1"), "times": len(v)}
        return {"bytes": v.decode("latin-1")}
    if isinstance(v, (np.floating, float)):
        f = float(v)
        return {"float": "nan" if math.isnan(f) else repr(f)}
    return int(v)


def _outcome(fn):
    try:
        return {"value": fn()}
    except (tf.errors.OpError, TypeError, ValueError) as e:
        return {"error": type(e).__name__}


def _check(got, want, case):
    if "error" in want:
        assert got.get("error") == want["error"], (case, got)
    else:
        assert got == {"value": want["value"]}, case


def _records(r):
    return r["latin1"].encode("latin-1") if isinstance(r, dict) else r


def _array(t):
    """A tensor's value as an ndarray (a scalar string as an object array)."""
    x = t.numpy()
    if isinstance(x, bytes):
        out = np.empty((), object)
        out[()] = x
        return out
    return np.asarray(x)


@pytest.mark.parametrize("case", REF["decode_csv"], ids=lambda c: repr(c["records"])[:30])
def test_decode_csv_matches_tensorflow(case):
    def fn():
        out = tf.io.decode_csv(_records(case["records"]), _defaults(case["defaults"]),
                               **case["kwargs"])
        return [_plain(_array(t)) for t in out]
    _check(_outcome(fn), case["result"], case)


def _file_bytes(content):
    if isinstance(content, list):
        prefix, byte, times, suffix = content
        return (prefix + byte * times + suffix).encode("latin-1")
    return content.encode("latin-1")


@pytest.mark.parametrize("case", REF["csv_dataset"], ids=lambda c: repr(c["content"])[:30])
def test_csv_dataset_matches_tensorflow(case, tmp_path):
    path = tmp_path / "f.csv"
    path.write_bytes(_file_bytes(case["content"]))

    def fn():
        ds = tf.data.experimental.CsvDataset(str(path), _defaults(case["defaults"]),
                                             **case["kwargs"])
        return [[_plain(_array(t)) for t in r] for r in ds]
    _check(_outcome(fn), case["result"], case)


@pytest.mark.parametrize("case", REF["bytes_list"], ids=lambda c: repr(c["value"]))
def test_bytes_list_takes_only_bytes(case):
    with pytest.raises(TypeError) as e:
        tf.train.BytesList(value=case["value"])
    assert str(e.value) == case["result"]["message"]
    assert case["result"]["error"] == "TypeError"


def test_decode_csv_of_a_jpeg_name_and_a_label():
    name, label = tf.io.decode_csv(tf.constant("a.jpg,3"), ["", 0])
    assert name.numpy() == b"a.jpg" and name.dtype == tf.string
    assert label.numpy() == 3 and label.dtype == tf.int32


def test_float32_fields_are_rounded_once_from_their_decimal_value():
    # decimals a hair off the midpoint of two float32 numbers: rounding through float64
    # first lands on the midpoint and then rounds to even, the wrong way half the time
    import random
    from fractions import Fraction
    rng = random.Random(5)
    for _ in range(300):
        a = np.float32(rng.uniform(-1e6, 1e6))
        b = np.nextafter(a, np.float32(np.inf))
        mid = (Fraction(float(a)) + Fraction(float(b))) / 2
        for q, want in ((mid + Fraction(1, 10 ** 40), max(a, b)),
                        (mid - Fraction(1, 10 ** 40), min(a, b))):
            digits = 60
            text = "%s%d.%s" % ("-" if q < 0 else "", abs(q.numerator) // q.denominator,
                                str(abs(q.numerator) * 10 ** digits // q.denominator)[
                                    -digits:].rjust(digits, "0"))
            got = tf.io.decode_csv(text, [0.0])[0].numpy()
            assert got == want, (text, got, want)


def test_decode_csv_in_a_traced_function_parses_each_calls_records():
    # a recorded step of the trace (as the fe.strings ops), not a constant of the first call
    @tf.function
    def columns(lines):
        return tf.io.decode_csv(lines, [0, "", tf.constant([], tf.float64)])
    first = columns(tf.constant(["1,a,0.5", "2,b,1.5"]))
    again = columns(tf.constant(["3,c,2.5", "4,d,3.5"]))
    assert first[0].numpy().tolist() == [1, 2]
    assert again[0].numpy().tolist() == [3, 4]
    assert again[1].numpy().tolist() == [b"c", b"d"]
    assert again[2].numpy().tolist() == [2.5, 3.5] and again[2].dtype == tf.float64
    with pytest.raises(tf.errors.InvalidArgumentError, match="field 2 is required"):
        columns(tf.constant(["5,e,", "6,f,1"]))
