"""Keras 3.15.1's activations fasteager added (celu, glu, hard_shrink, hard_silu/hard_swish,
hard_tanh, log_sigmoid, mish, soft_shrink, sparse_plus, sparse_sigmoid, sparsemax,
squareplus, tanh_shrink, threshold) and activations.deserialize: values and gradients
against values recorded from Keras (tests/tf_reference/record_activations_added.py) on a
grid with large, negative and kink inputs, in float32 and float64; names through
get/serialize/deserialize and in Dense/Activation layers."""
import inspect

import numpy as np
import pytest

import fasteager as fe
from fasteager.keras import activations as A
from tests.tf_reference import load

REF = load("activations_added")
TOL = {"float32": dict(rtol=2e-6, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-12)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(REF["cases"]))
def test_values_and_gradients_match_keras(case, dtype):
    entry = REF["cases"][case]
    fn = A.get(entry["name"])
    x = fe.constant(np.array(entry["x"]), dtype=dtype)
    w = fe.constant(np.array(entry["w"]), dtype=dtype)
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fn(x, **entry["kwargs"])
        loss = fe.reduce_sum(y * w)
    grad = tape.gradient(loss, x)
    want = entry[dtype]
    assert y.dtype.name == want["dtype"]
    np.testing.assert_allclose(y.numpy(), np.array(want["y"]), err_msg=case, **TOL[dtype])
    assert grad is not None, case
    np.testing.assert_allclose(grad.numpy(), np.array(want["grad"]), err_msg=case + " grad",
                               **TOL[dtype])


def test_every_keras_name_is_here_with_keras_arguments():
    for name in REF["dir"]:
        assert hasattr(A, name), name
        params = [[p.name, None if p.default is p.empty else p.default]
                  for p in inspect.signature(getattr(A, name)).parameters.values()]
        assert params == REF["signatures"][name], name


def test_serialize_get_deserialize_round_trip():
    for name, saved in REF["serialize"].items():
        fn = getattr(A, name)
        assert A.serialize(fn) == saved, name
        assert A.get(name) is fn
        assert A.deserialize(saved) is A.get(saved)
        assert A.get({"class_name": "function", "config": saved,
                      "module": "keras.activations", "registered_name": None}) is A.get(saved)
    assert A.get("hard_swish") is A.hard_silu and A.get("swish") is A.silu


def test_unknown_names_are_value_errors():
    with pytest.raises(ValueError, match="nope"):
        A.get("nope")
    with pytest.raises(ValueError, match="nope"):
        A.deserialize("nope")
    with pytest.raises(TypeError, match="deserialize"):
        A.deserialize(3)


def test_custom_object_deserializes_first():
    def my_act(x):
        return x * 2.0
    assert A.deserialize("my_act", custom_objects={"my_act": my_act}) is my_act


def test_glu_odd_axis_is_value_error():
    with pytest.raises(ValueError, match="divisible by 2"):
        A.glu(fe.ones((2, 3)))


def test_sparsemax_bad_axis_is_value_error():
    with pytest.raises(ValueError, match="out of bounds"):
        A.sparsemax(fe.ones((2, 3)), axis=2)


@pytest.mark.parametrize("name", sorted(REF["layers"]["by_name"]))
def test_by_name_in_dense_and_activation_layers(name):
    lay = REF["layers"]
    want = lay["by_name"][name]
    x = np.array(lay["x"], dtype="float32")
    dense = fe.keras.layers.Dense(6, activation=name)
    dense.build((None, 5))
    dense.set_weights([np.array(lay["kernel"], "float32"), np.array(lay["bias"], "float32")])
    np.testing.assert_allclose(dense(x).numpy(), np.array(want["dense"]), rtol=1e-5, atol=1e-5)
    config = dense.get_config()
    assert config["activation"] == want["dense_config"]
    again = fe.keras.layers.Dense.from_config(config)
    assert again.activation is dense.activation
    act = fe.keras.layers.Activation(name)
    assert act.get_config()["activation"] == want["activation_config"]
    if want["activation"] is not None:
        np.testing.assert_allclose(act(x).numpy(), np.array(want["activation"]),
                                   rtol=1e-5, atol=1e-5)
    assert fe.keras.layers.Activation.from_config(act.get_config()).activation is act.activation
