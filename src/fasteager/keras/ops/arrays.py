"""``keras.ops`` array functions: creation, shapes, indexing, sorting/sets and products.

Each follows Keras 3.15's TensorFlow backend (``keras/src/backend/tensorflow/numpy.py``):
its signature, defaults and dtype rules (``keras.backend.result_type``), computed with
fasteager's TensorFlow-style ops so GradientTape differentiates the results. Where
TensorFlow computes integer products in floating point (matmul, einsum, dot ...), so do
we, then cast back to the promoted dtype, as Keras does.
"""
import builtins
import functools
import re

import numpy as _np

import fasteager as _fe  # the TensorFlow-style API these functions are written in

from ... import _core
from ... import dtypes as _fe_dtypes
from ... import linalg as _linalg
from ... import math as _fmath
from ... import signal as _signal
from ... import sparse as _sparse
from ...errors import FailedPreconditionError, InvalidArgumentError
from .. import backend as _backend
from ..backend import result_type, standardize_dtype

__all__ = [
    "append", "arange", "argpartition", "argsort", "array", "array_split", "bartlett",
    "bincount", "blackman", "broadcast_to", "concatenate", "copy", "cross", "diag",
    "diagflat", "diagonal", "diff", "digitize", "dot", "dsplit", "dstack", "einsum",
    "empty", "empty_like", "expand_dims", "eye", "flip", "fliplr", "flipud", "full",
    "full_like", "geomspace", "get_item", "hamming", "hanning", "hsplit", "hstack",
    "identity", "inner", "isin", "kaiser", "kron", "linspace", "logspace", "matmul",
    "meshgrid", "moveaxis", "ndim", "nonzero", "ones", "ones_like", "outer", "pad",
    "ravel", "repeat", "reshape", "roll", "rot90", "searchsorted", "select", "size",
    "slogdet", "sort", "split", "squeeze", "stack", "swapaxes", "take",
    "take_along_axis", "tensordot", "tile", "trace", "transpose", "trapezoid", "tri",
    "tril", "triu", "unique", "unravel_index", "vander", "vdot", "vectorize", "view",
    "vsplit", "vstack", "where", "zeros", "zeros_like",
]


# ---- helpers ----------------------------------------------------------------------------

def _tensor(x, dtype=None):
    """Keras's ``convert_to_tensor``: Python values convert (ints/bools by a cast, since
    TensorFlow refuses floats for ints), tensors of another dtype are cast."""
    if dtype is not None:
        dtype = standardize_dtype(dtype)
    if isinstance(x, _sparse.SparseTensor):
        x = _sparse.to_dense(x)
    if not isinstance(x, _core.Tensor):
        if dtype == "bool" or (dtype is not None and "int" in dtype):
            return _fe.cast(_fe.convert_to_tensor(x), dtype)
        return _fe.convert_to_tensor(x, dtype=dtype)
    if dtype is not None and x.dtype.name != dtype:
        return _fe.cast(x, dtype)
    return x


def _dt(x):
    return x.dtype.name


def _cast(x, dtype):
    return x if _dt(x) == dtype else _fe.cast(x, dtype)


def _canon(axis, ndim, op="keras.ops"):
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError("%s: axis %d is out of bounds for array of dimension %d"
                         % (op, axis, ndim))
    return axis + ndim if axis < 0 else axis


def _tuple(v):
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,)


def _static_int(v):
    # A Python int from an int or a scalar integer tensor (shape arguments).
    if isinstance(v, _core.Tensor):
        return int(v.numpy())
    return int(v)


def _floatx():
    return _backend.floatx()


def _is_sparse(x):
    return isinstance(x, _sparse.SparseTensor)


def _sparse_like(x, indices, dense_shape):
    # A SparseTensor with x's values (kept on the tape) at new integer coordinates.
    return _sparse.SparseTensor(_fe.constant(_np.asarray(indices, _np.int64).reshape(
        -1, len(dense_shape))), x.values, _fe.constant(list(dense_shape), dtype="int64"))


# ---- creation ---------------------------------------------------------------------------

def array(x, dtype=None):
    """``x`` as a tensor, cast to ``dtype`` when given."""
    return _tensor(x, dtype)


def empty(shape, dtype=None):
    """A tensor of ``shape`` (zeros) in ``dtype`` or ``floatx()``."""
    return _fe.zeros(shape, dtype=dtype or _floatx())


def zeros(shape, dtype=None):
    """A tensor of ``shape`` of zeros, in ``dtype`` or ``floatx()``."""
    return _fe.zeros(shape, dtype=dtype or _floatx())


def ones(shape, dtype=None):
    """A tensor of ``shape`` of ones, in ``dtype`` or ``floatx()``."""
    return _fe.ones(shape, dtype=dtype or _floatx())


def empty_like(x, dtype=None):
    """A tensor shaped as ``x`` (zeros), in ``dtype`` or ``x``'s."""
    return _fe.zeros_like(_tensor(x), dtype=dtype)


def zeros_like(x, dtype=None):
    """A tensor of zeros shaped as ``x``, in ``dtype`` or ``x``'s."""
    return _fe.zeros_like(_tensor(x), dtype=dtype)


def ones_like(x, dtype=None):
    """A tensor of ones shaped as ``x``, in ``dtype`` or ``x``'s."""
    return _fe.ones_like(_tensor(x), dtype=dtype)


