"""Calls checked against an fe.function's input_signature raise what TensorFlow 2.21
raises: TypeError for another dtype, rank or shape, for a structure of another shape,
and for missing, extra or unknown arguments; Python and NumPy values are converted."""
import numpy as np
import pytest

import fasteager as fe


def _f():
    return fe.function(lambda x: x * 2, input_signature=[fe.TensorSpec([None, 2], fe.float32)])


@pytest.mark.parametrize("value, what", [
    (lambda: fe.constant([[1, 2]], fe.int32), "dtype=fe.int32"),
    (lambda: fe.constant([[1.0, 2.0]], fe.float64), "dtype=fe.float64"),
    (lambda: fe.constant([1.0, 2.0]), r"shape=\(2,\)"),
    (lambda: fe.constant([[1.0, 2.0, 3.0]]), r"shape=\(1, 3\)"),
    (lambda: (fe.constant([[1.0, 2.0]]),), r"shape=\(1, 1, 2\)"),
])
def test_tensor_of_another_dtype_or_shape_is_a_type_error(value, what):
    with pytest.raises(TypeError, match="Can not cast TensorSpec.*%s.* to TensorSpec" % what):
        _f()(value())


def test_argument_count_and_keywords():
    f = _f()
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(fe.ones([1, 2]), fe.ones([1, 2]))
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match="unexpected keyword argument 'y'"):
        f(fe.ones([1, 2]), y=1)
    assert f(x=fe.ones([1, 2])).numpy().tolist() == [[2.0, 2.0]]     # bound by name
    assert f.experimental_get_tracing_count() == 1


def test_python_and_numpy_values_convert_to_the_spec_dtype():
    f = _f()
    assert f([[1, 2]]).dtype == fe.float32
    assert f(np.ones((3, 2))).dtype == fe.float32     # float64 NumPy data, as TensorFlow
    with pytest.raises(TypeError, match="argument x"):
        f("abc")


def test_nested_signatures():
    g = fe.function(lambda pair, s: pair[0] + pair[1] * s,
                    input_signature=[(fe.TensorSpec([2]), fe.TensorSpec([2])),
                                     fe.TensorSpec([])])
    assert g((fe.ones([2]), fe.ones([2])), fe.constant(3.0)).numpy().tolist() == [4.0, 4.0]
    with pytest.raises(TypeError, match="Can not cast"):
        g((fe.ones([2]),), fe.constant(1.0))
    with pytest.raises(TypeError, match="Can not cast"):
        g([fe.ones([2]), fe.ones([2])], fe.constant(1.0))    # a list for a tuple
    d = fe.function(lambda e: e["a"] * e["b"],
                    input_signature=[{"a": fe.TensorSpec([]), "b": fe.TensorSpec([])}])
    assert float(d({"a": 2.0, "b": 3.0})) == 6.0
    with pytest.raises(TypeError, match="Can not cast"):
        d({"a": 2.0})


def test_methods_bind_after_self():
    class M(fe.Module):
        @fe.function(input_signature=[fe.TensorSpec([None], fe.float32)])
        def f(self, x):
            return x + 1.0
    m = M()
    assert m.f(x=[1.0]).numpy().tolist() == [2.0]
    with pytest.raises(TypeError, match="Can not cast"):
        m.f(fe.constant([1], fe.int32))


def test_string_specs():
    f = fe.function(lambda s: fe.strings.length(s),
                    input_signature=[fe.TensorSpec([None], fe.string)])
    assert f(fe.constant(["ab", "c"])).numpy().tolist() == [2, 1]
    with pytest.raises(TypeError, match="Can not cast"):
        f(fe.constant([1.0]))
