"""Op-table specs of searchsorted and reverse_sequence (``fasteager/ops/sequence_ops.py``).
The sequence lengths are fixed per case and include an empty prefix and a full one."""
import numpy as np

import fasteager as fe
from tests.ops.op_specs_base import Spec


def _lens(shape):
    return [(2 * i) % (shape[1] + 1) for i in range(shape[0])]


def _reverse_ref(x):
    out = x.copy()
    for b, n in enumerate(_lens(x.shape)):
        out[b, :n] = x[b, :n][::-1]
    return out


def _searchsorted_ref(s, v):
    rows = int(np.prod(s.shape[:-1]))
    s2, v2 = np.sort(s).reshape(rows, s.shape[-1]), v.reshape(rows, v.shape[-1])
    return np.stack([np.searchsorted(a, b) for a, b in zip(s2, v2)]).reshape(v.shape) \
        .astype(np.int32)


AREA_SPECS = {
    "reverse_sequence": Spec(
        lambda x: fe.reverse_sequence(x, _lens(x.shape), seq_axis=1, batch_axis=0),
        _reverse_ref, cases=[((3, 4),), ((4, 3, 2),), ((0, 3),)]),
    "searchsorted": Spec(lambda s, v: fe.searchsorted(fe.sort(s), v), _searchsorted_ref,
                         cases=[((5,), (3,)), ((2, 4), (2, 3)), ((3, 0), (3, 2))], grad=False),
}