def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` filled with ``fill_value``, in ``dtype`` or ``floatx()``."""
    fill_value = _tensor(fill_value, dtype or _floatx())
    return _fe.broadcast_to(fill_value, shape)


def full_like(x, fill_value, dtype=None):
    """A tensor shaped as ``x`` filled with ``fill_value``, in ``dtype`` or ``x``'s."""
    x = _tensor(x)
    dtype = result_type(dtype or x.dtype)
    fill_value = _tensor(fill_value, dtype)
    return _fe.broadcast_to(fill_value, _fe.shape(x))


def _is_float_arg(v):
    return isinstance(v, float) or (hasattr(v, "dtype") and "float" in str(
        getattr(v.dtype, "name", v.dtype)))


def eye(N, M=None, k=0, dtype=None):
    """An ``N`` x ``M`` matrix with ones on diagonal ``k``, in ``dtype`` or ``floatx()``."""
    if _is_float_arg(N):
        raise TypeError("eye: Argument `N` must be an integer or an integer tensor.")
    if _is_float_arg(M):
        raise TypeError("eye: Argument `M` must be an integer, an integer tensor, or "
                        "`None`.")
    dtype = standardize_dtype(dtype or _floatx())
    N = _static_int(N)
    M = N if M is None else _static_int(M)
    k = _static_int(k)
    if k == 0:
        return _fe.eye(N, M, dtype=dtype)
    # A smaller square identity, padded into place (as Keras builds it).
    n = builtins.max(builtins.min(M - k, N + k), 0)
    return _fe.pad(_fe.eye(n, dtype=dtype),
                   [[builtins.max(-k, 0), builtins.max(N - M + k, 0)],
                    [builtins.max(k, 0), builtins.max(M - N - k, 0)]])


def identity(n, dtype=None):
    """The ``n`` x ``n`` identity matrix, in ``dtype`` or ``floatx()``."""
    return eye(N=n, M=n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    """An ``N`` x ``M`` matrix of ones at and below diagonal ``k``, in ``dtype`` or
    ``floatx()``."""
    M = N if M is None else M
    dtype = standardize_dtype(dtype or _floatx())
    rows = _fe.range(N)[:, None]
    cols = _fe.range(M)[None, :]
    return _fe.cast(cols <= rows + k, dtype)


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop) by ``step``; the dtype is the promoted type of the
    arguments (Python ints are int32)."""
    if dtype is None:
        kinds = [getattr(start, "dtype", type(start))]
        if stop is not None:
            kinds.append(getattr(stop, "dtype", type(stop)))
        if step is not None:
            kinds.append(getattr(step, "dtype", type(step)))
        dtype = result_type(*kinds)
    dtype = standardize_dtype(dtype)
    if step is None:
        step = 1
    if stop is None:
        start, stop = 0, start
    start, stop, step = (_fe.cast(_tensor(v), dtype) for v in (start, stop, step))
    return _fe.range(start, stop, step, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (without ``stop`` unless
    ``endpoint``), stacked on ``axis``; with the step when ``retstep``."""
    if num < 0:
        raise ValueError("linspace: `num` must be a non-negative integer. Received: num=%s"
                         % (num,))
    if dtype is None:
        dtype = result_type(getattr(start, "dtype", type(start)),
                            getattr(stop, "dtype", type(stop)), float)
    else:
        dtype = standardize_dtype(dtype)
    start = _tensor(start, dtype)
    stop = _tensor(stop, dtype)
    # Integer outputs are computed in float64 (TensorFlow divides ints to float64) and
    # floored, as Keras does.
    compute = "float64" if ("int" in dtype or dtype == "bool") else dtype
    start_c, stop_c = _cast(start, compute), _cast(stop, compute)
    step = _fe.constant(_np.nan, dtype="float32")
    if endpoint:
        result = _fe.linspace(start_c, stop_c, num, axis=axis)
        if num > 1:
            step = (stop - start) / _fe.cast(num - 1, dtype) if compute == dtype else \
                (stop_c - start_c) / (num - 1)
    else:
        if num > 0:
            step = (stop - start) / _fe.cast(num, dtype) if compute == dtype else \
                (stop_c - start_c) / num
        if num > 1:
            result = _fe.linspace(start_c, stop_c - _cast(step, compute), num, axis=axis)
        else:
            result = _fe.linspace(start_c, stop_c, num, axis=axis)
    if "int" in dtype:
        result = _fe.floor(result)
    result = _cast(result, dtype)
    if retstep:
        return result, step
    return result


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base`` to the power of ``linspace(start, stop, ...)``."""
    result = linspace(start=start, stop=stop, num=num, endpoint=endpoint, dtype=dtype,
                      axis=axis)
    return _fe.pow(_fe.cast(base, result.dtype), result)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values evenly spaced on a log scale from ``start`` to ``stop`` (sign of
    ``start``)."""
    start = _tensor(start)
    stop = _tensor(stop)
    ftype = standardize_dtype(dtype or _floatx())
    if "float" not in ftype and "complex" not in ftype:
        # Keras takes the log in `dtype`; TensorFlow's Log has no integer kernel.
        raise InvalidArgumentError("geomspace: dtype %s is not supported (expected a "
                                   "floating dtype, as the log is taken in it)" % ftype)
    log_start = _fe.math.log(_fe.cast(_fe.abs(start), ftype))
    log_stop = _fe.math.log(_fe.cast(_fe.abs(stop), ftype))
    log_base = _fe.math.log(_fe.constant(10.0, dtype=log_start.dtype))
    result = logspace(log_start / log_base, log_stop / log_base, num=num,
                      endpoint=endpoint, base=10, dtype=dtype, axis=axis)
    sign = _fe.cast(_fe.sign(_fe.cast(start, log_start.dtype)), result.dtype)
    return result * sign


def meshgrid(*x, indexing="xy"):
    """Coordinate grids from the 1-D tensors ``x`` (``indexing`` 'xy' or 'ij')."""
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid: Valid values for `indexing` are 'xy' and 'ij'. "
                         "Received: indexing=%s" % (indexing,))
    x = [_tensor(v) for v in x]
    if len({_dt(v) for v in x}) > 1:
        # Keras does not promote here, and TensorFlow's meshgrid takes one dtype.
        raise InvalidArgumentError("meshgrid: all inputs must have the same dtype (got %s)"
                                   % ", ".join(_dt(v) for v in x))
    return _fe.meshgrid(*x, indexing=indexing)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: powers ``N-1`` down to 0 (up when
    ``increasing``)."""
    x = _tensor(x)
    if x.shape.rank != 1:
        raise ValueError("vander: Input tensor must be 1-dimensional. Received: "
                         "input.shape=%s" % (x.shape,))
    if N is not None:
        if not isinstance(N, int):
            raise TypeError("vander: Argument `N` must be of type `int`. Received: N=%s "
                            "of type %s" % (N, type(N)))
        if N < 0:
            raise ValueError("vander: Argument 'N' must be nonnegative. Received: N=%s"
                             % (N,))
    if not isinstance(increasing, bool):
        raise TypeError("vander: Argument `increasing` must be of type `bool`. Received: "
                        "increasing=%s of type %s" % (increasing, type(increasing)))
    result_dtype = result_type(x.dtype)
    if N is None:
        N = x.shape[0]
    powers = _fe.range(N) if increasing else _fe.range(N - 1, -1, -1)
    compute = result_type(x.dtype, "float32")
    out = _fe.pow(_fe.cast(x[..., None], compute), _fe.cast(powers, compute))
    return _cast(out, result_dtype)


# ---- windows ----------------------------------------------------------------------------

def bartlett(x):
    """The Bartlett (triangular) window of ``x`` points, in float32."""
    x = _tensor(x, _floatx())
    n_val = float(x.numpy())
    if n_val == 0:
        return _fe.constant([], dtype="float32")
    if n_val == 1:
        return _fe.ones([1])
    n = _fe.range(x)
    half = (x - 1) / 2
    return _fe.where(n <= half, 2.0 * n / (x - 1), 2.0 - 2.0 * n / (x - 1))


def blackman(x):
    """The Blackman window of ``x`` points, in ``floatx()``."""
    dtype = _floatx()
    x = _fe.cast(x, dtype)
    n = _fe.range(x, dtype=dtype)
    n_minus_1 = x - 1
    safe = _fe.where(_fe.equal(n_minus_1, 0), _fe.ones_like(n_minus_1), n_minus_1)
    window = (0.42 - 0.5 * _fe.cos(2 * _np.pi * n / safe)
              + 0.08 * _fe.cos(4 * _np.pi * n / safe))
    return _fe.where(_fe.equal(n_minus_1, 0), _fe.ones_like(window), window)


def hamming(x):
    """The symmetric Hamming window of ``x`` points, in float32."""
    return _signal.hamming_window(_tensor(x, "int32"), periodic=False)


def hanning(x):
    """The symmetric Hann window of ``x`` points, in float32."""
    return _signal.hann_window(_tensor(x, "int32"), periodic=False)


def kaiser(x, beta):
    """The Kaiser window of ``x`` points with shape parameter ``beta``, in float32."""
    return _signal.kaiser_window(_tensor(x, "int32"), beta=beta)


# ---- shapes -----------------------------------------------------------------------------

def ndim(x):
    """The number of dimensions of ``x`` (a Python int)."""
    return _tensor(x).shape.rank


def size(x):
    """The number of elements of ``x``, as an int32 tensor."""
    return _fe.size(_tensor(x))


def reshape(x, newshape):
    """``x`` in shape ``newshape`` (one -1 allowed); a SparseTensor stays sparse."""
    sparse = _is_sparse(x)
    x = x if sparse else _tensor(x)
    if not isinstance(newshape, _core.Tensor):
        try:
            newshape = tuple(newshape)
        except TypeError:
            newshape = (newshape,)
        dims = [d for d in newshape if isinstance(d, (int, _np.integer))]
        if any(d < -1 for d in dims) or dims.count(-1) > 1:
            raise ValueError(
                "reshape: Each dimension in `newshape` must be a non-negative integer, "
                "or `-1` for a single unknown dimension. Received: newshape=%s."
                % (newshape,))
    if sparse:
        # Row-major positions survive a reshape, so the coordinates are re-unravelled.
        old = x.shape.as_list()
        new = list(_np.empty(old, dtype=_np.bool_).reshape(
            [_static_int(d) for d in newshape]).shape) if old else [1]
        flat = _np.ravel_multi_index(tuple(x.indices.numpy().T), old) if old else \
            _np.zeros(x.values.shape[0], _np.int64)
        return _sparse_like(x, _np.stack(_np.unravel_index(flat, new), axis=1), new)
    return _fe.reshape(x, newshape)


def ravel(x):
    """``x`` flattened to 1-D."""
    return _fe.reshape(_tensor(x), [-1])


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape``."""
    return _fe.broadcast_to(_tensor(x), shape)


def expand_dims(x, axis):
    """``x`` with length-1 axes inserted at ``axis`` (an int or a tuple)."""
    sparse = _is_sparse(x)
    x = x if sparse else _tensor(x)
    axis = _tuple(axis)
    out_ndim = x.shape.rank + len(axis)
    axes = sorted(_canon(a, out_ndim, "expand_dims") for a in axis)
    if sparse:
        indices, shape = x.indices.numpy(), x.shape.as_list()
        for a in axes:
            indices = _np.insert(indices, a, 0, axis=1)
            shape.insert(a, 1)
        return _sparse_like(x, indices, shape)
    for a in axes:
        x = _fe.expand_dims(x, a)
    return x


def squeeze(x, axis=None):
    """``x`` without its length-1 axes (only ``axis`` when given)."""
    sparse = _is_sparse(x)
    x = x if sparse else _tensor(x)
    axis = _tuple(axis)
    shape = x.shape.as_list()
    if axis is not None:
        for a in axis:
            if not -len(shape) <= a < len(shape):
                # Keras indexes the static shape here, so this is its IndexError.
                raise IndexError("squeeze: axis %s is out of range for a tensor of rank %d"
                                 % (a, len(shape)))
            if shape[a] != 1:
                raise ValueError("squeeze: Cannot squeeze axis=%s, because the dimension is not 1."
                                 % (a,))
        axis = sorted(_canon(a, len(shape), "squeeze") for a in axis)
    if sparse:
        keep = [i for i, d in enumerate(shape) if not (d == 1 if axis is None else i in axis)]
        return _sparse_like(x, x.indices.numpy()[:, keep], [shape[i] for i in keep])
    return _fe.squeeze(x, axis=axis)


def transpose(x, axes=None):
    """``x`` with its axes permuted by ``axes`` (reversed when None)."""
    if _is_sparse(x):
        return _sparse.transpose(x, perm=axes)
    x = _tensor(x)
    if axes:
        axes = tuple(_canon(a, x.shape.rank, "transpose") for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(
                "transpose: `axes` must be a valid permutation of the input dimensions (no "
                "duplicates). Received: axes=%s for input of rank %d."
                % (list(axes), x.shape.rank))
    return _fe.transpose(x, perm=axes)


def swapaxes(x, axis1, axis2):
    """``x`` with ``axis1`` and ``axis2`` swapped."""
    x = _tensor(x)
    axis1 = _canon(axis1, x.shape.rank, "swapaxes")
    axis2 = _canon(axis2, x.shape.rank, "swapaxes")
    if axis1 == axis2:
        return x
    perm = list(range(x.shape.rank))
    perm[axis1], perm[axis2] = axis2, axis1
    return _fe.transpose(x, perm)


def moveaxis(x, source, destination):
    """``x`` with the axes ``source`` moved to ``destination``."""
    x = _tensor(x)
    src = tuple(_canon(a, x.shape.rank, "moveaxis") for a in _tuple(source))
    dst = tuple(_canon(a, x.shape.rank, "moveaxis") for a in _tuple(destination))
    if len(src) != len(dst):
        raise ValueError("moveaxis: Inconsistent number of `source` and `destination`. "
                         "Received: source=%s, destination=%s" % (source, destination))
    if src == dst:
        return x
    perm = [i for i in range(x.shape.rank) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return _fe.transpose(x, perm)


def flip(x, axis=None):
    """``x`` reversed along ``axis`` (all axes when None)."""
    x = _tensor(x)
    rank = x.shape.rank
    if axis is None:
        return _fe.reverse(x, list(range(rank)))
    return _fe.reverse(x, [_canon(a, rank, "flip") for a in _tuple(axis)])


def fliplr(x):
    """``x`` reversed along axis 1."""
    x = _tensor(x)
    if x.shape.rank < 2:
        raise InvalidArgumentError("fliplr: x must have at least 2 dimensions (got shape %s)"
                                   % (x.shape,))
    return _fe.reverse(x, [1])


def flipud(x):
    """``x`` reversed along axis 0."""
    return _fe.reverse(_tensor(x), [0])


def rot90(array, k=1, axes=(0, 1)):
    """``x`` turned ``k`` quarter turns in the plane ``axes``, as Keras's TF backend computes
    it."""
    array = _tensor(array)
    rank = array.shape.rank
    if rank < 2:
        raise ValueError("rot90: Input array must have at least 2 dimensions. "
                         "Received: array.ndim=%d" % rank)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError("rot90: Invalid axes: %s. Axes must be a tuple of two different "
                         "dimensions." % (axes,))
    k = k % 4
    if k == 0:
        return array
    a0, a1 = (a + rank if a < 0 else a for a in axes)
    # Keras's TensorFlow backend: the plane last, flattened to (-1, h, w), then
    # reverse-and-transpose k times; between turns it reshapes to (h, w) for even k, which
    # for k=2 on a non-square plane reorders elements (unlike NumPy). Kept for parity.
    perm = [i for i in range(rank) if i not in (a0, a1)] + [a0, a1]
    array = _fe.transpose(array, perm)
    shape = array.shape.as_list()
    h, w = shape[-2], shape[-1]

    def turn(t):
        return _fe.transpose(_fe.reverse(t, [2]), [0, 2, 1])

    array = turn(_fe.reshape(array, [-1, h, w]))
    final_h, final_w = (w, h) if k % 2 == 1 else (h, w)
    if k > 1:
        array = _fe.reshape(array, [-1, final_h, final_w])
        for _ in range(k - 1):
            array = turn(array)
    array = _fe.reshape(array, shape[:-2] + [final_h, final_w])
    inverse = [0] * rank
    for i, p in enumerate(perm):
        inverse[p] = i
    return _fe.transpose(array, inverse)


def roll(x, shift, axis=None):
    """``x`` shifted by ``shift`` along ``axis`` (on the flattened tensor when None), wrapping
    around."""
    x = _tensor(x)
    if axis is not None:
        return _fe.roll(x, shift=shift, axis=axis)
    shape = _fe.shape(x)
    return _fe.reshape(_fe.roll(_fe.reshape(x, [-1]), shift, 0), shape)


def tile(x, repeats):
    """``x`` repeated ``repeats`` times per axis."""
    x = _tensor(x)
    repeats = [repeats] if isinstance(repeats, int) else [_static_int(r) for r in repeats]
    if len(repeats) < x.shape.rank:
        repeats = [1] * (x.shape.rank - len(repeats)) + repeats
    while len(repeats) > x.shape.rank:
        x = _fe.expand_dims(x, 0)
    return _fe.tile(x, repeats)


def repeat(x, repeats, axis=None):
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (flattened when None)."""
    x = _tensor(x)
    if axis is not None and not -x.shape.rank <= axis < x.shape.rank:
        raise ValueError("repeat: axis=%s out of bounds: expected %d<=axis<%d"
                         % (axis, -x.shape.rank, x.shape.rank))
    return _fe.repeat(x, repeats, axis=axis)


def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (Keras's forms: an int, a pair, pairs per axis) in ``mode``
    'constant', 'reflect' or 'symmetric'."""
    x = _tensor(x)
    # Keras's Pad: an int is one (n, n) pair, a flat pair is one pair, (n,) means (n, n).
    if isinstance(pad_width, int):
        pad_width = ((pad_width, pad_width),)
    elif isinstance(pad_width, (tuple, list)) and isinstance(pad_width[0], int):
        pad_width = (pad_width,)
    else:
        pad_width = list(pad_width)
        first = len(pad_width[0])
        for i, pw in enumerate(pad_width):
            if len(pw) != first:
                raise ValueError("pad: `pad_width` should be a list of tuples of length 1 "
                                 "or 2. Received: pad_width=%s" % (pad_width,))
            if len(pw) == 1:
                pad_width[i] = (pw[0], pw[0])
    if len(pad_width) > 1 and len(pad_width) != x.shape.rank:
        raise ValueError("pad: `pad_width` must have the same length as `x.shape`. "
                         "Received: pad_width=%s (of length %d) and x.shape=%s (of length "
                         "%d)" % (pad_width, len(pad_width), x.shape, x.shape.rank))
    kwargs = {}
    if constant_values is not None:
        if mode != "constant":
            raise ValueError("pad: Argument `constant_values` can only be provided when "
                             "`mode == 'constant'`. Received: mode=%s" % (mode,))
        kwargs["constant_values"] = constant_values
    pad_width = _tensor(pad_width, "int32")
    return _fe.pad(x, pad_width, mode.upper(), **kwargs)


def _promote_all(xs):
    xs = [_tensor(x) for x in xs]
    if len({_dt(x) for x in xs}) > 1:
        dtype = result_type(*[x.dtype for x in xs])
        xs = [_cast(x, dtype) for x in xs]
    return xs


def _promote_weak(xs):
    # hstack/vstack/stack resolve Python scalars as weak types before converting.
    kinds = {getattr(x, "dtype", type(x)) for x in xs}
    if len(kinds) > 1:
        dtype = result_type(*kinds)
        return [_tensor(x, dtype) for x in xs]
    return [_tensor(x) for x in xs]


def concatenate(xs, axis=0):
    """The tensors of ``xs`` joined along ``axis`` in their promoted dtype (all-sparse inputs give
    a SparseTensor)."""
    if xs and all(_is_sparse(x) for x in xs):
        return _sparse.concat(axis=axis, sp_inputs=list(xs))
    return _fe.concat(_promote_all(xs), axis=axis)


def append(x1, x2, axis=None):
    """``x1`` then ``x2`` along ``axis`` (both flattened when ``axis`` is None), in their promoted
    dtype."""
    x1, x2 = _tensor(x1), _tensor(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    if axis is None:
        return _fe.concat([_fe.reshape(x1, [-1]), _fe.reshape(x2, [-1])], axis=0)
    return _fe.concat([x1, x2], axis=axis)


def stack(x, axis=0):
    """The tensors of ``x`` stacked on a new ``axis`` in their promoted dtype."""
    return _fe.stack(_promote_weak(x), axis=axis)


def hstack(xs):
    """The tensors of ``xs`` joined along axis 1 (axis 0 when 1-D)."""
    xs = _promote_weak(xs)
    return _fe.concat(xs, axis=0 if xs[0].shape.rank == 1 else 1)


def vstack(xs):
    """The tensors of ``xs`` joined along axis 0."""
    return _fe.concat(_promote_weak(xs), axis=0)


def dstack(xs):
    """The tensors of ``xs`` (made at least 3-D) joined along the third axis."""
    xs = _promote_all(xs)
    out = []
    for x in xs:
        r = x.shape.rank
        if r == 0:
            x = _fe.reshape(x, (1, 1, 1))
        elif r == 1:
            x = x[None, :, None]
        elif r == 2:
            x = x[:, :, None]
        out.append(x)
    return _fe.concat(out, axis=2)


def split(x, indices_or_sections, axis=0):
    """``x`` cut along ``axis`` into ``indices_or_sections`` equal parts, or at those indices."""
    x = _tensor(x)
    if isinstance(indices_or_sections, int):
        return _fe.split(x, indices_or_sections, axis=axis)
    idx = [_static_int(i) for i in indices_or_sections]
    total = x.shape[axis]
    sizes = [idx[0]] + [b - a for a, b in zip(idx[:-1], idx[1:])] + [total - idx[-1]]
    return _fe.split(x, sizes, axis=axis)


def array_split(x, indices_or_sections, axis=0):
    """``x`` cut into ``indices_or_sections`` nearly equal parts along ``axis`` (the first parts
    one longer)."""
    if not isinstance(indices_or_sections, int):
        raise TypeError("array_split: Argument `indices_or_sections` must be of type "
                        "`int`. Received: indices_or_sections=%s" % (indices_or_sections,))
    if indices_or_sections <= 0:
        raise ValueError("array_split: Argument `indices_or_sections` must be a positive "
                         "integer. Received: indices_or_sections=%s" % indices_or_sections)
    if not isinstance(axis, int):
        raise TypeError("array_split: Argument `axis` must be of type `int`. Received: %s"
                        % (axis,))
    x = _tensor(x)
    n = indices_or_sections
    total = x.shape[axis]
    avg, rem = total // n, total % n
    return _fe.split(x, [avg + 1] * rem + [avg] * (n - rem), axis=axis)


def hsplit(x, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-D ``x``)."""
    x = _tensor(x)
    return split(x, indices_or_sections, axis=0 if x.shape.rank == 1 else 1)


def vsplit(x, indices_or_sections):
    """``split`` along axis 0."""
    return split(x, indices_or_sections, axis=0)


def dsplit(x, indices_or_sections):
    """``split`` along the third axis."""
    return split(x, indices_or_sections, axis=2)


# ---- diagonals and triangles ------------------------------------------------------------

def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the planes (``axis1``, ``axis2``), as the last axis."""
    x = _tensor(x)
    if _canon(axis1, x.shape.rank, "diagonal") == _canon(axis2, x.shape.rank, "diagonal"):
        raise ValueError("diagonal: `axis1` and `axis2` cannot be the same. Received: "
                         "axis1=%s, axis2=%s" % (axis1, axis2))
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    rows, cols = x.shape[-2], x.shape[-1]
    if offset <= -rows or offset >= cols:
        # TensorFlow's MatrixDiagPart refuses a diagonal outside the matrix.
        raise InvalidArgumentError(
            "diagonal: offset %d is out of bounds for a %dx%d matrix (expected %d < offset "
            "< %d)" % (offset, rows, cols, -rows, cols))
    n = builtins.min(rows + builtins.min(offset, 0), cols - builtins.max(offset, 0))
    i = _np.arange(n) - builtins.min(offset, 0)
    return x[..., i, i + offset]


def diag(x, k=0):
    """The matrix with 1-D ``x`` on diagonal ``k``, or the ``k``-th diagonal of a 2-D ``x``."""
    x = _tensor(x)
    if x.shape.rank == 1:
        out = _linalg.diag(x)
        if k == 0:
            return out
        a = abs(k)
        pads = [[0, a], [a, 0]] if k > 0 else [[a, 0], [0, a]]
        return _fe.pad(out, pads)
    if x.shape.rank == 2:
        return diagonal(x, offset=k)
    raise ValueError("diag: `x` must be 1d or 2d. Received: x.shape=%s" % (x.shape,))


def diagflat(x, k=0):
    """The matrix with the flattened ``x`` on diagonal ``k``."""
    return diag(_fe.reshape(_tensor(x), [-1]), k)


def _band_mask(x, keep):
    rows = _fe.range(x.shape[-2])[:, None]
    cols = _fe.range(x.shape[-1])[None, :]
    return _fe.where(_fe.broadcast_to(keep(rows, cols), _fe.shape(x)), x, _fe.zeros_like(x))


def tril(x, k=0):
    """``x`` with the elements above diagonal ``k`` zeroed."""
    x = _tensor(x)
    k = _static_int(k)
    return _band_mask(x, lambda i, j: i >= j - k)


def triu(x, k=0):
    """``x`` with the elements below diagonal ``k`` zeroed."""
    x = _tensor(x)
    k = _static_int(k)
    return _band_mask(x, lambda i, j: i <= j - k)


def trace(x, offset=0, axis1=0, axis2=1):
    """Sums of the ``offset`` diagonal of the planes (``axis1``, ``axis2``); small ints sum in
    int32/uint32."""
    x = _tensor(x)
    dtype = _dt(x)
    if dtype in ("bool", "int8", "int16"):
        dtype = "int32"
    elif dtype in ("uint8", "uint16"):
        dtype = "uint32"
    x = _cast(x, dtype)
    rows, cols = x.shape[axis1], x.shape[axis2]
    if offset <= -rows or offset >= cols:
        # Keras builds an eye(rows, cols, k=offset) mask, which TensorFlow refuses here.
        raise InvalidArgumentError("trace: offset %d is out of bounds for a %dx%d matrix "
                                   "(expected %d < offset < %d)"
                                   % (offset, rows, cols, -rows, cols))
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    mask = eye(rows, cols, k=offset, dtype="bool")
    return _fe.reduce_sum(_fe.where(mask, x, _fe.zeros_like(x)), axis=(-2, -1))


def diff(a, n=1, axis=-1):
    """The ``n``-th difference along ``axis`` (``!=`` for bool)."""
    a = _tensor(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError("diff: Order `n` must be non-negative. Received n=%s" % (n,))
    if a.shape.rank == 0:
        raise ValueError("diff: `diff` requires input that is at least one dimensional. "
                         "Received: a=%s" % (a,))
    axis = _canon(axis, a.shape.rank, "diff")
    hi = [slice(None)] * a.shape.rank
    lo = [slice(None)] * a.shape.rank
    hi[axis] = slice(1, None)
    lo[axis] = slice(None, -1)
    hi, lo = tuple(hi), tuple(lo)
    for _ in range(n):
        if _dt(a) == "bool":
            a = _fe.not_equal(a[hi], a[lo])
        else:
            a = a[hi] - a[lo]
    return a


# ---- products ---------------------------------------------------------------------------

def _float_of(dtype):
    return result_type(dtype, float)


def matmul(x1, x2):
    """The matrix product of ``x1`` and ``x2`` with NumPy's broadcasting and 1-D rules, in their
    promoted dtype (int8 x int8 gives int32)."""
    both_sparse = _is_sparse(x1) and _is_sparse(x2)
    x1, x2 = _tensor(x1), _tensor(x2)
    result_dtype = result_type(x1.dtype, x2.dtype)
    if _dt(x1) == "int8" and _dt(x2) == "int8" and x1.shape.rank != 1 \
            and x2.shape.rank != 1:
        result_dtype = "int32"
    compute = _float_of(result_type(x1.dtype, x2.dtype))
    x1, x2 = _cast(x1, compute), _cast(x2, compute)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        raise ValueError("matmul: inputs must have at least one dimension "
                         "(got shapes %s and %s)" % (x1.shape, x2.shape))
    if x2.shape.rank == 1:
        out = _fe.tensordot(x1, x2, axes=1)
    elif x1.shape.rank == 1:
        out = _fe.tensordot(x1, x2, axes=[[0], [-2]])
    elif x2.shape.rank == 2 and x1.shape.rank > 2:
        out = _fe.tensordot(x1, x2, axes=[[-1], [0]])
    else:
        out = _fe.matmul(x1, x2)
    out = _cast(out, result_dtype)
    # Keras's TF backend: sparse times sparse is sparse (sparse times dense is dense).
    return _sparse.from_dense(out) if both_sparse else out


def dot(x1, x2):
    """NumPy's ``dot``: a product with a scalar, or sums over the last axis of ``x1`` and the last
    (vector) or second-to-last axis of ``x2``."""
    x1, x2 = _tensor(x1), _tensor(x2)
    result_dtype = result_type(x1.dtype, x2.dtype)
    compute = _float_of(result_dtype)
    x1, x2 = _cast(x1, compute), _cast(x2, compute)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        out = x1 * x2
    elif x2.shape.rank == 1:
        out = _fe.tensordot(x1, x2, axes=[[-1], [-1]])
    else:
        out = _fe.tensordot(x1, x2, axes=[[-1], [-2]])
    return _cast(out, result_dtype)


def vdot(x1, x2):
    """The dot product of the flattened ``x1`` and ``x2``."""
    x1, x2 = _tensor(x1), _tensor(x2)
    result_dtype = result_type(x1.dtype, x2.dtype)
    compute = _float_of(result_dtype)
    x1 = _fe.reshape(_cast(x1, compute), [-1])
    x2 = _fe.reshape(_cast(x2, compute), [-1])
    return _cast(_fe.tensordot(x1, x2, axes=1), result_dtype)


def inner(x1, x2):
    """Sums of products over the last axes of ``x1`` and ``x2`` (a product with a scalar)."""
    x1, x2 = _tensor(x1), _tensor(x2)
    result_dtype = result_type(x1.dtype, x2.dtype)
    compute = _float_of(result_dtype)
    x1, x2 = _cast(x1, compute), _cast(x2, compute)
    if x1.shape.rank == 0 or x2.shape.rank == 0:
        out = x1 * x2
    else:
        out = _fe.tensordot(x1, x2, axes=[[-1], [-1]])
    return _cast(out, result_dtype)


def outer(x1, x2):
    """The outer product of the flattened ``x1`` and ``x2``."""
    x1, x2 = _tensor(x1), _tensor(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    return _fe.reshape(_cast(x1, dtype), [-1, 1]) * _fe.reshape(_cast(x2, dtype), [-1])


def tensordot(x1, x2, axes=2):
    """Sums of products over ``axes`` (a count, or two lists of axes) of ``x1`` and ``x2``."""
    x1, x2 = _tensor(x1), _tensor(x2)
    result_dtype = result_type(x1.dtype, x2.dtype)
    compute = _float_of(result_dtype)
    out = _fe.tensordot(_cast(x1, compute), _cast(x2, compute), axes=axes)
    return _cast(out, result_dtype)


def kron(x1, x2):
    """The Kronecker product of ``x1`` and ``x2`` in their promoted dtype."""
    x1, x2 = _tensor(x1), _tensor(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    if dtype == "bool":
        raise InvalidArgumentError("kron: x1 and x2 of dtype bool are not supported "
                                   "(TensorFlow's Mul kernel takes numbers)")
    x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    r = builtins.max(x1.shape.rank, x2.shape.rank)
    x1 = _fe.reshape(x1, [1] * (r - x1.shape.rank) + x1.shape.as_list())
    x2 = _fe.reshape(x2, [1] * (r - x2.shape.rank) + x2.shape.as_list())
    s1, s2 = x1.shape.as_list(), x2.shape.as_list()
    # Interleave the axes: x1 as (a0, 1, a1, 1, ...) times x2 as (1, b0, 1, b1, ...).
    a = _fe.reshape(x1, [d for s in s1 for d in (s, 1)])
    b = _fe.reshape(x2, [d for s in s2 for d in (1, s)])
    return _fe.reshape(a * b, [p * q for p, q in zip(s1, s2)])


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 2- or 3-vectors along ``axisa``/``axisb`` (``axis`` sets all three),
    placed on ``axisc``; two 2-vectors give the z component."""
    x1, x2 = _tensor(x1), _tensor(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    if axis is not None:
        axisa = axisb = axisc = axis
    x1 = moveaxis(x1, axisa, -1)
    x2 = moveaxis(x2, axisb, -1)
    d1, d2 = x1.shape[-1], x2.shape[-1]
    for d in (d1, d2):
        if d not in (2, 3):
            # TensorFlow's Cross kernel reports this as a failed precondition.
            raise FailedPreconditionError(
                "cross: Cross-products are only defined for 2- or 3-element vectors "
                "(got a last dimension of %d)" % d)

    def pad3(x, d):
        return _fe.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[0, 1]]) if d == 2 else x

    x1, x2 = pad3(x1, d1), pad3(x2, d2)
    shape = _fe.broadcast_static_shape(x1.shape, x2.shape)
    c = _linalg.cross(_fe.broadcast_to(x1, shape), _fe.broadcast_to(x2, shape))
    if d1 == 2 and d2 == 2:
        return c[..., 2]
    return moveaxis(c, -1, axisc)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation over ``operands`` in their promoted dtype (integers computed in
    ``floatx()``; int8 gives int32)."""
    operands = [_tensor(x) for x in operands]
    kinds = list({_dt(x) for x in operands})
    if len(kinds) == 1 and kinds[0] == "int8":
        result_dtype = "int32"
    else:
        result_dtype = result_type(*kinds)
    compute = _floatx() if ("int" in result_dtype or result_dtype == "bool") \
        else result_dtype
    out = _fe.einsum(subscripts, *[_cast(x, compute) for x in operands], **kwargs)
    return _cast(out, result_dtype)


def slogdet(x):
    """``(sign, log|det|)`` of the square matrices of ``x``."""
    return tuple(_linalg.slogdet(_tensor(x)))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along ``axis`` by the trapezoid rule, at points ``x`` or spacing
    ``dx``."""
    y = _tensor(y)
    dtype = result_type(y.dtype, float)
    y = _cast(y, dtype)
    if x is None:
        dx_array = _fe.cast(dx, dtype)
    else:
        x = _tensor(x, dtype)
        dx_array = moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    avg = 0.5 * (y[..., 1:] + y[..., :-1])
    return _fe.reduce_sum(avg * dx_array, axis=-1)


# ---- indexing ---------------------------------------------------------------------------

def get_item(x, key):
    """``x[key]`` (a list key is a tuple of indices, as in TensorFlow)."""
    # A list key is a tuple of indices (TensorFlow's and Keras's GetItem reading).
    if isinstance(key, list):
        key = tuple(key)
    return _tensor(x)[key]


def _fix_negative(i, n):
    return _fe.where(i < 0, i + _fe.cast(n, i.dtype), i)


def take(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (flattened when None); negative indices
    count from the end."""
    x = _tensor(x)
    if axis is None:
        x = _fe.reshape(x, [-1])
        axis = 0
    indices = _tensor(indices)
    indices = _fix_negative(indices, x.shape[axis])
    return _fe.gather(x, indices, axis=axis)


def take_along_axis(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` matched along ``axis`` (other axes broadcast)."""
    x = _tensor(x)
    indices = _tensor(indices, "int64")
    if axis is None:
        if indices.shape.rank != 1:
            raise ValueError("take_along_axis: `indices` must be 1D if axis=None. "
                             "Received: indices.shape=%s" % (indices.shape,))
        return take_along_axis(_fe.reshape(x, [-1]), indices, 0)
    rank = x.shape.rank
    if indices.shape.rank != rank:
        raise ValueError("take_along_axis: `x` and `indices` must have the same number of "
                         "dimensions, but receive shape %s and %s."
                         % (x.shape, indices.shape))
    static_axis = axis
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise ValueError("take_along_axis: Invalid axis: %s for input rank: %s"
                         % (static_axis, rank))
    xs, ids = x.shape.as_list(), indices.shape.as_list()
    xs1, ids1 = list(xs), list(ids)
    xs1[axis] = ids1[axis] = 1
    bshape = list(_np.broadcast_shapes(tuple(xs1), tuple(ids1)))
    x_shape, i_shape = list(bshape), list(bshape)
    x_shape[axis], i_shape[axis] = xs[axis], ids[axis]
    x = _fe.broadcast_to(x, x_shape)
    indices = _fe.broadcast_to(indices, i_shape)
    indices = _fix_negative(indices, xs[axis])
    x = swapaxes(x, axis, -1)
    indices = swapaxes(indices, axis, -1)
    shape_i = indices.shape.as_list()
    result = _fe.gather(_fe.reshape(x, [-1, x.shape[-1]]),
                        _fe.reshape(indices, [-1, shape_i[-1]]), batch_dims=1)
    return swapaxes(_fe.reshape(result, shape_i), axis, -1)


def nonzero(x):
    """A tuple of int32 index tensors, one per axis, of the nonzero elements of ``x``."""
    x = _tensor(x)
    coords = _fe.where(_fe.cast(x, "bool"))
    return tuple(_fe.cast(c, "int32") for c in _fe.unstack(coords, x.shape.rank, axis=1))


def where(condition, x1=None, x2=None):
    """Elements of ``x1`` where ``condition`` holds, else of ``x2`` (promoted);
    ``nonzero(condition)`` when both are None."""
    condition = _fe.cast(_tensor(condition), "bool")
    if x1 is not None and x2 is not None:
        if not isinstance(x1, (int, float)):
            x1 = _tensor(x1)
        if not isinstance(x2, (int, float)):
            x2 = _tensor(x2)
        dtype = result_type(getattr(x1, "dtype", type(x1)), getattr(x2, "dtype", type(x2)))
        return _fe.where(condition, _tensor(x1, dtype), _tensor(x2, dtype))
    if x1 is None and x2 is None:
        return nonzero(condition)
    raise ValueError("where: `x1` and `x2` either both should be `None` or both should have "
                     "non-None value.")


def select(condlist, choicelist, default=0):
    """Elements from the first choice of ``choicelist`` whose condition holds, else ``default``."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)):
        raise ValueError("select: condlist and choicelist must be lists. Received: "
                         "type(condlist) = %s, type(choicelist) = %s"
                         % (type(condlist), type(choicelist)))
    if not condlist or not choicelist:
        raise ValueError("select: condlist and choicelist must not be empty. Received: "
                         "condlist = %s, choicelist = %s" % (condlist, choicelist))
    if len(condlist) != len(choicelist):
        raise ValueError("select: condlist must have length equal to choicelist "
                         "(%d vs %d)" % (len(condlist), len(choicelist)))
    choices = [_tensor(c) for c in choicelist]
    dtype = result_type(*[c.dtype for c in choices], default)
    out = _tensor(default, dtype)
    # The first true condition wins: fold from the last choice to the first.
    for cond, choice in reversed(list(zip(condlist, choices))):
        cond = _fe.cast(_tensor(cond), "bool")
        shape = _fe.broadcast_static_shape(
            _fe.broadcast_static_shape(cond.shape, choice.shape), out.shape)
        out = _fe.where(_fe.broadcast_to(cond, shape), _fe.broadcast_to(
            _cast(choice, dtype), shape), _fe.broadcast_to(out, shape))
    return out


