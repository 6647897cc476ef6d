"""``keras.ops`` core: casts and conversion, control flow (cond, loops, scans, map), scatter
and slice updates, gradients' stop and custom rules — Keras 3.15's ``keras.src.ops.core`` on
fasteager's ops, with the TensorFlow backend's semantics (values, dtypes, errors).

Loops run eagerly in Python (each step through fasteager's ops), so GradientTape sees every
step; under ``fe.function`` they unroll as a traced Python loop does.
"""
import builtins

import numpy as np

import fasteager as fe

from ... import nest as _nest
from ..backend import standardize_dtype

__all__ = [
    "associative_scan", "cast", "cond", "convert_to_numpy", "convert_to_tensor",
    "custom_gradient", "dtype", "fori_loop", "is_tensor", "map", "saturate_cast", "scan",
    "scatter", "scatter_update", "shape", "slice", "slice_update", "stop_gradient", "switch",
    "unstack", "vectorized_map", "while_loop",
]


def _is_int_or_bool(dtype):
    return dtype is not None and (dtype == "bool" or "int" in dtype)


# ----- conversion and casts -----

def convert_to_tensor(x, dtype=None, sparse=None, ragged=None):
    """``x`` as a Tensor of ``dtype`` (a Keras name; None keeps / infers the dtype)."""
    if sparse is not None and not sparse and isinstance(x, fe.sparse.SparseTensor):
        x = fe.sparse.to_dense(x)
    if ragged is not None and not ragged and isinstance(x, fe.RaggedTensor):
        x = x.to_tensor()
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if not fe.is_tensor(x):
        if _is_int_or_bool(dtype):
            # As TF's backend: convert first, then cast (1.7 -> 1, not a conversion error).
            return fe.cast(fe.convert_to_tensor(x), dtype)
        return fe.convert_to_tensor(x, dtype=dtype)
    if dtype is not None and standardize_dtype(x.dtype) != dtype:
        return fe.cast(x, dtype)
    return x


def convert_to_numpy(x):
    """A NumPy array of ``x`` (sparse and ragged tensors densified)."""
    if isinstance(x, fe.sparse.SparseTensor):
        x = fe.sparse.to_dense(x)
    elif isinstance(x, fe.RaggedTensor):
        x = x.to_tensor()
    if hasattr(x, "numpy"):
        return np.array(x.numpy())
    return np.array(x)


def is_tensor(x):
    """Whether ``x`` is a fasteager tensor (NumPy arrays and Python values are not)."""
    return fe.is_tensor(x)


def shape(x):
    """The static shape of ``x`` as a tuple of ints."""
    if not fe.is_tensor(x):
        x = fe.convert_to_tensor(x)
    return tuple(x.shape.as_list() if hasattr(x.shape, "as_list") else x.shape)


def dtype(x):
    """The Keras name of ``x``'s dtype ('float32', ...)."""
    return standardize_dtype(x.dtype)


def cast(x, dtype):
    """``x`` cast to ``dtype`` (complex to real keeps the real part, as TF)."""
    return fe.cast(x, standardize_dtype(dtype))


def _dtype_range(name):
    if name == "bool":
        return 0, 1
    if "int" in name:
        info = np.iinfo(name)
    else:
        info = np.finfo(name)
    return info.min, info.max


