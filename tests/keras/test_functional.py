"""The functional API: Input, layers on KerasTensors, Model(inputs, outputs) with several
inputs/outputs, shared layers, nested models, training, summary, configs, saving."""
import json

import numpy as np
import pytest

import fasteager as fe

K = fe.keras
L = fe.keras.layers
RNG = np.random.default_rng(2)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_input_specs():
    x = K.Input(shape=(None, None, 1), name="image")
    assert x.shape.as_list() == [None, None, None, 1] and x.dtype == fe.float32
    assert x.name == "image" and isinstance(x._history[0], L.InputLayer)
    assert K.Input(batch_shape=(4, 3), dtype="int32").shape.as_list() == [4, 3]
    assert K.Input(5, batch_size=2).shape.as_list() == [2, 5]
    assert K.Input((3,), dtype="float64").dtype == fe.float64
    with pytest.raises(ValueError, match="shape"):
        K.Input()
    with pytest.raises(ValueError, match="non-negative ints or None"):
        K.Input((-1, 3))
    with pytest.raises(TypeError, match="unexpected"):
        K.Input((3,), colour="red")


def test_unknown_spatial_dims_build_a_convnet():
    # issue 16 item 8: this failed with "the filter window is larger than the input"
    inputs = K.Input(shape=(None, None, 1))
    x = L.Conv2D(4, 3, activation="relu")(inputs)
    x = L.MaxPooling2D()(x)
    x = L.Conv2D(8, 5)(x)
    x = L.GlobalAveragePooling2D()(x)
    model = K.Model(inputs, L.Dense(3)(x))
    assert x.shape.as_list() == [None, 8]
    for hw in ((28, 28), (16, 40)):
        assert model(np.zeros((2,) + hw + (1,), np.float32)).shape.as_list() == [2, 3]
    seq = K.Sequential([K.Input((None, None, 1)), L.Conv2D(2, 3), L.Conv2D(2, 3)])
    assert seq(np.zeros((1, 9, 9, 1), np.float32)).shape.as_list() == [1, 5, 5, 2]


def _two_in_two_out():
    a = K.Input((4,), name="a")
    b = K.Input((3,), name="b")
    shared = L.Dense(5, activation="tanh", name="shared")
    ha, hb = shared(a), shared(L.Dense(4, name="lift")(b))
    merged = L.Concatenate(name="cat")([ha, hb])
    out1 = L.Dense(2, name="out1")(merged)
    out2 = L.Dense(1, name="out2")(L.Add(name="sum")([ha, hb]))
    return K.Model([a, b], [out1, out2], name="two_two"), shared


def test_model_runs_the_graph_with_shared_layers():
    model, shared = _two_in_two_out()
    assert type(model).__name__ == "Functional" and isinstance(model, K.Model)
    assert [lay.name for lay in model.layers] == ["a", "b", "shared", "lift", "cat", "out1",
                                                  "sum", "out2"]
    assert model.output_names == ["out1", "out2"]
    assert len(shared._inbound_nodes) == 2
    xa, xb = rand(3, 4), rand(3, 3)
    y1, y2 = model([xa, xb])
    w = {lay.name: [v.numpy() for v in lay.weights] for lay in model.layers}

    def dense(x, name, act=lambda t: t):
        k, bias = w[name]
        return act(x @ k + bias)
    ha = dense(xa, "shared", np.tanh)
    hb = dense(dense(xb, "lift"), "shared", np.tanh)
    np.testing.assert_allclose(y1.numpy(), dense(np.concatenate([ha, hb], 1), "out1"),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y2.numpy(), dense(ha + hb, "out2"), rtol=1e-5, atol=1e-6)
    # the model's weights are each layer's once (the shared layer is not counted twice)
    assert model.count_params() == sum(lay.count_params() for lay in model.layers)
    got = model({"a": xa, "b": xb})
    np.testing.assert_allclose(got[0].numpy(), y1.numpy())
    with pytest.raises(ValueError, match="expects 2 inputs"):
        model([xa])
    with pytest.raises(fe.errors.InvalidArgumentError, match="incompatible"):
        model([xa, rand(3, 5)])


