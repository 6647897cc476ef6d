"""Op-table specs of gather_rows / scatter_rows (``fasteager/ops/indexing_ops.py``): the
replayable gather on axis 0 with tensor indices, and its scatter-add gradient. The
indices are fixed per case and repeat a row, so the gradient's accumulation is checked."""
import numpy as np

import fasteager as fe
from fasteager.ops import indexing_ops
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import Spec

# params shape -> indices (a repeated row, a 2-D index array, an empty one)
_IDS = {(4,): [3, 1, 3], (4, 3): [[2, 0], [2, 3]], (3, 2, 2): [1], (5, 2): np.zeros(0, int)}
# g shape -> (indices, rows)
_SCATTER = {(3,): ([3, 1, 3], 4), (2, 2, 3): ([[2, 0], [2, 3]], 4), (0, 2): ([], 5)}


def _ids(shape, table):
    v = table[tuple(shape)]
    return np.asarray(v[0] if isinstance(v, tuple) else v, dtype=np.int64)


AREA_SPECS = {
    "gather_rows": Spec(lambda x: fe.gather(x, fe.constant(_ids(x.shape, _IDS))),
                        lambda x: x[_ids(x.shape, _IDS)],
                        cases=[((4,),), ((4, 3),), ((3, 2, 2),), ((5, 2),)]),
    "scatter_rows": Spec(
        lambda g: execute(indexing_ops.scatter_rows, g,
                          fe.constant(_ids(g.shape, _SCATTER)), rows=_SCATTER[g.shape][1]),
        lambda g: _scatter_ref(g), cases=[((3,),), ((2, 2, 3),), ((0, 2),)]),
}


def _scatter_ref(g):
    idx, rows = _ids(g.shape, _SCATTER), _SCATTER[g.shape][1]
    out = np.zeros((rows,) + g.shape[idx.ndim:], dtype=g.dtype)
    np.add.at(out, idx, g)
    return out
