"""Record Keras 3.15.1's ``keras.ops.nn`` (TensorFlow backend): for every function, outputs
(values, dtype, shape) on fixed inputs in several dtypes and argument forms, the gradient
of sum(output) with respect to each float input, and the error class of bad arguments.

Each case stores its inputs too, so the test rebuilds exactly what Keras saw. Argument
encoding (shared with record_kops_image.py and tests/keras/ops/_kops_check.py):
``{"tensor": values, "dtype": name}`` is an array, ``{"tuple": [...]}`` a tuple, anything
else a plain Python value.

Run from the repository root: /work/tfenv/bin/python tests/tf_reference/record_kops_nn.py
"""
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")   # TensorFlow's reference CPU kernels
import keras
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save

RNG = np.random.default_rng(34)


def T(values, dtype="float32"):
    return {"tensor": np.asarray(values).astype(dtype).tolist(), "dtype": dtype}


def R(shape, dtype="float32", lo=-2.0, hi=2.0):
    """Random values of ``shape``, rounded to 3 decimals (exact in JSON)."""
    v = np.round(RNG.uniform(lo, hi, size=shape), 3)
    if dtype.startswith(("int", "uint")):
        v = np.round(v)
    return T(v, dtype)


def tup(*v):
    return {"tuple": list(v)}


def _decode(arg):
    if isinstance(arg, dict) and "tensor" in arg:
        return tf.constant(np.asarray(arg["tensor"], dtype=arg["dtype"]))
    if isinstance(arg, dict) and "tuple" in arg:
        return tuple(_decode(a) for a in arg["tuple"])
    if isinstance(arg, list):
        return [_decode(a) for a in arg]
    return arg


def _encode(out):
    if isinstance(out, (tuple, list)):
        return {"seq": [_encode(o) for o in out]}
    if isinstance(out, tf.SparseTensor):
        out = tf.sparse.to_dense(out)
        enc = _encode(out)
        enc["sparse"] = True
        return enc
    a = np.asarray(out)
    enc = {"dtype": keras.backend.standardize_dtype(out.dtype), "shape": list(a.shape)}
    if np.iscomplexobj(a):
        enc["real"], enc["imag"] = a.real.tolist(), a.imag.tolist()
    else:
        enc["value"] = a.astype(np.float64 if a.dtype.kind == "f" else a.dtype).tolist()
    return enc


def _loss(out):
    """sum of every float (or complex: real + imag) output."""
    if isinstance(out, (tuple, list)):
        parts = [_loss(o) for o in out]
        parts = [p for p in parts if p is not None]
        return tf.add_n(parts) if parts else None
    if isinstance(out, tf.SparseTensor):
        return None
    if out.dtype.is_complex:
        return tf.cast(tf.reduce_sum(tf.math.real(out)) + tf.reduce_sum(tf.math.imag(out)),
                       tf.float64)
    if out.dtype.is_floating:
        return tf.cast(tf.reduce_sum(out), tf.float64)
    return None


