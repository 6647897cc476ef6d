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
