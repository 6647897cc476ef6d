"""Record Keras 3.15.1's keras.utils / backend / initializers / regularizers / metrics /
models values for tests/keras/test_k34_utils.py (issue 34, part L5).

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_k34_utils.py
"""
import os
import sys
import tempfile
import wave

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras
import numpy as np
import tensorflow as tf
from __init__ import save


def lst(a):
    return np.asarray(a).tolist()


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what we record
        return [type(e).__name__, str(e)]
    return None


rec = {}

# pad_sequences
seqs = [[1, 2, 3], [4], [5, 6, 7, 8, 9], []]
pad = []
for kw in [{}, {"maxlen": 4}, {"maxlen": 2, "padding": "post"},
           {"maxlen": 3, "truncating": "post", "value": -1},
           {"padding": "post", "truncating": "post", "dtype": "float32", "value": 0.5}]:
    out = keras.utils.pad_sequences(seqs, **kw)
    pad.append({"seqs": seqs, "kwargs": kw, "out": lst(out), "dtype": str(out.dtype)})
vec = [np.arange(6).reshape(3, 2).tolist(), [[9, 9]]]
out = keras.utils.pad_sequences(vec, maxlen=3)
pad.append({"seqs": vec, "kwargs": {"maxlen": 3}, "out": lst(out), "dtype": str(out.dtype)})
rec["pad_sequences"] = pad
rec["pad_errors"] = {
    "padding": error(lambda: keras.utils.pad_sequences([[1]], maxlen=2, padding="mid")),
    "truncating": error(lambda: keras.utils.pad_sequences([[1, 2, 3]], maxlen=2,
                                                          truncating="mid")),
    "noniterable": error(lambda: keras.utils.pad_sequences([1, 2])),
    "strvalue": error(lambda: keras.utils.pad_sequences([[1]], value="x")),
}

# normalize
x = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1.0, -2.0, 2.0]], np.float32)
rec["normalize"] = [{"axis": axis, "order": order, "x": lst(x),
                     "out": lst(keras.utils.normalize(x, axis=axis, order=order))}
                    for axis, order in [(-1, 2), (0, 2), (-1, 1), (1, np.inf)]]
rec["normalize_tensor"] = lst(keras.utils.normalize(keras.ops.convert_to_tensor(x), axis=-1,
                                                    order=2))

# timeseries_dataset_from_array (unshuffled: exact)
data = np.arange(40).reshape(20, 2).astype("float32")
targets = np.arange(20) * 10
ts = []
for kw in [dict(sequence_length=5, batch_size=4),
           dict(sequence_length=3, sequence_stride=2, sampling_rate=2, batch_size=3),
           dict(sequence_length=4, start_index=2, end_index=15, batch_size=None),
           dict(sequence_length=6, batch_size=128)]:
    for with_targets in (True, False):
        ds = keras.utils.timeseries_dataset_from_array(data, targets if with_targets else None,
                                                       **kw)
        batches = []
        for b in ds:
            if with_targets:
                batches.append([lst(b[0]), lst(b[1])])
            else:
                batches.append([lst(b)])
        ts.append({"kwargs": kw, "targets": with_targets, "batches": batches})
rec["timeseries"] = {"data": lst(data), "targets": lst(targets), "cases": ts}
rec["timeseries_errors"] = {
    "sampling_rate": error(lambda: keras.utils.timeseries_dataset_from_array(
        data, None, 3, sampling_rate=0)),
    "stride": error(lambda: keras.utils.timeseries_dataset_from_array(
        data, None, 3, sequence_stride=20)),
    "start": error(lambda: keras.utils.timeseries_dataset_from_array(
        data, None, 3, start_index=25)),
    "end": error(lambda: keras.utils.timeseries_dataset_from_array(
        data, None, 3, start_index=5, end_index=4)),
}

# pack / unpack
rec["pack"] = {
    "x": lst(keras.utils.pack_x_y_sample_weight(np.array([1]))),
    "xy": [lst(v) for v in keras.utils.pack_x_y_sample_weight(np.array([1]), np.array([2]))],
    "xyw_len": len(keras.utils.pack_x_y_sample_weight(1, 2, 3)),
    "list_x": repr(keras.utils.pack_x_y_sample_weight([1, 2])),
}
rec["unpack"] = {repr(d): repr(keras.utils.unpack_x_y_sample_weight(d))
                 for d in [(1,), (1, 2), (1, 2, 3), [1, 2], 5]}
