"""String tensors and fe.strings: TensorFlow's tensor guide (strings section) run with only
the import changed, each tf.strings function against TensorFlow's documented results, string
tensors through layout ops, fe.data and fe.function, and bad input."""
import contextlib
import gzip
import io
import warnings

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError


def test_guide_strings_section_prints_as_tensorflow():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        scalar_string_tensor = tf.constant("Gray wolf")
        print(scalar_string_tensor)
        tensor_of_strings = tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
        print(tensor_of_strings)
        print(repr(tf.constant("🥳👍")))
        print(tf.strings.split(scalar_string_tensor, sep=" "))
        print(tf.strings.split(tensor_of_strings))
        text = tf.constant("1 10 100")
        print(tf.strings.to_number(tf.strings.split(text, " ")))
        byte_strings = tf.strings.bytes_split(tf.constant("Duck"))
        byte_ints = tf.io.decode_raw(tf.constant("Duck"), tf.uint8)
        print("Byte strings:", byte_strings)
        print("Bytes:", byte_ints)
        unicode_bytes = tf.constant("アヒル 🦆")
        print("Unicode chars:", tf.strings.unicode_split(unicode_bytes, "UTF-8"))
        print("Unicode values:", tf.strings.unicode_decode(unicode_bytes, "UTF-8"))
    # TensorFlow's printed output, with fasteager's "fe." for "tf."
    assert out.getvalue().splitlines() == [
        "fe.Tensor(b'Gray wolf', shape=(), dtype=string)",
        "fe.Tensor([b'Gray wolf' b'Quick brown fox' b'Lazy dog'], shape=(3,), dtype=string)",
        "<fe.Tensor: shape=(), dtype=string, numpy=b'\\xf0\\x9f\\xa5\\xb3\\xf0\\x9f\\x91\\x8d'>",
        "fe.Tensor([b'Gray' b'wolf'], shape=(2,), dtype=string)",
        "<fe.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>",
        "fe.Tensor([  1.  10. 100.], shape=(3,), dtype=float32)",
        "Byte strings: fe.Tensor([b'D' b'u' b'c' b'k'], shape=(4,), dtype=string)",
        "Bytes: fe.Tensor([ 68 117  99 107], shape=(4,), dtype=uint8)",
        "Unicode chars: fe.Tensor([b'\\xe3\\x82\\xa2' b'\\xe3\\x83\\x92' b'\\xe3\\x83\\xab' b' ' "
        "b'\\xf0\\x9f\\xa6\\x86'], shape=(5,), dtype=string)",
        "Unicode values: fe.Tensor([ 12450  12498  12523     32 129414], shape=(5,), "
        "dtype=int32)",
    ]


def test_string_dtype_and_numpy():
    t = tf.constant(["a", b"b"])
    assert t.dtype == tf.string and t.dtype.name == "string" and t.dtype.is_string
    assert tf.as_dtype("string") is tf.string
    assert t.numpy().tolist() == [b"a", b"b"]
    assert tf.constant("x").numpy() == b"x"
    assert tf.constant("ab", shape=[2]).numpy().tolist() == [b"ab", b"ab"]
    assert tf.constant(["x"], dtype=tf.string).dtype == tf.string
    # a tensor never aliases the caller's array
    src = np.array([b"a", b"b"], dtype=object)
    t = tf.constant(src)
    src[0] = b"z"
    assert t.numpy()[0] == b"a"


def test_layout_ops_move_strings():
    t = tf.constant([["a", "b"], ["c", "d"]])
    assert tf.reshape(t, [4]).numpy().tolist() == [b"a", b"b", b"c", b"d"]
    assert tf.transpose(t).numpy().tolist() == [[b"a", b"c"], [b"b", b"d"]]
    assert tf.concat([t, t], axis=1).shape == (2, 4)
    assert tf.stack([t, t]).shape == (2, 2, 2)
    assert tf.gather(tf.constant(["x", "y", "z"]), [2, 0]).numpy().tolist() == [b"z", b"x"]
    assert tf.gather(t, 1, axis=1).numpy().tolist() == [b"b", b"d"]
    assert tf.tile(tf.constant(["a"]), [3]).numpy().tolist() == [b"a"] * 3
    assert tf.expand_dims(tf.constant("a"), 0).shape == (1,)
    assert [p.shape for p in tf.split(t, 2)] == [(1, 2), (1, 2)]
    assert tf.unstack(t)[1].numpy().tolist() == [b"c", b"d"]
    assert tf.squeeze(tf.reshape(t, [1, 4])).shape == (4,)
    assert tf.gather_nd(t, [[1, 0]]).numpy().tolist() == [b"c"]
    assert tf.boolean_mask(t, [True, False]).numpy().tolist() == [[b"a", b"b"]]
    assert tf.reverse(t, [1]).numpy().tolist() == [[b"b", b"a"], [b"d", b"c"]]
    assert tf.broadcast_to(tf.constant("x"), [2]).numpy().tolist() == [b"x", b"x"]
    with pytest.raises(InvalidArgumentError, match="concat: all inputs must have the same dtype"):
        tf.concat([t, tf.constant([[1, 2]])], axis=0)
    # numeric errors are untouched by the string route
    with pytest.raises(InvalidArgumentError, match="reshape: cannot reshape"):
        tf.reshape(tf.constant([1, 2, 3]), [2])