def unravel_index(indices, shape):
    """Coordinates in ``shape`` of the flat ``indices``, as Keras's TF backend computes them."""
    indices = _tensor(indices)
    if None in shape:
        raise ValueError("unravel_index: `shape` argument cannot contain `None`. "
                         "Received: shape=%s" % (shape,))
    dtype = indices.dtype.name
    coords = []
    if indices.shape.rank == 1:
        for dim in reversed(shape):
            coords.append(_cast(indices % dim, dtype))
            indices = indices // dim
        return tuple(reversed(coords))
    # Keras's TensorFlow backend walks the dims first-to-last for any other rank, so the
    # coordinates differ from NumPy's there; kept for parity with it.
    for dim in shape:
        coords.append(_fe.reshape(_cast(indices % dim, dtype), _fe.shape(indices)))
        indices = indices // dim
    return tuple(reversed(coords))


# ---- sorting, searching, sets -----------------------------------------------------------

def sort(x, axis=-1):
    """``x`` sorted along ``axis`` (flattened when None)."""
    x = _tensor(x)
    if axis is None:
        x = _fe.reshape(x, [-1])
        axis = 0
    if _dt(x) == "bool":
        return _fe.cast(_fe.sort(_fe.cast(x, "int8"), axis=axis), "bool")
    return _fe.sort(x, axis=axis)