def test_dict_inputs_and_outputs():
    x = K.Input((3,), name="x")
    t = K.Input((2,), name="t")
    h = L.Concatenate()([x, t])
    model = K.Model({"x": x, "t": t}, {"score": L.Dense(1)(h), "code": L.Dense(2)(h)})
    out = model({"x": rand(2, 3), "t": rand(2, 2)})
    assert sorted(out) == ["code", "score"] and out["code"].shape.as_list() == [2, 2]
    assert model.output_names == ["code", "score"]
    pred = model.predict({"x": rand(5, 3), "t": rand(5, 2)}, verbose=0, batch_size=2)
    assert pred["score"].shape == (5, 1)


def test_nested_models_and_gradients():
    inner_in = K.Input((3,))
    inner = K.Model(inner_in, L.Dense(2, name="inner_dense")(inner_in), name="inner")
    x = K.Input((3,))
    y = L.Dense(1)(L.Add()([inner(x), inner(x)]))
    outer = K.Model(x, y)
    assert inner in outer.layers
    xs = rand(4, 3)
    with fe.GradientTape() as tape:
        loss = fe.reduce_sum(outer(xs) ** 2)
    grads = tape.gradient(loss, outer.trainable_variables)
    assert len(grads) == 4 and all(g is not None for g in grads)
    k, b = [v.numpy() for v in inner.weights]
    k2, b2 = [v.numpy() for v in outer.layers[-1].weights]
    np.testing.assert_allclose(outer(xs).numpy(), (2 * (xs @ k + b)) @ k2 + b2, rtol=1e-5)


def test_disconnected_graph_and_bad_arguments():
    a, b = K.Input((3,)), K.Input((3,))
    out = L.Add()([a, b])
    with pytest.raises(ValueError, match="disconnected"):
        K.Model(a, out)
    with pytest.raises(TypeError, match="KerasTensors"):
        K.Model(a, fe.zeros([1, 3]))
    with pytest.raises(ValueError, match="made by fe.keras.Input"):
        K.Model(L.Dense(2)(a), out)


def test_fit_evaluate_predict_with_several_inputs_and_outputs():
    model, _ = _two_in_two_out()
    n = 64
    xa, xb = rand(n, 4), rand(n, 3)
    y1 = (xa[:, :2] > 0).astype(np.int64)[:, 0]
    y2 = xa.sum(1, keepdims=True)
    model.compile(optimizer="adam",
                  loss={"out1": "sparse_categorical_crossentropy", "out2": "mse"},
                  loss_weights={"out1": 1.0, "out2": 0.5},
                  metrics={"out1": ["accuracy"]})
    before = model.evaluate([xa, xb], {"out1": y1, "out2": y2}, verbose=0, return_dict=True)
    assert sorted(before) == ["loss", "out1_accuracy", "out1_loss", "out2_loss"]
    np.testing.assert_allclose(before["loss"], before["out1_loss"] + 0.5 * before["out2_loss"],
                               rtol=1e-4)
    fe.random.set_seed(0)
    hist = model.fit([xa, xb], [y1, y2], epochs=8, batch_size=16, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    assert set(hist.history) == {"loss", "out1_loss", "out1_accuracy", "out2_loss"}
    p1, p2 = model.predict([xa, xb], verbose=0)
    assert p1.shape == (n, 2) and p2.shape == (n, 1)
    # one loss for every output, and metrics as a list of lists
    model.compile("sgd", loss="mse", metrics=[["mae"], ["mae"]])
    logs = model.evaluate([xa, xb], [np.zeros((n, 2)), y2], verbose=0, return_dict=True)
    assert sorted(logs) == ["loss", "out1_loss", "out1_mae", "out2_loss", "out2_mae"]
    with pytest.raises(ValueError, match="one entry"):
        model.compile("sgd", loss="mse", metrics=["mae"])
    with pytest.raises(ValueError, match="unknown outputs"):
        model.compile("sgd", loss={"nope": "mse"})
    with pytest.raises(ValueError, match="2 entries"):
        model.compile("sgd", loss=["mse"])


def test_summary_lists_connections_shapes_and_params(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    model, _ = _two_in_two_out()
    calls = []
    model.summary(print_fn=calls.append, line_length=108)
    lines = calls[0].splitlines()          # Keras 3 hands print_fn the whole text at once
    assert lines[0] == 'Model: "two_two"' and "Connected to" in lines[2]
    text = calls[0]
    assert "a (InputLayer)" in text and "(None, 4)" in text
    # a shared layer: Keras 3 shows its last call's shape and every call's inputs
    row = [line for line in lines if line.startswith("│ shared (Dense)")][0]
    assert "a[0][0], lift[0][0]" in row and "25" in row
    cat = [line for line in lines if line.startswith("│ cat (Concatenate)")][0]
    assert "(None, 10)" in cat and "shared[0][0], shared[1][0]" in cat
    assert " Total params: %s (" % "{:,}".format(model.count_params()) in text


def test_config_round_trip_rebuilds_the_same_graph():
    model, _ = _two_in_two_out()
    config = json.loads(json.dumps(model.get_config()))
    shared = [e for e in config["layers"] if e["name"] == "shared"][0]
    assert len(shared["inbound_nodes"]) == 2
    hist = shared["inbound_nodes"][1]["args"][0]["config"]["keras_history"]
    assert hist == ["lift", 0, 0]
    assert config["input_layers"] == [["a", 0, 0], ["b", 0, 0]]
    clone = type(model).from_config(config)
    assert [lay.name for lay in clone.layers] == [lay.name for lay in model.layers]
    clone.set_weights(model.get_weights())
    xs = [rand(2, 4), rand(2, 3)]
    for want, got in zip(model(xs), clone(xs)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert clone.get_config() == config


def test_save_load_model_and_weights(tmp_path):
    model, _ = _two_in_two_out()
    xs = [rand(3, 4), rand(3, 3)]
    want = [y.numpy() for y in model(xs)]
    for path in (tmp_path / "m.keras", tmp_path / "m_dir"):
        model.save(path)
        loaded = K.models.load_model(path)
        assert type(loaded).__name__ == "Functional"
        for w, g in zip(want, loaded(xs)):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-6)
    fresh, _ = _two_in_two_out()
    fresh.save_weights(tmp_path / "w.safetensors")    # different random weights
    fresh.load_weights(tmp_path / "w.safetensors")
    model.save_weights(tmp_path / "w.safetensors")
    fresh.load_weights(tmp_path / "w.safetensors")
    for w, g in zip(want, fresh(xs)):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-6)
    ckpt = fe.train.Checkpoint(model=model)
    prefix = ckpt.save(str(tmp_path / "ckpt"))
    other, _ = _two_in_two_out()
    fe.train.Checkpoint(model=other).restore(prefix)
    for w, g in zip(want, other(xs)):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-6)