def test_length_case_strip_join():
    np.testing.assert_array_equal(tf.strings.length(["hi", "héllo"]).numpy(), [2, 6])
    np.testing.assert_array_equal(tf.strings.length(["hi", "héllo"], unit="UTF8_CHAR"), [2, 5])
    assert tf.strings.length("abc").dtype == tf.int32
    assert tf.strings.lower("ÀB").numpy() == "Àb".encode()         # ASCII only by default
    assert tf.strings.lower("ÀB", encoding="utf-8").numpy() == "àb".encode()
    assert tf.strings.upper(["ab", "c"]).numpy().tolist() == [b"AB", b"C"]
    assert tf.strings.strip(["  x y \n", "\tz"]).numpy().tolist() == [b"x y", b"z"]
    got = tf.strings.join(["abc", ["x", "y"]], separator="-")
    assert got.numpy().tolist() == [b"abc-x", b"abc-y"]
    got = tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=",")
    assert got.numpy().tolist() == [b"a,b", b"c,d"]
    assert tf.strings.reduce_join([["a", "b"], ["c", "d"]]).numpy() == b"abcd"
    got = tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=0, keepdims=True)
    assert got.shape == (1, 2) and got.numpy().tolist() == [[b"ac", b"bd"]]


def test_substr_and_to_number():
    assert tf.strings.substr("Hello World", 6, 5).numpy() == b"World"
    assert tf.strings.substr("Hello", -3, 10).numpy() == b"llo"          # len is clipped
    assert tf.strings.substr("héllo", 1, 2, unit="UTF8_CHAR").numpy() == "él".encode()
    got = tf.strings.substr(["Hello", "World"], [1, 2], [3, 1])
    assert got.numpy().tolist() == [b"ell", b"r"]
    with pytest.raises(InvalidArgumentError, match="substr: pos 9 is out of range"):
        tf.strings.substr("Hello", 9, 1)
    np.testing.assert_array_equal(tf.strings.to_number(["1.5", "-2"]).numpy(), [1.5, -2.0])
    assert tf.strings.to_number(["7"], out_type=tf.int64).dtype == tf.int64
    with pytest.raises(InvalidArgumentError, match="StringToNumberOp could not correctly "
                                                   "convert string: 1x"):
        tf.strings.to_number("1x")
    with pytest.raises(InvalidArgumentError, match="to_number"):
        tf.strings.to_number("3000000000", out_type=tf.int32)


def test_as_string_and_format():
    assert tf.strings.as_string([3.5, 2.0]).numpy().tolist() == [b"3.500000", b"2.000000"]
    assert tf.strings.as_string(3.14159, precision=2).numpy() == b"3.14"
    assert tf.strings.as_string(1234.5, scientific=True).numpy() == b"1.234500e+03"
    assert tf.strings.as_string(0.5, shortest=True).numpy() == b"0.5"
    assert tf.strings.as_string([3, -2], width=4, fill="0").numpy().tolist() == \
        [b"0003", b"-002"]
    assert tf.strings.as_string([7], width=3).numpy().tolist() == [b"  7"]
    assert tf.strings.as_string([True, False]).numpy().tolist() == [b"true", b"false"]
    got = tf.strings.format("x = {} and {}", [tf.constant([1, 2]), tf.constant("hi")])
    assert got.numpy() == b'x = [1 2] and "hi"'   # TF 2.21 quotes a scalar string here
    # TensorFlow's doc example: summarize=3 keeps three entries at each end
    got = tf.strings.format("tensor: {}, suffix", tf.range(10))
    assert got.numpy() == b"tensor: [0 1 2 ... 7 8 9], suffix"
    assert tf.strings.format("{}", tf.constant(["a", "b"])).numpy() == b'["a" "b"]'
    with pytest.raises(InvalidArgumentError, match="2 placeholders"):
        tf.strings.format("{} {}", [tf.constant(1)])


