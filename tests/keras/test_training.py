"""Models: summary, compile/fit/evaluate/predict, History, callbacks, the guide's programs."""
import glob
import io
import os
import re
import sys

import numpy as np
import pytest

import fasteager as fe
import fasteager.keras as keras

L = keras.layers


def _blobs(n=300, seed=0):
    rng = np.random.RandomState(seed)
    centers = np.array([[2, 2], [-2, 2], [0, -2]], np.float32)
    y = rng.randint(0, 3, n)
    x = centers[y] + rng.normal(0, 0.5, (n, 2)).astype(np.float32)
    return x, y


def _classifier():
    return keras.Sequential([L.Dense(16, activation="relu"), L.Dense(3)])


def test_summary_table(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((28, 28, 1)), L.Conv2D(16, [3, 3], activation="relu"),
                              L.BatchNormalization(), L.GlobalAveragePooling2D(), L.Dense(10)])
    model.summary()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == 'Model: "sequential"'
    assert lines[2] == ("┃ Layer (type)                    ┃ Output Shape           ┃"
                        "       Param # ┃")
    assert lines[4] == ("│ conv2d (Conv2D)                 │ (None, 26, 26, 16)     │"
                        "           160 │")
    assert lines[-3:] == [" Total params: 394 (1.54 KB)", " Trainable params: 362 (1.41 KB)",
                          " Non-trainable params: 32 (128.00 B)"]
    # Keras 3 prints an unbuilt model too, its layers as '?' and '0 (unbuilt)'
    keras.Sequential([L.Dense(2)]).summary()
    assert "│ ?                      │   0 (unbuilt) │" in capsys.readouterr().out

