"""Op-table specs of the ops behind the rest of tf.math / tf.bitwise / tf.linalg
(``ops/segment_ops.py``, ``reduction_ops.py``, ``elementwise_ops.py``, ``special_ops.py``,
``matrix_ops.lu``; loaded by tests/ops/op_specs.py).

The references are plain NumPy loops, independent of the vectorized kernels: segment
extremes and products one row at a time, the cumulative log-sum-exp as a running
``logaddexp``, LU by textbook Doolittle elimination with partial pivoting.
"""
import numpy as np

import fasteager as fe
from fasteager import bitwise
from fasteager.ops.special_ops import igamma_grad_a_op
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import BINARY, UNARY, Spec, away_from_zero, in_open_unit, positive

# products get an empty segment (4 segments, ids 0..2); the extremes fill theirs with
# -FLT_MAX / FLT_MAX, too large for finite differences: they are checked in test_segment_ops


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


def _dp_da_ref(a, x, h=1e-6):
    # a central difference of SciPy's P(a, x) in float64
    import scipy.special
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    with np.errstate(all="ignore"):
        d = (scipy.special.gammainc(a64 + h, x64) - scipy.special.gammainc(a64 - h, x64)) / (2 * h)
    # defined for finite a > 0 and x >= 0 (as the op; SciPy's P has other edge values)
    d = np.where((a64 > 0) & np.isfinite(a64) & (x64 >= 0), d, np.nan)
    return d.astype(np.result_type(a, x))


def _small_ints(x):
    return np.round(np.abs(x) * 4)


def _scipy(name):
    # SciPy (a test dependency through scikit-learn) as the independent reference
    def ref(*xs):
        import scipy.special
        return np.asarray(getattr(scipy.special, name)(*xs)).astype(xs[-1].dtype)
    return ref


def _tf_igamma_ref(upper):
    # SciPy's values, with TensorFlow's edges where the two disagree (a = 0, a = inf,
    # x = 0 with a <= 0)
    def ref(a, x):
        import scipy.special
        a64, x64 = a.astype(np.float64), x.astype(np.float64)
        with np.errstate(all="ignore"):
            out = (scipy.special.gammaincc if upper else scipy.special.gammainc)(a64, x64)
        out = np.where(a64 <= 0, np.nan, out)
        if upper:
            out = np.where((a64 == np.inf) & (x64 > 0) & (x64 < np.inf), 1.0, out)
            out = np.where((a64 > 0) & (x64 == np.inf), 0.0, out)
        else:
            out = np.where(x64 == 0, 0.0, out)
            out = np.where((a64 == np.inf) & (x64 > 0), 0.0, out)
        return out.astype(np.result_type(a, x))
    return ref


def _probability(x):
    return 0.05 + 0.9 / (1 + np.exp(-x))


def _in_0_2(x):
    return 1 + np.tanh(x) * 0.9


def _above_one(x):
    return 1.5 + np.abs(x)


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
    # ---- special functions (special_ops)
    "erfinv": Spec(fe.math.erfinv, _scipy("erfinv"), UNARY, domain=in_open_unit),
    "erfcinv": Spec(fe.math.erfcinv, _scipy("erfcinv"), UNARY, domain=_in_0_2),
    "ndtri": Spec(fe.math.ndtri, _scipy("ndtri"), UNARY, domain=_probability),
    # TensorFlow's zeta has no gradient in x: the table varies q only
    "zeta": Spec(lambda q: fe.math.zeta(fe.constant(2.5, q.dtype), q),
                 lambda q: _scipy("zeta")(np.asarray(2.5, q.dtype), q), UNARY, domain=positive),
    "igamma": Spec(fe.math.igamma, _tf_igamma_ref(False), BINARY, domain=positive, order=1),
    "igammac": Spec(fe.math.igammac, _tf_igamma_ref(True), BINARY, domain=positive, order=1),
    # dP/da, the a-gradient of igamma; as TensorFlow's IgammaGradA, it has no gradient
    "igamma_grad_a": Spec(lambda a, x: execute(igamma_grad_a_op, a, x), _dp_da_ref, BINARY,
                          domain=positive, grad=False, rtol=1e-6),   # a difference quotient
    # TensorFlow's betainc has a gradient in x only: the table varies x
    "betainc": Spec(lambda x: fe.math.betainc(fe.constant(1.5, x.dtype),
                                              fe.constant(2.5, x.dtype), x),
                    lambda x: _scipy("betainc")(np.asarray(1.5), np.asarray(2.5), x),
                    UNARY, domain=_probability),
    "bessel_i0": Spec(fe.math.bessel_i0, _scipy("i0"), UNARY),
    "bessel_i0e": Spec(fe.math.bessel_i0e, _scipy("i0e"), UNARY, domain=away_from_zero),
    "bessel_i1": Spec(fe.math.bessel_i1, _scipy("i1"), UNARY),
    "bessel_i1e": Spec(fe.math.bessel_i1e, _scipy("i1e"), UNARY, domain=away_from_zero),
}