def test_regex():
    assert tf.strings.regex_replace("a1b22", r"\d+", "#").numpy() == b"a#b#"
    assert tf.strings.regex_replace("a1b22", r"\d", "#", replace_global=False).numpy() == \
        b"a#b22"
    assert tf.strings.regex_replace("ab", r"(a)(b)", r"\2\1").numpy() == b"ba"
    assert tf.strings.regex_replace("ab", r"b", r"<\0>").numpy() == b"a<b>"
    got = tf.strings.regex_full_match(["abc", "ab1"], r"[a-z]+")
    assert got.numpy().tolist() == [True, False]
    with pytest.raises(InvalidArgumentError, match="regex_replace: invalid pattern"):
        tf.strings.regex_replace("a", "(", "")


def test_unicode_round_trip_and_errors():
    cps = tf.strings.unicode_decode(["héllo", "ab"], "UTF-8")
    assert cps.to_list() == [[104, 233, 108, 108, 111], [97, 98]]
    assert tf.strings.unicode_encode(cps, "UTF-8").numpy().tolist() == ["héllo".encode(), b"ab"]
    assert tf.strings.unicode_encode([104, 105], "UTF-8").numpy() == b"hi"
    assert tf.strings.unicode_encode([[104, 105], [106, 107]], "UTF-8").numpy().tolist() == \
        [b"hi", b"jk"]
    bad = tf.constant(b"a\xffb")
    assert tf.strings.unicode_decode(bad, "UTF-8").numpy().tolist() == [97, 65533, 98]
    assert tf.strings.unicode_decode(bad, "UTF-8", errors="ignore").numpy().tolist() == [97, 98]
    with pytest.raises(InvalidArgumentError, match="invalid UTF-8"):
        tf.strings.unicode_decode(bad, "UTF-8", errors="strict")
    with pytest.raises(InvalidArgumentError, match="only UTF-8"):
        tf.strings.unicode_decode("a", "UTF-16")


def test_ragged_inputs_keep_their_rows():
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert tf.strings.substr(words, 0, 2).to_list() == [[b"So", b"lo"],
                                                        [b"th", b"fo", b"al", b"th", b"fi"]]
    assert tf.strings.length(words).to_list() == [[2, 4], [6, 3, 3, 3, 4]]


def test_bad_input_names_the_function():
    with pytest.raises(InvalidArgumentError, match="length: input must be a string tensor"):
        tf.strings.length(tf.constant([1, 2]))
    with pytest.raises(InvalidArgumentError, match="unit must be"):
        tf.strings.length("a", unit="CHAR")
    with pytest.raises(InvalidArgumentError, match="split: input must be a scalar or a vector"):
        tf.strings.split(tf.constant([["a"]]))
    with pytest.raises(InvalidArgumentError, match="join: inputs must broadcast"):
        tf.strings.join([["a", "b"], ["c", "d", "e"]])
    with pytest.raises(InvalidArgumentError, match="decode_raw: every string must have the "
                                                   "same length"):
        tf.io.decode_raw(tf.constant(["ab", "c"]), tf.uint8)
    with pytest.raises(InvalidArgumentError, match="a string tensor needs lists of one shape"):
        tf.strings.length([["a"], ["b", "c"]])


def test_split_options():
    assert tf.strings.split("a<>b<><>c", sep="<>").numpy().tolist() == [b"a", b"b", b"", b"c"]
    assert tf.strings.split("  a  b ").numpy().tolist() == [b"a", b"b"]
    assert tf.strings.split("a b c", maxsplit=1).numpy().tolist() == [b"a", b"b c"]
    rt = tf.strings.split(["a b", "", "c"])
    assert rt.to_list() == [[b"a", b"b"], [], [b"c"]]


def test_dataset_of_strings():
    ds = tf.data.Dataset.from_tensor_slices(["Gray wolf", "Quick brown fox", "Lazy dog"])
    assert ds.element_spec == tf.data.TensorSpec([], tf.string)
    assert list(ds.as_numpy_iterator()) == [b"Gray wolf", b"Quick brown fox", b"Lazy dog"]
    batches = [b.numpy().tolist() for b in ds.batch(2)]
    assert batches == [[b"Gray wolf", b"Quick brown fox"], [b"Lazy dog"]]
    lengths = [int(n) for n in ds.map(tf.strings.length)]
    assert lengths == [9, 15, 8]
    pairs = tf.data.Dataset.from_tensor_slices((["a", "b"], [1, 2])).map(
        lambda s, y: (tf.strings.upper(s), y))
    assert [(s.numpy(), int(y)) for s, y in pairs] == [(b"A", 1), (b"B", 2)]


