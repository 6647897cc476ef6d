"""Embedding look-ups (``tf.nn.embedding_lookup``, ``tf.nn.embedding_lookup_sparse``):
rows of a table at dense, ragged or sparse ids.

They take ragged and sparse ids alike, so they sit above both kinds of value.
"""
import builtins

import numpy as np

from ... import _core
from ...errors import InvalidArgumentError
from ...ops.array_ops import concat, reshape
from ...ops.elementwise_ops import cast, sqrt
from ...ops.indexing_ops import gather
from ...ops.reduction_ops import clip_by_norm
from ...ops.segment_ops import unsorted_segment_sum
from .ragged import RaggedTensor
from .sparse import _WHAT, _check_sparse
from .values import _np

__all__ = ["embedding_lookup", "embedding_lookup_sparse"]

_range = builtins.range


def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of ``params`` at ``ids`` (``tf.nn.embedding_lookup``): shape
    ``ids.shape + params.shape[1:]``; ragged ids give a RaggedTensor of their partition.
    A list of tables is the row-wise shards of one (TensorFlow 2's "div" partitioning:
    their concatenation). With ``max_norm``, each row found is scaled down to that L2
    norm. Differentiable in ``params`` (the gradient scatter-adds into the rows used)."""
    if isinstance(ids, RaggedTensor):
        return ids.with_flat_values(embedding_lookup(params, ids.flat_values, max_norm))
    if isinstance(params, (list, tuple)):
        if not params:
            raise InvalidArgumentError("embedding_lookup: params must not be an empty list")
        table = params[0] if len(params) == 1 else concat(list(params), axis=0)
    else:
        table = params
    idx = ids if isinstance(ids, _core.Tensor) else _core.convert_to_tensor(ids)
    if idx._value.dtype.kind not in "iu":
        raise InvalidArgumentError("embedding_lookup: ids must be integers (got %s)"
                                   % idx.dtype.name)
    out = gather(table, idx)
    if max_norm is not None:
        axes = list(_range(idx._value.ndim, out._value.ndim))
        if axes:
            out = clip_by_norm(out, max_norm, axes=axes)
    return out


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy=None, name=None,
                            combiner="mean", max_norm=None, allow_fast_lookup=False):
    """Per row of the rank-2 SparseTensor ``sp_ids``, the ``combiner`` ("sum", "mean" or
    "sqrtn") of the embeddings of its ids, weighted by ``sp_weights`` (a SparseTensor of the
    same indices, or None for weight 1) (``tf.nn.embedding_lookup_sparse``). Rows without
    ids are zeros. Differentiable in ``params`` and the weights."""
    sp = _check_sparse("embedding_lookup_sparse", sp_ids, "sp_ids")
    if combiner not in ("sum", "mean", "sqrtn"):
        raise InvalidArgumentError("embedding_lookup_sparse: combiner must be 'sum', 'mean' or "
                                   "'sqrtn' (got %r)" % (combiner,))
    if sp.ndim != 2:
        raise InvalidArgumentError("embedding_lookup_sparse: sp_ids must have rank 2 (got %d)"
                                   % sp.ndim)
    rows = sp._indices._value[:, 0]
    nrows = int(sp._dense_shape._value[0])
    found = embedding_lookup(params, sp._values, max_norm=max_norm)
    weights = None
    if sp_weights is not None:
        w = _check_sparse("embedding_lookup_sparse", sp_weights, "sp_weights")
        if not np.array_equal(w._indices._value, sp._indices._value):
            raise InvalidArgumentError("embedding_lookup_sparse: sp_weights must have the "
                                       "indices of sp_ids")
        weights = cast(w._values, found.dtype)
        lead = (-1,) + (1,) * (found._value.ndim - 1)
        found = found * reshape(weights, lead)
    total = unsorted_segment_sum(found, rows, nrows)
    if combiner == "sum":
        return total
    if weights is None:
        weights = _core.wrap(np.ones(rows.shape[0], dtype=found._value.dtype))
    per_row = unsorted_segment_sum(weights * weights if combiner == "sqrtn" else weights,
                                   rows, nrows)
    if combiner == "sqrtn":
        per_row = sqrt(per_row)
    # a row without ids divides 0 by 1 (TensorFlow's zeros), not by 0
    safe = per_row + _core.wrap((_np(per_row, _WHAT) == 0).astype(found._value.dtype))
    return total / reshape(safe, (-1,) + (1,) * (found._value.ndim - 1))
