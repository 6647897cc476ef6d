"""Op-table specs of the ops behind the rest of tf.math / tf.bitwise / tf.linalg
(``ops/more_math_ops.py``, ``linalg.lu``; loaded by tests/ops/op_specs.py).

The references are plain NumPy loops, independent of the vectorized kernels: segment
extremes and products one row at a time, the cumulative log-sum-exp as a running
``logaddexp``, LU by textbook Doolittle elimination with partial pivoting.
"""
import numpy as np

import fasteager as fe
from fasteager import bitwise
from tests.ops.op_specs_base import BINARY, Spec, away_from_zero

# products get an empty segment (4 segments, ids 0..2); the extremes fill theirs with
# -FLT_MAX / FLT_MAX, too large for finite differences: they are checked in test_more_math


def _ids(n):
    return np.arange(n) % 3


def _segment_ref(combine, fill, num):
    def ref(x):
        out = np.full((num,) + x.shape[1:], fill(x.dtype), x.dtype)
        for row, seg in zip(x, _ids(x.shape[0])):
            out[seg] = combine(out[seg], row)
        return out
    return ref


def _segment(fn, num):
    return lambda x: fn(x, _ids(x.shape[0]), num)


_EXTREME_CASES = [((5,),), ((6, 2),), ((3,),)]
_SEGMENT_CASES = _EXTREME_CASES + [((0, 2),)]


def _clse_ref(x):
    out = []
    for exclusive in (False, True):
        for reverse in (False, True):
            v = np.flip(x, -1) if reverse else x
            run = np.empty_like(v)
            acc = np.full(v.shape[:-1], -np.inf, v.dtype)
            for i in range(v.shape[-1]):
                if exclusive:
                    run[..., i] = acc
                acc = np.logaddexp(acc, v[..., i])
                if not exclusive:
                    run[..., i] = acc
            out.append(np.maximum(np.flip(run, -1) if reverse else run, -30))
    return out


def _clse(x):
    # exclusive scans start at -inf, where finite differences are nan: floor them at -30
    f = fe.math.cumulative_logsumexp
    return [fe.maximum(f(x, axis=-1, exclusive=e, reverse=r), -30.0)
            for e in (False, True) for r in (False, True)]


def _lu_ref(a):
    a = np.array(a, dtype=a.dtype, copy=True)
    n = a.shape[-1]
    perm = list(range(n))
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        a[[j, p]] = a[[p, j]]
        perm[j], perm[p] = perm[p], perm[j]
        for i in range(j + 1, n):
            a[i, j] /= a[j, j]
            a[i, j + 1:] -= a[i, j] * a[j, j + 1:]
    return [a, np.array(perm, np.float32)]


def _lu(a):
    out = fe.linalg.lu(a)
    return [out.lu, fe.cast(out.p, fe.float32)]


def _small_ints(x):
    return np.round(np.abs(x) * 4)


AREA_SPECS = {
    "unsorted_segment_max": Spec(_segment(fe.math.unsorted_segment_max, 3),
                                 _segment_ref(np.maximum, lambda d: np.finfo(d).min, 3),
                                 _EXTREME_CASES),
    "unsorted_segment_min": Spec(_segment(fe.math.unsorted_segment_min, 3),
                                 _segment_ref(np.minimum, lambda d: np.finfo(d).max, 3),
                                 _EXTREME_CASES),
    "unsorted_segment_prod": Spec(_segment(fe.math.unsorted_segment_prod, 4),
                                  _segment_ref(np.multiply, lambda d: 1, 4), _SEGMENT_CASES,
                                  domain=away_from_zero),
    "cumulative_logsumexp": Spec(_clse, _clse_ref, [((4,),), ((2, 3),), ((0,),)]),
    "nextafter": Spec(lambda x, y: fe.math.nextafter(x, y), np.nextafter, BINARY, grad=False),
    "left_shift": Spec(lambda x, y: fe.cast(bitwise.left_shift(fe.cast(x, fe.int32),
                                                                  fe.cast(y, fe.int32)),
                                            fe.float32),
                       lambda x, y: np.left_shift(x.astype(np.int32),
                                                  y.astype(np.int32)).astype(np.float32),
                       BINARY, domain=_small_ints, grad=False),
    "right_shift": Spec(lambda x, y: fe.cast(bitwise.right_shift(fe.cast(x * 64, fe.int32),
                                                                    fe.cast(y, fe.int32)),
                                             fe.float32),
                        lambda x, y: np.right_shift((x * 64).astype(np.int32),
                                                    y.astype(np.int32)).astype(np.float32),
                        BINARY, domain=_small_ints, grad=False),
    # TensorFlow records no gradient for Lu: the table checks the LookupError instead
    "lu": Spec(_lu, _lu_ref, [((3, 3),), ((4, 4),), ((1, 1),)], grad=False),
}