def saturate_cast(x, dtype):
    """``x`` clipped to ``dtype``'s range, then cast (no wrap-around of large values)."""
    dtype = standardize_dtype(dtype)
    x = convert_to_tensor(x)
    in_dtype = standardize_dtype(x.dtype)
    in_min, in_max = _dtype_range(in_dtype)
    out_min, out_max = _dtype_range(dtype)
    # The limits in the input's dtype; where rounding took them past the output's range,
    # step one representable value back toward zero (Keras's rule).
    min_limit = np.asarray(np.maximum(in_min, out_min)).astype(in_dtype)
    if min_limit < out_min:
        min_limit = np.nextafter(min_limit, 0, dtype=in_dtype)
    max_limit = np.asarray(np.minimum(in_max, out_max)).astype(in_dtype)
    if max_limit > out_max:
        max_limit = np.nextafter(max_limit, 0, dtype=in_dtype)
    if in_dtype == "bool":
        x = fe.cast(x, "int32")  # Keras's clip takes bool as int32
        min_limit, max_limit = np.int32(min_limit), np.int32(max_limit)
    x = fe.clip_by_value(x, fe.constant(min_limit, dtype=x.dtype),
                         fe.constant(max_limit, dtype=x.dtype))
    return fe.cast(x, dtype)


def stop_gradient(variable):
    """``variable``'s value, seen by gradients as a constant."""
    return fe.stop_gradient(variable)


def custom_gradient(f):
    """Decorator: ``f`` returns ``(y, grad_fn)``; gradients of ``y`` use ``grad_fn``."""
    return fe.custom_gradient(f)


def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis``, as a list of tensors."""
    return fe.unstack(x, num=num, axis=axis)


# ----- control flow -----

def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()``."""
    return fe.cond(pred, true_fn, false_fn)


def switch(index, branches, *operands):
    """``branches[index](*operands)``, ``index`` clipped into ``[0, len(branches) - 1]``."""
    index = convert_to_tensor(index, "int32")
    index = fe.clip_by_value(index, 0, len(branches) - 1)
    return fe.switch_case(index, [(lambda b=b: b(*operands)) for b in branches])


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; a tuple or list of
    loop variables comes back as a tuple, a single one as itself."""
    is_tuple = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(loop_vars) if is_tuple else (loop_vars,)

    def step(*args):
        out = body(*args)
        return tuple(out) if is_tuple else (out,)

    out = fe.while_loop(cond, step, loop_vars, maximum_iterations=maximum_iterations)
    return tuple(out) if is_tuple else out[0]


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``[lower, upper)``; returns the last ``val``."""
    return fe.while_loop(lambda i, val: i < upper,
                            lambda i, val: (i + 1, body_fun(i, val)),
                            (lower, init_val))[1]