rec["unpack_error"] = error(lambda: keras.utils.unpack_x_y_sample_weight((1, 2, 3, 4)))

# backend dtype helpers
names = ["float16", "bfloat16", "float32", "float64", "int8", "int32", "uint8", "uint32",
         "bool", "complex64", "string"]
rec["dtype_kinds"] = {n: [keras.backend.is_float_dtype(n), keras.backend.is_int_dtype(n)]
                      for n in names if n != "string"}
rec["standardize_dtype"] = {repr(n): keras.utils.standardize_dtype(n)
                            for n in [float, int, bool, "float32", "uint16", np.float64,
                                      np.dtype("int8")]}
keras.backend.clear_session()
rec["get_uid"] = [keras.backend.get_uid("abc"), keras.backend.get_uid("abc"),
                  keras.backend.get_uid("xyz"), keras.backend.get_uid("abc")]
keras.backend.clear_session()
keras.layers.Dense(2)
rec["get_uid_after_dense"] = keras.backend.get_uid("dense")

# Config
c = keras.utils.Config(a=1, b="x")
c.c = 3
c["d"] = 4
c.freeze()
rec["config"] = {"dict": c.as_dict(), "json": c.to_json(), "iter": list(c), "len": len(c),
                 "frozen_error": error(lambda: setattr(c, "a", 2)),
                 "missing": error(lambda: c.bb), "repr": repr(keras.utils.Config(a=1))}

# metrics
y_true = np.array([[1.0, 2.0, 0.5], [3.0, 0.0, 1.0]], np.float32)
y_pred = np.array([[1.5, 1.0, 0.5], [2.0, 0.5, 3.0]], np.float32)
sw = np.array([1.0, 0.25], np.float32)
mets = {}
for cls in (keras.metrics.MeanAbsolutePercentageError, keras.metrics.MeanSquaredLogarithmicError):
    m = cls()
    m.update_state(y_true, y_pred)
    plain = float(m.result())
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=sw)
    mets[cls.__name__] = {"plain": plain, "weighted": float(m.result()),
                          "config": m.get_config(),
                          "serialized": keras.metrics.serialize(m)}
rec["metrics"] = {"y_true": lst(y_true), "y_pred": lst(y_pred), "sw": lst(sw), "cases": mets}


