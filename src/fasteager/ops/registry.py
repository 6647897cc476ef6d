"""How ops are defined: ``defop`` adds one entry to the op table.

An op is one block: its name (the public name and the table key), its forward kernel,
the dtype kinds it accepts, and its gradient beside it, one VJP per input::

    # d/dx exp(x) = exp(x)
    exp = defop("exp", np.exp, kinds=FLOAT,
                grads=[lambda g, ans, x: g * ans])

``quiet=True`` marks ops whose inf/nan results are routine (exp, log, division): they
run without NumPy's RuntimeWarnings, as TensorFlow's kernels do.

A VJP receives the incoming gradient ``g``, the op's output ``ans`` and its inputs (as
Tensors), plus the op's attributes as keywords, and returns the gradient for its input.
VJPs are written with fasteager ops, so an outer tape records them (higher order).
Ops without a gradient say why (``no_grad=...``); the op-table test checks every entry.
Every op is defined in a topic module of ``fasteager/ops/`` that ``ops/__init__`` imports;
when it has, the table is closed (``close``) and a later ``defop`` raises.

Calls accept only the op's inputs and attributes (``name=`` is accepted and ignored, as
in TensorFlow): anything else is a ``TypeError``, so NumPy's keywords never reach a
ufunc forward. ``nin`` and ``attrs`` are read from the forward's signature (see
``_signature``); ops whose forward cannot say declare them.

Forward mode (``fasteager.forward``) derives each op's JVP from its VJP. ``jvp=`` is only
for ops where a direct rule is much cheaper: ``jvp=ELEMENTWISE`` marks an elementwise op
whose forward is not a NumPy ufunc (ufuncs are recognised): its Jacobian is diagonal, so
its VJP applied to the tangent is its JVP; ``jvp=LINEAR`` marks an op linear in its
inputs jointly (reshape, concat, reduce_sum: the JVP is the op of the tangents) and
``jvp=MULTILINEAR`` one linear in each input separately (matmul: the JVP is the sum over
inputs of the op with that input replaced by its tangent); ``jvp=f`` gives the rule
itself, ``f(tangents, ans, *inputs, **attrs)`` with ``None`` for inputs of zero tangent.

``into`` is the kernel writing into a given array, ``into(*arrays, out, **attrs)``, with
the same result as ``forward``: ``fe.function`` replays use it to reuse buffers across
calls. NumPy ufunc forwards get it for free (their third positional argument is ``out``).
"""
import importlib
import inspect
import os
import resource
import warnings

import numpy as np

from .. import _core
from ..errors import InvalidArgumentError, ResourceExhaustedError

FLOAT = "f"
INT = "iu"
NUMERIC = "fiu"
ALL = "fiub"
BOOL = "b"
INT_BOOL = "iub"
STRING = "O"             # fe.string: object arrays of bytes (strings have no gradient)
ANY_DTYPE = ALL + "c" + STRING   # layout ops: they move entries without reading them

# jvp= markers (see the module docstring): structure that gives the JVP directly
ELEMENTWISE = "elementwise"     # diagonal Jacobian: the VJP applied to the tangent
LINEAR = "linear"               # linear in all inputs together: the op of the tangents
MULTILINEAR = "multilinear"     # linear in each input: sum of the op with one tangent

OPS = {}
_closed = False     # set by close(): the table is complete when ops/__init__ returns
NO_GRADIENT = {}
UNREGISTERED_GRADIENT = {}   # op name -> TensorFlow's op name (see unregistered_gradient)
INTO = {}          # op name -> kernel writing into a given output array