def argsort(x, axis=-1):
    """Indices that sort ``x`` along ``axis`` (flattened when None), as int32."""
    x = _tensor(x)
    if _dt(x) == "bool":
        x = _fe.cast(x, "uint8")
    if x.shape.rank == 0:
        return _fe.constant([0], dtype="int32")
    if axis is None:
        x = _fe.reshape(x, [-1])
        axis = 0
    return _fe.argsort(x, axis=axis)


def argpartition(x, kth, axis=-1):
    """Indices that put the ``kth`` smallest element in place, smaller ones before it (values
    compared as int32, as Keras's TF backend)."""
    # Keras's TensorFlow backend: values as int32, the kth+1 smallest (top_k of -x)
    # first, then the rest by top_k of a mask that zeroes the chosen positions.
    x = _tensor(x, "int32")
    if axis is None:
        x = _fe.reshape(x, [-1])
        axis, original_axis = 0, None
    else:
        original_axis = axis
    x = swapaxes(x, axis, -1)
    n = x.shape[-1]
    kth = builtins.min(builtins.max(int(kth), 0), n - 1)
    bottom = _fe.math.top_k(-x, kth + 1).indices
    mask = _fe.reduce_sum(_fe.one_hot(bottom, n, dtype="int32"), axis=0)
    chosen = _fe.where(mask)
    final = _fe.tensor_scatter_nd_update(x, chosen, _fe.zeros([chosen.shape[0]], "int32"))
    top = _fe.math.top_k(final, n - kth - 1).indices
    out = _fe.concat([bottom, top], axis=-1)
    if original_axis is None:
        return out
    return swapaxes(out, -1, axis)


