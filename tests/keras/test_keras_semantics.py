"""Keras semantics that real programs hit (issue 33), compared with values recorded from
TensorFlow 2.21 / Keras 3.15.1 by tests/tf_reference/record_keras_semantics.py."""
import numpy as np
import pytest

import fasteager as fe
import fasteager.keras as keras
from tests.gradcheck import check_grads
from tests.tf_reference import load

REF = load("keras_semantics")
L = keras.layers


def det(shape, k=0):
    """The recorder's deterministic values (weights and inputs shared with TensorFlow)."""
    n = int(np.prod(shape))
    return (0.5 * np.sin(np.arange(n) * 0.37 + k)).astype(np.float32).reshape(shape)


# ---- a subclassed Model with its own build() -----------------------------------------------

class MyDense(keras.Model):
    def build(self, input_shape):
        self.weight = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")

    def call(self, x):
        return fe.matmul(x, self.weight)


def test_subclassed_model_build_runs_on_first_call():
    ref = REF["model_build"]
    m = MyDense()
    y = m(np.array(ref["x"], np.float32))
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=1e-6)
    assert m.built is ref["built"] and len(m.weights) == ref["n_weights"]


def test_user_build_called_directly_marks_built_and_names_weights():
    # Keras 3 wraps a user's build: built afterwards, weights under the layer's name
    class Scale(L.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), name="w")

    for obj in (Scale(name="s"), MyDense(name="m")):
        obj.build((None, 3))
        assert obj.built and obj.weights[0].path.startswith(obj.name + "/")
    class WithSuper(keras.Model):
        def build(self, input_shape):
            super().build(input_shape)         # Keras 3: only marks the model built
            self.b = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="b")

        def call(self, x):
            return x * self.b

    m = WithSuper(name="ws")
    np.testing.assert_array_equal(m(fe.ones((1, 3))).numpy(), np.ones((1, 3)))
    assert m.built and m.b.path == "ws/b"


def test_sequential_subclass_build_calling_super_builds_the_layers():
    class MySeq(keras.Sequential):
        def build(self, input_shape=None):
            super().build(input_shape)

    m = MySeq([L.Dense(2)])
    m.build((None, 3))
    assert m.built and [list(v.shape) for v in m.weights] == [[3, 2], [2]]


# ---- one layer twice in a Sequential ---------------------------------------------------------

