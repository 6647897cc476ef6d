"""One initializer family: TensorFlow's initializer objects (``fe.zeros_initializer`` ...)
live in the engine (``fasteager._src.initializers``), and Keras's initializers subclass
that family with Keras's names, defaults and configs."""
import importlib

import numpy as np
import pytest

import fasteager as fe
from fasteager._src import initializers as family

K = fe.keras.initializers


def test_keras_initializers_derive_from_the_engine_family():
    assert issubclass(K.Initializer, family.Initializer)
    for name in ("Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform",
                 "TruncatedNormal", "VarianceScaling", "GlorotUniform", "HeNormal",
                 "Orthogonal"):
        assert issubclass(getattr(K, name), family.Initializer), name
    assert isinstance(K.Zeros(), fe.zeros_initializer)
    assert isinstance(K.Ones(), fe.ones_initializer)


def test_tf_initializers_are_the_engine_family():
    for name in ("zeros_initializer", "ones_initializer", "constant_initializer",
                 "random_normal_initializer", "random_uniform_initializer"):
        assert getattr(fe, name) is getattr(family, name)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("fasteager._tf_functional")


def test_keras_names_defaults_and_configs_stay_keras():
    z = K.Zeros()([2, 3])
    assert z.dtype == fe.float32 and np.all(z.numpy() == 0)
    o = K.Ones()((2,), "float64")
    assert o.dtype == fe.float64 and np.all(o.numpy() == 1)
    assert K.serialize(K.Zeros()) == {"class_name": "Zeros", "config": {}}
    # Keras's from_config takes every key as an argument (TensorFlow's drops "dtype")
    with pytest.raises(TypeError):
        K.Zeros.from_config({"dtype": "float32"})
    assert type(fe.zeros_initializer.from_config({"dtype": "float32"})) is fe.zeros_initializer
    assert type(K.get("zeros")) is K.Zeros


def test_tf_initializers_print_and_pickle_as_their_public_names():
    import pickle
    init = fe.constant_initializer([1.0, 2.0])
    assert repr(type(init)) == "<class 'fasteager.constant_initializer'>"
    again = pickle.loads(pickle.dumps(init))
    assert type(again) is fe.constant_initializer and again.value == [1.0, 2.0]
    assert fe.random_uniform_initializer.__module__ == "fasteager"
