"""Op-table entries for fe.nn ops (activations, losses, convolution, pooling).

Merged into ``SPECS`` by ``op_specs.py``; see its docstring for the fields. The NumPy
references here are plain loops (also used by ``test_nn_ops.py``); they compute in the
input dtype or in float64 rounded to it, so float32 stays float32.
"""
import math

import numpy as np

import fasteager as fe
from fasteager.ops import conv_ops, pool_ops
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import Spec, away_from_zero

# ---- NumPy references ------------------------------------------------------------------


def _as(x, like):
    return np.asarray(x, dtype=like.dtype)


def sigmoid_ref(x):
    return _as(1 / (1 + np.exp(-x.astype(np.float64))), x)


def softmax_ref(x, axis=-1):
    z = x.astype(np.float64)
    e = np.exp(z - z.max(axis=axis, keepdims=True)) if z.size else z
    return _as(e / e.sum(axis=axis, keepdims=True), x)


def log_softmax_ref(x, axis=-1):
    z = x.astype(np.float64)
    if not z.size:
        return x.copy()
    m = z.max(axis=axis, keepdims=True)
    return _as(z - m - np.log(np.exp(z - m).sum(axis=axis, keepdims=True)), x)


def erf_ref(x):
    return _as(np.vectorize(math.erf)(x.astype(np.float64)) if x.size else x, x)


def gelu_ref(x, approximate=False):
    z = x.astype(np.float64)
    # TF's gelu takes 0.044715 and 1/sqrt(2) as float32 constants, for float64 input too
    a, c = float(np.float32(0.044715)), float(np.float32(1 / math.sqrt(2)))
    if approximate:
        return _as(0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + a * z ** 3))), x)
    return _as(0.5 * z * (1 + erf_ref(z * c)), x)


def sparse_labels(shape):
    """Deterministic int32 labels for logits of ``shape``."""
    n = int(np.prod(shape[:-1]))
    return (np.arange(n) * 7 % max(shape[-1], 1)).reshape(shape[:-1]).astype(np.int32)


def sparse_xent_ref(labels, logits):
    lsm = log_softmax_ref(logits.astype(np.float64))
    out = -np.take_along_axis(lsm, labels[..., None].astype(np.int64), axis=-1)[..., 0]
    return _as(out, logits)