def defop(name, forward, grads=None, joint_grad=None, kinds=NUMERIC, same_dtype=True,
          multi=False, check=None, no_grad=None, doc=None, quiet=False, into=None,
          nin=None, attrs=None, jvp=None):
    """Define one op (see the module docstring). Returns the callable ``Op``."""
    if name in OPS:
        raise ValueError("defop: op %r is defined twice" % name)
    if grads is None and joint_grad is None and no_grad is None:
        raise ValueError("defop: op %r needs a gradient or a no_grad reason" % name)
    nin, attrs = _signature(name, forward, grads, nin, attrs)
    if _closed:
        raise RuntimeError("defop: the op table is closed (fasteager.ops has finished "
                           "importing); define op %r in a topic module of fasteager/ops/ and "
                           "import that module in ops/__init__" % name)
    op = _core.Op(name, forward, grads=grads, joint_grad=joint_grad, kinds=kinds,
                  same_dtype=same_dtype, multi=multi, check=check, doc=doc,
                  no_grad_reason=no_grad, quiet=quiet, nin=nin, attrs=attrs)
    if jvp is not None:
        if grads is None and joint_grad is None:
            raise ValueError("defop: op %r has a jvp= but no gradient" % name)
        op.jvp_rule = jvp
    OPS[name] = op
    if into is None and isinstance(forward, np.ufunc) and forward.nout == 1:
        into = _ufunc_into(forward)
    if into is not None:
        INTO[name] = into
    if no_grad is not None:
        NO_GRADIENT[name] = no_grad
    return op


def close():
    """Called once, by ``ops/__init__`` after every topic module has run: from then on
    ``defop`` raises, so no op can join the table after the core has been handed it."""
    global _closed
    _closed = True


def unregistered_gradient(name, tf_name):
    """The ``joint_grad`` of op ``name`` that TensorFlow records but has no gradient for:
    a tape's gradient through it raises TensorFlow's LookupError (a non-differentiable op,
    ``no_grad=``, gives None instead). Kept where TF's own guides rely on the error."""
    UNREGISTERED_GRADIENT[name] = tf_name

    def raise_lookup(g, ans, inputs, attrs, needs):
        raise LookupError("gradient registry has no entry for: %s" % tf_name)
    return raise_lookup