def searchsorted(sorted_sequence, values, side="left"):
    """Where each of ``values`` would go in the 1-D ``sorted_sequence`` (``side`` 'left' or
    'right'), as int32."""
    sorted_sequence = _tensor(sorted_sequence)
    values = _tensor(values)
    if sorted_sequence.shape.rank != 1:
        raise ValueError(
            "searchsorted: only 1-D sorted sequences. You can use "
            "`keras.ops.vectorized_map` to extend it to N-D sequences. Received: "
            "sorted_sequence.shape=%s" % (sorted_sequence.shape,))
    out_type = "int32" if sorted_sequence.shape[0] <= _np.iinfo(_np.int32).max else "int64"
    return _fe.searchsorted(sorted_sequence, values, side=side, out_type=out_type)


def digitize(x, bins):
    """For each value of ``x``, the index ``i`` of its bin: ``bins[i-1] <= x < bins[i]``, as
    int32."""
    x = _tensor(x)
    bins = [float(b) for b in bins]
    ori = _dt(x)
    if ori in ("bool", "int8", "int16", "uint8", "uint16"):
        x = _cast(x, "int32")
    elif ori == "uint32":
        x = _cast(x, "int64")
    elif ori in ("bfloat16", "float16"):
        x = _cast(x, "float32")
    # Bucketize: the index i with bins[i-1] <= x < bins[i], i.e. a right-side search.
    edges = _fe.constant(bins, dtype="float64")
    flat = _fe.reshape(_fe.cast(x, "float64"), [-1])
    out = _fe.searchsorted(edges, flat, side="right", out_type="int32")
    return _fe.reshape(out, _fe.shape(x))