def tf_pads(n, k, s, d, padding):
    """(out, pad_before) of one axis with TensorFlow's SAME/VALID rules."""
    ke = (k - 1) * d + 1
    if padding == "VALID":
        return (n - ke) // s + 1, 0
    out = -(-n // s)
    return out, max((out - 1) * s + ke - n, 0) // 2


def _taps(x_shape, w_shape, strides, padding, dilations):
    """Yield (oh, ow, kh, kw, ih, iw) for every in-bounds tap of a conv window."""
    _, H, W, _ = x_shape
    KH, KW = w_shape[:2]
    oh_n, pt = tf_pads(H, KH, strides[0], dilations[0], padding)
    ow_n, pl = tf_pads(W, KW, strides[1], dilations[1], padding)
    for oh in range(oh_n):
        for ow in range(ow_n):
            for kh in range(KH):
                for kw in range(KW):
                    ih = oh * strides[0] - pt + kh * dilations[0]
                    iw = ow * strides[1] - pl + kw * dilations[1]
                    if 0 <= ih < H and 0 <= iw < W:
                        yield oh, ow, kh, kw, ih, iw


def conv2d_out_shape(x_shape, w_shape, strides, padding, dilations):
    return (x_shape[0], tf_pads(x_shape[1], w_shape[0], strides[0], dilations[0], padding)[0],
            tf_pads(x_shape[2], w_shape[1], strides[1], dilations[1], padding)[0], w_shape[3])


def conv2d_ref(x, w, strides=(1, 1), padding="VALID", dilations=(1, 1)):
    y = np.zeros(conv2d_out_shape(x.shape, w.shape, strides, padding, dilations), x.dtype)
    for oh, ow, kh, kw, ih, iw in _taps(x.shape, w.shape, strides, padding, dilations):
        y[:, oh, ow, :] += x[:, ih, iw, :] @ w[kh, kw]
    return y


def conv2d_backprop_input_ref(dy, w, x_shape, strides=(1, 1), padding="VALID",
                              dilations=(1, 1)):
    dx = np.zeros(x_shape, dy.dtype)
    for oh, ow, kh, kw, ih, iw in _taps(x_shape, w.shape, strides, padding, dilations):
        dx[:, ih, iw, :] += dy[:, oh, ow, :] @ w[kh, kw].T
    return dx


def conv2d_backprop_filter_ref(x, dy, w_shape, strides=(1, 1), padding="VALID",
                               dilations=(1, 1)):
    dw = np.zeros(w_shape, x.dtype)
    for oh, ow, kh, kw, ih, iw in _taps(x.shape, w_shape, strides, padding, dilations):
        dw[kh, kw] += x[:, ih, iw, :].T @ dy[:, oh, ow, :]
    return dw


def _windows(x_shape, ksize, strides, padding):
    """Yield (oh, ow, [(ih, iw), ...]) for every pooling window (in-bounds cells only)."""
    _, H, W, _ = x_shape
    oh_n, pt = tf_pads(H, ksize[0], strides[0], 1, padding)
    ow_n, pl = tf_pads(W, ksize[1], strides[1], 1, padding)
    for oh in range(oh_n):
        for ow in range(ow_n):
            cells = [(ih, iw) for ih in range(oh * strides[0] - pt, oh * strides[0] - pt + ksize[0])
                     for iw in range(ow * strides[1] - pl, ow * strides[1] - pl + ksize[1])
                     if 0 <= ih < H and 0 <= iw < W]
            yield oh, ow, cells


def pool_out_shape(x_shape, ksize, strides, padding):
    return (x_shape[0], tf_pads(x_shape[1], ksize[0], strides[0], 1, padding)[0],
            tf_pads(x_shape[2], ksize[1], strides[1], 1, padding)[0], x_shape[3])


def max_pool_ref(x, ksize, strides, padding, return_cells=False):
    y = np.zeros(pool_out_shape(x.shape, ksize, strides, padding), x.dtype)
    where = {}
    for oh, ow, cells in _windows(x.shape, ksize, strides, padding):
        vals = np.stack([x[:, ih, iw, :] for ih, iw in cells])   # (cells, N, C)
        first = np.argmax(vals, axis=0)                           # the first maximum
        y[:, oh, ow, :] = np.take_along_axis(vals, first[None], axis=0)[0]
        where[oh, ow] = (cells, first)
    return (y, where) if return_cells else y


def max_pool_backprop_ref(dy, x, ksize, strides, padding):
    _, where = max_pool_ref(x, ksize, strides, padding, return_cells=True)
    dx = np.zeros(x.shape, dy.dtype)
    N, C = x.shape[0], x.shape[3]
    for (oh, ow), (cells, first) in where.items():
        for n in range(N):
            for c in range(C):
                ih, iw = cells[first[n, c]]
                dx[n, ih, iw, c] += dy[n, oh, ow, c]
    return dx


def avg_pool_ref(x, ksize, strides, padding):
    y = np.zeros(pool_out_shape(x.shape, ksize, strides, padding), x.dtype)
    for oh, ow, cells in _windows(x.shape, ksize, strides, padding):
        y[:, oh, ow, :] = sum(x[:, ih, iw, :] for ih, iw in cells) / len(cells)
    return y


def avg_pool_backprop_ref(dy, x_shape, ksize, strides, padding):
    dx = np.zeros(x_shape, dy.dtype)
    for oh, ow, cells in _windows(x_shape, ksize, strides, padding):
        for ih, iw in cells:
            dx[:, ih, iw, :] += dy[:, oh, ow, :] / len(cells)
    return dx


# ---- how the specs call the ops ----------------------------------------------------------

def _bp_input(dy, w):
    # two configurations that share dy's shape: VALID stride 1, and SAME stride 2
    n, oh, ow, _ = dy.shape
    kh, kw, c, _ = w.shape
    valid = execute(conv_ops.conv2d_backprop_input_op, dy, w,
                    input_shape=(n, oh + kh - 1, ow + kw - 1, c), strides=(1, 1),
                    padding="VALID", dilations=(1, 1))
    same = fe.nn.conv2d_transpose(dy, w, (n, 2 * oh, 2 * ow, c), 2, "SAME")
    return [valid, same]


def _bp_input_ref(dy, w):
    n, oh, ow, _ = dy.shape
    kh, kw, c, _ = w.shape
    return [conv2d_backprop_input_ref(dy, w, (n, oh + kh - 1, ow + kw - 1, c)),
            conv2d_backprop_input_ref(dy, w, (n, 2 * oh, 2 * ow, c), (2, 2), "SAME")]


def _bp_filter_shapes(x, dy):
    # VALID stride 1 fixes the window; SAME stride 2 (ceil(H/2) == OH) takes a 2x2 one
    _, h, w, c = x.shape
    _, oh, ow, o = dy.shape
    return (h - oh + 1, w - ow + 1, c, o), (2, 2, c, o)


def _bp_filter(x, dy):
    valid, same = _bp_filter_shapes(x, dy)
    return [execute(conv_ops.conv2d_backprop_filter_op, x, dy, filter_shape=valid,
                    strides=(1, 1), padding="VALID", dilations=(1, 1)),
            execute(conv_ops.conv2d_backprop_filter_op, x, dy, filter_shape=same,
                    strides=(2, 2), padding="SAME", dilations=(1, 1))]


def _bp_filter_ref(x, dy):
    valid, same = _bp_filter_shapes(x, dy)
    return [conv2d_backprop_filter_ref(x, dy, valid),
            conv2d_backprop_filter_ref(x, dy, same, (2, 2), "SAME")]


_CONV_CONFIGS = [((1, 1), "VALID", (1, 1)), ((2, 2), "SAME", (1, 1)), ((1, 2), "SAME", (2, 2)),
                 ((3, 1), "VALID", (1, 1))]


def _conv(x, w):
    return [fe.nn.conv2d(x, w, s, p, dilations=d) for s, p, d in _CONV_CONFIGS]


def _conv_ref(x, w):
    return [conv2d_ref(x, w, s, p, d) for s, p, d in _CONV_CONFIGS]


_POOL_CONFIGS = [((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"), ((2, 3), (1, 1), "VALID"),
                 ((3, 2), (3, 1), "SAME")]


def _pool(fn):
    return lambda x: [fn(x, k, s, p) for k, s, p in _POOL_CONFIGS]


def _pool_ref(ref):
    return lambda x: [ref(x, k, s, p) for k, s, p in _POOL_CONFIGS]


def _fixed_input(shape, dtype):
    """A fixed input without ties (for the max-pool argmax the backprop spec needs)."""
    rng = np.random.default_rng(sum(shape))
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(dtype) / 7


def _max_bp(dy):
    n, oh, ow, c = dy.shape
    x = _fixed_input((n, 2 * oh, 2 * ow, c), np.asarray(dy).dtype)
    _, argmax = execute(pool_ops.max_pool2d_op, fe.constant(x), ksize=(2, 2), strides=(2, 2),
                        padding="VALID")
    return execute(pool_ops.max_pool2d_backprop_op, dy, argmax, input_shape=x.shape)


def _max_bp_ref(dy):
    n, oh, ow, c = dy.shape
    x = _fixed_input((n, 2 * oh, 2 * ow, c), dy.dtype)
    return max_pool_backprop_ref(dy, x, (2, 2), (2, 2), "VALID")


def _avg_bp(dy):
    # VALID 2x2/2 on (2 OH, 2 OW) and SAME 3x3/2 on (2 OH - 1, 2 OW - 1): both give dy's shape
    n, oh, ow, c = dy.shape
    return [execute(pool_ops.avg_pool2d_backprop_op, dy, input_shape=(n, 2 * oh, 2 * ow, c),
                    ksize=(2, 2), strides=(2, 2), padding="VALID"),
            execute(pool_ops.avg_pool2d_backprop_op, dy, input_shape=(n, 2 * oh - 1, 2 * ow - 1, c),
                    ksize=(3, 3), strides=(2, 2), padding="SAME")]


def _avg_bp_ref(dy):
    n, oh, ow, c = dy.shape
    return [avg_pool_backprop_ref(dy, (n, 2 * oh, 2 * ow, c), (2, 2), (2, 2), "VALID"),
            avg_pool_backprop_ref(dy, (n, 2 * oh - 1, 2 * ow - 1, c), (3, 3), (2, 2), "SAME")]


def _sparse_xent(x):
    return fe.nn.sparse_softmax_cross_entropy_with_logits(
        labels=sparse_labels(tuple(x.shape)), logits=x)


def _dense_xent(y, x):
    out = [fe.nn.softmax_cross_entropy_with_logits(labels=y, logits=x)]
    if len(x.shape) >= 2 and x.shape[0]:
        out.append(fe.nn.softmax_cross_entropy_with_logits(labels=y, logits=x, axis=0))
    return out


def _dense_xent_ref(y, x):
    out = [_as(-(y.astype(np.float64) * log_softmax_ref(x.astype(np.float64))).sum(-1), x)]
    if x.ndim >= 2 and x.shape[0]:
        out.append(_as(-(y * log_softmax_ref(x.astype(np.float64), axis=0)).sum(0), x))
    return out


def _sigmoid_xent_ref(z, x):
    z, x64 = z.astype(np.float64), x.astype(np.float64)
    return _as(np.maximum(x64, 0) - x64 * z + np.log1p(np.exp(-np.abs(x64))), x)


def _axis0_too(fn):
    return lambda x: [fn(x), fn(x, axis=0)]


def _relu6_domain(x):
    return away_from_zero(x) * 4   # values on both sides of 0 and of 6


_SELU_A, _SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
SOFTMAX_CASES = [((3,),), ((2, 3),), ((2, 3, 4),), ((0,),)]
SAME_PAIR = [((3,), (3,)), ((2, 3), (2, 3)), ((2, 1, 4), (2, 1, 4)), ((0, 3), (0, 3))]

NN_SPECS = {
    # ---- activations
    "relu": Spec(fe.nn.relu, lambda x: np.maximum(x, 0), domain=away_from_zero),
    "relu6": Spec(fe.nn.relu6, lambda x: np.clip(x, 0, 6), domain=_relu6_domain),
    "elu": Spec(fe.nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
                domain=away_from_zero),
    "selu": Spec(fe.nn.selu, lambda x: _as(_SELU_S * np.where(
        x > 0, x, _SELU_A * np.expm1(np.minimum(x, 0))), x), domain=away_from_zero),
    "leaky_relu": Spec(lambda x: [fe.nn.leaky_relu(x), fe.nn.leaky_relu(x, alpha=0.01)],
                       # (TF's alpha is a float32 attribute, also for float64 input)
                       lambda x: [np.where(x > 0, x, _as(float(np.float32(0.2)) * x, x)),
                                  np.where(x > 0, x, _as(float(np.float32(0.01)) * x, x))],
                       domain=away_from_zero),
    "softplus": Spec(fe.nn.softplus, lambda x: _as(np.logaddexp(0, x.astype(np.float64)), x)),
    "softsign": Spec(fe.nn.softsign, lambda x: x / (1 + np.abs(x)), domain=away_from_zero),
    "silu": Spec(lambda x: [fe.nn.silu(x), fe.nn.swish(x, beta=1.5)],
                 lambda x: [x * sigmoid_ref(x), _as(x * sigmoid_ref(1.5 * x.astype(np.float64)),
                                                    x)]),
    "gelu": Spec(lambda x: [fe.nn.gelu(x), fe.nn.gelu(x, approximate=True)],
                 lambda x: [gelu_ref(x), gelu_ref(x, approximate=True)]),
    "softmax": Spec(_axis0_too(fe.nn.softmax), _axis0_too(softmax_ref), SOFTMAX_CASES),
    "log_softmax": Spec(_axis0_too(fe.nn.log_softmax), _axis0_too(log_softmax_ref),
                        SOFTMAX_CASES),
    # ---- losses
    "softmax_cross_entropy_with_logits": Spec(_dense_xent, _dense_xent_ref, SAME_PAIR),
    "sparse_softmax_cross_entropy_with_logits": Spec(
        _sparse_xent, lambda x: sparse_xent_ref(sparse_labels(x.shape), x),
        [((3,),), ((2, 3),), ((2, 3, 4),), ((0, 4),)]),
    "sigmoid_cross_entropy_with_logits": Spec(
        lambda z, x: fe.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
        _sigmoid_xent_ref, SAME_PAIR),
    "l2_loss": Spec(fe.nn.l2_loss, lambda x: _as((x.astype(np.float64) ** 2).sum() / 2, x)),
    "bias_add": Spec(lambda v, b: [fe.nn.bias_add(v, b), fe.nn.bias_add(v, b, "NCHW")],
                     lambda v, b: [v + b, v + b.reshape((-1,) + (1,) * (v.ndim - 2))],
                     [((2, 3), (3,)), ((2, 3, 3), (3,)), ((0, 3), (3,))]),
    # ---- convolution (gradients through the backprop ops, which are themselves specced)
    "conv2d": Spec(_conv, _conv_ref, [((2, 5, 5, 2), (3, 3, 2, 3)), ((1, 4, 6, 1), (2, 3, 1, 2)),
                                      ((0, 5, 5, 2), (3, 3, 2, 1))]),
    "conv2d_backprop_input": Spec(_bp_input, _bp_input_ref,
                                  [((2, 3, 3, 2), (3, 3, 1, 2)), ((1, 2, 4, 3), (2, 1, 2, 3))]),
    "conv2d_backprop_filter": Spec(_bp_filter, _bp_filter_ref,
                                   [((2, 5, 5, 2), (2, 3, 3, 3)), ((1, 4, 6, 1), (1, 2, 3, 2))]),
    # ---- pooling (random inputs have no ties, so max pooling is smooth around them)
    "max_pool2d": Spec(_pool(fe.nn.max_pool2d), _pool_ref(max_pool_ref),
                       [((2, 5, 5, 2),), ((1, 6, 4, 3),)]),
    "max_pool2d_backprop": Spec(_max_bp, _max_bp_ref, [((2, 2, 2, 2),), ((1, 3, 2, 1),)]),
    "avg_pool2d": Spec(_pool(fe.nn.avg_pool2d), _pool_ref(avg_pool_ref),
                       [((2, 5, 5, 2),), ((1, 6, 4, 3),)]),
    "avg_pool2d_backprop": Spec(_avg_bp, _avg_bp_ref, [((2, 2, 2, 2),), ((1, 3, 2, 1),)]),
}