def test_sequential_shares_a_layer_used_twice():
    ref = REF["shared_sequential"]
    shared = L.Dense(3)
    seq = keras.Sequential([L.Flatten(), shared, shared, L.Dense(1)])
    x = np.array(ref["x"], np.float32)
    seq(x)
    assert len(seq.layers) == ref["n_layers"] and len(seq.weights) == ref["n_weights"]
    assert [list(w.shape) for w in seq.get_weights()] == ref["weight_shapes"]
    seq.set_weights([det(w.shape, i + 10) for i, w in enumerate(seq.get_weights())])
    np.testing.assert_allclose(seq(x).numpy(), ref["y"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_sequential_with_a_shared_layer_saves_and_loads_shared(tmp_path, suffix):
    if suffix == ".h5":
        pytest.importorskip("h5py")
    shared = L.Dense(3)
    seq = keras.Sequential([keras.Input((3,)), L.Flatten(), shared, shared, L.Dense(1)])
    seq.save(tmp_path / ("m" + suffix))
    back = keras.models.load_model(tmp_path / ("m" + suffix))
    x = det((2, 3), 5)
    assert back.layers[1] is back.layers[2] and len(back.weights) == 4
    np.testing.assert_allclose(back(x).numpy(), seq(x).numpy(), rtol=1e-6)
    again = keras.Sequential.from_config(seq.get_config())
    assert again.layers[1] is again.layers[2]


# ---- grouped convolution ---------------------------------------------------------------------

CONV_LAYERS = {
    "conv1d": lambda: L.Conv1D(4, 3, groups=2),
    "conv1d_same_s2": lambda: L.Conv1D(6, 3, strides=2, padding="same", groups=3),
    "conv2d": lambda: L.Conv2D(4, 3, groups=2),
    "conv2d_same_d2": lambda: L.Conv2D(6, 3, padding="same", dilation_rate=2, groups=3),
    "conv2d_cf": lambda: L.Conv2D(4, 2, strides=2, groups=4, data_format="channels_first"),
    "conv3d": lambda: L.Conv3D(4, 2, groups=2),
}


@pytest.mark.parametrize("name", sorted(CONV_LAYERS))
def test_grouped_conv_layers_match_tensorflow(name):
    ref = REF["grouped_conv"][name]
    layer = CONV_LAYERS[name]()
    shape = ref["input_shape"]
    layer.build(shape)
    assert list(layer.kernel.shape) == ref["kernel_shape"]
    layer.set_weights([det(w.shape, i + 60) for i, w in enumerate(layer.get_weights())])
    x = fe.constant(det(shape, 50))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = fe.reduce_sum(y * det(y.shape, 70))
    grads = tape.gradient(s, [x, layer.kernel, layer.bias])
    for got, key in zip([y] + grads, ["y", "grad_x", "grad_kernel", "grad_bias"]):
        np.testing.assert_allclose(np.asarray(got), ref[key], rtol=1e-5, atol=1e-6,
                                   err_msg=key)


def test_nn_conv2d_takes_grouped_filters():
    ref = REF["grouped_conv"]["nn_conv2d"]
    y = fe.nn.conv2d(det((2, 5, 5, 4), 80), det((3, 3, 2, 6), 81), 1, "VALID")
    np.testing.assert_allclose(y.numpy(), ref["y"], rtol=1e-5, atol=1e-6)
    # NCHW and conv1d read the groups the same way
    x = det((2, 5, 5, 4), 1)
    w = det((3, 3, 2, 6), 2)
    y = fe.nn.conv2d(x, w, 1, "SAME").numpy()
    yc = fe.nn.conv2d(np.transpose(x, (0, 3, 1, 2)), w, 1, "SAME", data_format="NCHW")
    np.testing.assert_allclose(np.transpose(yc.numpy(), (0, 2, 3, 1)), y, rtol=1e-6)
    y1 = fe.nn.conv1d(x[:, 0], w[0], 1, "SAME").numpy()
    np.testing.assert_allclose(y1, fe.nn.conv2d(x[:, :1], w[:1], 1, "SAME").numpy()[:, 0],
                               rtol=1e-6)


@pytest.mark.parametrize("w_shape", [(3, 3, 2, 4), (2, 2, 1, 8), (3, 1, 1, 4)])
def test_grouped_conv2d_gradients(w_shape):
    # groups of two channels (split/concat) and of one channel (the depthwise op)
    rng = np.random.RandomState(0)
    x = rng.randn(2, 4, 5, 4)
    w = rng.randn(*w_shape)
    check_grads(lambda a, b: fe.nn.conv2d(a, b, [1, 2, 1, 1], "SAME"), [x, w], order=2)


def test_grouped_conv_errors_match_keras():
    ref = REF["grouped_conv"]["errors"]
    with pytest.raises(ValueError) as e:
        L.Conv2D(3, 3, groups=2)
    assert str(e.value) == ref["layer_filters"]["message"]
    with pytest.raises(ValueError) as e:
        L.Conv2D(4, 3, groups=4)(fe.ones((1, 5, 5, 6)))
    assert str(e.value) == ref["layer_channels"]["message"]
    x = fe.constant(det((2, 5, 5, 4), 80))
    assert ref["nn_depth"]["class"] == ref["nn_groups"]["class"] == "InvalidArgumentError"
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match="input depth must be evenly divisible by filter depth"):
        fe.nn.conv2d(x, fe.ones((3, 3, 3, 4)), 1, "VALID")
    with pytest.raises(fe.errors.InvalidArgumentError,
                       match="output depth must be evenly divisible by number of groups"):
        fe.nn.conv2d(x, fe.ones((3, 3, 2, 3)), 1, "VALID")
    with pytest.raises(ValueError, match="Unrecognized keyword arguments.*groups"):
        L.Conv2DTranspose(4, 3, groups=2)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        L.Conv2D(4, 3, groups=0)


def test_grouped_conv_config_round_trip():
    layer = L.Conv2D(4, 3, groups=2)
    layer(fe.ones((1, 5, 5, 4)))
    again = L.Conv2D.from_config(layer.get_config())
    assert again.groups == 2
    assert L.Conv2DTranspose.from_config(L.Conv2DTranspose(4, 3).get_config()).filters == 4


# ---- weights files ---------------------------------------------------------------------------

def test_load_weights_h5_returns_none(tmp_path):
    pytest.importorskip("h5py")
    m = keras.Sequential([L.Dense(2)])
    m(fe.ones((1, 3)))
    m.save_weights(tmp_path / "x.weights.h5")
    assert REF["load_weights_return"] == "None"
    assert m.load_weights(tmp_path / "x.weights.h5") is None


def test_save_weights_of_unbuilt_model_raises_as_keras(tmp_path):
    class Unbuilt(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(1)

        def call(self, x):
            return self.d(x)

    ref = REF["save_unbuilt"]
    with pytest.raises(ValueError) as e:
        Unbuilt().save_weights(str(tmp_path / "unused.weights.h5"))
    assert type(e.value).__name__ == ref["class"] and str(e.value) == ref["message"]


# ---- masks across eager layer calls ----------------------------------------------------------

@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_mask_travels_between_eager_layer_calls(kind):
    ref = REF["eager_masks"]
    emb = L.Embedding(10, 4, mask_zero=True)
    emb.build((None, None))
    emb.set_weights([det((10, 4), 90)])
    rnn = getattr(L, kind)(3)
    rnn.build((None, None, 4))
    rnn.set_weights([det(w.shape, i + 100) for i, w in enumerate(rnn.get_weights())])
    padded = rnn(emb(fe.constant([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]])))
    plain = rnn(emb(fe.constant([[1, 2, 3]])))
    np.testing.assert_allclose(padded.numpy()[:1], plain.numpy(), rtol=1e-6)
    np.testing.assert_allclose(padded.numpy(), ref[kind]["padded"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(plain.numpy(), ref[kind]["unpadded"], rtol=1e-5, atol=1e-6)
    # a layer that supports masking (Dropout) hands the mask on
    through = rnn(L.Dropout(0.5)(emb(fe.constant([[1, 2, 3, 0, 0]]))))
    np.testing.assert_allclose(through.numpy(), ref[kind]["through_dropout"], rtol=1e-5,
                               atol=1e-6)


def test_global_average_pooling_1d_averages_unmasked_steps():
    ref = REF["eager_masks"]
    emb = L.Embedding(10, 4, mask_zero=True)
    emb.build((None, None))
    emb.set_weights([det((10, 4), 90)])
    gap = L.GlobalAveragePooling1D()
    padded = gap(emb(fe.constant([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]])))
    np.testing.assert_allclose(padded.numpy(), ref["gap_padded"], rtol=1e-6)
    np.testing.assert_allclose(gap(emb(fe.constant([[1, 2, 3]]))).numpy(),
                               ref["gap_unpadded"], rtol=1e-6)
    clf = keras.Sequential([keras.Input((None,), dtype="int32"),
                            L.Embedding(10, 4, mask_zero=True),
                            L.GlobalAveragePooling1D(), L.Dense(1)])
    clf.set_weights([det(w.shape, i + 110) for i, w in enumerate(clf.get_weights())])
    np.testing.assert_allclose(clf(fe.constant([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]])).numpy(),
                               ref["gap_sequential"], rtol=1e-5, atol=1e-6)


def test_keras_mask_table_keeps_no_dead_tensors():
    from fasteager.keras.layers import base
    emb = L.Embedding(10, 4, mask_zero=True)
    e = emb(fe.constant([[1, 2, 0]]))
    np.testing.assert_array_equal(base.get_keras_mask(e).numpy(),
                                  REF["eager_masks"]["embedding_mask"])
    for _ in range(50):
        emb(fe.constant([[1, 0]]))           # outputs nobody holds
    # the table drops entries whose tensor only it holds: the held one stays, no pile-up
    assert base.get_keras_mask(e) is not None
    assert len(base._MASKS) <= 3
    # an explicit mask= wins over the travelling one
    rnn = L.SimpleRNN(2)
    unmasked = rnn(e, mask=fe.constant([[True, True, True]])).numpy()
    masked = rnn(e).numpy()
    np.testing.assert_allclose(masked, rnn(emb(fe.constant([[1, 2]]))).numpy(), rtol=1e-6)
    assert not np.allclose(unmasked, masked)


# ---- regularizer losses have gradients -------------------------------------------------------

def _regularized_dense():
    net = L.Dense(1, kernel_regularizer=keras.regularizers.l2(3.0),
                  bias_regularizer=keras.regularizers.l1(0.5))
    net.build((None, 4))
    net.set_weights([det((4, 1), 20), det((1,), 21)])
    return net


def test_regularizer_losses_have_gradients_eagerly():
    ref = REF["regularizer_eager"]
    net = _regularized_dense()
    with fe.GradientTape() as tape:
        losses = net.losses
    gk, gb = tape.gradient(losses, [net.kernel, net.bias])
    np.testing.assert_allclose([float(v) for v in losses], ref["losses"], rtol=1e-6)
    np.testing.assert_allclose(gk.numpy(), ref["grad_kernel"], rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), ref["grad_bias"], rtol=1e-6)


