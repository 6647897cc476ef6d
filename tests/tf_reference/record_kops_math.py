"""Record Keras 3.15.1's keras.ops math functions (keras.src.ops.math) on the TensorFlow
backend: values, dtypes, shapes, error classes and gradients of sum(output), for the cases
in ``cases()`` (shared with tests/keras/ops/test_math.py, which runs them on fasteager).

Run from the repository root:
/work/tfenv/bin/python tests/tf_reference/record_kops_math.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _kops_cases import evaluate

RNG = None


def _f(shape, dtype="float32", lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def _spd(n, dtype="float32", batch=()):
    a = RNG.uniform(-1, 1, size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def cases():
    global RNG
    RNG = np.random.RandomState(5)  # the same inputs in the recorder and in the test
    c = []

    def add(name, cid, fn, inputs, **opts):
        c.append((name, "%s:%s" % (name, cid), fn, list(inputs), opts))

    # segment reductions
    data = _f((5, 2))
    sorted_ids = np.array([0, 0, 1, 3, 3], "int32")
    unsorted_ids = np.array([2, 0, 2, 1, 0], "int32")
    for kind in ["sum", "max", "min", "prod"]:
        name = "segment_" + kind
        add(name, "sorted", lambda o, d, k=name: getattr(o, k)(d, sorted_ids, sorted=True),
            [data], grad=True)
        add(name, "unsorted", lambda o, d, k=name: getattr(o, k)(d, unsorted_ids),
            [data], grad=True)
        add(name, "num_segments", lambda o, d, k=name: getattr(o, k)(d, unsorted_ids,
                                                                     num_segments=5),
            [data], grad=True)
        add(name, "sorted_gap", lambda o, d, k=name: getattr(o, k)(d, sorted_ids),
            [data], grad=True)
        add(name, "int", lambda o, d, k=name: getattr(o, k)(d, unsorted_ids, num_segments=3),
            [np.arange(10, dtype="int32").reshape(5, 2) - 3])
        add(name, "f64_1d", lambda o, d, k=name: getattr(o, k)(d, sorted_ids, sorted=True),
            [_f((5,), "float64")], grad=True)
        add(name, "sorted_with_num", lambda o, d, k=name: getattr(o, k)(
            d, sorted_ids, num_segments=4, sorted=True), [data])
        add(name, "ids_2d", lambda o, d, k=name: getattr(o, k)(d, np.zeros((5, 2), "int32")),
            [data])
        add(name, "length_mismatch", lambda o, d, k=name: getattr(o, k)(d, sorted_ids[:3]),
            [data])
    # top_k / in_top_k
    scores = np.array([[0.1, 0.9, 0.3, 0.5, 0.7], [2.0, -1.0, 0.5, 3.0, 1.0]], "float32")
    for k in [1, 2, 5]:
        add("top_k", "k%d" % k, lambda o, x, k=k: o.top_k(x, k), [scores], grad=True)
    add("top_k", "int", lambda o, x: o.top_k(x, 3), [np.array([[5, 1, 7, 3]], "int32")])
    add("top_k", "f64_1d", lambda o, x: o.top_k(x, 2), [_f((6,), "float64")], grad=True)
    add("top_k", "k_too_big", lambda o, x: o.top_k(x, 6), [scores])
    for k in [1, 2, 4]:
        add("in_top_k", "k%d" % k, lambda o, p, k=k: o.in_top_k(np.array([1, 3], "int32"), p,
                                                                 k), [scores])
    add("in_top_k", "int64_targets", lambda o, p: o.in_top_k(np.array([0, 2], "int64"), p, 3),
        [scores])
    # logsumexp
    x = _f((2, 3))
    for axis in [None, 0, 1, -1, (0, 1)]:
        for kd in [False, True]:
            add("logsumexp", "axis%s_kd%s" % (axis, kd),
                lambda o, v, a=axis, k=kd: o.logsumexp(v, axis=a, keepdims=k), [x], grad=True)
    add("logsumexp", "large", lambda o, v: o.logsumexp(v, axis=1),
        [np.array([[1000.0, 1000.0], [-1000.0, -999.0]], "float32")], grad=True)
    add("logsumexp", "f64", lambda o, v: o.logsumexp(v), [_f((4,), "float64")], grad=True)
    add("logsumexp", "f16", lambda o, v: o.logsumexp(v), [_f((4,), "float16")])
    add("logsumexp", "neg_inf", lambda o, v: o.logsumexp(v, axis=-1),
        [np.array([[-np.inf, -np.inf], [0.0, -np.inf]], "float32")])
    # cdist
    add("cdist", "2d", lambda o, a, b: o.cdist(a, b), [_f((3, 2)), _f((4, 2))], grad=True)
    add("cdist", "batched", lambda o, a, b: o.cdist(a, b), [_f((2, 3, 4)), _f((2, 5, 4))],
        grad=True)
    add("cdist", "f64", lambda o, a, b: o.cdist(a, b), [_f((3, 2), "float64"),
                                                        _f((2, 2), "float64")], grad=True)
    add("cdist", "rank1", lambda o, a, b: o.cdist(a, b), [_f((3,)), _f((3,))])
    add("cdist", "dim_mismatch", lambda o, a, b: o.cdist(a, b), [_f((3, 2)), _f((3, 3))])
    # extract_sequences
    sig = _f((2, 10))
    for ln, st in [(4, 2), (3, 3), (10, 1), (5, 7)]:
        add("extract_sequences", "len%d_stride%d" % (ln, st),
            lambda o, v, ln=ln, st=st: o.extract_sequences(v, ln, st), [sig], grad=True)
    add("extract_sequences", "int_1d", lambda o, v: o.extract_sequences(v, 3, 2),
        [np.arange(8, dtype="int32")])
    # FFTs on (real, imag) pairs
    re4, im4 = _f((3, 8)), _f((3, 8))
    for fname in ["fft", "fft2", "ifft2"]:
        add(fname, "f32", lambda o, r, i, f=fname: getattr(o, f)((r, i)), [re4, im4],
            grad=True, tol=20)
        add(fname, "f64", lambda o, r, i, f=fname: getattr(o, f)((r, i)),
            [_f((2, 4, 6), "float64"), _f((2, 4, 6), "float64")], grad=True)
        add(fname, "not_pair", lambda o, r, f=fname: getattr(o, f)(r), [re4])
        add(fname, "shape_mismatch", lambda o, r, i, f=fname: getattr(o, f)((r, i)),
            [re4, _f((3, 7))])
    add("fft", "int_parts", lambda o, r, i: o.fft((r, i)),
        [np.ones((4,), "int32"), np.ones((4,), "int32")])
    for n in [None, 6, 12]:
        # (TF's gradient breaks when fft_length crops the input: values only there)
        add("rfft", "len%s" % n, lambda o, v, n=n: o.rfft(v, fft_length=n), [re4],
            grad=n != 6, tol=20)
    add("rfft", "f64", lambda o, v: o.rfft(v), [_f((5,), "float64")], grad=True)
    for n in [None, 8, 6]:
        add("irfft", "len%s" % n, lambda o, r, i, n=n: o.irfft((r, i), fft_length=n),
            [_f((2, 5)), _f((2, 5))], grad=n != 6, tol=20)
    add("irfft", "f64", lambda o, r, i: o.irfft((r, i)),
        [_f((4,), "float64"), _f((4,), "float64")], grad=True)
    # stft / istft
    audio = _f((2, 40))
    for win in ["hann", "hamming", None]:
        for center in [True, False]:
            add("stft", "%s_center%s" % (win, center),
                lambda o, v, w=win, ce=center: o.stft(v, 8, 4, 16, window=w, center=ce),
                [audio], grad=True, tol=50)
    add("stft", "array_window", lambda o, v, w: o.stft(v, 6, 3, 8, window=w),
        [audio, _f((6,), lo=0.0, hi=1.0)], grad=True, tol=50)
    add("stft", "f64_1d", lambda o, v: o.stft(v, 10, 5, 10), [_f((33,), "float64")],
        grad=True)
    add("stft", "int_input", lambda o, v: o.stft(v, 4, 2, 4), [np.arange(16, dtype="int32")])
    add("stft", "fft_too_short", lambda o, v: o.stft(v, 8, 4, 4), [audio])
    add("stft", "bad_window", lambda o, v: o.stft(v, 8, 4, 8, window="kaiser"), [audio])
    add("stft", "bad_stride", lambda o, v: o.stft(v, 8, 0, 8), [audio])
    add("stft", "window_shape", lambda o, v, w: o.stft(v, 8, 4, 8, window=w),
        [audio, _f((5,))])
    spec_r, spec_i = _f((2, 9, 9)), _f((2, 9, 9))
    for win in ["hann", "hamming", None]:
        for center in [True, False]:
            add("istft", "%s_center%s" % (win, center),
                lambda o, r, i, w=win, ce=center: o.istft((r, i), 8, 4, 16, window=w,
                                                          center=ce),
                [spec_r, spec_i], grad=True, tol=50)
    add("istft", "length", lambda o, r, i: o.istft((r, i), 16, 4, 16, length=30),
        [spec_r, spec_i], grad=True, tol=50)
    add("istft", "f64_array_window", lambda o, r, i, w: o.istft((r, i), 12, 6, 16, window=w),
        [_f((5, 9), "float64"), _f((5, 9), "float64"), _f((12,), "float64", 0.2, 1.0)],
        grad=True)
    add("istft", "bad_stride", lambda o, r, i: o.istft((r, i), 8, -1, 16), [spec_r, spec_i])
    # empty inputs and Python scalars mixed in
    add("logsumexp", "empty_axis", lambda o, v: o.logsumexp(v, axis=1),
        [np.zeros((2, 0), "float32")])
    add("segment_sum", "empty", lambda o, d: o.segment_sum(d, np.zeros((0,), "int32"),
                                                          num_segments=2),
        [np.zeros((0, 3), "float32")])
    add("top_k", "k0", lambda o, x: o.top_k(x, 0), [scores])
    add("extract_sequences", "too_long", lambda o, v: o.extract_sequences(v, 12, 2), [sig])
    add("cdist", "empty_rows", lambda o, a, b: o.cdist(a, b),
        [np.zeros((0, 2), "float32"), _f((3, 2))])
    add("rsqrt", "py_scalar", lambda o: o.rsqrt(4.0), [])
    add("erf", "f64_list_mixed", lambda o, v: o.erf(v * 2), [_f((3,), "float64")], grad=True)
    # elementwise special functions
    for fname, lo, hi in [("rsqrt", 0.1, 4.0), ("erf", -3.0, 3.0), ("erfc", -3.0, 3.0),
                          ("erfinv", -0.99, 0.99)]:
        for dt in ["float32", "float64", "float16"]:
            add(fname, dt, lambda o, v, f=fname: getattr(o, f)(v), [_f((2, 3), dt, lo, hi)],
                grad=dt != "float16")
        add(fname, "int32", lambda o, v, f=fname: getattr(o, f)(v),
            [np.array([1, 2, 4], "int32")])
        add(fname, "python_list", lambda o, f=fname: getattr(o, f)([0.5, 0.25]), [])
    add("rsqrt", "zero", lambda o, v: o.rsqrt(v), [np.array([0.0, -1.0], "float32")])
    add("erfinv", "edges", lambda o, v: o.erfinv(v), [np.array([-1.0, 1.0, 1.5], "float32")])
    # logdet
    add("logdet", "spd3", lambda o, v: o.logdet(v), [_spd(3)], grad=True, tol=10)
    add("logdet", "batch_f64", lambda o, v: o.logdet(v), [_spd(4, "float64", (2,))],
        grad=True)
    # complex views
    add("view_as_complex", "f32", lambda o, v: o.view_as_complex(v), [_f((3, 2))])
    add("view_as_complex", "f64", lambda o, v: o.view_as_complex(v), [_f((2, 2, 2), "float64")])
    add("view_as_complex", "bad_last", lambda o, v: o.view_as_complex(v), [_f((3, 3))])
    z = (_f((2, 3)) + 1j * _f((2, 3))).astype("complex64")
    add("view_as_real", "c64", lambda o, v: o.view_as_real(v), [z])
    add("view_as_real", "c128", lambda o, v: o.view_as_real(v), [z.astype("complex128")])
    add("view_as_real", "real_input", lambda o, v: o.view_as_real(v), [_f((3,))])
    add("view_as_real", "roundtrip", lambda o, v: o.view_as_real(o.view_as_complex(v)),
        [_f((4, 2))])
    return c


def main():
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    import keras
    import tensorflow as tf
    from __init__ import save
    save("kops_math", {case[1]: evaluate(tf, keras.ops, case) for case in cases()})


if __name__ == "__main__":
    main()
