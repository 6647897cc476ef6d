"""``import fasteager.numpy as np``: NumPy's names, signatures and dtype rules on tensors.

A NumPy program written against this module computes on fasteager tensors, so tapes
record it and ``fe.gradients_function`` / ``fe.GradientTape`` differentiate it, as HIPS
autograd's ``autograd.numpy`` and ``jax.numpy`` do::

    import fasteager as fe
    import fasteager.numpy as np

    def loss(w, x, y):
        p = 1 / (1 + np.exp(-np.dot(x, w)))
        return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))

    grad = fe.gradients_function(loss, params=[0])

Every function is a thin entry onto the op table (no second implementation). Type
promotion here is NumPy's (Python floats float64, ``int32 + float64`` is float64,
``int / int`` is float64); the top-level ``fe.*`` keeps TensorFlow's. A NumPy name not
covered raises ``fe.errors.UnimplementedError`` naming it; ``docs/numpy.md`` lists what is
covered.
"""
import numpy as _np

from .. import _core
from ..errors import UnimplementedError as _UnimplementedError
from . import fft, linalg, random  # noqa: F401
from ._arrays import (  # noqa: F401
    arange,
    array,
    array_split,
    asanyarray,
    asarray,
    ascontiguousarray,
    atleast_1d,
    atleast_2d,
    broadcast_to,
    column_stack,
    concatenate,
    copy,
    empty,
    empty_like,
    expand_dims,
    eye,
    flip,
    full,
    full_like,
    hstack,
    identity,
    linspace,
    logspace,
    moveaxis,
    ndim,
    ones,
    ones_like,
    ravel,
    repeat,
    reshape,
    shape,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    take,
    tile,
    transpose,
    vstack,
    zeros,
    zeros_like,
)
from ._elementwise import FUNCTIONS as _FUNCTIONS
from ._elementwise import allclose, array_equal, clip, isclose, nonzero, round, where  # noqa: F401
from ._elementwise import angle, imag, nan_to_num, real, sinc  # noqa: F401
from ._reductions import (  # noqa: F401
    all,
    any,
    argmax,
    argmin,
    cumprod,
    cumsum,
    dot,
    einsum,
    inner,
    matmul,
    max,
    mean,
    min,
    outer,
    prod,
    std,
    sum,
    tensordot,
    var,
    vdot,
)
from ._shapes import (  # noqa: F401
    append,
    argpartition,
    argsort,
    atleast_3d,
    c_,
    cross,
    diag,
    diagonal,
    diff,
    dsplit,
    fliplr,
    flipud,
    gradient,
    hsplit,
    kron,
    pad,
    partition,
    r_,
    real_if_close,
    roll,
    rollaxis,
    rot90,
    row_stack,
    select,
    sort,
    trace,
    tril,
    triu,
    vsplit,
)

globals().update(_FUNCTIONS)
amax = max
amin = min
around = round
concat = concatenate
permute_dims = transpose

ndarray = _core.Tensor
__version__ = _np.__version__    # the NumPy API followed (as autograd.numpy)

# constants
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None

# dtypes: NumPy's own objects, so `x.dtype == fnp.float32` and `dtype=fnp.int64` work
dtype = _np.dtype
float16, float32, float64 = _np.float16, _np.float32, _np.float64
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
bool_ = _np.bool_
complex64, complex128 = _np.complex64, _np.complex128
float_ = double = _np.float64
int_ = _np.int_
intp = _np.intp
floating, integer, number, inexact = _np.floating, _np.integer, _np.number, _np.inexact
finfo, iinfo, issubdtype = _np.finfo, _np.iinfo, _np.issubdtype


def result_type(*arrays_and_dtypes):
    """NumPy's ``result_type``, accepting tensors."""
    return _np.result_type(*[a._value.dtype if isinstance(a, _core.Tensor) else a
                             for a in arrays_and_dtypes])


def isscalar(element):
    return _np.isscalar(element)


def iscomplexobj(x):
    """NumPy's ``iscomplexobj``: whether ``x``'s dtype is complex (reads the dtype only)."""
    if isinstance(x, (_core.Tensor, _core.VariableBase)):
        return x.dtype.is_complex
    return _np.iscomplexobj(x)


def isrealobj(x):
    """NumPy's ``isrealobj``: not ``iscomplexobj``."""
    return not iscomplexobj(x)


# NumPy-rules tensors: every function here marks what it returns (see _rules.py)
from . import _rules as _rules_mod  # noqa: E402

_rules_mod.mark_module(globals(), "fasteager.numpy._arrays")
_rules_mod.mark_module(vars(random), "fasteager.numpy.random")

def __getattr__(name):
    if hasattr(_np, name):
        raise _UnimplementedError("fasteager.numpy.%s is not implemented (covered functions: "
                                  "see docs/numpy.md)" % name)
    raise AttributeError("module 'fasteager.numpy' has no attribute %r" % name)


def _covered():
    """The public names this module covers (for the docs' table and its test)."""
    return sorted(n for n in globals() if not n.startswith("_"))


def _transpose_method(x, *axes):
    """``Tensor.transpose(*axes)``: axes as separate ints or one sequence, as NumPy's method."""
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
        axes = axes[0]
    return transpose(x, axes or None)


# Tensor's NumPy-style methods (x.sum(), x.mean(axis=0), ...) are these functions, with
# NumPy's signatures and dtype rules; the core looks them up in its registry.
_core.set_array_methods(dict(
    {name: globals()[name] for name in (
        "sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "cumsum",
        "cumprod", "dot", "clip", "all", "any", "round", "copy", "ravel", "squeeze",
        "repeat", "nonzero", "trace", "swapaxes")},
    transpose=_transpose_method, flatten=ravel))