def test_regularizer_losses_have_gradients_in_a_function():
    ref = REF["regularizer_function"]
    net = _regularized_dense()

    @fe.function
    def traced():
        with fe.GradientTape() as tape:
            total = fe.add_n(net.losses)
        return total, tape.gradient(total, net.kernel)

    for _ in range(2):                  # the trace and its replay
        total, gk = traced()
        np.testing.assert_allclose(float(total), ref["total"], rtol=1e-6)
        np.testing.assert_allclose(gk.numpy(), ref["grad_kernel"], rtol=1e-6)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_loss_includes_regularizers_and_decays_weights(run_eagerly):
    ref = REF["regularizer_fit"]
    model = keras.Sequential([
        keras.Input((4,)),
        L.Dense(2, kernel_regularizer=keras.regularizers.l2(0.1),
                bias_regularizer=keras.regularizers.l2(0.2)),
        L.Dense(1, kernel_regularizer=keras.regularizers.l1(0.05))])
    model.set_weights([det(w.shape, i + 30) + 0.1 for i, w in enumerate(model.get_weights())])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", run_eagerly=run_eagerly)
    x, y = np.array(ref["x"], np.float32), np.array(ref["y"], np.float32)
    hist = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], ref["loss"], rtol=1e-5)
    for got, want in zip(model.get_weights(), ref["weights"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0), ref["evaluate"], rtol=1e-5)