def _signature(name, forward, grads, nin, attrs):
    """The op's tensor-input count and attribute names, read from its forward unless given.

    Inputs are the forward's leading positional parameters (one per VJP when ``grads`` is
    given, all of them for ``*xs``); attrs are the parameters after them. A NumPy function
    used as the forward has no attrs: its keywords (out=, where=, dtype=) are not the op's.
    """
    fn = inspect.unwrap(forward)
    if isinstance(fn, np.ufunc):
        return (fn.nin if nin is None else nin), tuple(attrs or ())
    if (getattr(fn, "__module__", None) or "numpy").split(".")[0] == "numpy":
        return (len(grads) if nin is None and grads is not None else
                -1 if nin is None else nin), tuple(attrs or ())
    params = list(inspect.signature(fn).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if nin is None:
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            nin = -1
        elif grads is not None:
            nin = len(grads)
        else:
            nin = sum(1 for p in positional if p.default is p.empty)
            if nin > 1:   # two inputs, or an input and attrs without defaults?
                raise ValueError("defop: op %r has no gradients to count its inputs by: "
                                 "declare nin=" % name)
    if attrs is None:
        if any(p.kind == p.VAR_KEYWORD for p in params):
            raise ValueError("defop: the forward of op %r takes **kwargs: declare attrs=" % name)
        attrs = tuple(p.name for p in positional[max(nin, 0):]) + tuple(
            p.name for p in params if p.kind == p.KEYWORD_ONLY)
    return nin, tuple(attrs)


def _ufunc_into(ufunc):
    """A ufunc as an ``into`` kernel: ``out`` is its positional argument after the
    inputs, except for maximum/minimum, where NumPy 2.4 deprecated that spelling."""
    if ufunc not in (np.maximum, np.minimum):
        return ufunc
    return lambda a, b, out: ufunc(a, b, out=out)


def execute(op, *args, **attrs):
    """Run ``op`` on tensor arguments ``args`` with attributes ``attrs``."""
    return _core.execute(op, args, attrs if attrs else None)


# Composite values (fe.RaggedTensor, fe.SparseTensor, the DynamicRaggedShape of a ragged
# tensor) take over the public functions TensorFlow dispatches on them. Ops reach their
# module's handlers through the core (``_core.register_dispatch``). Python-level functions
# that read their input first (reductions, concat, tile, cast ...) start with one test,
# ``type(x) in COMPOSITE_TYPES`` (a dict look-up: no wrapper frame on the tensor path),
# and hand the call to ``composite_call``.
COMPOSITE_TYPES = {}     # type -> {function name: handler}


def register_composite(cls, handlers):
    """Run ``handlers[name](*args)`` for the function ``name`` called on a ``cls`` value."""
    COMPOSITE_TYPES.setdefault(cls, {}).update(handlers)


def composite_call(fname, value, *args):
    """Call the handler registered for ``fname`` and ``value``'s type with ``args``."""
    handler = COMPOSITE_TYPES[type(value)].get(fname)
    if handler is None:
        raise InvalidArgumentError("%s: does not take a %s" % (fname, type(value).__name__))
    return handler(*args)


def unbroadcast(g, x):
    """Sum ``g`` over the axes along which ``x`` was broadcast, to give ``x``'s shape.

    The one helper every broadcasting op's VJP routes through.
    """
    gshape = g._value.shape
    xshape = x._value.shape
    if gshape == xshape:
        return g
    lead = len(gshape) - len(xshape)
    axes = list(range(lead))
    for i, d in enumerate(xshape):
        if d == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    if axes:
        g = sum_axes(g, axes)
    if g._value.shape != xshape:
        g = _core.execute(OPS["reshape"], (g,), {"shape": tuple(xshape)})
    return g


def sum_axes(g, axes):
    """``reduce_sum(g, axes)`` for the gradients of ops defined below the reductions
    (broadcasting, tile): the op is taken from the table, so this module and those
    modules import nothing above them."""
    return _core.execute(OPS["reduce_sum"], (g,),
                         {"axis": tuple(sorted(int(a) for a in axes)), "keepdims": False})


def normalize_axis(opname, axis, rank, argname="axis"):
    """Axis argument (None, int, sequence or tensor) to a sorted tuple of non-negative ints."""
    if axis is None:
        return None
    if type(axis) is int and -rank <= axis < rank:      # the common case, quickly
        return (axis % rank,)
    if isinstance(axis, (_core.Tensor, np.ndarray)):
        axis = np.asarray(axis).tolist()
    try:
        axes = [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]
    except (TypeError, ValueError):     # int("x") is a ValueError
        raise _err("%s: %s must be an int or a list of ints (got %r)"
                   % (opname, argname, axis)) from None
    out = []
    for a in axes:
        if not -rank <= a < rank:   # a scalar has no axis at all
            raise _err("%s: %s %d is out of range for a tensor of rank %d (expected %s)"
                       % (opname, argname, a, rank, "-%d <= %s < %d" % (rank, argname, rank)
                          if rank else "no axis: a scalar has none"))
        a = a % rank
        if a in out:
            raise _err("%s: %s %d is repeated" % (opname, argname, a))
        out.append(a)
    return tuple(sorted(out))


def single_axis(opname, axis, rank, argname="axis"):
    """One axis (an int or a one-element list) to a non-negative int, for ops that take
    exactly one: a typed error for none (``[]``, None) or several."""
    axes = normalize_axis(opname, axis, rank, argname)
    if axes is None or len(axes) != 1:
        raise _err("%s: %s must be a single axis (expected an int, got %r)"
                   % (opname, argname, axis))
    return axes[0]


def _err(msg):
    return InvalidArgumentError(msg)


def as_int(opname, value, argname):
    """An int argument (a Python or NumPy int, or a size-1 tensor) as a Python int."""
    try:
        return int(value)
    except (TypeError, ValueError):     # int("x") is a ValueError
        raise _err("%s: %s must be an int (expected an int, got %r)"
                   % (opname, argname, value)) from None


def as_bool(opname, value, argname):
    """A flag argument as a bool: a typed error for an array of several (or no) values."""
    try:
        return bool(value)
    except ValueError:      # NumPy's and the Tensor's "truth value is ambiguous"
        raise _err("%s: %s must be a bool (expected True or False, got %r)"
                   % (opname, argname, value)) from None


def as_shape(opname, shape, argname="shape"):
    """A shape argument (list, tuple, TensorShape, tensor) to a tuple of ints."""
    if isinstance(shape, (_core.Tensor, np.ndarray)):
        shape = np.asarray(shape).tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    try:
        dims = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise _err("%s: %s must be a list of ints (got %r)" % (opname, argname, shape)) from None
    return dims


# ---- output sizes ---------------------------------------------------------------------------
# Ops whose output shape comes from an argument (tile's multiples, pad's paddings, fill's
# dims, ...) check it here before NumPy sees it: NumPy's own size arithmetic can wrap
# around (np.tile with a multiple near 2**62 writes out of bounds), and a lazily mapped
# np.zeros of terabytes "succeeds" until the next op touches it.

_MAX_ELEMENTS = 2 ** 63 - 1     # TensorFlow's bound on a tensor's element count
_SMALL_BYTES = 1 << 30          # below this, no need to ask what memory there is


def _memory_bytes():
    """The most bytes one allocation can hope for: physical memory, or the address-space
    limit (RLIMIT_AS) when that is lower."""
    try:
        phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        phys = 1 << 62
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    return phys if soft == resource.RLIM_INFINITY else min(phys, soft)


def _format_bytes(n):
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024:
            return ("%d %s" if unit == "bytes" else "%.1f %s") % (n, unit)
        n /= 1024
    return "%.1f TiB" % n


def check_output_size(opname, shape, dtype, what=""):
    """Check that ``opname`` can make an output of ``shape`` and ``dtype`` (Python ints, so
    nothing wraps around): negative dimensions and more than 2**63 - 1 elements are
    InvalidArgumentError, as in TensorFlow, and more bytes than this machine can
    allocate ResourceExhaustedError (TensorFlow's OOM). Returns the element count.
    ``what`` says which arguments gave the shape, for the message."""
    dims = [int(d) for d in shape]
    extra = " (%s)" % what if what else ""
    if any(d < 0 for d in dims):
        raise InvalidArgumentError("%s: the output shape %s has a negative dimension%s"
                                   % (opname, dims, extra))
    n = 1
    for d in dims:
        n *= d or 1     # a zero dimension does not excuse the others, as in TensorFlow
    if n > _MAX_ELEMENTS:
        raise InvalidArgumentError("%s: the output shape %s would have more than 2**63 - 1 "
                                   "elements%s" % (opname, dims, extra))
    nbytes = n * np.dtype(dtype).itemsize
    if 0 in dims:
        if nbytes > _MAX_ELEMENTS:
            # empty, but NumPy sizes the other dimensions' bytes before it sees the 0
            raise InvalidArgumentError("%s: the output shape %s is empty but its other "
                                       "dimensions span more than 2**63 - 1 bytes, which "
                                       "NumPy can't lay out%s" % (opname, dims, extra))
        return 0
    if nbytes > _SMALL_BYTES and nbytes > _memory_bytes():
        # the words of the allocation failures execute reports (_core.out_of_memory_error)
        raise ResourceExhaustedError(
            "%s: out of memory (tried to allocate %s for an array of shape %s (%s); this "
            "process can allocate at most %s)%s"
            % (opname, _format_bytes(nbytes), dims, np.dtype(dtype).name,
               _format_bytes(_memory_bytes()), extra))
    return n


# ---- names that moved ------------------------------------------------------------------------

def moved_names(module, table):
    """A module ``__getattr__`` for the names ``table`` says moved out of ``module`` (name ->
    the module now holding it: an ops module's short name, or a full module path): for one
    release the old path still works, with a DeprecationWarning. The new home is imported
    only when such a name is asked for."""
    def __getattr__(name):
        home = table.get(name)
        if home is None:
            raise AttributeError("module %r has no attribute %r" % (module, name))
        path = home if home.startswith("fasteager.") else "fasteager.ops." + home
        warnings.warn("%s.%s is deprecated and will be removed in the next release; use %s.%s"
                      % (module, name, path, name), DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(path), name)
    return __getattr__
