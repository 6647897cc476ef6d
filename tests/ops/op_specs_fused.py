"""Op-table specs of single-pass gradient kernels (loaded by tests/ops/op_specs.py).

relu_backprop(g, x) = g * (x > 0): the inputs are kept away from 0, where the product's derivative
in x (zero) exists, so finite differences see the same zero the op reports."""
import numpy as np

from fasteager.ops import nn_ops
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import BINARY, Spec, away_from_zero
from tests.ops.op_specs_nn import _CONV_CONFIGS, conv2d_ref

AREA_SPECS = {
    "relu_backprop": Spec(lambda g, x: execute(nn_ops.relu_backprop, g, x),
                          lambda g, x: g * (x > 0).astype(g.dtype),
                          cases=[c for c in BINARY if c[0] == c[1]],
                          domain=away_from_zero),
    # (g * (x > 0), its sum over all axes but the last): one pass for fused layers' relu
    "relu_backprop_sum": Spec(lambda g, x: execute(nn_ops.relu_backprop_sum, g, x),
                              lambda g, x: (g * (x > 0), (g * (x > 0)).reshape(
                                  -1, g.shape[-1]).sum(axis=0)),
                              cases=[((3, 4), (3, 4)), ((2, 3, 5), (2, 3, 5)), ((6,), (6,)),
                                     ((0, 3), (0, 3))],
                              domain=away_from_zero),
}


def _ref_fused_matmul(x, kernel, bias):
    z = x @ kernel + bias
    return z, np.maximum(z, 0)


def _fused_matmul_both(x, kernel, bias):
    """Both activations of fused_matmul (one op table entry, attribute ``activation``)."""
    return (execute(nn_ops.fused_matmul_op, x, kernel, bias),
            execute(nn_ops.fused_matmul_op, x, kernel, bias, activation="relu"))


# fused_matmul = act(x W + b), x [M, K], W [K, N], b [N]; relu's kink: the seeded inputs
# keep every z at least 0.05 from 0, so finite differences see one side of it
AREA_SPECS["fused_matmul"] = Spec(
    _fused_matmul_both, _ref_fused_matmul,
    cases=[((4, 3), (3, 5), (5,)), ((1, 1), (1, 1), (1,)), ((2, 7), (7, 2), (2,)),
           ((0, 3), (3, 2), (2,)), ((3, 0), (0, 2), (2,))])


# fused_conv2d = act(conv2d(x, w) + b) over the conv2d op's stride / padding / dilation
# configurations; relu's kink as above (the seeded inputs keep z away from 0)
def _fused_conv2d_all(x, w, b):
    return [nn_ops.fused_conv2d(x, w, b, s, p, d, act)
            for s, p, d in _CONV_CONFIGS for act in ("linear", "relu")]


def _ref_fused_conv2d(x, w, b):
    out = []
    for s, p, d in _CONV_CONFIGS:
        z = conv2d_ref(x, w, s, p, d) + b
        out += [z, np.maximum(z, 0)]
    return out


AREA_SPECS["fused_conv2d"] = Spec(
    _fused_conv2d_all, _ref_fused_conv2d,
    cases=[((2, 5, 5, 2), (3, 3, 2, 3), (3,)), ((1, 4, 6, 1), (2, 3, 1, 2), (2,)),
           ((0, 5, 5, 2), (3, 3, 2, 1), (1,))])