def test_activity_regularizer_adds_a_loss_per_call():
    ref = REF["activity_regularizer"]
    act = L.Dense(2, activity_regularizer=keras.regularizers.l2(0.5))
    act.build((None, 4))
    act.set_weights([det((4, 2), 45), det((2,), 46)])
    with fe.GradientTape() as tape:
        act(np.array(ref["x"], np.float32))
        losses = act.losses
    np.testing.assert_allclose([float(v) for v in losses], ref["losses"], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(losses, act.kernel).numpy(), ref["grad_kernel"],
                               rtol=1e-5, atol=1e-7)
    act(np.array(ref["x"], np.float32))
    assert len(act.losses) == 1                # each call's penalty replaces the last
    assert act.get_config()["activity_regularizer"]["config"] == ref["config"]
    # the layers that take the argument all apply it
    for layer, x in [(L.Conv2D(2, 1, activity_regularizer="l1"), fe.ones((2, 3, 3, 4))),
                     (L.LSTM(2, activity_regularizer="l2"), fe.ones((2, 3, 4))),
                     (L.SeparableConv2D(2, 1, activity_regularizer="l1"), fe.ones((2, 3, 3, 4)))]:
        layer(x)
        assert len(layer.losses) == 1, type(layer).__name__


# ---- weight constraints ----------------------------------------------------------------------

