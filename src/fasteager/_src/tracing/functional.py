"""TensorFlow 2's functional control flow beyond ``fe.cond`` and ``fe.while_loop``:
``map_fn``, ``foldl``, ``foldr``, ``scan``, ``vectorized_map``, ``case`` and
``switch_case``.

The loops run in Python over the rows of ``elems`` (``fe.unstack``) with fasteager ops,
so tapes record them and ``fe.function`` traces them unrolled, one trace per length.
``map_fn``: a RaggedTensor in ``elems`` gives its rows as tensors; a result is stacked as
the rows of a RaggedTensor when ``fn_output_signature`` says ``fe.RaggedTensorSpec`` or,
without a signature, when the matching input was ragged (the signature defaults to the
inputs').
``case`` and ``switch_case`` are chains of ``fe.cond``, so inside ``fe.function`` a
predicate computed from the inputs picks its branch at every call.
"""
import numpy as np

from ... import _core
from ...errors import InvalidArgumentError
from ...ops.array_ops import concat, stack, unstack, zeros
from ...ops.elementwise_ops import equal
from .. import nest
from ..composite.extension_type import ExtensionType, map_extension_rows
from ..composite.ragged import RaggedTensor, RaggedTensorSpec
from ..composite.ragged import stack as ragged_stack
from .control_flow import cond

Tensor = _core.Tensor
VariableBase = _core.VariableBase


# -- map_fn ---------------------------------------------------------------------------------
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
    sizes = [_nrows(x) for x in leaves]
    if any(s != sizes[0] for s in sizes):
        raise InvalidArgumentError("map_fn: all elems must have the same size along axis 0 "
                                   "(got %s)" % sizes)
    rows = [_row_values(x) for x in leaves]
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


def _nrows(x):
    if isinstance(x, RaggedTensor):
        return x.nrows_int()
    if x._value.ndim == 0:
        raise InvalidArgumentError("map_fn: elems must have rank >= 1 to be unstacked along "
                                   "axis 0 (got a scalar)")
    return x._value.shape[0]


def _row_values(x):
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


# -- folds and scans --------------------------------------------------------------------
def _rows(elems, opname):
    """The structure of ``elems`` and, for each row along axis 0, its structure of slices."""
    leaves = [x._read() if isinstance(x, VariableBase) else _core.convert_to_tensor(x)
              for x in nest.flatten(elems)]
    if not leaves:
        raise InvalidArgumentError("%s: elems must hold at least one tensor" % opname)
    for x in leaves:
        if x._value.ndim == 0:
            raise InvalidArgumentError("%s: elems must have rank >= 1 to be unstacked along "
                                       "axis 0 (got a scalar)" % opname)
    sizes = [x._value.shape[0] for x in leaves]
    if any(s != sizes[0] for s in sizes):
        raise InvalidArgumentError("%s: all elems must have the same size along axis 0 (got "
                                   "%s)" % (opname, sizes))
    columns = [unstack(x) if sizes[0] else [] for x in leaves]
    return [nest.pack_sequence_as(elems, [c[i] for c in columns]) for i in range(sizes[0])]


