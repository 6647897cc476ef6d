"""fe.experimental.ExtensionType: typed fields, the generated constructor, validation,
immutability, printing, equality, Spec and fe.function, with TensorFlow 2.21's messages
(printed by TensorFlow in a separate process and written down here)."""
from typing import Mapping, Optional, Tuple

import numpy as np
import pytest

import fasteager as tf


class MaskedTensor(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    def __validate__(self):
        self.values.shape.assert_is_compatible_with(self.mask.shape)
        assert self.mask.dtype.is_bool, "mask.dtype must be tf.bool"


class Settings(tf.experimental.ExtensionType):
    name: str
    shape: tf.TensorShape
    dtype: tf.DType
    dims: Tuple[int, ...]
    extra: Mapping[str, int] = {}
    opt: Optional[tf.Tensor] = None
    n: int = 3


def test_generated_constructor_converts_fields():
    m = MaskedTensor([1, 2, 3], [True, False, True])
    assert isinstance(m.values, tf.Tensor) and m.values.dtype == tf.int32
    assert m.mask.dtype == tf.bool
    by_name = MaskedTensor(mask=[True], values=[4.0])
    assert by_name.values.dtype == tf.float32
    s = Settings("a", [1, 2], "float32", [1, 2], extra={"k": 1})
    assert s.shape == tf.TensorShape([1, 2]) and s.dtype == tf.float32 and s.dims == (1, 2)
    assert s.n == 3 and s.opt is None and s.extra["k"] == 1
    with pytest.raises(TypeError):
        s.extra["k"] = 2                      # mappings are kept read-only


def test_repr_as_tensorflow():
    m = MaskedTensor([1, 2, 3], [True, False, True])
    assert repr(m) == ("MaskedTensor(values=<fe.Tensor: shape=(3,), dtype=int32, numpy=array("
                       "[1, 2, 3], dtype=int32)>, mask=<fe.Tensor: shape=(3,), dtype=bool, "
                       "numpy=array([ True, False,  True])>)")
    s = Settings("a", [1, 2], "float32", [1, 2])
    assert repr(s) == ("Settings(name='a', shape=TensorShape([1, 2]), dtype=fe.float32, "
                       "dims=(1, 2), extra=ImmutableDict({}), opt=None, n=3)")


def test_bad_values_raise_tensorflows_errors():
    with pytest.raises(TypeError, match="missing a required argument: 'mask'"):
        MaskedTensor([1, 2])
    with pytest.raises(AssertionError, match="mask.dtype must be tf.bool"):
        MaskedTensor([1, 2], [1, 2])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(1,\) are incompatible"):
        MaskedTensor([1, 2], [True])
    with pytest.raises(TypeError, match="name: expected 'str', got 'int'"):
        Settings(3, [1], "float32", ())
    with pytest.raises(TypeError, match=r"dims\[0\]: expected 'int', got 'float'"):
        Settings("a", [1], "float32", (1.5,))
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        MaskedTensor([1], [True], colour=1)


def test_values_are_immutable():
    m = MaskedTensor([1, 2], [True, True])
    with pytest.raises(AttributeError, match="Cannot mutate attribute `values` outside the "
                                             "custom constructor of ExtensionType."):
        m.values = tf.constant([3, 4])
    with pytest.raises(TypeError, match="unhashable"):
        hash(m)


def test_equality_is_a_bool_tensor():
    a = MaskedTensor([1, 2], [True, True])
    assert isinstance(a == a, tf.Tensor) and bool(a == a) and not bool(a != a)
    assert not bool(a == MaskedTensor([1, 3], [True, True]))
    assert not bool(a == MaskedTensor([1, 2, 3], [True, True, True]))
    assert not bool(a == "something else")


def test_custom_constructor_and_subclass_fields():
    class Doubled(tf.experimental.ExtensionType):
        x: tf.Tensor

        def __init__(self, v):
            self.x = tf.constant(v) * 2

    assert int(Doubled(3).x) == 6
    with pytest.raises(AttributeError, match="Cannot mutate"):
        Doubled(3).x = 1

    class Labelled(MaskedTensor):
        label: str = "none"

    value = Labelled([1], [True], "a")
    assert type(value)._fields == ("values", "mask", "label") and value.label == "a"


def test_spec_and_fe_function():
    m = MaskedTensor([1, 2, 3], [True, False, True])
    assert repr(MaskedTensor.Spec.from_value(m)) == (
        "MaskedTensor.Spec(values=TensorSpec(shape=(3,), dtype=fe.int32, name=None), "
        "mask=TensorSpec(shape=(3,), dtype=fe.bool, name=None))")

    @tf.function
    def double(mt):
        return MaskedTensor(mt.values * 2, mt.mask)
    for k in range(3):
        out = double(MaskedTensor(tf.constant([k, 1, 2]), [True, False, True]))
        assert isinstance(out, MaskedTensor)
        np.testing.assert_array_equal(out.values.numpy(), [2 * k, 2, 4])
    flat = tf.nest.flatten(m, expand_composites=True)
    assert len(flat) == 2
    again = tf.nest.pack_sequence_as(m, flat, expand_composites=True)
    assert bool(again == m)