def test_constraints_project_as_keras():
    ref = REF["constraints_direct"]
    w = np.array(ref["w"], np.float32)
    C = keras.constraints
    for got, key in [(C.MaxNorm(0.5)(w), "max_norm"), (C.UnitNorm(axis=1)(w), "unit_norm_axis1"),
                     (C.MinMaxNorm(0.2, 0.4, rate=0.5)(w), "min_max_norm"),
                     (C.NonNeg()(w), "non_neg")]:
        np.testing.assert_allclose(got.numpy(), ref[key], rtol=1e-5, atol=1e-7, err_msg=key)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_applies_weight_constraints(run_eagerly):
    # they were accepted and ignored: the weights left the constraint's set silently
    ref = REF["constraints_fit"]
    cm = keras.Sequential([keras.Input((4,)),
                           L.Dense(3, kernel_constraint=keras.constraints.MaxNorm(0.5),
                                   bias_constraint="non_neg"),
                           L.BatchNormalization(
                               gamma_constraint=keras.constraints.UnitNorm(axis=0)),
                           L.Dense(1)])
    cm.set_weights([det(w.shape, i + 120) + (1.0 if i in (2, 4) else 0.0)
                    for i, w in enumerate(cm.get_weights())])
    cm.compile(optimizer=keras.optimizers.SGD(0.2), loss="mse", run_eagerly=run_eagerly)
    hist = cm.fit(np.array(ref["x"], np.float32), np.array(ref["y"], np.float32),
                  batch_size=4, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(hist.history["loss"], ref["loss"], rtol=1e-5)
    for got, want in zip(cm.get_weights(), ref["weights"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    emb = L.Embedding(5, 3, embeddings_constraint=keras.constraints.UnitNorm(axis=1))
    m = keras.Sequential([keras.Input((2,), dtype="int32"), emb, L.Flatten(), L.Dense(1)])
    m.compile(optimizer="sgd", loss="mse", run_eagerly=run_eagerly)
    m.fit(np.array([[1, 2]]), np.array([[3.0]]), verbose=0)
    # UnitNorm divides by epsilon (1e-7) + the norm, as Keras: a row drawn small (norms
    # near 0.01) ends 1e-5 short of 1, by the formula, not by rounding
    np.testing.assert_allclose(np.linalg.norm(emb.embeddings.numpy(), axis=1), 1.0, rtol=1e-4)
    config = cm.layers[0].get_config()
    again = L.Dense.from_config(config)
    assert isinstance(again.kernel_constraint, keras.constraints.MaxNorm)
    assert again.kernel_constraint.max_value == 0.5


def test_weights_are_listed_layer_by_layer_as_keras3():
    # Keras 2 listed every trainable weight first: set_weights with a list from Keras 3
    # put a BatchNormalization's moving statistics into the next layer's kernel
    ref = REF["weights_order"]
    wo = keras.Sequential([keras.Input((4,)), L.Dense(3, name="d1"),
                           L.BatchNormalization(name="bn"), L.Dense(1, name="d2")],
                          name="seq")
    assert [w.path for w in wo.weights] == ref["sequential"]

    class BnFirst(keras.Model):
        def __init__(self):
            super().__init__(name="sub")
            self.bn = L.BatchNormalization(name="bn")
            self.d = L.Dense(2, name="d")

        def call(self, x):
            return self.d(self.bn(x))

    sub = BnFirst()
    sub(fe.ones((1, 3)))
    assert [w.path for w in sub.weights] == ref["subclassed"]
    sub.trainable = False                  # freezing moves nothing
    assert [w.path for w in sub.weights] == ref["subclassed"]


def test_recurrent_layers_apply_weight_constraints():
    # they raised "not supported"; Keras 3 applies them after each update
    C = keras.constraints
    lstm = L.LSTM(3, kernel_constraint=C.NonNeg(), recurrent_constraint=C.UnitNorm(axis=0),
                  bias_constraint=C.MaxNorm(0.1, axis=0))
    m = keras.Sequential([keras.Input((4, 2)), lstm, L.Dense(1)])
    m.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    m.fit(det((6, 4, 2), 1), det((6, 1), 2) * 3, epochs=2, verbose=0)
    cell = lstm.cell
    assert (cell.kernel.numpy() >= 0).all()
    np.testing.assert_allclose(np.linalg.norm(cell.recurrent_kernel.numpy(), axis=0), 1.0,
                               rtol=1e-5)
    assert np.linalg.norm(cell.bias.numpy()) <= 0.1 + 1e-6
    again = L.LSTM.from_config(lstm.get_config())
    assert isinstance(again.cell.recurrent_constraint, C.UnitNorm)