# PyDataset through fit / evaluate / predict (shuffle=False: batch order fixed)
class Batches(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
        self.begins = self.ends = 0

    def __len__(self):
        return int(np.ceil(len(self.x) / self.batch_size))

    def __getitem__(self, i):
        s = slice(i * self.batch_size, (i + 1) * self.batch_size)
        return self.x[s], self.y[s]

    def on_epoch_begin(self):
        self.begins += 1

    def on_epoch_end(self):
        self.ends += 1


rng = np.random.RandomState(0)
px = rng.randn(10, 3).astype("float32")
py = (px @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype("float32")
kernel = rng.randn(3, 1).astype("float32") * 0.1
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.layers[0].set_weights([kernel, np.zeros(1, np.float32)])
model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
pds = Batches(px, py, 4, workers=2, use_multiprocessing=False, max_queue_size=5)
hist = model.fit(pds, epochs=3, shuffle=False, verbose=0)
rec["pydataset"] = {
    "x": lst(px), "y": lst(py), "kernel": lst(kernel), "batch_size": 4,
    "loss": hist.history["loss"], "weights": [lst(w) for w in model.get_weights()],
    "evaluate": float(model.evaluate(pds, verbose=0)),
    "predict": lst(model.predict(pds, verbose=0)),
    "props": [pds.workers, pds.use_multiprocessing, pds.max_queue_size, pds.num_batches],
}

# initializers
init = {}
for name, kw, shape, dtype in [
        ("IdentityInitializer", {}, (3, 3), "float32"),
        ("Identity", {"gain": 2.5}, (2, 4), "float32"),
        ("identity", {"gain": -1.0}, (4, 2), "float64"),
        # named windows need scipy, which this venv lacks: the test checks fasteager's
        # hann/hamming against scipy.signal.get_window where scipy is installed
        ("STFTInitializer", {"window": None}, (8, 1, 5), "float32"),
        ("STFT", {"side": "imag", "window": [0.1, 0.5, 1.0, 1.0, 0.5, 0.1],
                  "scaling": "spectrum"}, (6, 1, 4), "float32"),
        ("stft", {"window": None, "scaling": None}, (4, 1, 3), "float64"),
        ("STFTInitializer", {"window": [0.5, 1.0, 1.0, 0.5], "scaling": "density"},
         (4, 1, 3), "float32")]:
    obj = getattr(keras.initializers, name)(**kw)
    init.setdefault(name, []).append({
        "kwargs": kw, "shape": list(shape), "dtype": dtype,
        "out": lst(keras.ops.convert_to_numpy(obj(shape, dtype=dtype))),
        "class_name": type(obj).__name__, "config": obj.get_config(),
        "serialized": keras.initializers.serialize(obj)})
rec["initializers"] = init
rec["initializer_errors"] = {
    "identity_rank": error(lambda: keras.initializers.Identity()((2, 2, 2))),
    "stft_side": error(lambda: keras.initializers.STFT(side="both", window=None)),
    "stft_scaling": error(lambda: keras.initializers.STFT(scaling="l3", window=None)),
    "stft_window": error(lambda: keras.initializers.STFT(window=[1.0, 2.0])((3, 1, 2))),
}
rec["initializer_deserialize"] = {
    n: type(keras.initializers.deserialize(n)).__name__
    for n in ["IdentityInitializer", "Identity", "identity", "OrthogonalInitializer",
              "glorot_uniform"]}

# regularizers / constraints
w = rng.randn(4, 3).astype("float32")
regs = []
for kw in [{}, {"factor": 0.2, "mode": "columns"}, {"factor": 1.5, "mode": "rows"}]:
    r = keras.regularizers.OrthogonalRegularizer(**kw)
    wt = keras.ops.convert_to_tensor(w)
    with tf.GradientTape() as tape:
        tape.watch(wt)
        value = r(wt)
    regs.append({"kwargs": kw, "value": float(value), "grad": lst(tape.gradient(value, wt)),
                 "config": r.get_config(), "serialized": keras.regularizers.serialize(r)})
rec["orthogonal_regularizer"] = {"w": lst(w), "cases": regs}
rec["regularizer_errors"] = {
    "mode": error(lambda: keras.regularizers.OrthogonalRegularizer(mode="diag")),
    "factor": error(lambda: keras.regularizers.OrthogonalRegularizer(factor=-1.0)),
    "rank": error(lambda: keras.regularizers.OrthogonalRegularizer()(np.ones((2, 2, 2)))),
}
rec["regularizer_serialize"] = {
    "l1l2": keras.regularizers.serialize(keras.regularizers.L1L2(0.1, 0.2)),
    "l2": keras.regularizers.serialize(keras.regularizers.L2(0.3)),
}
def described(o):
    return [type(o).__name__, o.get_config() if hasattr(o, "get_config") else repr(o)]


rec["regularizer_deserialize"] = {
    n: described(o)
    for n, o in [(n, keras.regularizers.deserialize(n))
                 for n in ["l1", "l2", "l1_l2", "L1L2", "orthogonal_regularizer",
                           "OrthogonalRegularizer"]]}
rec["constraint_serialize"] = {
    "max_norm": keras.constraints.serialize(keras.constraints.MaxNorm(1.5, axis=1)),
    "min_max": keras.constraints.serialize(keras.constraints.MinMaxNorm(0.1, 2.0, 0.5)),
    "unit": keras.constraints.serialize(keras.constraints.UnitNorm()),
    "nonneg": keras.constraints.serialize(keras.constraints.NonNeg()),
}
rec["constraint_deserialize"] = {
    n: described(o)
    for n, o in [(n, keras.constraints.deserialize(n))
                 for n in ["max_norm", "MaxNorm", "non_neg", "unit_norm", "MinMaxNorm"]]}

# model_from_json (Keras's own JSON) and clone_model
keras.backend.clear_session()
inp = keras.Input((4,), name="features")
hid = keras.layers.Dense(3, activation="tanh", name="hidden")(inp)
out = keras.layers.Dense(2, name="head")(keras.layers.Concatenate(name="cat")([hid, inp]))
func = keras.Model(inp, out, name="func")
seq = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu",
                                                               name="d1"),
                        keras.layers.Dense(1, name="d2")], name="seq")
