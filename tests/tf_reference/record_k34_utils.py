"""Record Keras 3.15.1's keras.utils / backend / initializers / regularizers / metrics /
models values for tests/keras/test_k34_utils.py (issue 34, part L5).

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_k34_utils.py
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import keras  # noqa: E402
from __init__ import save  # noqa: E402


def lst(a):
    return np.asarray(a).tolist()


def error(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the class and message are what we record
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

save("k34_utils", rec)
print("saved", sorted(rec))
