"""Record what TensorFlow 2.21 / Keras 3.15.1 does for the Keras items of issue 33 (run
with the TensorFlow venv from the repository root; writes keras_semantics.json):

    /path/to/tf-venv/bin/python tests/tf_reference/record_keras_semantics.py

Weights are set from ``det(shape, k)`` (deterministic values the tests rebuild), so the
tests compare values without sharing any random stream.
"""
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402


def det(shape, k=0):
    """Deterministic float32 values in [-0.5, 0.5] (the tests use the same formula)."""
    n = int(np.prod(shape))
    return (0.5 * np.sin(np.arange(n) * 0.37 + k)).astype(np.float32).reshape(shape)


def L(x):
    return np.asarray(x).tolist()


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (recording the class)
        return {"class": type(e).__name__, "message": str(e)}
    return None


out = {}

# ---- item 3: a subclassed Model with its own build() -----------------------------------------


class MyDense(keras.Model):
    def build(self, input_shape):
        self.weight = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")

    def call(self, x):
        return tf.matmul(x, self.weight)


m = MyDense()
x3 = det((2, 3), 1)
y3 = m(x3)
out["model_build"] = {"x": L(x3), "y": L(y3), "built": m.built, "n_weights": len(m.weights)}

# ---- item 4: one layer twice in a Sequential ---------------------------------------------------
shared = keras.layers.Dense(3)
seq = keras.Sequential([keras.layers.Flatten(), shared, shared, keras.layers.Dense(1)])
x4 = det((2, 3), 2)
seq(x4)
seq.set_weights([det(w.shape, i + 10) for i, w in enumerate(seq.get_weights())])
out["shared_sequential"] = {
    "n_layers": len(seq.layers), "n_weights": len(seq.weights),
    "weight_shapes": [list(w.shape) for w in seq.get_weights()],
    "x": L(x4), "y": L(seq(x4))}

# ---- item 5: regularizer gradients ---------------------------------------------------------------
net = keras.layers.Dense(1, kernel_regularizer=keras.regularizers.l2(3.0),
                         bias_regularizer=keras.regularizers.l1(0.5))
net.build((None, 4))
net.set_weights([det((4, 1), 20), det((1,), 21)])
with tf.GradientTape() as tape:
    losses = net.losses
gk, gb = tape.gradient(losses, [net.kernel, net.bias])
out["regularizer_eager"] = {"losses": [float(v) for v in losses], "grad_kernel": L(gk),
                            "grad_bias": L(gb)}


@tf.function
def traced_reg_grad():
    with tf.GradientTape() as tape:
        total = tf.add_n(net.losses)
    return total, tape.gradient(total, net.kernel)


total, gk = traced_reg_grad()
out["regularizer_function"] = {"total": float(total), "grad_kernel": L(gk)}

model = keras.Sequential([keras.Input((4,)),
                          keras.layers.Dense(2, kernel_regularizer=keras.regularizers.l2(0.1),
                                             bias_regularizer=keras.regularizers.l2(0.2)),
                          keras.layers.Dense(1, kernel_regularizer=keras.regularizers.l1(0.05))])
model.set_weights([det(w.shape, i + 30) + 0.1 for i, w in enumerate(model.get_weights())])
xf, yf = det((8, 4), 40), det((8, 1), 41)
model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
hist = model.fit(xf, yf, batch_size=8, epochs=3, shuffle=False, verbose=0)
out["regularizer_fit"] = {"x": L(xf), "y": L(yf), "loss": hist.history["loss"],
                          "weights": [L(w) for w in model.get_weights()],
                          "evaluate": model.evaluate(xf, yf, verbose=0)}

# an activity regularizer: a penalty on the outputs of each call, over the batch size
act = keras.layers.Dense(2, activity_regularizer=keras.regularizers.l2(0.5))
act.build((None, 4))
act.set_weights([det((4, 2), 45), det((2,), 46)])
xa = det((3, 4), 47)
with tf.GradientTape() as tape:
    act(xa)
    losses = act.losses