mx = rng.randn(5, 4).astype("float32")
models = {}
for key, m in [("functional", func), ("sequential", seq)]:
    weights = [rng.randn(*v.shape).astype("float32") for v in m.get_weights()]
    m.set_weights(weights)
    clone = keras.models.clone_model(m)
    clone.set_weights(weights)
    models[key] = {"json": m.to_json(), "weights": [lst(v) for v in weights],
                   "out": lst(m(mx)), "clone_out": lst(clone(mx)),
                   "clone_layers": [type(l).__name__ for l in clone.layers],
                   "clone_name": clone.name,
                   "clone_weight_shapes": [list(v.shape) for v in clone.get_weights()]}
rec["models"] = {"x": lst(mx), "cases": models}
rec["saving_errors"] = {
    "save_suffix": error(lambda: keras.saving.save_weights(seq, "/tmp/x.h5")),
    "load_suffix": error(lambda: keras.saving.load_weights(seq, "/tmp/x.bin")),
    "load_kwargs": error(lambda: keras.saving.load_weights(seq, "/tmp/x.keras", foo=1)),
    "keras_by_name": error(lambda: keras.saving.load_weights(seq, "/tmp/x.keras",
                                                             by_name=True)),
    "clone_kwargs": error(lambda: keras.models.clone_model(seq, foo=1)),
    "clone_call_seq": error(lambda: keras.models.clone_model(seq,
                                                             call_function=lambda *a: a)),
}

# *_dataset_from_directory: the files are stored here and re-made by the test

files_rng = np.random.RandomState(5)
texts = {"neg": ["bad movie", "awful plot, long", "meh"],
         "pos": ["great fun", "a delight from start to end", "good", "fine film"]}
images = {"cats": [files_rng.randint(0, 256, (6, 8, 3)).tolist(),
                   files_rng.randint(0, 256, (5, 5, 3)).tolist()],
          "dogs": [files_rng.randint(0, 256, (7, 4, 3)).tolist(),
                   files_rng.randint(0, 256, (4, 6, 3)).tolist(),
                   files_rng.randint(0, 256, (8, 8, 3)).tolist()]}
sounds = {"no": [files_rng.randint(-30000, 30000, (5, 1)).tolist(),
                 files_rng.randint(-30000, 30000, (9, 1)).tolist()],
          "yes": [files_rng.randint(-30000, 30000, (7, 1)).tolist(),
                  files_rng.randint(-30000, 30000, (3, 1)).tolist()]}


