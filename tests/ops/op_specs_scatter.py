"""Op-table specs of the tensor_scatter_nd_* ops (loaded by tests/ops/op_specs.py).

Each case is (tensor shape, updates shape); the indices are fixed per updates row count:
distinct rows for update/min/max (a repeated index would tie them), a repeated row for
add/sub (repeats accumulate).
"""
import numpy as np

import fasteager as fe
from tests.ops.op_specs_base import Spec

# (tensor shape, updates shape) -> indices
_INDICES = {((4,), (2,)): [[3], [1]], ((4, 3), (2, 3)): [[2], [0]],
            ((4, 3), (3,)): [[0, 2], [3, 1], [1, 1]], ((3, 2, 2), (2, 2)): [[0, 1], [2, 0]]}
_REPEATED = {((4,), (3,)): [[3], [1], [3]], ((4, 3), (3, 3)): [[2], [0], [2]]}
_DISTINCT_CASES = list(_INDICES)
_ALL_CASES = _DISTINCT_CASES + list(_REPEATED)


def _indices(x, u):
    key = (tuple(x.shape), tuple(u.shape))
    return np.array(_INDICES.get(key) or _REPEATED[key])


def _ref(mode):
    def ref(x, u):
        idx = _indices(x, u)
        key = tuple(idx[..., j] for j in range(idx.shape[-1]))
        out = x.copy()
        if mode == "update":
            out[key] = u
        else:
            getattr(np, mode).at(out, key, u)
        return out
    return ref


def _spec(fn, mode, cases):
    return Spec(lambda x, u: fn(x, _indices(x, u), u), _ref(mode), cases=cases)


AREA_SPECS = {
    "tensor_scatter_nd_update": _spec(fe.tensor_scatter_nd_update, "update", _DISTINCT_CASES),
    "tensor_scatter_nd_add": _spec(fe.tensor_scatter_nd_add, "add", _ALL_CASES),
    "tensor_scatter_nd_sub": _spec(fe.tensor_scatter_nd_sub, "subtract", _ALL_CASES),
    "tensor_scatter_nd_min": _spec(fe.tensor_scatter_nd_min, "minimum", _DISTINCT_CASES),
    "tensor_scatter_nd_max": _spec(fe.tensor_scatter_nd_max, "maximum", _DISTINCT_CASES),
}