out["activity_regularizer"] = {"x": L(xa), "losses": [float(v) for v in losses],
                               "grad_kernel": L(tape.gradient(losses, act.kernel)),
                               "config": act.get_config()["activity_regularizer"]["config"]}

# weight constraints: applied by the optimizer after each update
wc = det((4, 3), 48) * 3
out["constraints_direct"] = {
    "w": L(wc),
    "max_norm": L(keras.constraints.MaxNorm(0.5)(wc)),
    "unit_norm_axis1": L(keras.constraints.UnitNorm(axis=1)(wc)),
    "min_max_norm": L(keras.constraints.MinMaxNorm(0.2, 0.4, rate=0.5)(wc)),
    "non_neg": L(keras.constraints.NonNeg()(wc))}
cm = keras.Sequential([keras.Input((4,)),
                       keras.layers.Dense(3, kernel_constraint=keras.constraints.MaxNorm(0.5),
                                          bias_constraint="non_neg"),
                       keras.layers.BatchNormalization(
                           gamma_constraint=keras.constraints.UnitNorm(axis=0)),
                       keras.layers.Dense(1)])
cm.set_weights([det(w.shape, i + 120) + (1.0 if i in (2, 4) else 0.0)
                for i, w in enumerate(cm.get_weights())])
xc, yc = det((8, 4), 130), det((8, 1), 131) * 4
cm.compile(optimizer=keras.optimizers.SGD(0.2), loss="mse")
hc = cm.fit(xc, yc, batch_size=4, epochs=2, shuffle=False, verbose=0)
out["constraints_fit"] = {"x": L(xc), "y": L(yc), "loss": hc.history["loss"],
                          "weights": [L(w) for w in cm.get_weights()]}

# the order of model.weights (get_weights/set_weights): layer by layer in Keras 3
wo = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="d1"),
                       keras.layers.BatchNormalization(name="bn"),
                       keras.layers.Dense(1, name="d2")], name="seq")


class BnFirst(keras.Model):
    def __init__(self):
        super().__init__(name="sub")
        self.bn = keras.layers.BatchNormalization(name="bn")
        self.d = keras.layers.Dense(2, name="d")

    def call(self, x):
        return self.d(self.bn(x))


sub = BnFirst()
sub(tf.ones((1, 3)))
out["weights_order"] = {"sequential": [w.path for w in wo.weights],
                        "subclassed": [w.path for w in sub.weights]}

# ---- item 7: grouped convolution -----------------------------------------------------------------
conv = {}
for name, layer, shape in [
        ("conv1d", keras.layers.Conv1D(4, 3, groups=2), (2, 7, 4)),
        ("conv1d_same_s2", keras.layers.Conv1D(6, 3, strides=2, padding="same", groups=3),
         (2, 7, 6)),
        ("conv2d", keras.layers.Conv2D(4, 3, groups=2), (2, 5, 5, 4)),
        ("conv2d_same_d2", keras.layers.Conv2D(6, 3, padding="same", dilation_rate=2,
                                               groups=3), (1, 6, 6, 6)),
        ("conv2d_cf", keras.layers.Conv2D(4, 2, strides=2, groups=4,
                                          data_format="channels_first"), (1, 4, 5, 5)),
        ("conv3d", keras.layers.Conv3D(4, 2, groups=2), (1, 3, 4, 3, 4))]:
    x = tf.constant(det(shape, 50))
    layer.build(shape)
    layer.set_weights([det(w.shape, i + 60) for i, w in enumerate(layer.get_weights())])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x)
        s = tf.reduce_sum(y * det(y.shape, 70))
    gx, gk, gb = tape.gradient(s, [x, layer.kernel, layer.bias])
    conv[name] = {"input_shape": list(shape), "kernel_shape": list(layer.kernel.shape),
                  "y": L(y), "grad_x": L(gx), "grad_kernel": L(gk), "grad_bias": L(gb)}
