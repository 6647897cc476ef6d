"""Op-table specs of the ops behind the Keras attention and depthwise convolution layers:
forward against NumPy references built from op_specs_nn's conv2d references, one channel
at a time; gradients at orders 1 and 2."""
import numpy as np

from fasteager.ops import conv_ops
from fasteager.ops.attention_ops import scaled_dot_product_attention
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import Spec
from tests.ops.op_specs_nn import (conv2d_out_shape, conv2d_backprop_filter_ref,
                                   conv2d_backprop_input_ref, conv2d_ref)


def _sdpa_ref(q, k, v, bias):
    s = q @ np.swapaxes(k, -1, -2) / float(np.sqrt(q.shape[-1])) + bias
    if s.size:
        s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v


# depthwise convolutions: the attributes of each case, keyed by the input shapes (a 3-channel
# VALID case with multiplier 2; SAME with strides 2; dilation 2)
_DW = {((2, 4, 5, 3), (2, 3, 3, 2)): ((1, 1), "VALID", (1, 1)),
       ((1, 5, 5, 2), (3, 3, 2, 1)): ((2, 2), "SAME", (1, 1)),
       ((1, 6, 5, 2), (2, 2, 2, 2)): ((1, 1), "SAME", (2, 2))}
_DW_OUT = {k: conv2d_out_shape(k[0], k[1][:2] + (1, k[1][2] * k[1][3]), *v)
           for k, v in _DW.items()}


def _attrs(shapes):
    strides, padding, dilations = _DW[shapes]
    return {"strides": strides, "padding": padding, "dilations": dilations}


def _per_channel(w, c, m):
    return w[:, :, c:c + 1, m:m + 1]


def _dw_ref(x, w):
    strides, padding, dilations = _DW[(x.shape, w.shape)]
    c_n, m_n = w.shape[2:]
    return np.concatenate([conv2d_ref(x[..., c:c + 1], _per_channel(w, c, m), strides, padding,
                                      dilations)
                           for c in range(c_n) for m in range(m_n)], axis=-1)


def _dw_fn(x, w):
    strides, padding, dilations = _DW[(tuple(x.shape), tuple(w.shape))]
    return conv_ops.depthwise_conv2d(x, w, strides, padding, dilations=dilations)


# the backward ops' cases: (dy, w) and (x, dy), keyed back to the forward case
_BY_DY_W = {(_DW_OUT[k], k[1]): k for k in _DW}
_BY_X_DY = {(k[0], _DW_OUT[k]): k for k in _DW}


def _dw_input_ref(dy, w):
    key = _BY_DY_W[(dy.shape, w.shape)]
    strides, padding, dilations = _DW[key]
    x_shape = key[0]
    c_n, m_n = w.shape[2:]
    dx = np.zeros(x_shape, dy.dtype)
    for c in range(c_n):
        for m in range(m_n):
            dx[..., c:c + 1] += conv2d_backprop_input_ref(
                dy[..., c * m_n + m:c * m_n + m + 1], _per_channel(w, c, m),
                x_shape[:3] + (1,), strides, padding, dilations)
    return dx


def _dw_input_fn(dy, w):
    key = _BY_DY_W[(tuple(dy.shape), tuple(w.shape))]
    return execute(conv_ops.depthwise_backprop_input_op, dy, w, input_shape=key[0],
                   **_attrs(key))


def _dw_filter_ref(x, dy):
    key = _BY_X_DY[(x.shape, dy.shape)]
    strides, padding, dilations = _DW[key]
    kh, kw, c_n, m_n = key[1]
    dw = np.zeros(key[1], x.dtype)
    for c in range(c_n):
        for m in range(m_n):
            dw[:, :, c:c + 1, m:m + 1] = conv2d_backprop_filter_ref(
                x[..., c:c + 1], dy[..., c * m_n + m:c * m_n + m + 1], (kh, kw, 1, 1), strides,
                padding, dilations)
    return dw


def _dw_filter_fn(x, dy):
    key = _BY_X_DY[(tuple(x.shape), tuple(dy.shape))]
    return execute(conv_ops.depthwise_backprop_filter_op, x, dy, filter_shape=key[1],
                   **_attrs(key))


AREA_SPECS = {
    "depthwise_conv2d": Spec(_dw_fn, _dw_ref, cases=list(_DW)),
    "depthwise_conv2d_backprop_input": Spec(_dw_input_fn, _dw_input_ref,
                                            cases=list(_BY_DY_W)),
    "depthwise_conv2d_backprop_filter": Spec(_dw_filter_fn, _dw_filter_ref,
                                             cases=list(_BY_X_DY)),
    # (q, k, v, bias): one head; batch and heads with a broadcast bias (a padding mask's
    # shape); a bias per score; an empty batch of queries
    "scaled_dot_product_attention": Spec(
        lambda q, k, v, b: scaled_dot_product_attention(q, k, v, mask=b), _sdpa_ref,
        cases=[((3, 4), (5, 4), (5, 2), ()),
               ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), (2, 1, 1, 5)),
               ((2, 3, 4), (2, 5, 4), (2, 5, 3), (2, 3, 5)),
               ((2, 0, 4), (2, 5, 4), (2, 5, 3), ())]),
}