def _fold(fn, elems, initializer, reverse, opname):
    if not callable(fn):
        raise TypeError("%s: fn must be callable (got %s)" % (opname, type(fn).__name__))
    rows = _rows(elems, opname)
    if reverse:
        rows = rows[::-1]
    if initializer is None:
        if not rows:
            raise InvalidArgumentError("%s: elems is empty and there is no initializer (expected "
                                       "at least one row)" % opname)
        acc, rows = rows[0], rows[1:]
    else:
        acc = initializer
    return acc, rows


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``; without an
    initializer, ``elems[0]`` starts the fold. ``elems`` may be a nested structure of
    tensors unstacked together.

    >>> int(fe.foldl(lambda a, x: a * 10 + x, fe.constant([1, 2, 3])))
    123
    """
    acc, rows = _fold(fn, elems, initializer, False, "foldl")
    for row in rows:
        acc = fn(acc, row)
    return acc


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``foldl`` from the last row to the first.

    >>> int(fe.foldr(lambda a, x: a * 10 + x, fe.constant([1, 2, 3])))
    321
    """
    acc, rows = _fold(fn, elems, initializer, True, "foldr")
    for row in rows:
        acc = fn(acc, row)
    return acc


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """Every accumulator of ``foldl`` (``foldr`` with ``reverse``), stacked along axis 0 in
    the order of ``elems``; without an initializer the first row is the first output.

    >>> fe.scan(lambda a, x: a + x, fe.constant([1, 2, 3, 4])).numpy()
    array([ 1,  3,  6, 10], dtype=int32)
    """
    acc, rows = _fold(fn, elems, initializer, reverse, "scan")
    outputs = [] if initializer is not None else [acc]
    for row in rows:
        acc = fn(acc, row)
        outputs.append(acc)
    if reverse:
        outputs = outputs[::-1]
    template = acc
    if not outputs:       # no rows: empty stacks of the accumulator's shapes
        return nest.map_structure(
            lambda a: zeros((0,) + tuple(_core.convert_to_tensor(a)._value.shape),
                            dtype=_core.convert_to_tensor(a).dtype), template)
    flat = [[_core.convert_to_tensor(x) for x in nest.flatten(o)] for o in outputs]
    return nest.pack_sequence_as(template, [stack(list(col)) for col in zip(*flat)])


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` on each row of ``elems`` (a tensor or nested structure), results stacked:
    TensorFlow vectorizes ``fn``; fasteager runs ``fe.map_fn``, with the same results."""
    return map_fn(fn, elems)


# ---- case and switch_case -------------------------------------------------------------------

def _as_pairs(pred_fn_pairs):
    if isinstance(pred_fn_pairs, dict):
        return list(pred_fn_pairs.items())
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError("case: pred_fn_pairs must be a list of (pred, fn) pairs (got %s)"
                        % type(pred_fn_pairs).__name__)
    return list(pred_fn_pairs)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the ``fn`` of the first ``pred`` that holds in ``pred_fn_pairs``, or of
    ``default()``; with no default and no true ``pred``, an InvalidArgumentError. Each
    ``pred`` is a scalar bool tensor. As TensorFlow 2.21 does (eagerly and in functions),
    ``exclusive=True`` still takes the first true ``pred`` when several hold.

    >>> x = fe.constant(3)
    >>> int(fe.case([(x < 2, lambda: fe.constant(1)), (x < 5, lambda: fe.constant(2))],
    ...             default=lambda: fe.constant(3)))
    2
    """
    pairs = _as_pairs(pred_fn_pairs)
    preds = []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError("case: each entry of pred_fn_pairs must be a (pred, fn) pair (got "
                            "%r)" % (pair,))
        pred, fn = pair
        if isinstance(pred, VariableBase):
            pred = pred._read()
        if not isinstance(pred, Tensor):
            raise TypeError("case: pred must be a Tensor, got: %r" % (pred,))
        if pred.dtype.name != "bool" or pred._value.size != 1 or pred._value.ndim > 1:
            raise TypeError("case: pred must be a scalar bool tensor (got shape %s, dtype %s)"
                            % (list(pred._value.shape), pred.dtype.name))
        if not callable(fn):
            raise TypeError("case: fn for pred %s must be callable (got %s)"
                            % (pred, type(fn).__name__))
        preds.append(pred)
    if default is not None and not callable(default):
        raise TypeError("case: default must be callable (got %s)" % type(default).__name__)
    if not pairs:
        if default is None:
            raise ValueError("case: pred_fn_pairs is empty and there is no default")
        return default()
    if default is None:
        _check_some_pred_holds(preds)
        # the last branch is the default, as in TensorFlow's graph (never a failing branch
        # that fe.cond would trace inside a function)
        *pairs, (_, default) = pairs
    fn = default
    for p, (_, f) in reversed(list(zip(preds, pairs))):
        fn = _bind_cond(p, f, fn)
    return fn()


def _check_some_pred_holds(preds):
    """TensorFlow's assertion of a ``case`` without default: now, and inside ``fe.function``
    at every later call (a step of the graph), without reading the values as data."""
    stacked = stack(preds)
    tracer = _core.get_tracer()
    if tracer is None or tracer.parent is None:
        _raise_unless_any(_host(stacked._value))
    # (a branch of fe.cond is traced whether it runs or not: its check is the step's alone)
    if tracer is not None:
        tracer.effect(lambda arr: _raise_unless_any(_host(arr)), [stacked], (), "case_assert")


def _host(value):
    return value if isinstance(value, np.ndarray) else value.get()


def _raise_unless_any(flags):
    if not flags.any():
        raise InvalidArgumentError("case: Input error: None of conditions evaluated as True: %s"
                                   % flags.reshape(-1).tolist())


def _bind_cond(pred, true_fn, false_fn):
    return lambda: cond(pred, true_fn, false_fn)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``branch_fns[branch_index]()``; ``branch_fns`` is a list of callables, a list of
    ``(int, callable)`` pairs or a dict of them. An index out of range runs ``default`` or,
    without one, the last branch. ``branch_index`` is an integer scalar tensor.

    >>> fe.switch_case(fe.constant(1), [lambda: fe.constant(10), lambda: fe.constant(20)])
    <fe.Tensor: shape=(), dtype=int32, numpy=20>
    """
    if isinstance(branch_index, VariableBase):
        branch_index = branch_index._read()
    if not isinstance(branch_index, Tensor):
        raise TypeError("switch_case: 'branch_index' must be a Tensor, got %s"
                        % type(branch_index))
    if not branch_index.dtype.is_integer:
        raise TypeError("switch_case: 'branch_index' must be an integer Tensor, got %s"
                        % branch_index.dtype.name)
    if branch_index._value.ndim != 0:
        raise InvalidArgumentError("switch_case: branch_index must be a scalar (got shape %s)"
                                   % list(branch_index._value.shape))
    if isinstance(branch_fns, dict):
        keyed = sorted(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)) and branch_fns and all(
            isinstance(b, (list, tuple)) for b in branch_fns):
        keyed = sorted((int(k), f) for k, f in branch_fns)
    elif isinstance(branch_fns, (list, tuple)):
        keyed = list(enumerate(branch_fns))
    else:
        raise TypeError("switch_case: branch_fns must be a list, tuple or dict (got %s)"
                        % type(branch_fns).__name__)
    if not keyed:
        raise ValueError("switch_case: branch_fns must not be empty")
    keys = [k for k, _ in keyed]
    if keys != list(range(len(keys))):
        raise ValueError("switch_case: branch_fns keys must be 0..%d (got %s)"
                         % (len(keys) - 1, keys))
    for k, f in keyed:
        if not callable(f):
            raise TypeError("switch_case: branch_fns[%d] must be callable (got %s)"
                            % (k, type(f).__name__))
    if default is not None and not callable(default):
        raise TypeError("switch_case: default must be callable (got %s)" % type(default).__name__)
    fn = default if default is not None else keyed[-1][1]
    last = len(keyed) if default is not None else len(keyed) - 1
    for k, f in reversed(keyed[:last]):
        fn = _bind_cond(equal(branch_index, k), f, fn)
    return fn()
