"""String tensors through the Cython core: indexing, ==, !=, + and conversion, as TensorFlow
2.21 does them (tf.Tensor operators and tf.convert_to_tensor on tf.string)."""
import warnings

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError


def test_indexing_gives_string_tensors():
    v = tf.constant(["a", "b", "c"])
    assert repr(v[0]) == "<fe.Tensor: shape=(), dtype=string, numpy=b'a'>"
    assert v[1:].numpy().tolist() == [b"b", b"c"]
    assert v[1:].dtype == tf.string
    m = tf.constant([["a", "b"], ["c", "d"]])
    assert m[:, 1].numpy().tolist() == [b"b", b"d"]
    assert m[1, 0].numpy() == b"c"
    assert [x.numpy() for x in v] == [b"a", b"b", b"c"]      # iteration indexes too


def test_equality_with_strings_prints_as_tensorflow():
    s = tf.constant("a")
    assert repr(s == "a") == "<fe.Tensor: shape=(), dtype=bool, numpy=True>"
    assert str(s == "a") == "fe.Tensor(True, shape=(), dtype=bool)"
    v = tf.constant(["a", "b", "c"])
    assert (v == "a").numpy().tolist() == [True, False, False]
    assert (v != "a").numpy().tolist() == [False, True, True]
    assert tf.equal(v, tf.constant(["a", "x", "c"])).numpy().tolist() == [True, False, True]
    assert tf.not_equal(v, b"b").numpy().tolist() == [True, False, True]
    assert (v == "é").numpy().tolist() == [False] * 3
    assert (tf.constant(["é"]) == "é").numpy().tolist() == [True]     # UTF-8 on both sides


def test_add_concatenates_as_tf_add():
    s = tf.constant("a")
    v = tf.constant(["a", "b"])
    assert (s + "b").numpy() == b"ab"
    assert ("b" + s).numpy() == b"ba"
    assert (s + b"x").numpy() == b"ax"
    r = v + v
    assert r.dtype == tf.string and r.numpy().tolist() == [b"aa", b"bb"]
    assert tf.add(v, "x").numpy().tolist() == [b"ax", b"bx"]
    assert tf.add("x", "y").numpy() == b"xy"
    assert tf.math.add(s, s).numpy() == b"aa"
    # broadcasting, as for numbers
    assert tf.add(tf.constant([["a"], ["b"]]), tf.constant(["1", "2"])).numpy().tolist() == \
        [[b"a1", b"a2"], [b"b1", b"b2"]]


def test_strings_and_numbers_do_not_mix():
    s = tf.constant("a")
    # comparisons convert strictly (TypeError), arithmetic fails in the kernel's dtype check
    with pytest.raises(TypeError, match="equal: cannot convert 1 to a string tensor"):
        s == 1    # noqa: B015
    with pytest.raises(TypeError, match="equal"):
        tf.equal(s, 1)
    with pytest.raises(TypeError, match="not_equal"):
        s != 2.0    # noqa: B015
    with pytest.raises(TypeError, match="equal: cannot convert 'x' to a float32 tensor"):
        tf.constant(1.0) == "x"    # noqa: B015
    with pytest.raises(InvalidArgumentError, match="add: cannot convert 1.0 to a string"):
        s + 1.0
    with pytest.raises(InvalidArgumentError, match="add: cannot convert 'x' to a float32"):
        tf.constant(1.0) + "x"
    with pytest.raises(InvalidArgumentError, match="add: all inputs must have the same dtype "
                       r"\(expected string for input 1 to match input 0, got float32\)"):
        s + tf.constant(1.0)
    with pytest.raises(InvalidArgumentError, match="equal: all inputs must have the same"):
        s == tf.constant(1.0)    # noqa: B015
    # numeric-only kernels never see a string
    for fn in (lambda: s - "b", lambda: s * s, lambda: -s, lambda: tf.abs(s),
               lambda: tf.reduce_sum(tf.constant(["a"])), lambda: tf.exp(s)):
        with pytest.raises(InvalidArgumentError, match="unsupported dtype .*got string"):
            fn()