def test_loading_refuses_unknown_layer_classes_in_the_graph(tmp_path):
    class Twice(L.Layer):
        def call(self, x):
            return x * 2.0
    x = K.Input((3,))
    model = K.Model(x, Twice(name="twice")(x))
    model.save(tmp_path / "m.keras")
    with pytest.raises(TypeError, match="refusing to construct 'Twice'"):
        K.models.load_model(tmp_path / "m.keras")
    loaded = K.models.load_model(tmp_path / "m.keras", custom_objects={"Twice": Twice})
    np.testing.assert_allclose(loaded(np.ones((1, 3), np.float32)).numpy(), 2.0)


def test_a_corrupt_graph_is_a_data_loss_error():
    x = K.Input((3,))
    model = K.Model(x, L.Dense(2, name="d")(x))
    config = model.get_config()
    config["layers"][1]["inbound_nodes"][0]["args"][0]["config"]["keras_history"] = \
        ["missing", 0, 0]
    with pytest.raises(fe.errors.DataLossError, match="unknown layer 'missing'"):
        type(model).from_config(config)


def test_functional_model_in_sequential_and_training_flag():
    x = K.Input((4,))
    block = K.Model(x, L.Dropout(0.5)(L.Dense(4)(x)))
    seq = K.Sequential([K.Input((4,)), block, L.Dense(1)])
    xs = np.ones((8, 4), np.float32)
    np.testing.assert_array_equal(seq(xs).numpy(), seq(xs).numpy())
    assert not np.array_equal(block(xs, training=True).numpy(), block(xs, training=True).numpy())


