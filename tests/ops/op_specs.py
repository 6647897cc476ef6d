"""The op-table test table: one entry per op of ``fasteager.ops.registry.OPS``.

Each entry says how to call the op, its NumPy reference, and the input cases. The shared
test (``test_op_table.py``) checks every entry: forward against NumPy in float32 and
float64 on every case, and gradients against finite differences at orders 1 and 2.
An op without an entry here fails the suite.

Spec fields
  fn       calls the op through its public function on tensors
  ref      the NumPy reference on arrays
  cases    a list of input-shape tuples (one shape per tensor argument)
  domain   maps a standard-normal array into the op's domain (e.g. positive for log)
  grad     False for ops without a gradient (they are in NO_GRADIENT with a reason)
  order    highest derivative order to check (2 unless the op's second derivative is
           not defined by finite differences, e.g. at kinks)
  dtypes   forward dtypes to test
"""
import numpy as np

import fasteager as fe
from fasteager.ops.reduction_ops import prod_others

from tests.ops.op_specs_base import (BINARY, FLOATS, UNARY, Spec, away_from_zero,  # noqa: F401
                                     _sigmoid, in_open_unit, positive)


def _split_ref(x):
    return np.split(x, [1], axis=-1)


def well_conditioned(a):
    """Square matrices made diagonally dominant (invertible, well conditioned)."""
    if a.ndim >= 2 and a.shape[-1] == a.shape[-2]:
        return a + 3 * np.eye(a.shape[-1])
    return a


def _spd(m, xp):
    # a symmetric positive-definite matrix built from any square m (through its own ops,
    # so perturbations of m stay symmetric for the Cholesky gradient check)
    n = m.shape[-1]
    if xp is np:
        return m @ np.swapaxes(m, -1, -2) + n * np.eye(n, dtype=m.dtype)
    return fe.matmul(m, m, transpose_b=True) + n * fe.eye(n, dtype=m.dtype)


def _scans(fn, x):
    return [fn(x, axis=-1), fn(x, axis=-1, exclusive=True), fn(x, axis=-1, reverse=True),
            fn(x, axis=-1, exclusive=True, reverse=True)]


def _np_scan(fn, x, exclusive=False, reverse=False):
    if reverse:
        x = np.flip(x, -1)
    out = fn(x, axis=-1)
    if exclusive:
        first = np.zeros_like(x[..., :1]) if fn is np.cumsum else np.ones_like(x[..., :1])
        out = np.concatenate([first, out[..., :-1]], axis=-1)
    return np.flip(out, -1) if reverse else out


def _np_scans(fn, x):
    return [_np_scan(fn, x), _np_scan(fn, x, True), _np_scan(fn, x, False, True),
            _np_scan(fn, x, True, True)]


# einsum: one equation per case (keyed by the operand shapes)
_EINSUM = {((2, 3), (3, 4)): "ij,jk->ki", ((3, 3), (3,)): "ii,i->i",
           ((2, 3, 4), (4,)): "abc,c->ab", ((2, 3), (2, 3)): "ij,ij", ((2, 3), (4,)): "ij,k->kij",
           ((2, 3),): "ij->j", ((3, 3),): "ii->i"}


def _einsum(xp):
    return lambda *xs: xp.einsum(_EINSUM[tuple(tuple(x.shape) for x in xs)], *xs)


def with_zeros(x):
    """Away from zero, then zeros at flat indices 1, 3 and 5 (where they exist): a (2, 3)
    input gets one zero in its first row and two in its second, a (2, 2) one none in its
    second row."""
    x = away_from_zero(x)
    flat = x.reshape(-1)
    flat[[i for i in (1, 3, 5) if i < flat.size]] = 0
    return x


def _prod_others_ref(x):
    n = x.shape[-1]
    return np.stack([np.prod(np.delete(x, i, axis=-1), axis=-1) for i in range(n)], axis=-1) \
        if n else x.copy()