def test_convert_to_tensor_makes_utf8_bytes():
    t = tf.convert_to_tensor("x")
    assert repr(t) == "<fe.Tensor: shape=(), dtype=string, numpy=b'x'>"
    assert tf.convert_to_tensor(b"x").numpy() == b"x"
    assert tf.convert_to_tensor(np.str_("x")).numpy() == b"x"
    ab = tf.convert_to_tensor(["a", "b"])
    assert ab.dtype == tf.string and ab.numpy().tolist() == [b"a", b"b"]
    u = tf.convert_to_tensor(np.array(["a", "é"]))
    assert u.numpy().dtype == object
    assert u.numpy().tolist() == [b"a", "é".encode()]
    assert all(type(b) is bytes for b in u.numpy())
    assert tf.convert_to_tensor(np.array([b"a", b"b"])).numpy().tolist() == [b"a", b"b"]
    assert tf.convert_to_tensor(np.array(["a"]), dtype=tf.string).numpy().tolist() == [b"a"]
    assert tf.convert_to_tensor([["a"], ["b"]]).shape == (2, 1)
    # the tensor owns its memory: changing the source array changes nothing
    src = np.array([b"a"], dtype=object)
    t = tf.convert_to_tensor(src)
    src[0] = b"z"
    assert t.numpy()[0] == b"a"


def test_convert_to_tensor_refuses_what_tensorflow_refuses():
    with pytest.raises(ValueError, match="Can't convert Python sequence with mixed types"):
        tf.convert_to_tensor(["a", 1])          # mixed types (not the string "1")
    with pytest.raises(TypeError, match="cannot convert 1 to a string tensor"):
        tf.convert_to_tensor(1, dtype=tf.string)
    with pytest.raises(TypeError, match="string tensor"):
        tf.convert_to_tensor(np.array([1.0]), dtype=tf.string)
    with pytest.raises(ValueError, match="Can't convert non-rectangular Python sequence"):
        tf.convert_to_tensor([["a"], ["b", "c"]])      # rows of different lengths
    with pytest.raises(InvalidArgumentError, match="cannot convert"):
        tf.convert_to_tensor(np.array([object()], dtype=object))


def test_layout_ops_run_in_the_core():
    v = tf.constant(["a", "b", "c"])
    assert tf.gather(v, [2, 0]).numpy().tolist() == [b"c", b"a"]
    assert tf.concat([v, ["z"]], 0).numpy().tolist() == [b"a", b"b", b"c", b"z"]
    assert tf.reshape(v, [3, 1]).shape == (3, 1)
    assert tf.where([True, False, True], v, "z").numpy().tolist() == [b"a", b"z", b"c"]
    assert tf.fill([2, 1], "#").numpy().tolist() == [[b"#"], [b"#"]]
    assert tf.unstack(v)[1].numpy() == b"b"
    assert tf.broadcast_to(tf.constant("q"), [2]).numpy().tolist() == [b"q", b"q"]
    from fasteager.ops.registry import OPS, STRING
    # the ops that take strings say so in their kinds; the rest refuse them in the core
    takes = sorted(name for name, op in OPS.items() if STRING in op.kinds)
    assert {"add", "equal", "not_equal", "getitem", "reshape", "concat", "select"} <= set(takes)
    assert "subtract" not in takes and "reduce_sum" not in takes


def test_strings_have_no_gradient_and_do_not_break_a_tape():
    v = tf.constant(["a", "b"])
    x = tf.Variable(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(v)
            y = x * 3.0
            w = v + "q"
            r = tf.reshape(w, [2, 1])[0]
            eq = tf.cast(tf.equal(v, "a"), tf.float32) * x
        assert tape.gradient(y, x).numpy() == 3.0
        assert tape.gradient(w, v) is None
        assert tape.gradient(r, v) is None
        assert tape.gradient(eq, x).numpy() == 1.0   # through the bool mask, to x
        assert tape._num_records == 2     # x * 3 and mask * x: no record for string ops


def test_function_traces_string_operators():
    calls = []

    @tf.function
    def greet(name):
        calls.append(1)
        return name + "!", name == "bob", name[0]

    for who in ("bob", "amy"):
        out, is_bob, first = greet(tf.constant([who]))
        assert out.numpy().tolist() == [who.encode() + b"!"]
        assert is_bob.numpy().tolist() == [who == "bob"]
        assert first.numpy() == who.encode()
    assert len(calls) == 1          # one trace for the shape and dtype; replays recompute


def test_dataset_maps_string_operators():
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "a"]).map(lambda s: s + "-x")
    assert list(ds.as_numpy_iterator()) == [b"a-x", b"b-x", b"a-x"]
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "a"]).filter(lambda s: s == "a")
    assert list(ds.as_numpy_iterator()) == [b"a", b"a"]
