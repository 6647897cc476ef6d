"""fe.print writes what tf.print (TensorFlow 2.21) writes, to stderr by default; the
expected lines below are TensorFlow's own output for the same calls."""
import io

import numpy as np

import fasteager as fe


def _printed(*args, **kwargs):
    out = io.StringIO()
    fe.print(*args, output_stream=out, **kwargs)
    return out.getvalue()


def test_numbers_as_tensorflow_prints_them():
    cases = [(fe.constant(1.0), "1"), (fe.constant(1 / 3), "0.333333343"),
             (fe.constant(1e-8), "1e-08"), (fe.constant(123456789.0), "123456792"),
             (fe.constant(1 / 3, fe.float64), "0.33333333333333331"),
             (fe.constant([True, False]), "[1 0]"), (fe.constant(np.float32(np.nan)), "nan"),
             (fe.constant([np.inf, -np.inf]), "[inf -inf]"), (fe.constant(-0.5), "-0.5"),
             (fe.constant(7, fe.int64), "7"), (fe.constant([1.0, 2.5e10]), "[1 2.5e+10]"),
             (fe.constant([], fe.float32), "[]")]
    for value, expected in cases:
        assert _printed(value) == expected + "\n"


def test_strings_and_structures():
    assert _printed(fe.constant("abc")) == "abc\n"
    assert _printed(fe.constant(["a", "bc"])) == '["a" "bc"]\n'
    assert _printed({"k": fe.constant(1)}, [fe.constant(2), 3]) == "{'k': 1} [2, 3]\n"
    assert _printed("a", "b", sep=",", end="!\n") == "a,b!\n"


def test_summarize_elides_long_dimensions():
    assert _printed(fe.constant(np.arange(10))) == "[0 1 2 ... 7 8 9]\n"
    assert _printed(fe.constant(np.arange(10)), summarize=2) == "[0 1 ... 8 9]\n"
    assert _printed(fe.constant(np.arange(10)), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]\n"
    assert _printed(fe.constant(np.arange(24).reshape(2, 3, 4))) == (
        "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n"
        "  [20 21 22 23]]]\n")
    assert _printed(fe.constant(np.arange(100).reshape(10, 10))) == (
        "[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
        " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]\n")


def test_default_stream_is_stderr_and_runs_on_every_call(capsys):
    f = fe.function(lambda x: (fe.print("x:", x), x + 1)[1])
    for v in (1.5, 2.5):
        f(fe.constant(v))
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "x: 1.5\nx: 2.5\n"


def test_ragged_and_sparse_as_tensorflow_prints_them():
    # TensorFlow 2.21's output for the same calls
    assert _printed(fe.ragged.constant([[1, 2], [3]])) == "[[1, 2], [3]]\n"
    assert _printed(fe.ragged.constant([[[1.5]], [[2.25, 3]], []])) == \
        "[[[1.500000]], [[2.250000, 3.000000]], []]\n"
    assert _printed(fe.ragged.constant([["a"], ["b", "c"]])) == "[['a'], ['b', 'c']]\n"
    assert _printed("x", fe.ragged.constant([[True], [False]])) == "x [[true], [false]]\n"
    assert _printed(fe.ragged.constant([list(range(10)), [1]])) == \
        "[[0, 1, 2, ..., 7, 8, 9], [1]]\n"
    assert _printed(fe.sparse.SparseTensor([[0, 1], [1, 0]], [1.5, 0.1], [2, 2])) == \
        "'SparseTensor(indices=[[0 1]\n [1 0]], values=[1.5 0.1], shape=[2 2])'\n"
    assert _printed("s", [fe.sparse.SparseTensor([[0]], [7], [3])]) == \
        "s ['SparseTensor(indices=[[0]], values=[7], shape=[3])']\n"


def test_ragged_printed_inside_a_function_shows_each_calls_values():
    out = io.StringIO()

    @fe.function
    def f(r):
        fe.print(r, output_stream=out)
        return r.flat_values

    f(fe.ragged.constant([[1.5], [2.0]]))
    f(fe.ragged.constant([[3.5, 1.0], [2.0]]))
    assert out.getvalue() == "[[1.500000], [2.000000]]\n[[3.500000, 1.000000], [2.000000]]\n"