x = tf.constant(det((2, 5, 5, 4), 80))
w = tf.constant(det((3, 3, 2, 6), 81))
conv["nn_conv2d"] = {"y": L(tf.nn.conv2d(x, w, 1, "VALID"))}
conv["errors"] = {
    "layer_filters": error(lambda: keras.layers.Conv2D(3, 3, groups=2)),
    "layer_channels": error(lambda: keras.layers.Conv2D(4, 3, groups=4)(tf.ones((1, 5, 5, 6)))),
    "nn_depth": error(lambda: tf.nn.conv2d(x, tf.ones((3, 3, 3, 4)), 1, "VALID")),
    "nn_groups": error(lambda: tf.nn.conv2d(x, tf.ones((3, 3, 2, 3)), 1, "VALID")),
}
out["grouped_conv"] = conv

# ---- items 8 and 16: load_weights' return value, saving an unbuilt model ---------------------
tmp = tempfile.mkdtemp()
m8 = keras.Sequential([keras.layers.Dense(2)])
m8(tf.ones((1, 3)))
m8.save_weights(os.path.join(tmp, "x.weights.h5"))
out["load_weights_return"] = repr(m8.load_weights(os.path.join(tmp, "x.weights.h5")))


class Unbuilt(keras.Model):
    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(1)

    def call(self, x):
        return self.d(x)


out["save_unbuilt"] = error(lambda: Unbuilt().save_weights(os.path.join(tmp, "u.weights.h5")))

# ---- item 11: masks across eager layer calls -----------------------------------------------------
emb = keras.layers.Embedding(10, 4, mask_zero=True)
emb.build((None, None))
emb.set_weights([det((10, 4), 90)])
masks = {}
for kind in ("SimpleRNN", "LSTM", "GRU"):
    rnn = getattr(keras.layers, kind)(3)
    rnn.build((None, None, 4))
    rnn.set_weights([det(w.shape, i + 100) for i, w in enumerate(rnn.get_weights())])
    padded = rnn(emb(tf.constant([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]])))
    plain = rnn(emb(tf.constant([[1, 2, 3]])))
    through = rnn(keras.layers.Dropout(0.5)(emb(tf.constant([[1, 2, 3, 0, 0]]))))
    masks[kind] = {"padded": L(padded), "unpadded": L(plain), "through_dropout": L(through)}
e = emb(tf.constant([[1, 2, 0]]))
masks["embedding_mask"] = L(e._keras_mask)
# the mask reaches GlobalAveragePooling1D too (the mean over the unmasked steps), eagerly
# and in a Sequential (the text classifiers of the guides)
gap = keras.layers.GlobalAveragePooling1D()
masks["gap_padded"] = L(gap(emb(tf.constant([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]]))))
masks["gap_unpadded"] = L(gap(emb(tf.constant([[1, 2, 3]]))))
clf = keras.Sequential([keras.Input((None,), dtype="int32"),
                        keras.layers.Embedding(10, 4, mask_zero=True),
                        keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
clf.set_weights([det(w.shape, i + 110) for i, w in enumerate(clf.get_weights())])
masks["gap_sequential"] = L(clf(tf.constant([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]])))
out["eager_masks"] = masks

# ---- item 12: Keras 3 optimizer variables in a tf.train.Checkpoint --------------------------
m12 = keras.Sequential([keras.layers.Dense(2)])
m12(tf.ones((1, 3)))
opt = keras.optimizers.Adam()
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(m12(tf.ones((1, 3))))
opt.apply_gradients(zip(tape.gradient(loss, m12.trainable_variables), m12.trainable_variables))
path = tf.train.Checkpoint(model=m12, optimizer=opt).write(os.path.join(tmp, "ck", "c"))
reader = tf.train.load_checkpoint(path)
shapes = reader.get_variable_to_shape_map()
out["checkpoint_keys"] = {
    "keys": sorted(shapes), "shapes": {k: list(v) for k, v in shapes.items()},
    "optimizer_variables": [v.path for v in opt.variables]}

save("keras_semantics", out)
print("wrote keras_semantics.json")
