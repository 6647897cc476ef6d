"""Assigning to a slice of a variable (``v[1, 2].assign(x)``), against TensorFlow 2.21's
recorded behaviour (tests/tf_reference/record_tensor_semantics.py)."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load

REF = load("tensor_semantics")["sliced_assign"]
CASES = sorted(k for k, v in REF.items() if isinstance(v, dict) and "index" in v)


def _message_part(message):
    # TensorFlow's text up to a printed tensor (whose repr is TensorFlow's own)
    return message.split(": <tf.Tensor")[0].lower()


# fasteager indexes with a list as NumPy does (rows 0 and 1: tests/ops/test_indexing.py),
# where TensorFlow reads v[[0, 1]] as v[0, 1]
_LIST_INDEX = pytest.mark.xfail(strict=True, reason="NumPy-style list indexing, by design")


@pytest.mark.parametrize("case", [pytest.param(c, marks=_LIST_INDEX) if c == "list_index"
                                  else c for c in CASES])
def test_sliced_assign_matches_tensorflow(case):
    want = REF[case]
    v = fe.Variable(np.array(want["init"], dtype=want["dtype"]))
    code = "v%s.assign(%s)" % (want["index"], want["value"])
    if "error" in want:
        with pytest.raises(Exception) as info:
            eval(code, {"v": v, "tf": fe, "np": np})
        assert type(info.value).__name__ == want["error"]
        if case.startswith(("shape_mismatch", "dtype_")):
            assert _message_part(want["message"]) in str(info.value).lower()
    else:
        r = eval(code, {"v": v, "tf": fe, "np": np})
        assert type(r).__name__ == want["result"]
        np.testing.assert_array_equal(np.asarray(r), want["result_value"])
    # a failed assignment leaves the variable as it was
    np.testing.assert_array_equal(v.numpy(), np.array(want["after"], dtype=want["dtype"]))


def test_which_slices_can_assign():
    want = REF["slice_attrs"]
    v = fe.Variable(fe.zeros((2, 3)))
    s = v[0]
    assert hasattr(s, "assign") == want["assign"]
    assert hasattr(s, "assign_add") == want["assign_add"]
    assert hasattr(s, "assign_sub") == want["assign_sub"]
    assert hasattr((v + 0)[0], "assign") == want["tensor_of_tensor_assign"]
    assert hasattr(s[1:], "assign") == want["slice_of_slice_assign"]
    # the slice is an ordinary tensor otherwise
    assert isinstance(s, fe.Tensor) and s.dtype == fe.float32 and s.shape == (3,)
    np.testing.assert_array_equal((s + 1).numpy(), [1., 1., 1.])


def test_sliced_assign_under_a_tape():
    v = fe.Variable(fe.zeros((2, 3)))
    with fe.GradientTape() as tape:
        tape.watch(v)
        v[0].assign([1., 2., 3.])
        loss = fe.reduce_sum(v * v)
    np.testing.assert_array_equal(tape.gradient(loss, v).numpy(), REF["tape_grad"])


def test_sliced_assign_inside_function():
    @fe.function
    def f(v, x):
        v[0, 0].assign(x)
        v[1, :].assign(v[0] * 2.)
        return v[0, 0].assign(x + 1.)

    v = fe.Variable(fe.ones((2, 3)))
    np.testing.assert_array_equal(f(v, fe.constant(5.)).numpy(), REF["function_result"])
    np.testing.assert_array_equal(v.numpy(), REF["function_after"])
    # a second call replays the trace: the writes happen again
    v.assign(fe.ones((2, 3)))
    np.testing.assert_array_equal(f(v, fe.constant(5.)).numpy(), REF["function_result"])
    np.testing.assert_array_equal(v.numpy(), REF["function_after"])


def test_sliced_assign_does_not_disturb_a_saved_value():
    # the old value, held by a tensor read earlier, stays as it was (copy on write)
    v = fe.Variable(fe.zeros((2, 3)))
    before = v.read_value()
    v[1, 1].assign(4.)
    np.testing.assert_array_equal(before.numpy(), np.zeros((2, 3)))
    assert v.numpy()[1, 1] == 4.


def test_keras_weight_slice_assign():
    layer = fe.keras.layers.Dense(2)
    layer.build((None, 3))
    r = layer.kernel[:, 0].assign([1., 2., 3.])
    assert type(r).__name__ == "_UnreadVariable"
    np.testing.assert_array_equal(layer.kernel.numpy()[:, 0], [1., 2., 3.])
