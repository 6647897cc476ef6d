"""Checkpoints of Keras models and optimizers: deferred restore, slots, exact resume."""
import numpy as np
import pytest

import fasteager as fe

X = np.random.RandomState(0).randn(16, 5).astype("float32")
Y = np.random.RandomState(1).randn(16, 3).astype("float32")


def sequential():
    return fe.keras.Sequential([fe.keras.layers.Dense(8, activation="relu"),
                                fe.keras.layers.Dense(3)])


class Sub(fe.keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [fe.keras.layers.Dense(6, activation="tanh"),
                       fe.keras.layers.Dense(4, activation="relu")]
        self.heads = {"out": fe.keras.layers.Dense(3), "aux": fe.keras.layers.Dense(1)}

    def call(self, x, training=None):
        for b in self.blocks:
            x = b(x)
        return self.heads["out"](x) + 0.0 * self.heads["aux"](x)


def step(model, opt):
    with fe.GradientTape() as tape:
        loss = fe.reduce_mean((model(X) - Y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))


def weights(model):
    return [w.numpy().copy() for w in model.weights]


@pytest.mark.parametrize("make", [sequential, Sub])
def test_restore_into_built_model(tmp_path, make):
    m, opt = make(), fe.keras.optimizers.Adam(0.01)
    for _ in range(3):
        step(m, opt)
    path = fe.train.Checkpoint(model=m, optimizer=opt).save(str(tmp_path / "ck"))
    m2, opt2 = make(), fe.keras.optimizers.Adam(0.01)
    m2(X)
    opt2.build(m2.trainable_variables)
    status = fe.train.Checkpoint(model=m2, optimizer=opt2).restore(path)
    status.assert_consumed()
    for a, b in zip(weights(m), weights(m2)):
        np.testing.assert_array_equal(a, b)
    assert int(opt2.iterations.numpy()) == 3
    for v, v2 in zip(m.trainable_variables, m2.trainable_variables):
        for name in ("m", "v"):
            np.testing.assert_array_equal(opt.get_slot(v, name).numpy(),
                                          opt2.get_slot(v2, name).numpy())


@pytest.mark.parametrize("make", [sequential, Sub])
def test_deferred_restore_before_build(tmp_path, make):
    m, opt = make(), fe.keras.optimizers.Adam(0.01)
    for _ in range(2):
        step(m, opt)
    path = fe.train.Checkpoint(model=m, optimizer=opt).save(str(tmp_path / "ck"))
    m2, opt2 = make(), fe.keras.optimizers.Adam(0.01)
    status = fe.train.Checkpoint(model=m2, optimizer=opt2).restore(path)
    with pytest.raises(AssertionError):
        status.assert_consumed()          # the model has no variables yet
    status.assert_existing_objects_matched()
    m2(X)                                 # the lazy build takes the saved values
    status.assert_consumed()
    for a, b in zip(weights(m), weights(m2)):
        np.testing.assert_array_equal(a, b)
    step(m, opt)
    step(m2, opt2)                        # slots restored before the first step
    for a, b in zip(weights(m), weights(m2)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [sequential, Sub])
def test_resuming_is_exact(tmp_path, make):

    m, opt = make(), fe.keras.optimizers.Adam(0.01)
    ckpt = fe.train.Checkpoint(model=m, optimizer=opt)
    for _ in range(5):                     # N
        step(m, opt)
    path = ckpt.save(str(tmp_path / "ck"))
    for _ in range(4):                     # M more
        step(m, opt)
    m2, opt2 = make(), fe.keras.optimizers.Adam(0.01)
    fe.train.Checkpoint(model=m2, optimizer=opt2).restore(
        fe.train.latest_checkpoint(str(tmp_path))).assert_existing_objects_matched()
    for _ in range(4):
        step(m2, opt2)
    assert int(opt2.iterations.numpy()) == int(opt.iterations.numpy()) == 9
    for a, b in zip(weights(m), weights(m2)):
        np.testing.assert_array_equal(a, b)


def test_slots_saved_once_by_variable_path(tmp_path):
    from fasteager.train import _safetensors
    m, opt = sequential(), fe.keras.optimizers.Adam(0.01)
    step(m, opt)
    path = fe.train.Checkpoint(model=m, optimizer=opt).save(str(tmp_path / "ck"))
    tensors, _ = _safetensors.load_file(path + ".safetensors")
    slots = [k for k in tensors if "/slots/" in k]
    assert len(slots) == 2 * len(m.trainable_variables)
    assert "optimizer/slots/model/_layers/0/kernel/m" in tensors
    assert not [k for k in tensors if k.startswith("optimizer/_variables")]


def test_wrong_shape_changes_nothing(tmp_path):
    m = sequential()
    m(X)
    path = fe.train.Checkpoint(model=m).save(str(tmp_path / "ck"))
    other = fe.keras.Sequential([fe.keras.layers.Dense(8, activation="relu"),
                                 fe.keras.layers.Dense(2)])
    other(X)
    before = weights(other)
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"ck-1.*_layers/1/kernel"):
        fe.train.Checkpoint(model=other).restore(path)
    for a, b in zip(before, weights(other)):
        np.testing.assert_array_equal(a, b)


def test_deferred_wrong_shape_is_reported(tmp_path):
    m = sequential()
    m(X)
    path = fe.train.Checkpoint(model=m).save(str(tmp_path / "ck"))
    other = fe.keras.Sequential([fe.keras.layers.Dense(8, activation="relu"),
                                 fe.keras.layers.Dense(2)])
    fe.train.Checkpoint(model=other).restore(path)
    with pytest.raises(fe.errors.InvalidArgumentError, match="kernel"):
        other(X)