def make_tree(root):
    for cls, items in texts.items():
        os.makedirs(os.path.join(root, "text", cls))
        for i, t in enumerate(items):
            with open(os.path.join(root, "text", cls, "%d.txt" % i), "w") as f:
                f.write(t)
    for cls, items in images.items():
        os.makedirs(os.path.join(root, "image", cls))
        for i, px in enumerate(items):
            tf.io.write_file(os.path.join(root, "image", cls, "%d.png" % i),
                             tf.io.encode_png(np.asarray(px, np.uint8)))
    for cls, items in sounds.items():
        os.makedirs(os.path.join(root, "audio", cls))
        for i, samples in enumerate(items):
            with wave.open(os.path.join(root, "audio", cls, "%d.wav" % i), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(16000)
                w.writeframes(np.asarray(samples, "<i2").tobytes())


def batches(ds):
    out = []
    for b in ds:
        parts = b if isinstance(b, tuple) else (b,)
        out.append([p.to_list() if isinstance(p, tf.RaggedTensor) else
                    np.asarray(p.numpy()).tolist() for p in parts])
    return out


def as_text(batch_list):
    def text(v):
        if isinstance(v, bytes):
            return v.decode()
        if isinstance(v, list):
            return [text(x) for x in v]
        return v
    return [[text(part) for part in b] for b in batch_list]


root = tempfile.mkdtemp()
make_tree(root)
dirs = {"text": [], "image": [], "audio": []}
for kw in [dict(shuffle=False, batch_size=3), dict(shuffle=False, label_mode="categorical",
                                                    max_length=5, batch_size=4),
           dict(shuffle=False, labels=None), dict(shuffle=False, class_names=["pos", "neg"],
                                                  label_mode="binary", batch_size=None),
           dict(shuffle=True, seed=7, validation_split=0.3, subset="validation", batch_size=8),
           dict(shuffle=False, validation_split=0.3, subset="training", batch_size=8)]:
    ds = keras.utils.text_dataset_from_directory(os.path.join(root, "text"), verbose=False,
                                                 **kw)
    dirs["text"].append({"kwargs": kw, "class_names": getattr(ds, "class_names", None),
                         "batches": as_text(batches(ds))})
both = keras.utils.text_dataset_from_directory(os.path.join(root, "text"), shuffle=True,
                                               seed=3, validation_split=0.4, subset="both",
                                               verbose=False)
dirs["text_both"] = [sorted(v.decode() for b in d for v in b[0].numpy()) for d in both]
for kw in [dict(shuffle=False, image_size=(4, 4), batch_size=2),
           dict(shuffle=False, image_size=(3, 5), interpolation="nearest",
                color_mode="grayscale", label_mode="categorical"),
           dict(shuffle=False, image_size=(4, 4), crop_to_aspect_ratio=True, labels=None),
           dict(shuffle=False, image_size=(4, 6), pad_to_aspect_ratio=True,
                labels=[1, 0, 1, 0, 2], batch_size=None),
           dict(shuffle=False, image_size=(2, 2), color_mode="rgba",
                data_format="channels_first", class_names=["dogs", "cats"])]:
    ds = keras.utils.image_dataset_from_directory(os.path.join(root, "image"), verbose=False,
                                                  **kw)
    dirs["image"].append({"kwargs": {k: list(v) if isinstance(v, tuple) else v
                                     for k, v in kw.items()},
                          "class_names": getattr(ds, "class_names", None),
                          "batches": batches(ds)})
for kw in [dict(shuffle=False, batch_size=3), dict(shuffle=False, output_sequence_length=6),
           dict(shuffle=False, ragged=True, label_mode="binary")]:
    ds = keras.utils.audio_dataset_from_directory(os.path.join(root, "audio"), verbose=False,
                                                  **kw)
    dirs["audio"].append({"kwargs": kw, "class_names": ds.class_names, "batches": batches(ds)})
d = os.path.join(root, "text")
dirs["errors"] = {
    "label_mode": error(lambda: keras.utils.text_dataset_from_directory(d, label_mode="x")),
    "split_seed": error(lambda: keras.utils.text_dataset_from_directory(
        d, validation_split=0.2, subset="training")),
    "subset_only": error(lambda: keras.utils.text_dataset_from_directory(d, subset="training")),
    "class_names": error(lambda: keras.utils.text_dataset_from_directory(
        d, class_names=["pos", "zzz"])),
    "labels_len": error(lambda: keras.utils.text_dataset_from_directory(
        d, labels=[0, 1], verbose=False)),
    "binary": error(lambda: keras.utils.image_dataset_from_directory(
        os.path.join(root, "image"), labels=[0, 1, 2, 0, 1], label_mode="binary",
        verbose=False)),
    "color_mode": error(lambda: keras.utils.image_dataset_from_directory(
        os.path.join(root, "image"), color_mode="cmyk")),
    "ragged_len": error(lambda: keras.utils.audio_dataset_from_directory(
        os.path.join(root, "audio"), ragged=True, output_sequence_length=3)),
}
rec["directories"] = {"texts": texts, "images": images, "sounds": sounds, "cases": dirs}

# split_dataset (Python's random with the seed: reproducible)
splits = []
for source, kw in [("array", dict(left_size=0.8)), ("array", dict(right_size=3)),
                   ("tuple", dict(left_size=4, shuffle=True, seed=11)),
                   ("dataset", dict(left_size=0.5, shuffle=True, seed=2)),
                   ("batched", dict(right_size=0.3))]:
    arr = np.arange(10) * 3
    if source == "array":
        data = arr
    elif source == "tuple":
        data = (arr, arr.astype("float32") / 2)
    else:
        data = tf.data.Dataset.from_tensor_slices((arr, arr * 2))
        if source == "batched":
            data = data.batch(3)
    left, right = keras.utils.split_dataset(data, **kw)
    splits.append({"source": source, "kwargs": kw, "left": batches(left),
                   "right": batches(right)})
rec["split_dataset"] = splits
rec["split_errors"] = {
    "none": error(lambda: keras.utils.split_dataset(np.arange(5))),
    "big": error(lambda: keras.utils.split_dataset(np.arange(5), left_size=5)),
    "sum": error(lambda: keras.utils.split_dataset(np.arange(5), left_size=0.6,
                                                   right_size=0.6)),
    "type": error(lambda: keras.utils.split_dataset(np.arange(5), left_size="a")),
}

save("k34_utils", rec)
print("saved", sorted(rec))
