"""Op-table entry of expand_to: the gradient of reduce_sum / reduce_mean as one op that
reads its input's shape when it runs (so traced gradients serve other batch sizes)."""
import numpy as np

import fasteager as fe
from fasteager.ops.reduction_ops import expand_to
from tests.ops.op_specs_base import Spec

_SHAPE = (4, 2, 3)


def _expand(g, axis, keepdims, mean):
    x = fe.zeros(_SHAPE, g.dtype)          # (its shape only)
    return expand_to(g, x, axis=axis, keepdims=keepdims, mean=mean)


def _expand_ref(g, axis, keepdims, mean):
    g = np.asarray(g)
    n = int(np.prod([_SHAPE[a] for a in axis]))
    if mean:
        g = g / np.asarray(n, g.dtype)
    if not keepdims:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, _SHAPE)


AREA_SPECS = {
    # a mean over axes 0 and 2 of a (4, 2, 3) input: the gradient g has shape (2,)
    "expand_to": Spec(lambda g: _expand(g, (0, 2), False, True),
                      lambda g: _expand_ref(g, (0, 2), False, True), cases=[((2,),)]),
}