def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of ``x1`` occurs in ``x2`` (negated with ``invert``), as bool."""
    x1, x2 = _tensor(x1), _tensor(x2)
    dtype = result_type(x1.dtype, x2.dtype)
    x1, x2 = _cast(x1, dtype), _cast(x2, dtype)
    shape = _fe.shape(x1)
    x1 = _fe.reshape(x1, [-1])
    x2 = _fe.reshape(x2, [-1])
    if x1.shape[0] == 0 or x2.shape[0] == 0:
        # Keras returns all-False here, `invert` or not.
        return _fe.zeros(shape, dtype="bool")
    # Sort x2 once and binary-search x1 in it: O((n + m) log m), not Keras's n*m table.
    if dtype == "bool":
        x1, x2 = _fe.cast(x1, "int8"), _fe.cast(x2, "int8")
    x2 = _fe.sort(x2)
    pos = _fe.minimum(_fe.searchsorted(x2, x1, side="left"), x2.shape[0] - 1)
    found = _fe.equal(_fe.gather(x2, pos), x1)
    if invert:
        found = _fe.logical_not(found)
    return _fe.reshape(found, shape)


def unique(x, sorted=True, return_index=False, return_inverse=False,
           return_counts=False, axis=None, size=None, fill_value=None):
    """The distinct elements (or slices along ``axis``) of ``x``, sorted unless ``sorted=False``,
    with first indices, inverse map and counts on request; ``size`` pads or cuts."""
    x = _tensor(x)
    if _dt(x) in ("bool", "string"):
        raise InvalidArgumentError("unique: x of dtype %s is not supported (TensorFlow's "
                                   "Unique kernel takes numbers)" % _dt(x))
    shape = x.shape.as_list()
    flat = axis is None
    if flat:
        x = _fe.reshape(x, [-1])
        axis = 0
    else:
        axis = _canon(axis, x.shape.rank, "unique")
    # The set structure (which slice is first of its kind, inverse map, counts) is
    # integer bookkeeping; the values themselves are gathered from x so they stay on tape.
    moved = _np.moveaxis(x.numpy(), axis, 0).reshape(x.shape[axis], -1)
    # NumPy's unique gives the slices in lexicographic order (Keras's sorted order: by
    # value, or column by column for slices); TensorFlow's unsorted order is by first
    # occurrence.
    _, first, inverse, counts = _np.unique(moved, axis=0, return_index=True,
                                           return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    if not sorted:
        order = _np.argsort(first, kind="stable")
        rank_of = _np.empty(len(order), dtype=_np.int64)
        rank_of[order] = _np.arange(len(order))
        first, counts, inverse = first[order], counts[order], rank_of[inverse]
    n_unique = len(first)
    first, counts, inverse = first.tolist(), counts.tolist(), inverse.tolist()
    y = _fe.gather(x, _fe.constant(first, dtype="int32"), axis=axis)
    if size is not None:
        y = _fe.gather(y, _fe.range(builtins.min(n_unique, size)), axis=axis)
        first, counts = first[:size], counts[:size]
        pad_amount = builtins.max(0, size - n_unique)
        pads = [[0, 0]] * y.shape.rank
        pads[axis] = [0, pad_amount]
        fill = _fe.cast(0 if fill_value is None else fill_value, y.dtype)
        y = _fe.pad(y, pads, constant_values=fill)
        first = first + [1] * pad_amount
        counts = counts + [0] * pad_amount
    results = [y]
    if return_index:
        results.append(_fe.constant(first, dtype="int32"))
    if return_inverse:
        inv = _fe.constant(inverse, dtype="int32")
        results.append(_fe.reshape(inv, shape) if flat else inv)
    if return_counts:
        results.append(_fe.constant(counts, dtype="int32"))
    return tuple(results) if len(results) > 1 else results[0]


def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts of each non-negative int in ``x`` (rows of a 2-D ``x`` separately), summed
    ``weights`` when given; a SparseTensor when ``sparse``."""
    x = _tensor(x)
    if _dt(x) not in ("int32", "int64"):
        x = _cast(x, "int32")
    if weights is not None:
        weights = _tensor(weights)
        dtype = result_type(x.dtype, weights.dtype)
        if _dt(weights) not in ("int32", "int64", "float32", "float64"):
            weights = _cast(weights, "int32" if "int" in _dt(weights) else "float32")
    else:
        dtype = "int32"
    # fe.math.bincount's axis=-1 wants 2-D input; a 1-D input counts the whole vector.
    axis = -1 if x.shape.rank == 2 else None
    out = _fmath.bincount(x, weights=weights, minlength=minlength, axis=axis,
                          dtype=weights.dtype if weights is not None else "int32")
    out = _cast(out, dtype)
    if sparse:
        return _sparse.from_dense(out)
    return out