def test_fit_evaluate_predict_history():
    fe.random.set_seed(0)
    x, y = _blobs()
    model = _classifier()
    model.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    hist = model.fit(x, y, batch_size=32, epochs=8, verbose=0, validation_split=0.2)
    assert set(hist.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert len(hist.history["loss"]) == 8 and hist.epoch == list(range(8))
    assert hist.history["loss"][-1] < 0.15 and hist.history["accuracy"][-1] > 0.95
    assert model.history is hist
    assert isinstance(model.metrics[1], keras.metrics.SparseCategoricalAccuracy)
    loss, acc = model.evaluate(x, y, verbose=0)
    assert loss < 0.15 and acc > 0.95
    d = model.evaluate(x, y, verbose=0, return_dict=True)
    assert set(d) == {"loss", "accuracy"}
    pred = model.predict(x, batch_size=64, verbose=0)
    assert isinstance(pred, np.ndarray) and pred.shape == (300, 3)
    assert (pred.argmax(1) == y).mean() == pytest.approx(acc, abs=1e-6)


def test_fit_with_dataset_and_string_names():
    from fasteager import data
    fe.random.set_seed(0)
    x, y = _blobs()
    ds = data.Dataset.from_tensor_slices((x, y)).shuffle(300).batch(30)
    model = _classifier()
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    # probabilities expected: add a softmax layer
    model.add(L.Softmax())
    h = model.fit(ds, epochs=3, verbose=0, validation_data=ds)
    assert len(h.history["val_loss"]) == 3
    assert h.history["loss"][-1] < h.history["loss"][0]


def test_progress_bar_output():
    x, y = _blobs(64)
    model = _classifier()
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    buf = io.StringIO()
    old, sys.stdout = sys.stdout, buf
    try:
        model.fit(x, y, batch_size=16, epochs=2, verbose=1)
    finally:
        sys.stdout = old
    lines = buf.getvalue().split("\n")      # (splitlines would cut at the bar's "\r"s)
    # Keras 3's bar (tests/keras/test_keras3_printing.py checks it byte for byte)
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    final = lines[1].split("\r")[-1]
    assert final.startswith("\x1b[1m4/4\x1b[0m \x1b[32m" + "━" * 20 + "\x1b[0m")
    assert re.search(r"/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}$", final.rstrip())
    buf = io.StringIO()
    sys.stdout = buf
    try:
        model.fit(x, y, batch_size=16, epochs=1, verbose=2)
    finally:
        sys.stdout = old
    # one epoch: Keras 3 prints no "Epoch 1/1" line
    assert re.fullmatch(r"4/4 - \d+s - \d+(s|ms|us)/step - accuracy: \d\.\d{4} - "
                        r"loss: \d\.\d{4}\n", buf.getvalue())


def test_train_step_override_and_regularization():
    class Custom(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(1, kernel_regularizer=keras.regularizers.l2(1e-3))
            self.calls = 0

        def call(self, x):
            return self.d(x)

        def train_step(self, data):
            self.calls += 1
            return super().train_step(data)
    x = np.random.rand(64, 3).astype(np.float32)
    y = x @ np.array([[1.0], [2.0], [3.0]], np.float32)
    m = Custom()
    m.compile(keras.optimizers.SGD(0.1), "mse")
    h = m.fit(x, y, epochs=2, batch_size=16, verbose=0, shuffle=False)
    assert m.calls == 8 and "loss" in h.history
    assert len(m.losses) == 1


def test_early_stopping_stops_and_restores():
    x, y = _blobs()
    model = _classifier()
    model.compile(keras.optimizers.SGD(0.0), keras.losses.SparseCategoricalCrossentropy(True))
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    # unshuffled: with a learning rate of 0 every epoch's loss is then the same, bit for bit
    h = model.fit(x, y, epochs=20, verbose=0, callbacks=[stop], shuffle=False)
    assert len(h.history["loss"]) == 3 and stop.stopped_epoch == 2
    with pytest.warns(UserWarning, match="not available"):
        model.fit(x, y, epochs=1, verbose=0,
                  callbacks=[keras.callbacks.EarlyStopping(monitor="val_nothing")])


def test_learning_rate_scheduler_sets_lr():
    x, y = _blobs(60)
    model = _classifier()
    opt = keras.optimizers.SGD(0.1)
    model.compile(opt, keras.losses.SparseCategoricalCrossentropy(True))
    seen = []

    class Spy(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            seen.append(float(np.asarray(self.model.optimizer.learning_rate)))
    sched = keras.callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))
    h = model.fit(x, y, epochs=3, verbose=0, callbacks=[sched, Spy()])
    np.testing.assert_allclose(seen, [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    np.testing.assert_allclose(h.history["learning_rate"], [0.1, 0.05, 0.1 / 3], rtol=1e-6)


def test_tensorboard_writes_readable_events(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.util import tensor_util
    x, y = _blobs(60)
    model = _classifier()
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(True), ["accuracy"])
    model.fit(x, y, epochs=3, verbose=0, validation_data=(x, y),
              callbacks=[keras.callbacks.TensorBoard(tmp_path)])
    for which in ("train", "validation"):
        files = glob.glob(os.path.join(tmp_path, which, "events.out.tfevents.*"))
        assert files, which
        acc = ea.EventAccumulator(os.path.join(tmp_path, which),
                                  size_guidance={ea.SCALARS: 0, ea.TENSORS: 0})
        acc.Reload()
        tags = acc.Tags()["tensors"] + acc.Tags()["scalars"]
        assert "epoch_loss" in tags and "epoch_accuracy" in tags
        if "epoch_loss" in acc.Tags()["tensors"]:
            events = acc.Tensors("epoch_loss")
            values = [float(tensor_util.make_ndarray(e.tensor_proto)) for e in events]
        else:
            events = acc.Scalars("epoch_loss")
            values = [e.value for e in events]
        assert [e.step for e in events] == [0, 1, 2] and all(np.isfinite(values))


def test_model_checkpoint_and_weights_roundtrip(tmp_path):
    x, y = _blobs(60)
    model = _classifier()
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(True))
    path = str(tmp_path / "w-{epoch:02d}.npz")
    # Keras 3 saves the whole model unless save_weights_only=True (its default is False)
    checkpoint = keras.callbacks.ModelCheckpoint(path, save_weights_only=True)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[checkpoint])
    assert os.path.exists(tmp_path / "w-02.npz")
    saved = model.get_weights()
    model.set_weights([w * 0 for w in saved])
    model.load_weights(tmp_path / "w-02.npz")
    for a, b in zip(model.get_weights(), saved):
        np.testing.assert_array_equal(a, b)


def test_compile_errors():
    model = _classifier()
    with pytest.raises(ValueError, match=r"^You must call `compile\(\)` before using the model\.$"):
        model.fit(np.zeros((2, 2)), np.zeros(2), verbose=0)
    with pytest.raises(ValueError):
        model.compile("no_such_optimizer", "mse")
    with pytest.raises(ValueError):
        model.compile("adam", "no_such_loss")


def test_guide_linear_model_tracks_attribute_variables():
    class Linear(keras.Model):
        def __init__(self):
            super(Linear, self).__init__()
            self.W = fe.Variable(5., name='weight')
            self.B = fe.Variable(10., name='bias')

        def call(self, inputs):
            return inputs * self.W + self.B

    fe.random.set_seed(1234)
    NUM_EXAMPLES = 2000
    training_inputs = fe.random.normal([NUM_EXAMPLES])
    noise = fe.random.normal([NUM_EXAMPLES])
    training_outputs = training_inputs * 3 + 2 + noise

    def loss(model, inputs, targets):
        error = model(inputs) - targets
        return fe.reduce_mean(fe.square(error))

    def grad(model, inputs, targets):
        with fe.GradientTape() as tape:
            loss_value = loss(model, inputs, targets)
        return tape.gradient(loss_value, [model.W, model.B])

    model = Linear()
    assert [v.name for v in model.trainable_variables] == ["weight:0", "bias:0"]
    optimizer = keras.optimizers.SGD(learning_rate=0.01)
    assert float(loss(model, training_inputs, training_outputs)) > 50
    for i in range(300):
        grads = grad(model, training_inputs, training_outputs)
        optimizer.apply_gradients(zip(grads, [model.W, model.B]))
    final = float(loss(model, training_inputs, training_outputs))
    assert 0.8 < final < 1.2
    assert abs(model.W.numpy() - 3) < 0.1 and abs(model.B.numpy() - 2) < 0.1


def test_guide_train_step_with_tape():
    fe.random.set_seed(0)
    images = fe.constant(np.random.rand(32, 12, 12, 1).astype(np.float32))
    labels = fe.constant(np.random.randint(0, 10, 32).astype(np.int64))
    mnist_model = keras.Sequential([L.Conv2D(16, [3, 3], activation='relu'),
                                    L.Conv2D(16, [3, 3], activation='relu'),
                                    L.GlobalAveragePooling2D(), L.Dense(10)])
    optimizer = keras.optimizers.Adam()
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses = []
    for _ in range(5):
        with fe.GradientTape() as tape:
            logits = mnist_model(images, training=True)
            assert logits.shape == (32, 10)
            loss_value = loss_object(labels, logits)
        losses.append(loss_value.numpy().mean())
        grads = tape.gradient(loss_value, mnist_model.trainable_variables)
        optimizer.apply_gradients(zip(grads, mnist_model.trainable_variables))
    assert losses[-1] < losses[0]


def test_lambda_callback_calls_its_functions():
    import fasteager as fe
    seen = []
    cb = fe.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append(("epoch", epoch, "loss" in logs)),
        on_train_batch_end=lambda batch, logs: seen.append(("batch", batch)),
        on_train_end=lambda logs: seen.append("end"))
    m = fe.keras.Sequential([fe.keras.layers.Dense(1)])
    m.compile("sgd", "mse")
    m.fit(np.ones((8, 2), np.float32), np.ones((8, 1), np.float32), batch_size=4, epochs=2,
          verbose=0, callbacks=[cb])
    assert seen == [("batch", 0), ("batch", 1), ("epoch", 0, True), ("batch", 0),
                    ("batch", 1), ("epoch", 1, True), "end"]
    with pytest.raises(TypeError, match="unknown hook 'on_foo'"):
        fe.keras.callbacks.LambdaCallback(on_foo=print)
