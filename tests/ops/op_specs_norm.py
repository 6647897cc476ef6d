"""Op-table specs of the fused batch normalisation (``fasteager/ops/norm_ops.py``).

The references are NumPy formulas in the input's dtype. Variances enter through
``_positive`` (in the op call and in the reference alike) so that every random input is
a valid variance. ``fused_batch_norm`` has no empty case: the mean of no rows is NaN.
Its order-1 check runs the fused backward kernel; its order-2 check runs the composed
gradient (an outer tape records), so both are compared with finite differences.
"""
import numpy as np

import fasteager as fe
from fasteager.ops import norm_ops
from fasteager.ops.registry import execute
from tests.ops.op_specs_base import Spec

EPS = 1e-3


def _positive(v):
    return np.abs(v) + 0.5


def _fe_positive(v):
    return fe.abs(v) + 0.5


def ref_fused_batch_norm(x, scale, offset):
    axes = tuple(range(x.ndim - 1))
    mean = x.mean(axis=axes)
    var = ((x - mean) ** 2).mean(axis=axes)
    y = (x - mean) / np.sqrt(var + EPS) * scale + offset
    return y.astype(x.dtype), mean.astype(x.dtype), var.astype(x.dtype)


def ref_fused_batch_norm_grad(dy, x, scale, mean, var, gmean, gvar):
    var = _positive(var)
    axes = tuple(range(x.ndim - 1))
    rows = int(np.prod(x.shape[:-1]))
    inv = 1 / np.sqrt(var + EPS)
    xhat = (x - mean) * inv
    doffset = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    if rows == 0:
        return np.empty(x.shape, x.dtype), dscale, doffset
    dx = scale * inv * (dy - doffset / rows - xhat * dscale / rows) + gmean / rows \
        + 2 * gvar * (x - mean) / rows
    return dx.astype(x.dtype), dscale.astype(x.dtype), doffset.astype(x.dtype)


def ref_batch_norm_inference(x, mean, var, scale, offset):
    y = (x - mean) / np.sqrt(_positive(var) + EPS) * scale + offset
    return y.astype(x.dtype)


_TRAIN = [((5, 3), (3,), (3,)), ((2, 3, 2, 4), (4,), (4,)), ((1, 1), (1,), (1,)),
          ((3, 2, 1), (1,), (1,))]

AREA_SPECS = {
    "fused_batch_norm": Spec(
        lambda x, s, o: execute(norm_ops.fused_batch_norm_op, x, s, o, epsilon=EPS),
        ref_fused_batch_norm, cases=_TRAIN),
    "fused_batch_norm_grad": Spec(
        lambda dy, x, s, m, v, gm, gv: execute(norm_ops.fused_batch_norm_grad_op, dy, x, s,
                                               m, _fe_positive(v), gm, gv, epsilon=EPS),
        ref_fused_batch_norm_grad, grad=False,
        cases=[((5, 3), (5, 3)) + ((3,),) * 5, ((2, 3, 2, 4), (2, 3, 2, 4)) + ((4,),) * 5,
               ((0, 3), (0, 3)) + ((3,),) * 5]),
    "batch_norm_inference": Spec(
        lambda x, m, v, s, o: execute(norm_ops.batch_norm_inference_op, x, m,
                                      _fe_positive(v), s, o, epsilon=EPS),
        ref_batch_norm_inference,
        cases=[((5, 3),) + ((3,),) * 4, ((2, 3, 2, 4),) + ((4,),) * 4,
               ((0, 3),) + ((3,),) * 4]),
}