def _svd_invariants(a, xp):
    """Sign-invariant functions of svd(a): s (both with and without u and v), u * u, v * v
    and u diag(w) v^T for fixed weights w."""
    if xp is np:
        u, s, vt = np.linalg.svd(a, full_matrices=False)
        v = np.swapaxes(vt, -1, -2)
        s_only = np.linalg.svd(a, compute_uv=False)
        dtype = a.dtype
    else:
        s, u, v = fe.linalg.svd(a)
        vt = fe.linalg.matrix_transpose(v)
        s_only = fe.linalg.svd(a, compute_uv=False)
        dtype = a.dtype.as_numpy_dtype
    w = np.arange(1.0, s.shape[-1] + 1).astype(dtype)
    return [s, s_only, u * u, v * v, xp.matmul(u * w, vt)]


def _erf_ref(x):
    import math
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


SPECS = {
    # ---- elementwise_ops: binary
    "add": Spec(fe.add, np.add, BINARY),
    "subtract": Spec(fe.subtract, np.subtract, BINARY),
    "multiply": Spec(fe.multiply, np.multiply, BINARY),
    "truediv": Spec(fe.truediv, np.true_divide, BINARY, domain=away_from_zero),
    "floordiv": Spec(fe.floordiv, np.floor_divide, BINARY, domain=away_from_zero, grad=False),
    "floormod": Spec(fe.floormod, np.mod, BINARY, domain=away_from_zero),
    "pow": Spec(fe.pow, np.power, BINARY, domain=positive),
    "maximum": Spec(fe.maximum, np.maximum, BINARY),
    "minimum": Spec(fe.minimum, np.minimum, BINARY),
    "squared_difference": Spec(fe.squared_difference, lambda x, y: (x - y) ** 2, BINARY),
    # ---- elementwise_ops: unary
    "negative": Spec(fe.negative, np.negative),
    "abs": Spec(fe.abs, np.abs, domain=away_from_zero),
    "sign": Spec(fe.sign, np.sign, domain=away_from_zero),
    "square": Spec(fe.square, np.square),
    "sqrt": Spec(fe.sqrt, np.sqrt, domain=positive),
    "rsqrt": Spec(fe.math.rsqrt, lambda x: 1 / np.sqrt(x), domain=positive),
    "reciprocal": Spec(fe.math.reciprocal, np.reciprocal, domain=away_from_zero),
    "exp": Spec(fe.exp, np.exp),
    "expm1": Spec(fe.math.expm1, np.expm1),
    "log": Spec(fe.math.log, np.log, domain=positive),
    "log1p": Spec(fe.math.log1p, np.log1p, domain=positive),
    "sin": Spec(fe.sin, np.sin),
    "cos": Spec(fe.cos, np.cos),
    "tan": Spec(fe.tan, np.tan, domain=in_open_unit),
    "tanh": Spec(fe.tanh, np.tanh),
    "sigmoid": Spec(fe.sigmoid, _sigmoid),
    "floor": Spec(fe.floor, np.floor, domain=lambda x: x * 3 + 0.5),
    "ceil": Spec(fe.ceil, np.ceil, domain=lambda x: x * 3 + 0.5),
    "round": Spec(fe.round, np.round, domain=lambda x: np.floor(x * 3) + 0.25),
    # ---- comparisons and logic (no gradient)
    "equal": Spec(fe.equal, np.equal, BINARY, grad=False),
    "not_equal": Spec(fe.not_equal, np.not_equal, BINARY, grad=False),
    "less": Spec(fe.less, np.less, BINARY, grad=False),
    "less_equal": Spec(fe.less_equal, np.less_equal, BINARY, grad=False),
    "greater": Spec(fe.greater, np.greater, BINARY, grad=False),
    "greater_equal": Spec(fe.greater_equal, np.greater_equal, BINARY, grad=False),
    "logical_and": Spec(lambda x, y: fe.logical_and(x > 0, y > 0),
                        lambda x, y: np.logical_and(x > 0, y > 0), BINARY, grad=False),
    "logical_or": Spec(lambda x, y: fe.logical_or(x > 0, y > 0),
                       lambda x, y: np.logical_or(x > 0, y > 0), BINARY, grad=False),
    "logical_xor": Spec(lambda x, y: fe.logical_xor(x > 0, y > 0),
                        lambda x, y: np.logical_xor(x > 0, y > 0), BINARY, grad=False),
    "logical_not": Spec(lambda x: fe.logical_not(x > 0), lambda x: ~(x > 0), grad=False),
    "bitwise_and": Spec(lambda x, y: fe.cast(x * 4, fe.int32) & fe.cast(y * 4, fe.int32),
                        lambda x, y: (x * 4).astype(np.int32) & (y * 4).astype(np.int32),
                        BINARY, grad=False),
    "bitwise_or": Spec(lambda x, y: fe.cast(x * 4, fe.int32) | fe.cast(y * 4, fe.int32),
                       lambda x, y: (x * 4).astype(np.int32) | (y * 4).astype(np.int32),
                       BINARY, grad=False),
    "bitwise_xor": Spec(lambda x, y: fe.cast(x * 4, fe.int32) ^ fe.cast(y * 4, fe.int32),
                        lambda x, y: (x * 4).astype(np.int32) ^ (y * 4).astype(np.int32),
                        BINARY, grad=False),
    "invert": Spec(lambda x: ~fe.cast(x * 4, fe.int32), lambda x: ~(x * 4).astype(np.int32),
                   grad=False),
    "is_nan": Spec(lambda x: fe.math.is_nan(fe.math.log(x)),
                   lambda x: np.isnan(np.log(x)), grad=False),
    "is_inf": Spec(lambda x: fe.math.is_inf(x / 0.0), lambda x: np.isinf(x / 0.0), grad=False,
                   domain=away_from_zero),
    "is_finite": Spec(lambda x: fe.math.is_finite(fe.math.log(x)),
                      lambda x: np.isfinite(np.log(x)), grad=False),
    # ---- select, cast, clip
    "select": Spec(lambda x, y: fe.where(x > y, x, y), lambda x, y: np.where(x > y, x, y),
                   BINARY),
    "where_indices": Spec(lambda x: fe.cast(fe.where(x > 0), fe.float32),
                          lambda x: np.argwhere(x > 0).astype(np.float32), grad=False),
    "cast": Spec(lambda x: fe.cast(x, fe.float64) * 2, lambda x: x.astype(np.float64) * 2),
    "clip_by_value": Spec(lambda x, lo: fe.clip_by_value(x, lo - 0.3, lo + 0.3),
                          lambda x, lo: np.clip(x, lo - 0.3, lo + 0.3), BINARY),
    # ---- reductions
    "reduce_sum": Spec(lambda x: fe.reduce_sum(x, axis=-1), lambda x: np.sum(x, axis=-1),
                       [((3,),), ((2, 3),), ((0,),)]),
    "reduce_mean": Spec(lambda x: fe.reduce_mean(x, axis=0, keepdims=True),
                        lambda x: np.mean(x, axis=0, keepdims=True), [((3,),), ((2, 3),)]),
    "reduce_max": Spec(lambda x: fe.reduce_max(x, axis=-1), lambda x: np.max(x, axis=-1),
                       [((3,),), ((2, 3),)]),
    "reduce_min": Spec(lambda x: fe.reduce_min(x), lambda x: np.min(x), [((3,),), ((2, 3),)]),
    "reduce_any": Spec(lambda x: fe.reduce_any(x > 0, axis=-1),
                       lambda x: np.any(x > 0, axis=-1), [((3,),), ((2, 3),)], grad=False),
    "reduce_all": Spec(lambda x: fe.reduce_all(x > 0, axis=-1),
                       lambda x: np.all(x > 0, axis=-1), [((3,),), ((2, 3),)], grad=False),
    "argmax": Spec(lambda x: fe.cast(fe.argmax(x, axis=-1), fe.float32),
                   lambda x: np.argmax(x, axis=-1).astype(np.float32), [((3,),), ((2, 3),)],
                   grad=False),
    "argmin": Spec(lambda x: fe.cast(fe.argmin(x, axis=0), fe.float32),
                   lambda x: np.argmin(x, axis=0).astype(np.float32), [((3,),), ((2, 3),)],
                   grad=False),
    # ---- matmul
    "matmul": Spec(fe.matmul, np.matmul,
                   [((2, 3), (3, 4)), ((1, 1), (1, 1)), ((2, 2, 3), (3, 2)),
                    ((2, 1, 2, 3), (3, 3, 2)), ((0, 3), (3, 2))]),
    # ---- array_ops
    # shape, size, zeros_like and ones_like are ops only inside a trace (eagerly they read
    # the value's shape directly), so their entries run the public function traced
    "shape": Spec(fe.function(lambda x: fe.shape(x)), lambda x: np.array(x.shape, np.int32),
                  grad=False),
    "size": Spec(fe.function(lambda x: fe.size(x)), lambda x: np.array(x.size, np.int32),
                 grad=False),
    "zeros_like": Spec(fe.function(lambda x: fe.zeros_like(x)), np.zeros_like, grad=False),
    "ones_like": Spec(fe.function(lambda x: fe.ones_like(x)), np.ones_like, grad=False),
    "reshape": Spec(lambda x: fe.reshape(x, [-1]), lambda x: x.reshape(-1)),
    "transpose": Spec(fe.transpose, np.transpose),
    "broadcast_to": Spec(lambda x: fe.broadcast_to(x, (4,) + tuple(x.shape)),
                         lambda x: np.broadcast_to(x, (4,) + x.shape)),
    "concat": Spec(lambda x, y: fe.concat([x, y, x], axis=-1),
                   lambda x, y: np.concatenate([x, y, x], axis=-1),
                   [((3,), (2,)), ((2, 3), (2, 1)), ((0,), (2,))]),
    "split": Spec(lambda x: fe.split(x, [1, -1], axis=-1), _split_ref,
                  [((3,),), ((2, 3),)]),
    "stack": Spec(lambda x, y: fe.stack([x, y], axis=-1),
                  lambda x, y: np.stack([x, y], axis=-1), [((), ()), ((3,), (3,)),
                                                           ((2, 3), (2, 3))]),
    "unstack": Spec(lambda x: fe.unstack(x, axis=-1), lambda x: list(np.moveaxis(x, -1, 0)),
                    [((3,),), ((2, 3),)]),
    "identity": Spec(fe.identity, lambda x: x),
    "stop_gradient": Spec(lambda x: fe.stop_gradient(x) * x, lambda x: x * x, grad=False),
    "getitem": Spec(lambda x: x[::-1, None, 1:], lambda x: x[::-1, None, 1:],
                    [((3, 3),), ((2, 4),)]),
    # the VJP of getitem; order 2 of this spec differentiates it (repeated indices add up)
    "index_backward": Spec(lambda x: x[np.array([0, 2, 0])], lambda x: x[np.array([0, 2, 0])],
                           [((3, 4),), ((3,),)]),
    # ---- products, log-sum-exp, scans (reduction_ops)
    # zeros: none in some rows, one or two in others (the derivatives must stay exact)
    "reduce_prod": Spec(lambda x: fe.reduce_prod(x, axis=-1), lambda x: np.prod(x, axis=-1),
                        [((3,),), ((2, 3),), ((2, 2),), ((0,),)], domain=with_zeros),
    "prod_others": Spec(prod_others, _prod_others_ref, [((3,),), ((2, 3),), ((2, 2),), ((0,),)],
                        domain=with_zeros),
    "reduce_logsumexp": Spec(lambda x: fe.reduce_logsumexp(x, axis=-1),
                             lambda x: np.log(np.sum(np.exp(x), axis=-1)),
                             [((3,),), ((2, 3),)]),
    "cumsum": Spec(lambda x: _scans(fe.cumsum, x), lambda x: _np_scans(np.cumsum, x),
                   [((3,),), ((2, 3),), ((0,),)]),
    # cumprod's gradient divides by x: keep the inputs away from zero
    "cumprod": Spec(lambda x: _scans(fe.math.cumprod, x), lambda x: _np_scans(np.cumprod, x),
                    [((3,),), ((2, 3),), ((0,),)], domain=away_from_zero),
    # ---- special_ops
    "erf": Spec(fe.math.erf, _erf_ref),
    "argsort": Spec(lambda x: [fe.cast(fe.argsort(x), fe.float32),
                               fe.cast(fe.argsort(x, direction="DESCENDING"), fe.float32)],
                    lambda x: [np.argsort(x, kind="stable").astype(np.float32),
                               np.argsort(-x, kind="stable").astype(np.float32)],
                    [((3,),), ((2, 3),), ((0,),)], grad=False),
    # ---- linalg_ops
    "einsum": Spec(_einsum(fe), _einsum(np), [tuple(k) for k in _EINSUM]),
    "inv": Spec(fe.linalg.inv, np.linalg.inv, [((3, 3),), ((2, 2, 2),)],
                domain=well_conditioned),
    "det": Spec(fe.linalg.det, np.linalg.det, [((3, 3),), ((2, 2, 2),)],
                domain=well_conditioned),
    "slogdet": Spec(fe.linalg.slogdet, lambda a: list(np.linalg.slogdet(a)),
                    [((3, 3),), ((2, 2, 2),)], domain=well_conditioned),
    "solve": Spec(lambda a, b: [fe.linalg.solve(a, b), fe.linalg.solve(a, b, adjoint=True)],
                  lambda a, b: [np.linalg.solve(a, b),
                                np.linalg.solve(np.swapaxes(a, -1, -2), b)],
                  [((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((3, 3), (2, 3, 2))],
                  domain=well_conditioned),
    "cholesky": Spec(lambda m: fe.linalg.cholesky(_spd(m, fe)),
                     lambda m: np.linalg.cholesky(_spd(m, np)), [((3, 3),), ((2, 2, 2),)]),
    # QR is unique for full-rank inputs (LAPACK's signs are locally smooth): q and r as is
    "qr": Spec(lambda a: list(fe.linalg.qr(a)), lambda a: list(np.linalg.qr(a)),
               [((3, 3),), ((4, 2),), ((2, 4),), ((2, 2, 3),), ((2, 3, 2),)]),
    # u and v columns have arbitrary signs: check functions invariant to them
    "svd": Spec(lambda a: _svd_invariants(a, fe), lambda a: _svd_invariants(a, np),
                [((3, 3),), ((4, 2),), ((2, 4),), ((2, 2, 3),), ((2, 3, 2),)]),
    # ---- tile, pad, one_hot (array_ops)
    "tile": Spec(lambda x: fe.tile(x, [2] * len(x.shape)),
                 lambda x: np.tile(x, [2] * x.ndim)),
    "pad": Spec(lambda x: fe.pad(x, [[1, 2]] * len(x.shape), constant_values=0.5),
                lambda x: np.pad(x, [[1, 2]] * x.ndim, constant_values=0.5) if x.ndim else x),
    "one_hot": Spec(lambda x: fe.one_hot(fe.cast(fe.abs(x) * 2, fe.int32), 4, axis=0),
                    lambda x: np.moveaxis(
                        (np.abs(x) * 2).astype(np.int32)[..., None] == np.arange(4), -1, 0)
                    .astype(np.float32), grad=False),
}

from tests.ops.op_specs_nn import NN_SPECS  # noqa: E402 - the fe.nn entries live there

SPECS.update(NN_SPECS)


def _area_specs():
    """Specs kept beside their subsystem: every tests/ops/op_specs_<area>.py that defines
    ``AREA_SPECS`` adds its entries (one op, one spec, no name twice)."""
    import importlib
    import pathlib
    for path in sorted(pathlib.Path(__file__).parent.glob("op_specs_*.py")):
        if path.stem in ("op_specs_base", "op_specs_nn"):
            continue
        extra = getattr(importlib.import_module("tests.ops." + path.stem), "AREA_SPECS", {})
        twice = sorted(set(extra) & set(SPECS))
        if twice:
            raise ValueError("%s: specs defined twice: %s" % (path.name, twice))
        SPECS.update(extra)


_area_specs()

