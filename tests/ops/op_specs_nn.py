"""Op-table entries for fe.nn ops (activations, losses, convolution, pooling, updates).

Merged into ``SPECS`` by ``op_specs.py``; see its docstring for the fields.
"""
import numpy as np  # noqa: F401

import fasteager as fe  # noqa: F401

from tests.ops.op_specs_base import Spec, UNARY, BINARY, away_from_zero  # noqa: F401

NN_SPECS = {
    "relu": Spec(fe.nn.relu, lambda x: np.maximum(x, 0), domain=away_from_zero),
}
