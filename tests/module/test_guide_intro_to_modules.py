"""The programs of TensorFlow's intro_to_modules guide (tf.Module, Keras layers and models
as Modules), with only the import changed; SavedModel and TensorBoard cells left out."""
import numpy as np
import pytest

import fasteager as tf


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(
            tf.random.normal([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class FlexibleDenseModule(tf.Module):
    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.out_features = out_features

    def __call__(self, x):
        if not self.is_built:
            self.w = tf.Variable(
                tf.random.normal([x.shape[-1], self.out_features]), name='w')
            self.b = tf.Variable(tf.zeros([self.out_features]), name='b')
            self.is_built = True
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class MySequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = FlexibleDenseModule(out_features=3)
        self.dense_2 = FlexibleDenseModule(out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


def test_flexible_module_checkpoint_round_trip(tmp_path):
    my_model = MySequentialModule(name="the_model")
    out = my_model(tf.constant([[2.0, 2.0, 2.0]]))
    chkp_path = str(tmp_path / "my_checkpoint")
    checkpoint = tf.train.Checkpoint(model=my_model)
    checkpoint.write(chkp_path)
    names = [n for n, _ in tf.train.list_variables(chkp_path)]
    assert names == ['_CHECKPOINTABLE_OBJECT_GRAPH',
                     'model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE',
                     'model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE',
                     'model/dense_2/b/.ATTRIBUTES/VARIABLE_VALUE',
                     'model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE']
    new_model = MySequentialModule()
    new_checkpoint = tf.train.Checkpoint(model=new_model)
    new_checkpoint.restore(chkp_path)
    # variables made on the first call take the saved values
    np.testing.assert_array_equal(new_model(tf.constant([[2.0, 2.0, 2.0]])).numpy(),
                                  out.numpy())


def test_function_decorated_call():
    class MySequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        @tf.function
        def __call__(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)
    my_model = MySequentialModule(name="the_model")
    assert my_model([[2.0, 2.0, 2.0]]).shape == (1, 2)
    assert my_model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]).shape == (1, 2, 2)


def test_keras_layers_are_modules():
    class MyDense(tf.keras.layers.Layer):
        def __init__(self, in_features, out_features, **kwargs):
            super().__init__(**kwargs)
            self.w = tf.Variable(
                tf.random.normal([in_features, out_features]), name='w')
            self.b = tf.Variable(tf.zeros([out_features]), name='b')

        def call(self, x):
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)
    simple_layer = MyDense(name="simple", in_features=3, out_features=3)
    assert isinstance(simple_layer, tf.Module)
    # Keras 3 takes only tensors (and arrays) positionally, as the guide's TF 2.21 run shows
    with pytest.raises(ValueError, match="Only input tensors may be passed as positional "
                                         r"arguments.*: 2.0 \(of type <class 'float'>\)"):
        simple_layer([[2.0, 2.0, 2.0]])
    assert simple_layer(tf.constant([[2.0, 2.0, 2.0]])).shape == (1, 3)
    assert simple_layer(np.array([[2.0, 2.0, 2.0]])).shape == (1, 3)
    assert simple_layer.name == "simple"

    class FlexibleDense(tf.keras.layers.Layer):
        def __init__(self, out_features, **kwargs):
            super().__init__(**kwargs)
            self.out_features = out_features

        def build(self, input_shape):
            self.w = tf.Variable(
                tf.random.normal([input_shape[-1], self.out_features]), name='w')
            self.b = tf.Variable(tf.zeros([self.out_features]), name='b')

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b
    flexible_dense = FlexibleDense(out_features=3)
    assert len(flexible_dense.variables) == 0
    flexible_dense(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]))
    assert len(flexible_dense.variables) == 2
    with pytest.raises(tf.errors.InvalidArgumentError):
        flexible_dense(tf.constant([[2.0, 2.0, 2.0, 2.0]]))

    class MySequentialModel(tf.keras.Model):
        def __init__(self, name=None, **kwargs):
            super().__init__(**kwargs)
            self.dense_1 = FlexibleDense(out_features=3)
            self.dense_2 = FlexibleDense(out_features=2)

        def call(self, x):
            x = self.dense_1(x)
            return self.dense_2(x)
    my_sequential_model = MySequentialModel(name="the_model")
    assert my_sequential_model(tf.constant([[2.0, 2.0, 2.0]])).shape == (1, 2)
    assert isinstance(my_sequential_model, tf.Module)
    assert len(my_sequential_model.variables) == 4
    assert list(my_sequential_model.submodules) == [my_sequential_model.dense_1,
                                                    my_sequential_model.dense_2]