def run_case(fn, args, kwargs, grad=True):
    targs = [_decode(a) for a in args]
    tkw = {k: _decode(v) for k, v in kwargs.items()}
    rec = {"args": args, "kwargs": kwargs}
    try:
        with tf.GradientTape(persistent=True) as tape:
            watched = []
            for i, a in enumerate(targs):
                if isinstance(a, tf.Tensor) and a.dtype.is_floating:
                    tape.watch(a)
                    watched.append(i)
            out = fn(*targs, **tkw)
            loss = _loss(out) if grad else None
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        rec["error"] = type(e).__name__
        rec["message"] = str(e)[:200]
        return rec
    rec["out"] = _encode(out)
    if loss is not None:
        grads = {}
        for i in watched:
            try:
                g = tape.gradient(loss, targs[i])
            except Exception as e:  # noqa: BLE001
                rec["grad_error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
                continue
            if g is not None:
                grads[str(i)] = np.asarray(g, dtype=np.float64).tolist()
        rec["grads"] = grads
    return rec


def record(module, cases):
    """``cases``: (function name, args, kwargs[, grad]) tuples -> {name: [records]}."""
    out = {}
    for case in cases:
        name, args, kwargs = case[:3]
        grad = case[3] if len(case) > 3 else True
        out.setdefault(name, []).append(run_case(getattr(module, name), args, kwargs, grad))
    return out


def nn_cases():
    C = []
    x = R((2, 5))
    x64 = R((2, 5), "float64")
    xi = R((2, 5), "int32")
    grid = T([-3.0, -1.5, -1.0, -0.6, -0.2, 0.0, 0.3, 0.5, 1.0, 2.0, 4.0, 7.0])
    simple = ["relu", "relu6", "sigmoid", "sparse_sigmoid", "softplus", "softsign",
              "soft_shrink", "sparse_plus", "silu", "swish", "squareplus", "log_sigmoid",
              "leaky_relu", "hard_sigmoid", "hard_silu", "hard_swish", "elu", "selu", "gelu",
              "celu", "tanh_shrink", "hard_tanh", "hard_shrink", "sparsemax", "glu"]
    for f in simple:
        C.append((f, [x], {}))
        C.append((f, [x64], {}))
        if f != "glu":
            C.append((f, [grid], {}))
    for f in ("relu", "relu6", "leaky_relu", "hard_tanh", "softsign", "soft_shrink",
              "hard_shrink", "tanh_shrink", "sigmoid", "elu"):
        C.append((f, [xi], {}))
    C += [("leaky_relu", [x], {"negative_slope": 0.5}), ("elu", [grid], {"alpha": 0.5}),
          ("gelu", [grid], {"approximate": False}), ("celu", [grid], {"alpha": 2.0}),
          ("squareplus", [grid], {"b": 1}), ("soft_shrink", [grid], {"threshold": 1.0}),
          ("hard_shrink", [grid], {"threshold": 1.0}), ("glu", [R((4, 3))], {"axis": 0}),
          ("glu", [R((2, 3))], {}),
          ("threshold", [grid, 0.5, -1.0], {}), ("threshold", [x, 0.0, 2.0], {}),
          ("threshold", [x64, -0.5, 0], {}), ("sparsemax", [R((3, 4))], {"axis": 0})]
    x3 = R((2, 3, 4))
    for f in ("softmax", "log_softmax"):
        C += [(f, [x3], {}), (f, [x3], {"axis": 1}), (f, [x3], {"axis": None}),
              (f, [x3], {"axis": tup(1, 2)}), (f, [R((2, 3), "float64")], {"axis": 0}),
              (f, [R((2, 3), "float16")], {})]

    # pooling
    im = R((2, 6, 7, 3))
    im1 = R((2, 9, 3))
    im3 = R((1, 4, 5, 6, 2))
    for f in ("max_pool", "average_pool"):
        C += [(f, [im, 2], {}), (f, [im, tup(3, 2)], {"strides": 2, "padding": "same"}),
              (f, [im, 3], {"strides": 1}), (f, [im1, 2], {"strides": 1, "padding": "same"}),
              (f, [im3, 2], {}), (f, [R((2, 3, 6, 7)), 2], {"data_format": "channels_first"}),
              (f, [R((2, 6, 7, 3), "float64"), 2], {"padding": "same"}),
              (f, [im, 2], {"padding": "full"})]
    for f in ("adaptive_max_pool", "adaptive_average_pool"):
        C += [(f, [im, tup(3, 4)], {}), (f, [im, 2], {}), (f, [im1, 4], {}),
              (f, [R((2, 3, 7)), 3], {"data_format": "channels_first"}),
              (f, [im3, tup(2, 3, 4)], {}), (f, [R((1, 10, 2)), 4], {}),
              # no gradient: TensorFlow's float64 max-pool gradient of this case reads
              # uninitialised memory (a different huge value on each run)
              (f, [R((1, 2, 2, 1), "float64"), 1], {}, f == "adaptive_average_pool")]

    # convolutions
    k = R((3, 3, 3, 4))
    C += [("conv", [im, k], {}), ("conv", [im, k], {"strides": 2, "padding": "same"}),
          ("conv", [im, k], {"dilation_rate": 2}),
          ("conv", [im1, R((3, 3, 2))], {"strides": 2}),
          ("conv", [im3, R((2, 2, 3, 2, 3))], {"padding": "same"}),
          ("conv", [R((1, 5, 5, 4)), R((3, 3, 2, 4))], {}),     # groups
          ("conv", [R((1, 5, 5, 2), "float64"), R((2, 2, 2, 3), "float64")], {}),
          ("conv", [R((1, 2, 2, 3)), k], {}),
          ("conv", [im, R((3, 3, 2, 4))], {"padding": "causal"})]
    dk = R((3, 3, 3, 2))
    C += [("depthwise_conv", [im, dk], {}),
          ("depthwise_conv", [im, dk], {"strides": 2, "padding": "same"}),
          ("depthwise_conv", [im, dk], {"dilation_rate": 2, "padding": "same"}),
          ("depthwise_conv", [im, dk], {"strides": 2, "dilation_rate": 2, "padding": "same"}),
          ("depthwise_conv", [im1, R((3, 3, 1))], {"strides": 2}),
          ("depthwise_conv", [R((2, 3, 6, 7)), dk], {"data_format": "channels_first"}),
          ("depthwise_conv", [im, R((3, 3, 2, 2))], {})]
    pk = R((1, 1, 6, 5))
    C += [("separable_conv", [im, dk, pk], {}),
          ("separable_conv", [im, dk, pk], {"strides": 2, "padding": "same"}),
          ("separable_conv", [im, dk, pk], {"dilation_rate": 2}),
          ("separable_conv", [im1, R((2, 3, 2)), R((1, 6, 4))], {}),
          ("separable_conv", [R((2, 3, 6, 7)), dk, pk], {"data_format": "channels_first"})]
    tk = R((3, 3, 5, 3))
    C += [("conv_transpose", [im, tk], {}),
          ("conv_transpose", [im, tk], {"strides": 2, "padding": "same"}),
          ("conv_transpose", [im, tk], {"strides": 2, "padding": "valid"}),
          ("conv_transpose", [im, tk], {"strides": 2, "output_padding": 1}),
          ("conv_transpose", [im, R((2, 2, 5, 3))], {"strides": 3, "padding": "same"}),
          ("conv_transpose", [im1, R((3, 4, 3))], {"strides": 2}),
          ("conv_transpose", [R((1, 3, 3, 4, 2)), R((2, 2, 2, 3, 2))], {"strides": 2}),
          ("conv_transpose", [im, R((3, 3, 5, 2))], {})]

    # encodings
    idx = T([[0, 2, 1], [3, 3, -1]], "int32")
    C += [("one_hot", [idx, 4], {}), ("one_hot", [idx, 4], {"axis": 0}),
          ("one_hot", [idx, 4], {"dtype": "int32"}), ("one_hot", [idx, 4], {"dtype": "bool"}),
          ("one_hot", [T([1, 0, 2], "int64"), 3], {"dtype": "float64"}),
          ("one_hot", [T([1.0, 2.0]), 3], {}), ("one_hot", [idx, 4], {"sparse": True}),
          ("multi_hot", [idx, 4], {}), ("multi_hot", [T([0, 2, 2], "int32"), 4], {}),
          ("multi_hot", [idx, 5], {"dtype": "bool"}),
          ("multi_hot", [idx, 5], {"dtype": "int32"}),
          ("multi_hot", [idx], {"num_tokens": 4}), ("multi_hot", [idx], {})]

    # cross-entropies
    probs = T(np.round(RNG.dirichlet(np.ones(4), size=3), 3))
    onehot = T(np.eye(4)[[0, 3, 1]])
    logits = R((3, 4))
    C += [("categorical_crossentropy", [onehot, probs], {}),
          ("categorical_crossentropy", [onehot, logits], {"from_logits": True}),
          ("categorical_crossentropy", [T(np.eye(3)[[0, 2]].T), R((3, 2))],
           {"from_logits": True, "axis": 0}),
          ("categorical_crossentropy", [T(np.eye(3)[[0, 2]].T), T([[0.1, 0.7], [0.2, 0.2],
                                                                     [0.7, 0.1]])],
           {"axis": 0}),
          ("categorical_crossentropy", [T(np.eye(4)[[0, 3, 1]], "float64"),
                                        R((3, 4), "float64")], {"from_logits": True}),
          ("categorical_crossentropy", [T([[0., 1.]]), T([[0.0, 1.0]])], {}),
          ("categorical_crossentropy", [onehot, R((3, 5))], {}),
          ("sparse_categorical_crossentropy", [T([0, 3, 1], "int32"), probs], {}),
          ("sparse_categorical_crossentropy", [T([0, 3, 1], "int32"), logits],
           {"from_logits": True}),
          ("sparse_categorical_crossentropy", [T([[0], [3], [1]], "int64"), logits],
           {"from_logits": True}),
          ("sparse_categorical_crossentropy", [T([0, 3, 1]), R((3, 4), "float64")],
           {"from_logits": True}),
          ("sparse_categorical_crossentropy", [T([0, 3, 1], "int32"), logits], {"axis": 0}),
          ("binary_crossentropy", [T([[0., 1.], [1., 0.]]), T([[0.2, 0.7], [0.999, 0.0]])], {}),
          ("binary_crossentropy", [T([[0., 1.], [1., 0.5]]), R((2, 2))], {"from_logits": True}),
          ("binary_crossentropy", [T([[0., 1.]], "float64"), T([[0.3, 0.6]], "float64")], {}),
          ("binary_crossentropy", [T([0., 1.]), T([[0.3, 0.6]])], {})]

    # CTC
    ctc_out = R((2, 6, 4))
    C += [("ctc_loss", [T([[1, 2, 2], [3, 1, 0]], "int32"), ctc_out, T([3, 2], "int32"),
                        T([6, 5], "int32")], {}),
          ("ctc_loss", [T([[1, 2, 2], [3, 1, 0]], "int32"), ctc_out, T([3, 2], "int32"),
                        T([6, 6], "int32")], {"mask_index": 3}),
          ("ctc_loss", [T([[1, 2], [2, 2]], "int32"), R((2, 5, 3), "float64"),
                        T([2, 2], "int32"), T([5, 5], "int32")], {}),
          ("ctc_decode", [ctc_out, T([6, 4], "int32")], {}),
          ("ctc_decode", [ctc_out, T([6, 6], "int32")], {"merge_repeated": False}),
          ("ctc_decode", [ctc_out, T([6, 5], "int32")], {"mask_index": 2}),
          ("ctc_decode", [T([[[0.1, 0.5, 0.4], [0.1, 0.5, 0.4], [0.8, 0.1, 0.1],
                               [0.1, 0.5, 0.4]]]), T([4], "int32")], {}),
          ("ctc_decode", [ctc_out, T([6, 4], "int32")], {"strategy": "nope"}),
          ("ctc_decode", [ctc_out, T([6, 5], "int32")],
           {"strategy": "beam_search", "beam_width": 4, "top_paths": 2})]

    # statistics and normalisation
    C += [("moments", [x3, [0, 1]], {}), ("moments", [x3, [2]], {"keepdims": True}),
          ("moments", [R((2, 3), "float64"), [0]], {}),
          ("moments", [R((4, 3), "float16"), [0]], {}),
          ("moments", [x3, [0, 1, 2]], {})]
    mean, var = R((3,)), R((3,), lo=0.1, hi=2.0)
    C += [("batch_normalization", [R((2, 4, 3)), mean, var, -1], {}),
          ("batch_normalization", [R((2, 4, 3)), mean, var, -1],
           {"offset": R((3,)), "scale": R((3,)), "epsilon": 0.01}),
          ("batch_normalization", [R((2, 3, 4)), mean, var, 1],
           {"offset": R((3,)), "scale": R((3,))})]
    C += [("normalize", [x], {}), ("normalize", [x], {"axis": 0}),
          ("normalize", [x], {"order": 1}), ("normalize", [x64], {"order": 3, "axis": -1}),
          ("normalize", [T([[0.0, 0.0], [3.0, 4.0]])], {}),
          ("normalize", [x], {"order": 0}), ("normalize", [xi], {})]
    C += [("rms_normalization", [x], {}), ("rms_normalization", [x3], {"axis": tup(1, 2)}),
          ("rms_normalization", [x3], {"scale": R((4,)), "epsilon": 0.1}),
          ("rms_normalization", [R((2, 3), "float16")], {}),
          ("rms_normalization", [x64], {"axis": 0})]
    C += [("layer_normalization", [x], {}),
          ("layer_normalization", [x3], {"gamma": R((4,)), "beta": R((4,))}),
          ("layer_normalization", [x3], {"axis": tup(1, 2), "gamma": R((3, 4)),
                                         "beta": R((3, 4))}),
          ("layer_normalization", [x3], {"axis": 1, "gamma": R((3,)), "epsilon": 0.1}),
          ("layer_normalization", [R((2, 3), "float16")], {}),
          ("layer_normalization", [x64], {"beta": R((5,), "float64")}),
          ("layer_normalization", [x3], {"rms_scaling": True, "gamma": R((4,))})]
    C += [("psnr", [R((2, 3), lo=0, hi=1), R((2, 3), lo=0, hi=1), 1.0], {}),
          ("psnr", [R((2, 3), "float64", 0, 255), R((2, 3), "float64", 0, 255), 255.0], {}),
          ("psnr", [R((2, 3)), R((3, 2)), 1.0], {})]

    # attention
    q, kk, v = R((2, 3, 2, 4)), R((2, 5, 2, 4)), R((2, 5, 2, 4))
    C += [("dot_product_attention", [q, kk, v], {}),
          ("dot_product_attention", [q, kk, v], {"scale": 0.3}),
          ("dot_product_attention", [q, kk, v], {"bias": R((2, 2, 3, 5))}),
          ("dot_product_attention", [q, kk, v],
           {"mask": T(RNG.uniform(size=(2, 1, 3, 5)) > 0.3, "bool")}),
          ("dot_product_attention", [R((1, 4, 2, 3)), R((1, 4, 2, 3)), R((1, 4, 2, 3))],
           {"is_causal": True}),
          ("dot_product_attention", [R((1, 3, 4, 2)), R((1, 5, 2, 2)), R((1, 5, 2, 2))], {}),
          ("dot_product_attention", [R((1, 3, 2, 2), "float64"), R((1, 3, 2, 2), "float64"),
                                     R((1, 3, 2, 2), "float64")], {}),
          ("dot_product_attention", [R((3, 2, 4)), R((3, 2, 4)), R((3, 2, 4))], {}),
          ("dot_product_attention", [q, kk, v], {"attn_logits_soft_cap": 5.0})]

    # complex, patches, blocks
    C += [("polar", [R((2, 3), lo=0, hi=2), R((2, 3))], {}),
          ("polar", [R((3,), "float64", 0, 2), R((3,), "float64")], {})]
    nchw = R((2, 3, 5, 6))
    C += [("unfold", [nchw, 2], {}), ("unfold", [nchw, tup(2, 3)], {"stride": 2}),
          ("unfold", [nchw, 3], {"padding": 1, "dilation": tup(1, 2)}),
          ("unfold", [R((3, 5, 6)), 2], {})]
    C += [("fold", [R((2, 12, 20)), tup(5, 6), 2], {}),
          ("fold", [R((2, 18, 4)), tup(5, 6), tup(2, 3)], {"stride": 2}),
          ("fold", [R((1, 18, 20)), tup(5, 6), 3], {"padding": 1, "dilation": tup(1, 2)}),
          ("fold", [R((2, 12)), 4, 2], {})]
    C += [("depth_to_space", [R((2, 2, 3, 8)), 2], {}),
          ("depth_to_space", [R((1, 8, 2, 3)), 2], {"data_format": "channels_first"}),
          ("depth_to_space", [R((1, 2, 2, 9), "int32"), 3], {}),
          ("depth_to_space", [R((1, 2, 2, 4)), 1], {}),
          ("space_to_depth", [R((2, 4, 6, 3)), 2], {}),
          ("space_to_depth", [R((1, 3, 4, 6)), 2], {"data_format": "channels_first"}),
          ("space_to_depth", [R((1, 6, 6, 1), "float64"), 3], {}),
          ("space_to_depth", [R((1, 4, 4, 1)), 1], {})]

    # CTC beam search (drawn last, so the inputs above stay as recorded before)
    beam_in = R((3, 7, 5), lo=-3, hi=3)
    lengths = T([7, 5, 3], "int32")
    C += [("ctc_decode", [beam_in, lengths], {"strategy": "beam_search"}),
          ("ctc_decode", [beam_in, lengths], {"strategy": "beam_search", "beam_width": 2}),
          ("ctc_decode", [beam_in, lengths], {"strategy": "beam_search", "beam_width": 3,
                                              "top_paths": 3}),
          ("ctc_decode", [beam_in, lengths], {"strategy": "beam_search", "beam_width": 6,
                                              "top_paths": 4, "mask_index": 2}),
          ("ctc_decode", [beam_in, lengths], {"strategy": "beam_search", "mask_index": -1,
                                              "top_paths": 2, "beam_width": 5}),
          ("ctc_decode", [beam_in, lengths], {"strategy": "beam_search", "mask_index": None,
                                              "beam_width": 8}),
          ("ctc_decode", [R((2, 9, 4), "float64", -2, 2), T([9, 8], "int32")],
           {"strategy": "beam_search", "beam_width": 10, "top_paths": 3}),
          ("ctc_decode", [R((2, 12, 6), lo=-4, hi=4), T([12, 10], "int32")],
           {"strategy": "beam_search", "beam_width": 16, "top_paths": 5}),
          ("ctc_decode", [beam_in, lengths], {"strategy": "beam_search", "beam_width": 2,
                                              "top_paths": 3})]

    # Python lists, other dtypes (int, bool, half), empty tensors, spellings (drawn last)
    h = R((2, 4), "float16")
    empty = T(np.zeros((0, 3)))
    C += [("relu", [[-1.0, 0.5, 2.0]], {}), ("sigmoid", [[-1.0, 0.5, 2.0]], {}),
          ("log_softmax", [[[1.0, 2.0, 3.0]]], {}), ("relu", [T([True, False], "bool")], {}),
          ("relu", [T([-3, 4], "int64")], {}), ("relu", [T([3, 4], "uint8")], {}),
          ("relu6", [T([-3, 4, 9], "int64")], {}), ("leaky_relu", [T([-3, 4], "int32")], {}),
          ("gelu", [h], {}), ("silu", [h], {}), ("softplus", [h], {}), ("elu", [h], {}),
          ("selu", [h], {}), ("log_sigmoid", [h], {}), ("hard_sigmoid", [h], {}),
          ("relu", [empty], {}), ("softmax", [empty], {}), ("log_softmax", [empty], {}),
          ("sigmoid", [empty], {}), ("softmax", [R((2, 3))], {"axis": 2}),
          ("one_hot", [T([0, 2, 1], "uint8"), 3], {}), ("one_hot", [T([0, 0], "int32"), 1], {}),
          ("one_hot", [[1, 2], 3], {"dtype": "float16"}),
          ("binary_crossentropy", [[[0.0, 1.0]], [[0.4, 0.7]]], {}),
          ("binary_crossentropy", [[[0.0, 1.0]], [[0.4, 0.7]]], {"from_logits": True}),
          ("moments", [R((2, 3, 4)), [-1]], {}), ("moments", [R((2, 3, 4)), (0, 2)],
                                                  {"keepdims": True}),
          ("conv", [R((1, 5, 5, 2), "float64"), R((3, 3, 2, 2), "float64")],
           {"strides": tup(2, 1), "padding": "SAME"}),
          ("max_pool", [R((1, 5, 5, 2)), 2], {"padding": "SAME"}),
          ("average_pool", [R((1, 5, 5, 2)), tup(2, 3)], {"strides": tup(1, 2)}),
          ("psnr", [T([[1, 2], [3, 4]], "int32"), T([[1, 3], [3, 5]], "int32"), 255], {}),
          ("dot_product_attention", [R((1, 3, 2, 4), "float16"), R((1, 3, 2, 4), "float16"),
                                     R((1, 3, 2, 4), "float16")], {}),
          ("layer_normalization", [T([[1, 2, 3], [4, 6, 9]], "int32")], {}),
          ("rms_normalization", [T([[1, 2, 3], [4, 6, 9]], "int32")], {}),
          ("rms_normalization", [R((2, 3), "float64")], {"scale": R((3,), "float64")}),
          ("normalize", [R((2, 3, 4))], {"axis": 1, "order": 2}),
          ("batch_normalization", [R((2, 3), "float64"), R((3,), "float64"),
                                   R((3,), "float64", 0.1, 1)], {"axis": -1}),
          ("sparse_categorical_crossentropy", [T([[0, 2], [1, 1]], "int32"), R((2, 2, 3))],
           {"from_logits": True}),
          ("categorical_crossentropy", [T(np.eye(3)[[0, 2]]), R((2, 3), lo=0.05, hi=1)],
           {"axis": 1}),
          ("unfold", [R((1, 2, 4, 4), "float64"), 2], {"stride": 2}),
          ("polar", [[1.0, 2.0], [0.5, -0.5]], {}),
          ("multi_hot", [T([[0, 1], [1, 1]], "int32"), 3], {"dtype": "float16"}),
          ("glu", [R((2, 4), "float64")], {"axis": 1}),
          ("sparsemax", [R((2, 5), "float64")], {}), ("sparsemax", [R((4,))], {})]
    return C


if __name__ == "__main__":
    save("kops_nn", record(keras.ops.nn, nn_cases()))
