"""Variance-scaling initializers with Keras 3.15.1's input_axes/output_axes, and
LecunUniform, against values recorded from Keras (tests/tf_reference/
record_initializer_axes.py): the configs Keras writes load, and the fans follow the axes."""
import numpy as np
import pytest

import fasteager as fe
from tests.tf_reference import load
from tests.tf_reference.record_initializer_axes import NAMES

REF = load("initializer_axes")
I = fe.keras.initializers


@pytest.mark.parametrize("name", NAMES)
def test_config_is_keras_and_loads_back(name):
    cfg = getattr(I, name)(seed=3).get_config()
    assert cfg == REF["configs"][name]
    again = I.get({"class_name": name, "config": REF["configs"][name]})
    assert type(again).__name__ == name and again.get_config() == cfg


@pytest.mark.parametrize("rec", REF["bounds"], ids=lambda r: r["case"][0])
def test_fans_follow_the_axes(rec):
    name, shape, ia, oa = rec["case"]
    init = getattr(I, name)(seed=1, input_axes=ia, output_axes=oa)
    assert init.get_config() == rec["config"]
    got = max(float(np.abs(getattr(I, name)(seed=s, input_axes=ia, output_axes=oa)(
        shape).numpy()).max()) for s in range(400))
    # both maxima approach the uniform limit sqrt(3 * scale / n) from below
    assert rec["max_abs"] * 0.99 <= got <= rec["max_abs"] * 1.001


def test_bad_axes_are_value_errors():
    with pytest.raises(ValueError, match="input_axes"):
        I.GlorotUniform(input_axes="ab", output_axes=[1])
    with pytest.raises(ValueError, match="must be axes of the shape"):
        I.GlorotUniform(input_axes=[5], output_axes=[0])([2, 3])