def _stack_steps(steps, like):
    """Stack per-step flat outputs; with no steps, an empty leading axis of ``like``'s."""
    if steps:
        return [fe.stack(list(col)) for col in zip(*steps)]
    return [fe.zeros((0,) + tuple(t.shape), dtype=t.dtype) for t in like]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Carry ``init`` through ``carry, y = f(carry, x)`` over the leading axis of ``xs``;
    returns ``(final carry, stacked ys)``."""
    if not callable(f):
        raise TypeError("`f` should be a callable. Received: f=%s" % (f,))
    if not isinstance(unroll, bool) and (not isinstance(unroll, int) or unroll < 1):
        raise ValueError("`unroll` must be an positive integer or boolean. Received: "
                         "unroll=%s" % (unroll,))
    if xs is None and length is None:
        raise ValueError("Got no `xs` to scan over and `length` not provided.")
    xs_nested = xs is not None and _nest.is_nested(xs)
    init_nested = _nest.is_nested(init)
    xs_flat = [] if xs is None else [fe.convert_to_tensor(e) for e in _nest.flatten(xs)]
    n = int(length) if length is not None else int(xs_flat[0].shape[0])
    carry_flat = [fe.convert_to_tensor(c) for c in _nest.flatten(init)]

    def pack_carry(flat):
        return _nest.pack_sequence_as(init, flat) if init_nested else flat[0]

    steps = [None] * n
    order = range(n - 1, -1, -1) if reverse else range(n)
    for i in order:
        x = None
        if xs_flat:
            x_i = [e[i] for e in xs_flat]
            x = _nest.pack_sequence_as(xs, x_i) if xs_nested else x_i[0]
        carry, y = f(pack_carry(carry_flat), x)
        if carry is not None:
            carry_flat = [fe.convert_to_tensor(c) for c in _nest.flatten(carry)]
        steps[i] = [fe.convert_to_tensor(v) for v in _nest.flatten(y)] if y is not None \
            else None
    if n and steps[0] is None:
        # f gave no ys: TF's backend stacks never-written slots (zeros shaped as the carry).
        steps = [[fe.zeros_like(c) for c in carry_flat] for _ in range(n)]
    ys_flat = _stack_steps(steps, carry_flat)
    ys_like = y if n and y is not None else init
    ys = _nest.pack_sequence_as(ys_like, ys_flat) if _nest.is_nested(ys_like) else ys_flat[0]
    return pack_carry(carry_flat), ys


def _along(x, axis, start, stop=None, step=1):
    index = [builtins.slice(None)] * len(x.shape)
    index[axis] = builtins.slice(start, stop, step)
    return x[tuple(index)]


def associative_scan(f, elems, reverse=False, axis=0):
    """Inclusive prefix scan of ``elems`` along ``axis`` with the associative ``f(a, b)``
    (applied to whole slices at once; the work is O(n) calls' worth in O(log n) levels)."""
    if not callable(f):
        raise TypeError("`f` should be a callable. Received: f=%s" % (f,))
    flat = [fe.convert_to_tensor(e) for e in _nest.flatten(elems)]
    ax = axis
    if reverse:
        flat = [fe.reverse(e, [ax]) for e in flat]
    n = flat[0].shape[ax]
    if any(e.shape[ax] != n for e in flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first "
                         "dimension. (saw: %s)" % ([tuple(e.shape) for e in flat],))

    def combine(a, b):
        return _nest.flatten(f(_nest.pack_sequence_as(elems, a),
                               _nest.pack_sequence_as(elems, b)))

    def interleave(a, b):
        # a has len(b) or len(b) + 1 entries along the axis: a0 b0 a1 b1 ...
        k = b.shape[ax % len(b.shape)]
        pos = ax % len(a.shape)
        pairs = fe.stack([_along(a, ax, 0, k), b], axis=pos + 1)
        shape_ = list(a.shape)
        shape_[pos] = 2 * k
        out = fe.reshape(pairs, shape_)
        if a.shape[pos] == k + 1:
            out = fe.concat([out, _along(a, ax, k)], axis=pos)
        return out

    def run(level):
        m = level[0].shape[ax]
        if m < 2:
            return level
        reduced = combine([_along(e, ax, 0, -1, 2) for e in level],
                          [_along(e, ax, 1, None, 2) for e in level])
        if m == 2:
            return [fe.concat([_along(e, ax, 0, 1), r], axis=ax)
                    for e, r in zip(level, reduced)]
        odd = run(reduced)
        if m % 2 == 0:
            even = combine([_along(o, ax, 0, -1) for o in odd],
                           [_along(e, ax, 2, None, 2) for e in level])
        else:
            even = combine(odd, [_along(e, ax, 2, None, 2) for e in level])
        even = [fe.concat([_along(e, ax, 0, 1), r], axis=ax) for e, r in zip(level, even)]
        return [interleave(a, b) for a, b in zip(even, odd)]

    out = run(flat)
    if reverse:
        out = [fe.reverse(e, [ax]) for e in out]
    return _nest.pack_sequence_as(elems, out)


def map(f, xs):
    """``f`` applied to each slice of ``xs`` along its leading axis; outputs stacked."""
    flat = [convert_to_tensor(e) for e in _nest.flatten(xs)]
    nested = _nest.is_nested(xs)
    n = int(flat[0].shape[0])
    outs, out = [], None
    for i in range(n):
        arg = _nest.pack_sequence_as(xs, [e[i] for e in flat]) if nested else flat[0][i]
        out = f(arg)
        outs.append([fe.convert_to_tensor(v) for v in _nest.flatten(out)])
    if n == 0:
        out = f(_nest.pack_sequence_as(xs, [fe.zeros(e.shape[1:], e.dtype) for e in flat])
                if nested else fe.zeros(flat[0].shape[1:], flat[0].dtype))
        like = [fe.convert_to_tensor(v) for v in _nest.flatten(out)]
        stacked = _stack_steps([], like)
    else:
        stacked = _stack_steps(outs, None)
    return _nest.pack_sequence_as(out, stacked) if _nest.is_nested(out) else stacked[0]


def vectorized_map(function, elements):
    """``function`` over the leading axis of ``elements`` (``tf.vectorized_map``)."""
    return fe.vectorized_map(function, elements)


# ----- scatter and slices -----

def scatter(indices, values, shape):
    """A zero tensor of ``shape`` with ``values`` added at ``indices`` (``scatter_nd``)."""
    return fe.scatter_nd(indices, values, shape)


def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written at ``indices``: replaced (None), or combined with
    the old values by 'add', 'max', 'min' or 'mul'."""
    if reduction is not None:
        reduction = reduction.lower()
        if reduction not in ("add", "max", "min", "mul"):
            raise ValueError("Invalid reduction: %s. Supported values are: None, 'add', "
                             "'max', 'min', 'mul'." % (reduction,))
    if reduction is None:
        return fe.tensor_scatter_nd_update(inputs, indices, updates)
    if reduction == "add":
        return fe.tensor_scatter_nd_add(inputs, indices, updates)
    if reduction == "max":
        return fe.tensor_scatter_nd_max(inputs, indices, updates)
    if reduction == "min":
        return fe.tensor_scatter_nd_min(inputs, indices, updates)
    # 'mul': one index at a time, so repeated indices multiply in turn (as TF's backend).
    result = fe.convert_to_tensor(inputs)
    indices = fe.convert_to_tensor(indices)
    updates = fe.convert_to_tensor(updates, dtype=result.dtype)
    for i in range(int(indices.shape[0])):
        idx = indices[i:i + 1]
        result = fe.tensor_scatter_nd_update(result, idx, fe.gather_nd(result, idx) * updates[i])
    return result


def slice(inputs, start_indices, shape):
    """The block of ``inputs`` of size ``shape`` starting at ``start_indices``."""
    return fe.slice(inputs, start_indices, shape)


def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block at ``start_indices`` replaced by ``updates``; starts are
    clamped so the block fits (XLA's ``dynamic_update_slice``)."""
    inputs = fe.convert_to_tensor(inputs)
    updates = fe.convert_to_tensor(updates)
    if updates.dtype != inputs.dtype:
        raise TypeError("slice_update: `updates` must have the dtype of `inputs` (expected "
                        "%s, got %s)" % (inputs.dtype.name, updates.dtype.name))
    starts = [int(s) for s in np.asarray(convert_to_numpy(start_indices)).reshape(-1)]
    dims, block = list(inputs.shape), list(updates.shape)
    if len(starts) != len(dims) or len(block) != len(dims):
        raise ValueError("slice_update: `start_indices` and `updates` need one entry per "
                         "dimension of `inputs` (expected %d, got %d and rank %d)"
                         % (len(dims), len(starts), len(block)))
    if any(b > d for b, d in zip(block, dims)):
        raise ValueError("slice_update: `updates` of shape %s does not fit in `inputs` of "
                         "shape %s" % (tuple(block), tuple(dims)))
    starts = [min(max(s, 0), d - b) for s, d, b in zip(starts, dims, block)]
    paddings = [[s, d - s - b] for s, d, b in zip(starts, dims, block)]
    # Pad the block to full size and select it where the mask is set: both inputs and
    # updates keep their gradients.
    mask = fe.pad(fe.ones(block, dtype="bool"), paddings)
    return fe.where(mask, fe.pad(updates, paddings), inputs)