def test_text_line_dataset(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"first line\nsecond\r\nthird")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"x\n\ny\n"))
    ds = tf.data.TextLineDataset(str(tmp_path / "a.txt"))
    assert ds.element_spec == tf.data.TensorSpec([], tf.string)
    assert list(ds.as_numpy_iterator()) == [b"first line", b"second", b"third"]
    both = tf.data.TextLineDataset([str(tmp_path / "b.txt.gz")] * 2, compression_type="GZIP")
    assert list(both.as_numpy_iterator()) == [b"x", b"", b"y"] * 2
    words = [w.numpy().tolist() for w in ds.map(tf.strings.split).take(1)]
    assert words == [[b"first", b"line"]]
    with pytest.raises(tf.errors.NotFoundError, match="missing.txt"):
        list(tf.data.TextLineDataset(str(tmp_path / "missing.txt")))
    with pytest.raises(tf.errors.DataLossError, match="a.txt"):
        list(tf.data.TextLineDataset(str(tmp_path / "a.txt"), compression_type="GZIP"))
    with pytest.raises(InvalidArgumentError, match="compression_type"):
        tf.data.TextLineDataset("x", compression_type="BZIP2")


def test_function_traces_string_arguments_once_per_shape():
    @tf.function
    def f(s):
        return tf.strings.upper(tf.reshape(s, [-1])), tf.strings.length(s)

    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no eager fallback
        up, n = f(tf.constant([["ab", "c"]]))
        up2, n2 = f(tf.constant([["xyz", "w"]]))
    assert up.numpy().tolist() == [b"AB", b"C"] and n.numpy().tolist() == [[2, 1]]
    assert up2.numpy().tolist() == [b"XYZ", b"W"] and n2.numpy().tolist() == [[3, 1]]
    assert f.experimental_get_tracing_count() == 1

    @tf.function
    def words(s):
        return tf.strings.split(s)
    assert words(tf.constant(["a b", "c"])).to_list() == [[b"a", b"b"], [b"c"]]
    assert words(tf.constant(["d e f", "g"])).to_list() == [[b"d", b"e", b"f"], [b"g"]]
    assert words.experimental_get_tracing_count() == 1

    @tf.function
    def show(x):
        return tf.strings.as_string(x * 2)
    assert show(tf.constant([1, 2])).numpy().tolist() == [b"2", b"4"]
    assert show(tf.constant([5, 6])).numpy().tolist() == [b"10", b"12"]


def test_function_with_strings_is_differentiable_in_its_numeric_inputs():
    @tf.function
    def f(x, s):
        return x * tf.cast(tf.strings.length(tf.reshape(s, [-1])), tf.float32)
    x, s = tf.constant([1., 2.]), tf.constant([["ab", "c"]])
    for _ in range(2):      # the first call traces, the second replays
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(f(x, s))
        assert tape.gradient(y, x).numpy().tolist() == [2., 1.]
    with tf.GradientTape() as outer:        # second order re-runs the graph's ops eagerly
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(f(x, s) * x)
        g = inner.gradient(y, x)
    assert g.numpy().tolist() == [4., 4.]
    assert outer.gradient(g, x).numpy().tolist() == [4., 2.]


@pytest.mark.parametrize("value, dtype, text", [
    # TensorFlow 2.21's own output for these (absl's shortest %g that reads back)
    ([0.1, 1e-7, 123456789.0, 2.0 / 3, -0.0, float("nan"), float("inf")], "float32",
     b"[0.1 1e-07 123456792 ... -0 nan inf]"),
    ([0.1, 2.0 / 3, 1e20], "float64", b"[0.1 0.66666666666666663 1e+20]"),
    (2.0, "float32", b"2"),
    ([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]], "float64", b"[[0 1 2 3]\n [4 5 6 7]]"),
    ([1e-5, 1e5, 1e6, 1e7, 1e16, 1e17], "float32", b"[1e-05 100000 1e+06 1e+07 1e+16 1e+17]"),
    (0.1, "float16", b"0.0999755859"),
])
def test_format_writes_floats_as_tensorflow(value, dtype, text):
    assert tf.strings.format("{}", tf.constant(value, dtype)).numpy() == text