def test_operators_on_keras_tensors_are_layers_that_save(tmp_path):
    x, y = K.Input((4, 3), name="x"), K.Input((4, 3), name="y")
    z = (x + y) * 2.0 - 1.0
    first = 1.0 - z[:, 0] / 4 + (-x)[:, -1, ...]
    model = K.Model([x, y], [first, abs(z) ** 2, x @ np.ones((3, 2), np.float32)])
    assert first.shape.as_list() == [None, 3]
    a, b = rand(2, 4, 3), rand(2, 4, 3)
    zz = (a + b) * 2 - 1
    got = model([a, b])
    np.testing.assert_allclose(got[0].numpy(), 1 - zz[:, 0] / 4 - a[:, -1], rtol=1e-6)
    np.testing.assert_allclose(got[1].numpy(), zz ** 2, rtol=1e-6)
    np.testing.assert_allclose(got[2].numpy(), a @ np.ones((3, 2)), rtol=1e-6)
    assert all(type(lay).__name__ in ("InputLayer", "TensorOp") for lay in model.layers)
    model.save(tmp_path / "ops.keras")
    loaded = K.models.load_model(tmp_path / "ops.keras")
    for want, out in zip(got, loaded([a, b])):
        np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="Variable operand"):
        x * fe.Variable(2.0)
    with pytest.raises(TypeError, match="indices must be"):
        x[[0, 1]]
    from fasteager.keras.functional import TensorOp
    with pytest.raises(ValueError, match="unknown op"):   # a closed table: no other code
        TensorOp("system")


def test_model_from_config_builds_a_functional_model():
    x = K.Input((3,))
    model = K.Model(x, L.Dense(2)(x))
    clone = K.Model.from_config(model.get_config())
    assert type(clone).__name__ == "Functional"
    assert clone(np.zeros((1, 3), np.float32)).shape.as_list() == [1, 2]


def test_masks_travel_along_the_graph():
    if not hasattr(L, "LSTM"):
        pytest.skip("no recurrent layers")
    emb, lstm = L.Embedding(10, 4, mask_zero=True), L.LSTM(3)
    ids = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
    e = K.Input((None,), dtype="int32")
    model = K.Model(e, lstm(emb(e)))
    got = model(ids).numpy()
    # the padded steps are skipped: the same as the unpadded sequences
    np.testing.assert_allclose(got[0], lstm(emb(ids[:1, :3])).numpy()[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], lstm(emb(ids[1:, :2])).numpy()[0], rtol=1e-5)
    np.testing.assert_allclose(got, K.Sequential([emb, lstm])(ids).numpy(), rtol=1e-6)


def test_every_new_layer_saves_and_loads_in_a_functional_model(tmp_path):
    image = K.Input((8, 8, 2))
    x = L.ZeroPadding2D(1)(image)
    x = L.DepthwiseConv2D(3, depth_multiplier=2)(x)
    x = L.SeparableConv2D(3, 3, padding="same")(x)
    x = L.Conv2DTranspose(2, 2, strides=2)(x)
    x = L.Cropping2D(((1, 1), (2, 2)))(x)
    x = L.UpSampling2D(interpolation="bilinear")(L.MaxPooling2D(4)(x))
    seq = L.Reshape((-1, 2))(x)
    seq = L.Permute((2, 1))(seq)
    att = L.MultiHeadAttention(2, 3)(seq, seq)
    att = L.Attention(use_scale=True)([att, seq])
    flat = L.Flatten()(att)
    vec = L.Dense(4)(flat)
    rep = L.Flatten()(L.RepeatVector(2)(vec))
    merged = [L.Add()([vec, vec]), L.Subtract()([vec, vec]), L.Multiply()([vec, vec]),
              L.Average()([vec, vec]), L.Maximum()([vec, vec]), L.Minimum()([vec, vec]),
              L.Dot(axes=1)([vec, vec]), rep]
    model = K.Model(image, L.Concatenate()(merged))
    data = rand(2, 8, 8, 2)
    want = model(data).numpy()
    model.save(tmp_path / "all.keras")
    loaded = K.models.load_model(tmp_path / "all.keras")
    np.testing.assert_allclose(loaded(data).numpy(), want, rtol=1e-5, atol=1e-6)
    assert [type(lay).__name__ for lay in loaded.layers] == \
        [type(lay).__name__ for lay in model.layers]


def test_compute_output_shape_handles_unknown_dims():
    conv = L.Conv2D(4, 3, strides=2)
    assert conv.compute_output_shape((None, None, None, 1)).as_list() == [None, None, None, 4]
    assert conv.compute_output_shape((None, 9, 9, 1)).as_list() == [None, 4, 4, 4]
    assert not conv._inbound_nodes          # asking for a shape records no graph node
    assert L.Concatenate().compute_output_shape([(None, 2), (None, 3)]).as_list() == \
        [None, 5]
