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


def _codes(x):
    """Integer codes with repeats (unique's interesting case) from random floats."""
    return np.floor(np.abs(x) * 2)


def _unique_ref(x, counts=False):
    c = _codes(x).reshape(-1)
    values, where, idx, n = [], {}, [], []
    for v in c.tolist():
        k = where.get(v) if v == v else None       # every NaN is a value of its own (TF)
        if k is None:
            k = len(values)
            values.append(v)
            n.append(0)
            if v == v:
                where[v] = k
        idx.append(k)
        n[k] += 1
    y, idx = np.array(values, x.dtype), np.array(idx, np.int32)
    if not counts:
        return y, idx
    return y, idx, np.array(n, np.int32)


def _flat_index(x):
    n = x.size
    return (np.arange(n) * 7) % max(n, 1), np.array(x.shape if x.ndim else (1,))


AREA_SPECS = {
    "reverse_sequence": Spec(
        lambda x: fe.reverse_sequence(x, _lens(x.shape), seq_axis=1, batch_axis=0),
        _reverse_ref, cases=[((3, 4),), ((4, 3, 2),), ((0, 3),)]),
    "searchsorted": Spec(lambda s, v: fe.searchsorted(fe.sort(s), v), _searchsorted_ref,
                         cases=[((5,), (3,)), ((2, 4), (2, 3)), ((3, 0), (3, 2))], grad=False),
    "unique": Spec(lambda x: tuple(fe.unique(fe.floor(fe.abs(x) * 2))), _unique_ref,
                   cases=[((7,),), ((0,),)], grad=False),
    "unique_with_counts": Spec(lambda x: tuple(fe.unique_with_counts(fe.floor(fe.abs(x) * 2))),
                               lambda x: _unique_ref(x, True), cases=[((7,),), ((0,),)],
                               grad=False),
    "unravel_index": Spec(
        lambda x: fe.unravel_index(fe.constant(_flat_index(np.asarray(x))[0]),
                                   fe.constant(_flat_index(np.asarray(x))[1])),
        lambda x: np.stack(np.unravel_index(*_flat_index(x))), cases=[((2, 3),), ((4,),),
                                                                       ((2, 2, 2),)],
        grad=False),
}
