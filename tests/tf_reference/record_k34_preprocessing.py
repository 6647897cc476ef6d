"""Record Keras 3.15.1's non-random preprocessing layers (config, inputs, outputs).

Run from the repository root: /work/tfenv/bin/python tests/tf_reference/record_k34_preprocessing.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save

rng = np.random.RandomState(34)
cases = []


def arr(x):
    x = np.asarray(x)
    return {"dtype": str(x.dtype), "shape": list(x.shape),
            "values": x.astype(object if x.dtype.kind in "SUO" else x.dtype).tolist()
            if x.dtype.kind not in "SUO" else [v.decode() if isinstance(v, bytes) else v
                                                for v in x.ravel().tolist()]}


def clean(config):
    config = dict(config)
    config.pop("dtype", None)
    return config


def record(name, cls, kwargs, inputs, adapt=None, adapt_batches=None):
    layer = cls(**kwargs)
    if adapt is not None:
        layer.adapt(tf.data.Dataset.from_tensor_slices(adapt).batch(adapt_batches)
                    if adapt_batches else adapt)
    out = layer(inputs)
    case = {"name": name, "class": cls.__name__, "kwargs": kwargs,
            "config": clean(layer.get_config()), "input": arr(inputs),
            "output": arr(keras.ops.convert_to_numpy(out)),
            "adapt": arr(adapt) if adapt is not None else None,
            "adapt_batches": adapt_batches,
            "weights": [arr(w) for w in layer.get_weights()]}
    for k in ("mean", "variance"):
        if hasattr(layer, k) and cls is keras.layers.Normalization:
            case[k] = arr(keras.ops.convert_to_numpy(getattr(layer, k)))
    if cls is keras.layers.Discretization:
        case["bin_boundaries"] = [float(b) for b in layer.bin_boundaries]
    cases.append(case)
    return layer


x4 = rng.randn(5, 4).astype("float32") * 3 + 1
img = rng.rand(2, 6, 8, 3).astype("float32") * 255

# Normalization
record("norm_adapt", keras.layers.Normalization, {}, x4, adapt=x4)
record("norm_given", keras.layers.Normalization,
       {"mean": [1.0, 2.0, 3.0, 4.0], "variance": [1.0, 4.0, 9.0, 0.25]}, x4)
record("norm_invert", keras.layers.Normalization,
       {"mean": 2.0, "variance": 4.0, "invert": True}, x4)
record("norm_axis_none", keras.layers.Normalization, {"axis": None}, x4, adapt=x4)
x3 = rng.randn(3, 4, 2).astype("float32")
record("norm_axis_12", keras.layers.Normalization, {"axis": (1, 2)}, x3, adapt=x3)
record("norm_axis_1_rank3", keras.layers.Normalization, {"axis": 1}, x3, adapt=x3)
ds = tf.data.Dataset.from_tensor_slices(x4).batch(2)
layer = keras.layers.Normalization()
layer.adapt(ds)
cases.append({"name": "norm_adapt_dataset", "class": "Normalization", "kwargs": {},
              "config": clean(layer.get_config()), "input": arr(x4),
              "output": arr(keras.ops.convert_to_numpy(layer(x4))), "adapt": None,
              "adapt_dataset_batches": 2, "weights": [],
              "mean": arr(keras.ops.convert_to_numpy(layer.mean)),
              "variance": arr(keras.ops.convert_to_numpy(layer.variance))})

# Rescaling
record("rescale", keras.layers.Rescaling, {"scale": 1 / 255.0}, img)
record("rescale_offset", keras.layers.Rescaling, {"scale": 2.0, "offset": -1.0}, x4)
record("rescale_list", keras.layers.Rescaling, {"scale": [0.5, 1.0, 2.0]}, img)

# Resizing
for interp in ("bilinear", "nearest", "bicubic", "area", "lanczos3"):
    record("resize_" + interp, keras.layers.Resizing,
           {"height": 4, "width": 5, "interpolation": interp}, img)
record("resize_crop", keras.layers.Resizing,
       {"height": 4, "width": 4, "crop_to_aspect_ratio": True}, img)
record("resize_pad", keras.layers.Resizing,
       {"height": 4, "width": 4, "pad_to_aspect_ratio": True}, img)
record("resize_up_single", keras.layers.Resizing, {"height": 9, "width": 10}, img[0])
record("resize_cf", keras.layers.Resizing,
       {"height": 3, "width": 2, "data_format": "channels_first"}, img)

img_u8 = (rng.rand(2, 6, 8, 3) * 255).astype("uint8")
record("resize_uint8", keras.layers.Resizing, {"height": 3, "width": 11}, img_u8)
record("resize_int32_bicubic", keras.layers.Resizing,
       {"height": 5, "width": 4, "interpolation": "bicubic"}, img_u8.astype("int32"))

# CenterCrop
record("crop", keras.layers.CenterCrop, {"height": 4, "width": 5}, img)
record("crop_single", keras.layers.CenterCrop, {"height": 3, "width": 3}, img[1])
record("crop_larger", keras.layers.CenterCrop, {"height": 8, "width": 10}, img)
record("crop_uint8", keras.layers.CenterCrop, {"height": 4, "width": 4}, img_u8)
record("crop_cf", keras.layers.CenterCrop,
       {"height": 2, "width": 3, "data_format": "channels_first"}, img)

# CategoryEncoding
ids = np.array([[0, 1, 3], [2, 2, 0]], dtype="int64")
for mode in ("multi_hot", "count"):
    record("cat_" + mode, keras.layers.CategoryEncoding,
           {"num_tokens": 4, "output_mode": mode}, ids)
record("cat_one_hot", keras.layers.CategoryEncoding,
       {"num_tokens": 4, "output_mode": "one_hot"}, np.array([3, 2, 0, 1]))
record("cat_one_hot_2d", keras.layers.CategoryEncoding,
       {"num_tokens": 4, "output_mode": "one_hot"}, np.array([[3], [1]]))
for mode in ("multi_hot", "count", "one_hot"):
    # ids past num_tokens are dropped
    record("cat_past_depth_" + mode, keras.layers.CategoryEncoding,
           {"num_tokens": 3, "output_mode": mode}, np.array([[0, 3], [2, 7]]))
record("cat_multi_1d", keras.layers.CategoryEncoding,
       {"num_tokens": 5, "output_mode": "multi_hot"}, np.array([1, 4, 4]))

# Discretization
v = rng.randn(4, 3).astype("float32")
record("disc_bins", keras.layers.Discretization,
       {"bin_boundaries": [-0.5, 0.0, 0.5]}, v)
record("disc_adapt", keras.layers.Discretization, {"num_bins": 4},
       v, adapt=rng.randn(50).astype("float32"))
record("disc_adapt_dataset", keras.layers.Discretization, {"num_bins": 5, "epsilon": 0.05},
       v, adapt=rng.randn(300).astype("float32"), adapt_batches=64)
record("norm_adapt_dataset_axis_none", keras.layers.Normalization, {"axis": None}, x3,
       adapt=rng.randn(7, 4, 2).astype("float32") * 2, adapt_batches=3)
for mode in ("one_hot", "multi_hot", "count"):
    record("disc_" + mode, keras.layers.Discretization,
           {"bin_boundaries": [-0.5, 0.0, 0.5], "output_mode": mode},
           v[:, 0] if mode == "one_hot" else v)

# Hashing
words = np.array([["cat"], ["dog"], [""], ["bird"], ["fish"]])
nums = np.array([[3, 17], [0, -5], [12345678901, 7]], dtype="int64")
record("hash_str", keras.layers.Hashing, {"num_bins": 7}, words)
record("hash_int", keras.layers.Hashing, {"num_bins": 11}, nums)
record("hash_float", keras.layers.Hashing, {"num_bins": 11},
       np.array([1.7, -2.2, 3.0], dtype="float32"))
record("hash_mask", keras.layers.Hashing, {"num_bins": 4, "mask_value": ""}, words)
record("hash_mask_int", keras.layers.Hashing, {"num_bins": 4, "mask_value": 0}, nums)
record("hash_salt", keras.layers.Hashing, {"num_bins": 13, "salt": 133}, words)
record("hash_salt_pair", keras.layers.Hashing, {"num_bins": 13, "salt": [7, 2 ** 40]}, nums)
record("hash_one_hot", keras.layers.Hashing, {"num_bins": 5, "output_mode": "one_hot"}, words)
record("hash_multi_hot", keras.layers.Hashing, {"num_bins": 5, "output_mode": "multi_hot"},
       nums)
record("hash_count", keras.layers.Hashing, {"num_bins": 3, "output_mode": "count"}, nums)
record("hash_int32", keras.layers.Hashing, {"num_bins": 9, "dtype": "int32"}, words)

# HashedCrossing (a list of inputs)
def record_cross(name, kwargs, inputs):
    layer = keras.layers.HashedCrossing(**kwargs)
    out = layer(inputs)
    cases.append({"name": name, "class": "HashedCrossing", "kwargs": kwargs,
                  "config": clean(layer.get_config()), "inputs": [arr(x) for x in inputs],
                  "output": arr(keras.ops.convert_to_numpy(out)), "weights": []})


record_cross("cross_int_str", {"num_bins": 10},
             [np.array([1, 2, 3, 2]), np.array(["a", "b", "c", "a"])])
record_cross("cross_col", {"num_bins": 1000},
             [np.array([[5], [-1]], dtype="int64"), np.array([[7], [9]], dtype="int32"),
              np.array([["x"], ["yz"]])])
record_cross("cross_one_hot", {"num_bins": 4, "output_mode": "one_hot"},
             [np.array([1, 2, 3]), np.array([4, 5, 6])])
record_cross("cross_scalar", {"num_bins": 6}, [np.array(3), np.array("q")])

# StringLookup, IntegerLookup, TextVectorization: configs, vocabularies, outputs
def plain(x):
    if isinstance(x, tf.RaggedTensor):
        return {"ragged": [[v.decode() if isinstance(v, bytes) else v for v in row]
                           for row in x.to_list()]}
    return arr(keras.ops.convert_to_numpy(x) if not isinstance(x, tf.Tensor) or
               x.dtype != tf.string else x.numpy())


def record_text(name, cls, kwargs, inputs, adapt=None, adapt_batches=None):
    layer = getattr(keras.layers, cls)(**kwargs)
    if adapt is not None:
        data = adapt
        if adapt_batches:
            data = tf.data.Dataset.from_tensor_slices(adapt).batch(adapt_batches)
        layer.adapt(data)
    out = layer(inputs)
    config = clean(layer.get_config())
    cases.append({"name": name, "class": cls, "kwargs": kwargs, "text": True,
                  "config": config, "input": arr(np.asarray(inputs)),
                  "adapt": adapt if adapt is None or isinstance(adapt, list)
                  else adapt.tolist(),
                  "adapt_batches": adapt_batches, "output": plain(out),
                  "vocabulary": [v.item() if hasattr(v, "item") else v
                                 for v in layer.get_vocabulary()],
                  "vocabulary_size": int(layer.vocabulary_size())})


toks = np.array([["a", "b", "c"], ["d", "a", "b"], ["a", "z", ""]])
record_text("str_adapt", "StringLookup", {}, toks, adapt=toks)
record_text("str_vocab_mask_oov3", "StringLookup",
            {"vocabulary": ["a", "b"], "mask_token": "", "num_oov_indices": 3}, toks)
record_text("str_vocab_special_first", "StringLookup",
            {"vocabulary": ["", "[UNK]", "a", "b"], "mask_token": ""}, toks)
record_text("str_max_tokens", "StringLookup", {"max_tokens": 3}, toks, adapt=toks)
record_text("str_oov0", "StringLookup", {"vocabulary": ["a", "b", "c", "d", "z", ""],
                                         "num_oov_indices": 0}, toks)
record_text("str_salt", "StringLookup",
            {"vocabulary": ["a"], "num_oov_indices": 4, "salt": [5, 9]}, toks)
for mode in ("one_hot", "multi_hot", "count", "tf_idf"):
    inp = toks[:, 0] if mode == "one_hot" else toks
    record_text("str_adapt_" + mode, "StringLookup", {"output_mode": mode}, inp, adapt=toks)
record_text("str_multi_hot_mask", "StringLookup",
            {"output_mode": "multi_hot", "mask_token": "", "vocabulary": ["a", "b"]}, toks)
record_text("str_tf_idf_vocab", "StringLookup",
            {"output_mode": "tf_idf", "vocabulary": ["a", "b", "c"],
             "idf_weights": [0.5, 1.5, 2.0]}, toks)
record_text("str_pad_max", "StringLookup",
            {"output_mode": "count", "max_tokens": 8, "pad_to_max_tokens": True}, toks,
            adapt=toks)
record_text("str_invert", "StringLookup", {"vocabulary": ["a", "b"], "invert": True},
            np.array([[0, 1, 2, 3]]))
record_text("str_invert_mask", "StringLookup",
            {"vocabulary": ["a", "b"], "invert": True, "mask_token": "<m>"},
            np.array([[0, 1, 2, 3, 4]]))
ints = np.array([[5, 5, 3], [7, -1, 0], [12, 5, 3]], dtype="int64")
record_text("int_adapt", "IntegerLookup", {}, ints, adapt=ints)
record_text("int_oov2", "IntegerLookup", {"num_oov_indices": 2, "vocabulary": [5, 3]}, ints)
record_text("int_farmhash", "IntegerLookup",
            {"num_oov_indices": 3, "vocabulary": [5], "oov_method": "farmhash"}, ints)
record_text("int_farmhash_salt", "IntegerLookup",
            {"num_oov_indices": 3, "vocabulary": [5], "oov_method": "farmhash",
             "salt": 11}, ints)
record_text("int_mask", "IntegerLookup", {"mask_token": 0, "vocabulary": [5, 3, 7]}, ints)
record_text("int_count", "IntegerLookup", {"output_mode": "count"}, ints, adapt=ints)
record_text("int_invert", "IntegerLookup", {"vocabulary": [10, 20], "invert": True},
            np.array([0, 1, 2, 5]))
record_text("int_adapt_dataset", "IntegerLookup", {"max_tokens": 4}, ints,
            adapt=ints.reshape(-1), adapt_batches=4)

docs = ["The cat sat on the mat.", "the dog, the CAT!", "A bird; a bird?", "x"]
record_text("tv_int", "TextVectorization", {}, np.array(docs), adapt=docs)
record_text("tv_seq_len", "TextVectorization",
            {"max_tokens": 6, "output_sequence_length": 4}, np.array(docs), adapt=docs)
record_text("tv_seq_len_long", "TextVectorization", {"output_sequence_length": 9},
            np.array([["the bird"], ["zz cat cat"]]), adapt=docs)
record_text("tv_ragged", "TextVectorization", {"ragged": True}, np.array(docs), adapt=docs)
record_text("tv_lower", "TextVectorization", {"standardize": "lower"}, np.array(docs),
            adapt=docs)
record_text("tv_strip", "TextVectorization", {"standardize": "strip_punctuation"},
            np.array(docs), adapt=docs)
record_text("tv_no_std", "TextVectorization", {"standardize": None}, np.array(docs),
            adapt=docs)
record_text("tv_char", "TextVectorization", {"split": "character", "max_tokens": 10},
            np.array(["abc d", "caféé"]), adapt=["abba cd", "café"])
record_text("tv_no_split", "TextVectorization", {"split": None},
            np.array([["the cat"], ["a bird"], ["x"]]), adapt=["the cat", "a bird", "the cat"])
record_text("tv_ngrams2", "TextVectorization", {"ngrams": 2, "output_mode": "multi_hot"},
            np.array(docs), adapt=docs)
record_text("tv_ngrams_tuple", "TextVectorization", {"ngrams": (1, 3)}, np.array(docs),
            adapt=docs)
for mode in ("multi_hot", "count", "tf_idf"):
    record_text("tv_" + mode, "TextVectorization", {"output_mode": mode}, np.array(docs),
                adapt=docs)
record_text("tv_tf_idf_pad", "TextVectorization",
            {"output_mode": "tf_idf", "max_tokens": 12, "pad_to_max_tokens": True},
            np.array(docs), adapt=docs)
record_text("tv_vocab", "TextVectorization", {"vocabulary": ["cat", "the", "bird"]},
            np.array(docs))
record_text("tv_tf_idf_vocab", "TextVectorization",
            {"vocabulary": ["cat", "the", "bird"], "idf_weights": [1.0, 0.25, 2.0],
             "output_mode": "tf_idf"}, np.array(docs))
record_text("tv_adapt_dataset", "TextVectorization", {"max_tokens": 5}, np.array(docs),
            adapt=docs, adapt_batches=3)

# MelSpectrogram, STFTSpectrogram
audio = rng.randn(2, 700).astype("float32")
record("mel", keras.layers.MelSpectrogram,
       {"fft_length": 256, "sequence_stride": 64, "num_mel_bins": 16}, audio)
record("mel_single_no_db", keras.layers.MelSpectrogram,
       {"fft_length": 128, "sequence_stride": 32, "sequence_length": 100, "num_mel_bins": 8,
        "power_to_db": False, "sampling_rate": 8000, "min_freq": 100.0, "max_freq": 3000,
        "mag_exp": 1.0, "window": "hamming"}, audio[0])
record("mel_db_ref", keras.layers.MelSpectrogram,
       {"fft_length": 64, "sequence_stride": 16, "num_mel_bins": 10, "top_db": 20.0,
        "ref_power": 2.0, "window": None}, audio[:, :300])
sig = rng.randn(2, 90, 2).astype("float32")
for mode in ("log", "magnitude", "psd", "real", "imag", "angle", "stft"):
    record("stft_" + mode, keras.layers.STFTSpectrogram,
           {"mode": mode, "frame_length": 16, "frame_step": 8}, sig)
record("stft_same_expand", keras.layers.STFTSpectrogram,
       {"frame_length": 20, "fft_length": 32, "padding": "same", "expand_dims": True,
        "window": "hamming", "periodic": True, "scaling": "spectrum"}, sig)
record("stft_cf", keras.layers.STFTSpectrogram,
       {"mode": "magnitude", "frame_length": 12, "data_format": "channels_first",
        "scaling": None, "window": None}, np.transpose(sig, (0, 2, 1)).copy())

# AutoContrast, Equalization, Solarization (seeded), MaxNumBoundingBoxes
low_contrast = (rng.rand(2, 6, 7, 3) * 60 + 80).astype("float32")
record("autocontrast", keras.layers.AutoContrast, {}, low_contrast)
record("autocontrast_unit", keras.layers.AutoContrast, {"value_range": (0, 1)},
       low_contrast / 255.0)
flat = low_contrast.copy()
flat[..., 1] = 7.0
record("autocontrast_flat_channel", keras.layers.AutoContrast, {}, flat)
record("equalize", keras.layers.Equalization, {}, low_contrast)
record("equalize_bins", keras.layers.Equalization, {"bins": 32, "value_range": (0, 1)},
       low_contrast / 255.0)
record("equalize_single_cf", keras.layers.Equalization, {"data_format": "channels_first"},
       np.transpose(low_contrast[0], (2, 0, 1)).copy())
record("equalize_flat", keras.layers.Equalization, {}, flat)
record("solarize_threshold", keras.layers.Solarization,
       {"threshold_factor": (0.5, 0.5), "seed": 5}, img)
record("solarize_seeded", keras.layers.Solarization,
       {"addition_factor": 0.4, "threshold_factor": (0.2, 0.7), "seed": 11}, img)
record("solarize_unit", keras.layers.Solarization,
       {"addition_factor": (0.1, 0.1), "value_range": (0, 1), "seed": 3}, img / 255.0)
layer = keras.layers.MaxNumBoundingBoxes(max_number=3, fill_value=-2,
                                         bounding_box_format="xyxy")
for n, max_number in ((5, 3), (2, 4)):
    boxes = rng.rand(2, n, 4).astype("float32")
    labels = rng.randint(0, 5, size=(2, n)).astype("int32")
    layer = keras.layers.MaxNumBoundingBoxes(max_number=max_number, fill_value=-2,
                                             bounding_box_format="xyxy")
    out = layer({"images": img, "bounding_boxes": {"boxes": boxes, "labels": labels}})
    cases.append({"name": "max_boxes_%d_%d" % (n, max_number), "class": "MaxNumBoundingBoxes",
                  "kwargs": {"max_number": max_number, "fill_value": -2,
                             "bounding_box_format": "xyxy"},
                  "config": clean(layer.get_config()), "boxes": arr(boxes),
                  "labels": arr(labels), "boxes_out": arr(out["bounding_boxes"]["boxes"]),
                  "labels_out": arr(out["bounding_boxes"]["labels"]),
                  "input": arr(img), "output": arr(out["images"])})

# Pipeline
pipe = keras.layers.Pipeline([keras.layers.Rescaling(1 / 127.5, offset=-1.0),
                              keras.layers.CenterCrop(4, 4),
                              keras.layers.Resizing(3, 5)])
pout = pipe(img)
cases.append({"name": "pipeline", "class": "Pipeline", "input": arr(img),
              "output": arr(pout.numpy()),
              "layers": [(l.__class__.__name__, clean(l.get_config())) for l in pipe.layers],
              "config_keys": sorted(pipe.get_config())})

# ragged inputs (token lists of different lengths)
def record_ragged(name, cls, kwargs, rows):
    layer = getattr(keras.layers, cls)(**kwargs)
    out = layer(tf.ragged.constant(rows))
    cases.append({"name": name, "class": cls, "kwargs": kwargs, "ragged_input": rows,
                  "config": clean(layer.get_config()), "output": plain(out)})


record_ragged("hash_ragged", "Hashing", {"num_bins": 6}, [["a", "b"], ["c"], []])
record_ragged("hash_ragged_count", "Hashing", {"num_bins": 4, "output_mode": "count"},
              [["a", "b", "a"], ["c"]])
record_ragged("hash_ragged_int_multi_hot", "Hashing",
              {"num_bins": 7, "output_mode": "multi_hot", "salt": 3}, [[1, 2, 2], [9]])
record_ragged("lookup_ragged", "StringLookup", {"vocabulary": ["a", "b"]},
              [["a", "z"], ["b", "b", "a"]])
record_ragged("lookup_ragged_count", "StringLookup",
              {"vocabulary": ["a", "b"], "output_mode": "count"}, [["a", "z"], ["b", "b", "a"]])

# fe.strings.to_hash_bucket_strong, behind Hashing's salt
strong = []
for key in ([1, 2], [0, 0], [2 ** 63 - 1, 12345], [-1, 3]):
    strings = ["", "a", "hello world!", "x" * 20, "0123456789abcdef", "\u00e9t\u00e9"]
    strong.append({"key": key, "strings": strings,
                   "buckets": tf.strings.to_hash_bucket_strong(strings, 1000003,
                                                               key=key).numpy().tolist()})

save("k34_preprocessing", {"keras": keras.__version__, "cases": cases,
                           "hash_bucket_strong": strong})
print(len(cases), "cases")
