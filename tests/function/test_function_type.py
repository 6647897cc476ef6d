"""What TensorFlow shows of a trace: Function.pretty_printed_concrete_signatures(),
ConcreteFunction.function_type / str / inference_fn, concrete functions called by argument
name and refusing other dtypes and shapes; py_function as a decorator."""
import numpy as np
import pytest

import fasteager as fe


def _double():
    @fe.function
    def double(a):
        return a + a
    return double


def test_pretty_printed_concrete_signatures_lists_every_trace():
    double = _double()
    double(fe.constant(1))
    double(fe.constant("a"))
    text = double.pretty_printed_concrete_signatures()
    assert text == (
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=fe.int32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=fe.int32, name=None)\n"
        "Captures:\n"
        "  None\n"
        "\n"
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=fe.string, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=fe.string, name=None)\n"
        "Captures:\n"
        "  None")


def test_literals_defaults_keyword_only_and_captures():
    v = fe.Variable(2.0)

    @fe.function
    def f(x, y=2, *, z):
        return x * y * v + z

    f(fe.constant([1.0]), z=fe.constant(2.0))
    text = f.pretty_printed_concrete_signatures()
    assert "  y (POSITIONAL_OR_KEYWORD): Literal[2]" in text
    assert "  z (KEYWORD_ONLY): TensorSpec(shape=(), dtype=fe.float32, name=None)" in text
    assert "Output Type:\n  TensorSpec(shape=(1,), dtype=fe.float32, name=None)" in text
    assert "Captures:\n  %d: TensorSpec(shape=(), dtype=fe.resource" % id(v) in text


def test_concrete_function_by_name_and_type_checks():
    double = _double()
    cf = double.get_concrete_function(fe.constant("a"))
    assert cf(a=fe.constant("b")).numpy() == b"bb"
    assert repr(cf.function_type) == ("(a: TensorSpec(shape=(), dtype=fe.string, name=None))"
                                      " -> TensorSpec(shape=(), dtype=fe.string, name=None)")
    assert str(cf).startswith("ConcreteFunction Input Parameters:\n")
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match=r"input #0\(zero-based\) was expected to be a string tensor but "
                             r"is a int32 tensor"):
        cf(fe.constant(1))
    with pytest.raises(fe.errors.InvalidArgumentError, match="traced with shape"):
        cf(fe.constant(["a", "b"]))
    with pytest.raises(TypeError, match="unexpected keyword"):
        cf(b=fe.constant("b"))
    with pytest.raises(TypeError, match="expected 1 tensor argument"):
        cf()
    assert cf.inference_fn(fe.constant("c")).numpy() == b"cc"


def test_concrete_function_of_specs_describes_the_specs():
    double = _double()
    cf = double.get_concrete_function(fe.TensorSpec([None], fe.float32))
    assert "a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,), dtype=fe.float32" in str(cf)


def test_py_function_as_a_decorator():
    calls = []

    @fe.py_function(Tout=fe.float32)
    def py_plus(x, y):
        calls.append(1)
        return x + y

    @fe.function
    def wrapper(x, y):
        return py_plus(x, y)

    assert float(wrapper(fe.constant(1.0), fe.constant(2.0))) == 3.0
    assert float(wrapper(fe.constant(2.0), fe.constant(2.0))) == 4.0
    assert len(calls) == 2                      # runs eagerly at every call
    np.testing.assert_allclose(py_plus(fe.constant(1.0), fe.constant(1.0)).numpy(), 2.0)
    with pytest.raises(TypeError, match="inp"):
        fe.py_function(inp=[1.0], Tout=fe.float32)


class _KindTraceType(fe.types.experimental.TraceType):
    def __init__(self, obj):
        self.kind = type(obj)

    def is_subtype_of(self, other):
        return type(other) is _KindTraceType and self.kind is other.kind

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None

    def __eq__(self, other):
        return type(other) is _KindTraceType and self.kind is other.kind

    def __hash__(self):
        return hash(self.kind)


class _Flavoured:
    def __tf_tracing_type__(self, context):
        return _KindTraceType(self)


class _Apple(_Flavoured):
    flavor = fe.constant([1, 2])


class _Plain:
    flavor = fe.constant([1, 2])


def test_objects_with_a_trace_type_share_traces():
    @fe.function
    def flavor(fruit):
        return fruit.flavor * 2

    flavor(_Apple())
    flavor(_Apple())
    assert flavor.experimental_get_tracing_count() == 1
    flavor(_Plain())
    flavor(_Plain())               # without one, each new object is traced again
    assert flavor.experimental_get_tracing_count() == 3
    with pytest.raises(TypeError):
        fe.types.experimental.TraceType()          # abstract


def test_ragged_and_sparse_arguments_are_traced_through_their_components():
    @fe.function
    def increment(x):
        return x + 1

    rt = fe.ragged.constant([[1, 2], [3], [4, 5, 6]])
    cf = increment.get_concrete_function(rt)
    assert cf(rt).to_list() == [[2, 3], [4], [5, 6, 7]]
    # another ragged value with the same component shapes replays the same trace
    assert increment(fe.ragged.constant([[10, 2], [3], [4, 5, 60]])).to_list() == \
        [[11, 3], [4], [5, 6, 61]]
    assert increment.experimental_get_tracing_count() == 1

    @fe.function(input_signature=[fe.RaggedTensorSpec(shape=[None, None], dtype=fe.int32)])
    def row_max(x):
        return fe.math.reduce_max(x, axis=-1)

    np.testing.assert_array_equal(row_max(rt).numpy(), [2, 3, 6])
    np.testing.assert_array_equal(row_max(fe.ragged.constant([[7], [1, 9]])).numpy(), [7, 9])
    assert row_max.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="binding inputs failed"):
        row_max(fe.constant([[1, 2]]))

    sp = fe.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])

    @fe.function
    def doubled(s):
        return fe.sparse.to_dense(s) * 2

    assert doubled(sp).numpy()[1, 2] == 4.0


def test_an_unknown_rank_spec_gives_an_unknown_shape_output():
    @fe.function
    def pow(a, b):
        return a ** b
    square = pow.get_concrete_function(a=fe.TensorSpec(None, fe.float32), b=2)
    assert str(square) == (
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=<unknown>, dtype=fe.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[2]\n"
        "Output Type:\n"
        "  TensorSpec(shape=<unknown>, dtype=fe.float32, name=None)\n"
        "Captures:\n"
        "  None")                                   # the function guide's text
