"""Op-table specs of single-pass gradient kernels (loaded by tests/ops/op_specs.py).

relu_backprop(g, x) = g * (x > 0): the inputs are kept away from 0, where the product's derivative
in x (zero) exists, so finite differences see the same zero the op reports."""
import numpy as np

from fasteager.ops import nn_ops
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import BINARY, Spec, away_from_zero

AREA_SPECS = {
    "relu_backprop": Spec(lambda g, x: execute(nn_ops.relu_backprop, g, x),
                          lambda g, x: g * (x > 0).astype(g.dtype),
                          cases=[c for c in BINARY if c[0] == c[1]],
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
