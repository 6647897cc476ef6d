"""Keras 3's automatic config: a user's layer or model without get_config saves its
constructor arguments when they are plain values (the modules guide saves such a model)."""
import numpy as np
import pytest

import fasteager as fe


class Scaled(fe.keras.layers.Layer):
    def __init__(self, units, scale=2.0, tags=("a", "b"), **kwargs):
        super().__init__(**kwargs)
        self.units, self.scale, self.tags = units, scale, tags
        self.dense = fe.keras.layers.Dense(units)

    def call(self, x):
        return self.dense(x) * self.scale


class TwoDense(fe.keras.Model):
    def __init__(self, name=None, **kwargs):
        super().__init__(**kwargs)
        self.first = fe.keras.layers.Dense(3)
        self.second = fe.keras.layers.Dense(2)

    def call(self, x):
        return self.second(self.first(x))


def test_layer_config_holds_its_arguments():
    layer = Scaled(4, scale=0.5, tags=("x",), name="scaled")
    config = layer.get_config()
    assert config["units"] == 4 and config["scale"] == 0.5 and config["tags"] == ["x"]
    # only the arguments given, as Keras 3 (defaults come back from the signature)
    assert "tags" not in Scaled(4).get_config()
    assert config["name"] == "scaled" and config["trainable"] is True
    again = Scaled.from_config(config)
    assert (again.units, again.scale, again.name) == (4, 0.5, "scaled")


def test_arguments_that_are_not_plain_values_need_get_config():
    class Wrapping(fe.keras.layers.Layer):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

    with pytest.raises(NotImplementedError, match=r"Wrapping has arguments \['fn'\].*get_config"):
        Wrapping(np.sin).get_config()


def test_builtin_layers_keep_their_own_config():
    config = fe.keras.layers.Dense(3, activation="relu").get_config()
    assert config["units"] == 3 and config["activation"] == "relu"


def test_subclassed_model_saves_and_loads_with_its_class(tmp_path):
    model = TwoDense(name="ignored")
    x = fe.constant([[2.0, 2.0, 2.0]])
    y = model(x).numpy()
    path = str(tmp_path / "model.keras")
    model.save(path)
    # loading names a class: only a registered or given one is constructed (as Keras 3
    # raises TypeError for a class it cannot locate)
    with pytest.raises(TypeError, match="TwoDense"):
        fe.keras.models.load_model(path)
    loaded = fe.keras.models.load_model(path, custom_objects={"TwoDense": TwoDense})
    np.testing.assert_allclose(loaded(x).numpy(), y, rtol=1e-6)


def test_subclass_passing_a_positional_argument_to_model_init():
    # the effective-TF2 guide's DynamicRNN calls super().__init__(self): Keras 3 raises
    # TypeError from Layer.__init__
    class Passing(fe.keras.Model):
        def __init__(self):
            super().__init__(self)

    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        Passing()
