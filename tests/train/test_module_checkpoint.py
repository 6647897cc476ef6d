"""Checkpoints of fe.Module objects, deferred restore into variables made later, and
reading a checkpoint by TensorFlow's key names (list_variables / load_variable /
load_checkpoint)."""
import numpy as np
import pytest

import fasteager as tf
from fasteager import Module


class Dense(Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class SequentialModule(Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


class FlexibleDense(Module):
    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.out_features = out_features

    def __call__(self, x):
        if not self.is_built:
            self.w = tf.Variable(tf.random.normal([x.shape[-1], self.out_features]), name='w')
            self.b = tf.Variable(tf.zeros([self.out_features]), name='b')
            self.is_built = True
        return tf.matmul(x, self.w) + self.b


class Lazy(Module):
    def __init__(self):
        super().__init__()
        self.layers = [FlexibleDense(3), FlexibleDense(2)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_guide_write_list_restore(tmp_path):
    my_model = SequentialModule(name="the_model")
    chkp_path = str(tmp_path / "my_checkpoint")
    checkpoint = tf.train.Checkpoint(model=my_model)
    checkpoint.write(chkp_path)
    # the guide's output: write() stores no save counter
    assert tf.train.list_variables(chkp_path) == [
        ('_CHECKPOINTABLE_OBJECT_GRAPH', []),
        ('model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE', [3]),
        ('model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE', [3, 3]),
        ('model/dense_2/b/.ATTRIBUTES/VARIABLE_VALUE', [2]),
        ('model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE', [3, 2])]
    new_model = SequentialModule()
    new_checkpoint = tf.train.Checkpoint(model=new_model)
    new_checkpoint.restore(chkp_path).assert_consumed()
    x = tf.constant([[2.0, 2.0, 2.0]])
    np.testing.assert_array_equal(new_model(x).numpy(), my_model(x).numpy())


def test_save_includes_counter_and_reader(tmp_path):
    model = SequentialModule()
    ckpt = tf.train.Checkpoint(model=model)
    path = ckpt.save(str(tmp_path / "ckpt"))
    names = dict(tf.train.list_variables(str(tmp_path)))     # a directory: its newest
    assert names["save_counter/.ATTRIBUTES/VARIABLE_VALUE"] == []
    reader = tf.train.load_checkpoint(path)
    assert reader.has_tensor("model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE")
    assert not reader.has_tensor("model/dense_1/zzz/.ATTRIBUTES/VARIABLE_VALUE")
    assert reader.get_variable_to_dtype_map()[
        "model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE"] == tf.float32
    assert reader.get_variable_to_shape_map()["model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE"] \
        == [3, 2]
    np.testing.assert_array_equal(
        reader.get_tensor("model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE"), model.dense_2.w.numpy())
    np.testing.assert_array_equal(
        tf.train.load_variable(path, "model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE"),
        model.dense_1.b.numpy())
    assert int(tf.train.load_variable(path, "save_counter/.ATTRIBUTES/VARIABLE_VALUE")) == 1
    with pytest.raises(tf.errors.NotFoundError, match="not found"):
        reader.get_tensor("nope")
    with pytest.raises(ValueError, match="couldn't find"):
        tf.train.list_variables(str(_empty_dir(tmp_path)))


def _empty_dir(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    return d


def test_optimizer_slot_names(tmp_path):
    model = Dense(2, 2)
    opt = tf.keras.optimizers.Adam(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.ones([1, 2])))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                            model.trainable_variables))
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "c"))
    names = [n for n, _ in tf.train.list_variables(path)]
    # Keras 3's layout, as TensorFlow 2.21 writes it: the slots are the optimizer's
    # variables after iterations and the learning rate (m and v of w, then of b)
    slots = [n for n in names if n.startswith("optimizer/_variables/")]
    assert slots == ["optimizer/_variables/%d/.ATTRIBUTES/VARIABLE_VALUE" % i
                     for i in range(2, 6)]
    assert not any("/.OPTIMIZER_SLOT/" in n for n in names)


def test_deferred_restore_into_variables_created_later(tmp_path):
    x = tf.ones([4, 5])
    model = Lazy()
    y = model(x)
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "lazy"))
    fresh = Lazy()
    status = tf.train.Checkpoint(model=fresh).restore(path)
    with pytest.raises(AssertionError):
        status.assert_consumed()              # the variables do not exist yet
    np.testing.assert_array_equal(fresh(x).numpy(), y.numpy())
    status.assert_consumed()
    for a, b in zip(fresh.variables, model.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_deferred_restore_of_a_submodule_created_later(tmp_path):
    class Outer(Module):
        def build(self):
            self.inner = Dense(2, 3)
    a = Outer()
    a.build()
    path = tf.train.Checkpoint(m=a).write(str(tmp_path / "o"))
    b = Outer()
    tf.train.Checkpoint(m=b).restore(path)
    b.build()            # inner's variables were made in its __init__, before assignment
    np.testing.assert_array_equal(b.inner.w.numpy(), a.inner.w.numpy())


def test_deferred_value_of_wrong_shape_raises(tmp_path):
    m = FlexibleDense(2)
    m(tf.ones([1, 3]))
    path = tf.train.Checkpoint(m=m).write(str(tmp_path / "f"))
    other = FlexibleDense(2)
    tf.train.Checkpoint(m=other).restore(path)
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        other(tf.ones([1, 4]))                # makes w of shape [4, 2], the file has [3, 2]


class Net(tf.keras.Model):
    """The checkpoint guide's model."""

    def __init__(self):
        super().__init__()
        self.l1 = tf.keras.layers.Dense(5)

    def call(self, x):
        return self.l1(x)


def test_guide_loading_mechanics_partial_and_delayed_restore(tmp_path):
    net = Net()
    net(tf.ones([1, 1]))
    net.l1.bias.assign(tf.range(5.0))
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), net=net)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "tf_ckpts"), max_to_keep=3)
    manager.save()
    to_restore = tf.Variable(tf.zeros([5]))
    fake_layer = tf.train.Checkpoint(bias=to_restore)
    fake_net = tf.train.Checkpoint(l1=fake_layer)
    new_root = tf.train.Checkpoint(net=fake_net)
    status = new_root.restore(tf.train.latest_checkpoint(str(tmp_path / "tf_ckpts")))
    np.testing.assert_array_equal(to_restore.numpy(), [0, 1, 2, 3, 4])
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError):
        status.assert_consumed()
    delayed_restore = tf.Variable(tf.zeros([1, 5]))
    fake_layer.kernel = delayed_restore        # restored on assignment
    np.testing.assert_array_equal(delayed_restore.numpy(), net.l1.kernel.numpy())


def test_guide_list_and_dict_tracking(tmp_path):
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.)]
    save.listed.append(tf.Variable(2.))
    save.mapped = {'one': save.listed[0]}
    save.mapped['two'] = save.listed[1]
    save_path = save.save(str(tmp_path / "tf_list_example"))
    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.)
    assert 0. == v2.numpy()
    restore.mapped = {'two': v2}             # reaches the value saved under listed/1
    restore.restore(save_path)
    assert 2. == v2.numpy()
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])"
    v1 = tf.Variable(0.)
    restore.listed.append(v1)                # restored when added to the list
    assert 1. == v1.numpy()


def test_checkpoint_attributes():
    step = tf.Variable(1)
    ckpt = tf.train.Checkpoint(step=step)
    assert ckpt.step is step
    ckpt.step.assign_add(1)
    assert int(ckpt.step) == 2
