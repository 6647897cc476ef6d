"""``fe.map_fn``: a function applied to each row of tensors (TensorFlow's ``tf.map_fn``).

Eager code needs no loop construct: the rows are unstacked, ``fn`` runs on each, and the
results are stacked again, all with differentiable ops, so gradients flow through. A
RaggedTensor in ``elems`` gives its rows as tensors; a result is stacked as the rows of
a RaggedTensor when ``fn_output_signature`` says ``fe.RaggedTensorSpec`` or, without a
signature, when the matching input was ragged (the signature defaults to the inputs').
"""
import numpy as np

from ... import _core, nest
from ...errors import InvalidArgumentError
from ..composite.extension_type import ExtensionType, map_extension_rows
from ...ops.array_ops import concat, stack, unstack, zeros
from ...ragged import RaggedTensor, RaggedTensorSpec
from ...ragged import stack as ragged_stack


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None):
    """``fn`` on each row of ``elems`` (a tensor, RaggedTensor or nested structure of them,
    unstacked along axis 0), the results stacked along axis 0.

    >>> fe.map_fn(lambda x: x * x, fe.constant([1, 2, 3])).numpy()
    array([1, 4, 9], dtype=int32)
    >>> print(fe.map_fn(fe.math.square, fe.ragged.constant([[1, 2], [3]])))
    <fe.RaggedTensor [[1, 4], [9]]>
    """
    if not callable(fn):
        raise TypeError("map_fn: fn must be callable (got %s)" % type(fn).__name__)
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if isinstance(elems, ExtensionType):       # a BatchableExtensionType's rows
        return map_extension_rows(fn, elems, "map_fn")
    leaves = [x if isinstance(x, RaggedTensor) else _core.convert_to_tensor(x)
              for x in nest.flatten(elems)]
    if not leaves:
        raise InvalidArgumentError("map_fn: elems must hold at least one tensor")
    sizes = [_rows(x) for x in leaves]
    if any(s != sizes[0] for s in sizes):
        raise InvalidArgumentError("map_fn: all elems must have the same size along axis 0 "
                                   "(got %s)" % sizes)
    rows = [_unstack(x) for x in leaves]
    results = []
    structure = None
    for i in range(sizes[0]):
        out = fn(nest.pack_sequence_as(elems, [r[i] for r in rows]))
        structure = out if structure is None else structure
        results.append([x if isinstance(x, RaggedTensor) else _core.convert_to_tensor(x)
                        for x in nest.flatten(out)])
    if structure is None:       # no rows: the results take the signature's (or elems') form
        structure = signature if signature is not None else elems
    kinds = _output_kinds(signature, elems, leaves, structure)
    columns = list(zip(*results)) if results else [() for _ in kinds]
    outputs = [_stack_rows(list(col), ragged, leaf)
               for col, ragged, leaf in zip(columns, kinds, _padded(leaves, len(kinds)))]
    return nest.pack_sequence_as(structure, outputs)


def _rows(x):
    if isinstance(x, RaggedTensor):
        return x.nrows_int()
    if x._value.ndim == 0:
        raise InvalidArgumentError("map_fn: elems must have rank >= 1 to be unstacked along "
                                   "axis 0 (got a scalar)")
    return x._value.shape[0]


def _unstack(x):
    if isinstance(x, RaggedTensor):
        return [x[i] for i in range(x.nrows_int())]
    return unstack(x) if x._value.shape[0] else []


def _output_kinds(signature, elems, leaves, structure):
    """For each output leaf: stacked as a RaggedTensor (True) or densely (False)."""
    n = len(nest.flatten(structure))
    if signature is not None:
        specs = nest.flatten(signature)
        if len(specs) != n:
            raise InvalidArgumentError("map_fn: fn_output_signature has %d entries but fn "
                                       "returned %d" % (len(specs), n))
        return [isinstance(s, RaggedTensorSpec) for s in specs]
    # no signature: TensorFlow takes the inputs' (a ragged input gives a ragged output)
    if len(leaves) == n:
        return [isinstance(x, RaggedTensor) for x in leaves]
    return [False] * n


def _padded(leaves, n):
    return leaves[:n] + [None] * (n - len(leaves))


def _stack_rows(rows, ragged, like):
    if not rows:        # no rows at all: an empty result of the input's inner shape
        if like is None:
            raise InvalidArgumentError("map_fn: cannot tell the result's shape of an empty "
                                       "input (give fn_output_signature)")
        if isinstance(like, RaggedTensor):
            return like[0:0]
        return zeros((0,) + tuple(like._value.shape[1:]), dtype=like.dtype)
    if not ragged:
        if any(isinstance(r, RaggedTensor) for r in rows):
            raise InvalidArgumentError("map_fn: fn returned a RaggedTensor; give "
                                       "fn_output_signature=fe.RaggedTensorSpec(...)")
        return stack(rows)
    if all(isinstance(r, RaggedTensor) for r in rows):
        return ragged_stack(rows)
    if any(isinstance(r, RaggedTensor) or r._value.ndim == 0 for r in rows):
        raise InvalidArgumentError("map_fn: a ragged result needs every row to be a tensor of "
                                   "rank >= 1 (or every row ragged)")
    lengths = np.array([r._value.shape[0] for r in rows], dtype=np.int64)
    return RaggedTensor.from_row_lengths(concat(rows, axis=0), lengths)
