"""A function with no tensor arguments, or returning Python values, works on every call
(the second call used to raise IndexError in _call_flat); traced variable writes fail as
eager ones do."""
import pytest

import fasteager as fe


def test_no_arguments_and_a_python_result():
    f = fe.function(lambda: 3)
    assert [f() for _ in range(3)] == [3, 3, 3]
    assert f.experimental_get_tracing_count() == 1


def test_mixed_tensor_and_python_results():
    v = fe.Variable(1.0)

    @fe.function
    def g():
        v.assign_add(1.0)
        return v + 0.0, "done", None
    results = [g() for _ in range(3)]
    assert [float(r[0]) for r in results] == [2.0, 3.0, 4.0]
    assert all(r[1:] == ("done", None) for r in results)


def test_traced_assign_shape_errors_match_eager_ones():
    v = fe.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="Shape mismatch"):
        fe.function(lambda: v.assign([1.0, 2.0, 3.0]))()
    with pytest.raises(fe.errors.InvalidArgumentError, match="shapes must be equal"):
        fe.function(lambda: v.assign_add([1.0]))()
    fe.function(lambda: v.assign_add(1.0))()          # a scalar adds to every element
    assert v.numpy().tolist() == [2.0, 3.0]