# ---- others -----------------------------------------------------------------------------

def copy(x):
    """A copy of ``x`` (differentiable; a SparseTensor stays sparse)."""
    if _is_sparse(x):
        return _sparse.SparseTensor(x.indices, _fe.identity(x.values), x.dense_shape)
    return _fe.identity(_tensor(x))


def view(x, dtype=None):
    """``x``'s bytes read as ``dtype`` (the last axis rescaled by the item sizes)."""
    # Reinterpreting bits has no derivative; NumPy's view does the byte work.
    x = _tensor(x)
    old = _np.dtype(_dt(x) if _dt(x) != "bfloat16" else "float32")
    new_name = standardize_dtype(dtype if dtype else x.dtype)
    new = _np.dtype(new_name)
    shape = x.shape.as_list()
    last = shape[-1] if shape else -1
    if (last == -1 and old.itemsize != new.itemsize) or \
            (last * old.itemsize % new.itemsize != 0):
        raise ValueError(
            "view: Cannot view array of shape %s and dtype %s as dtype %s because the total "
            "number of bytes is not divisible by the new itemsize."
            % (x.shape, _fe_dtypes.as_dtype(_dt(x)), _fe_dtypes.as_dtype(new_name)))
    if new.itemsize > old.itemsize and last % (new.itemsize // old.itemsize) != 0:
        raise ValueError("view: Cannot view dtype. Last dimension size (%d) must be divisible "
                         "by the ratio of new/old item sizes (%d)."
                         % (last, new.itemsize // old.itemsize))
    arr = _np.ascontiguousarray(x.numpy())
    if not shape:
        return _fe.constant(arr.reshape(1).view(new).reshape(()), dtype=new_name)
    return _fe.constant(arr.view(new), dtype=new_name)


def vectorize(pyfunc, *, excluded=None, signature=None):
    """Vectorize ``pyfunc`` over the leading axes of its tensor arguments (NumPy's
    ``vectorize``; a ``signature`` like ``"(n),(n)->()"`` names core dimensions)."""
    if not callable(pyfunc):
        raise ValueError("vectorize: Expected argument `pyfunc` to be a callable. "
                         "Received: pyfunc=%s" % (pyfunc,))
    excluded = set() if excluded is None else set(excluded)

    def parse(sig):
        ins, outs = sig.replace(" ", "").split("->")
        dims = lambda part: [tuple(d for d in grp.split(",") if d)
                             for grp in re.findall(r"\(([^)]*)\)", part)]
        return dims(ins), dims(outs)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        fixed = {i: a for i, a in enumerate(args) if i in excluded or a is None}
        fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}
        kwargs = {k: v for k, v in kwargs.items() if k not in excluded}
        if kwargs:
            raise ValueError("vectorize: pass vectorized arguments positionally "
                             "(got keywords %s)" % sorted(kwargs))
        free = [i for i in range(len(args)) if i not in fixed]
        tensors = [_tensor(args[i]) for i in free]
        core = parse(signature)[0] if signature is not None else [()] * len(args)
        core = [core[i] for i in free] if len(core) == len(args) else core
        loops = [t.shape.as_list()[:t.shape.rank - len(c)] for t, c in zip(tensors, core)]
        bshape = list(_np.broadcast_shapes(*[tuple(s) for s in loops])) if loops else []
        flat = []
        for t, c in zip(tensors, core):
            cshape = t.shape.as_list()[t.shape.rank - len(c):]
            t = _fe.broadcast_to(t, bshape + cshape)
            flat.append(_fe.reshape(t, [-1] + cshape))

        def call(*slices):
            full = list(args)
            for i, s in zip(free, slices):
                full[i] = s
            return pyfunc(*full, **fixed_kw)

        if not bshape:  # nothing to map over: one call, as Keras makes it
            return call(*tensors)
        out = _fe.vectorized_map(lambda row: call(*row), tuple(flat))
        if isinstance(out, (tuple, list)):
            return tuple(_fe.reshape(o, bshape + o.shape.as_list()[1:]) for o in out)
        return _fe.reshape(out, bshape + out.shape.as_list()[1:])

    return wrapped
