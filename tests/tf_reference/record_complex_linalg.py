"""Record TensorFlow's eigh and svd gradients (real non-symmetric and complex inputs) and
matmul with adjoint flags on complex input (topic "complex_linalg").

Run from the repository root with TensorFlow's interpreter:
    /path/to/tf-venv/bin/python tests/tf_reference/record_complex_linalg.py
"""
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

rng = np.random.default_rng(2026)


def cplx(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def pack(a):
    a = np.asarray(a)
    return {"re": np.real(a).tolist(), "im": np.imag(a).tolist()}


def eigh_loss(x, w):
    e, v = tf.linalg.eigh(x)
    return tf.reduce_sum(tf.math.real(e) ** 3) + tf.reduce_sum(tf.abs(v) * w)


def svd_loss(x, w):
    s, u, v = tf.linalg.svd(x)
    return (tf.reduce_sum(s * w[0]) + tf.reduce_sum(tf.abs(u[..., :1, :]) ** 2)
            + tf.reduce_sum(tf.math.real(tf.matmul(u, v, adjoint_b=True)) * w[1]))


out = {}
for name, a, loss in [("eigh_real_nonsymmetric", rng.standard_normal((4, 4)), eigh_loss),
                      ("eigh_complex", cplx(3, 3), eigh_loss),
                      ("eigh_complex_batch", cplx(2, 3, 3), eigh_loss),
                      ("svd_complex_square", cplx(3, 3), svd_loss),
                      ("svd_complex_wide", cplx(2, 4), svd_loss),
                      ("svd_complex_tall", cplx(4, 2), svd_loss)]:
    k = min(a.shape[-2:])
    w = (rng.standard_normal(a.shape[:-2] + (k,)), rng.standard_normal(a.shape))
    if loss is eigh_loss:
        w = rng.standard_normal(a.shape)
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = loss(x, w if loss is eigh_loss else tuple(tf.constant(v) for v in w))
    g = tape.gradient(y, x).numpy()
    out[name] = {"input": pack(a), "weights": [pack(v) for v in (w if isinstance(w, tuple)
                                                               else (w,))],
                 "loss": float(y), "grad": pack(g)}
    if loss is eigh_loss:
        out[name]["eigenvalue_dtype"] = tf.linalg.eigh(x)[0].dtype.name

a, b = cplx(3, 2), cplx(4, 2)
out["matmul_adjoint_b"] = {"a": pack(a), "b": pack(b), "out": pack(
    tf.matmul(tf.constant(a), tf.constant(b), adjoint_b=True).numpy())}
out["matmul_adjoint_a"] = {"a": pack(a), "out": pack(
    tf.matmul(tf.constant(a), tf.constant(a), adjoint_a=True).numpy())}
save("complex_linalg", out)
