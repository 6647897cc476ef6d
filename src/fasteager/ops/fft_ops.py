"""Discrete Fourier transforms: three primitives, with their gradients beside them.

- ``fft`` (complex to complex, over ``axes``, forward or ``inverse``),
- ``rfft`` (real to the half spectrum, along one axis),
- ``irfft`` (the half spectrum to ``n`` real values, along one axis).

NumPy's pocketfft computes them (``np.fft``; float32 stays complex64 as in NumPy 2), with
NumPy's ``norm`` ("backward", "ortho", "forward"). Everything else (``fft2``, ``fftn``,
``rfftn``, shifts) composes these in ``fasteager.numpy.fft``.

Gradients follow the complex convention of ``elementwise_ops`` (grad = dL/dx + i dL/dy), so a
linear map A has the VJP ``A^H g``. The DFT matrix F is symmetric, so F^H g =
conj(F conj(g)): the VJP of ``fft`` is ``conj(fft(conj(g)))`` with the same attributes, and
the same holds for the inverse. ``rfft`` is F followed by keeping the first n//2 + 1
entries, so its VJP zero-pads g and takes the real part (the input is real); ``irfft``'s
VJP is an ``rfft`` weighted 1 at the entries whose imaginary part the inverse ignores (0
and, for even n, n/2) and 2 at the others, which stand for their conjugate pair.
"""


import numpy as np

from .. import _core
from ..errors import InvalidArgumentError
from .array_ops import pad
from .elementwise_ops import cast, conj, real
from .registry import defop, execute


_NORMS = ("backward", "ortho", "forward")


def check_norm(fname, norm):
    """NumPy's ``norm=``: None (backward), 'backward', 'ortho' or 'forward'."""
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise InvalidArgumentError("%s: invalid norm value %r; should be \"backward\", "
                                   "\"ortho\" or \"forward\"" % (fname, norm))
    return norm


def _fft_fwd(x, axes, norm, inverse):
    fn = np.fft.ifftn if inverse else np.fft.fftn
    return fn(x, axes=axes, norm=norm)


# linear with a symmetric matrix: the VJP is conj(fft(conj(g))), the same transform
fft_op = defop("fft", _fft_fwd, kinds="c",
               grads=[lambda g, ans, x, axes, norm, inverse:
                      conj(execute(fft_op, conj(g), axes=axes, norm=norm, inverse=inverse))])


def _rfft_fwd(x, axis, norm):
    return np.fft.rfft(x, axis=axis, norm=norm)


def _rfft_grad(g, ans, x, axis, norm):
    # the half spectrum zero-padded to the input's length n, then real(F^H g)
    n = x._value.shape[axis]
    widths = [[0, 0]] * g._value.ndim
    widths[axis] = [0, n - g._value.shape[axis]]
    full = pad(g, widths) if n > g._value.shape[axis] else g
    return real(execute(fft_op, conj(full), axes=(axis,), norm=norm, inverse=False))


rfft_op = defop("rfft", _rfft_fwd, kinds="f", same_dtype=False, grads=[_rfft_grad])


def _irfft_fwd(x, n, axis, norm):
    return np.fft.irfft(x, n=n, axis=axis, norm=norm)


def _irfft_grad(g, ans, x, n, axis, norm):
    # y_j = c (X_0 + 2 sum_k Re(X_k e^{2 pi i jk/n}) [+ X_{n/2} (-1)^j]): the gradient is
    # c w_k sum_j g_j e^{-2 pi i jk/n}, an unnormalized rfft of g with weights w
    m = x._value.shape[axis]
    scale = {"backward": 1.0 / n, "ortho": 1.0 / np.sqrt(n), "forward": 1.0}[norm]
    w = np.full(m, 2.0 * scale)
    w[0] = scale
    if n % 2 == 0:
        w[-1] = scale
    shape = [1] * x._value.ndim
    shape[axis] = m
    weights = _core.wrap(w.reshape(shape).astype(x._value.dtype))
    return execute(rfft_op, g, axis=axis, norm="backward") * weights


irfft_op = defop("irfft", _irfft_fwd, kinds="c", same_dtype=False, grads=[_irfft_grad])


def complex_dtype(dtype):
    """The complex dtype NumPy's FFTs give for ``dtype`` (complex64 for float32)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return dtype
    if dtype == np.float32:
        return np.dtype(np.complex64)
    return np.dtype(np.complex128)


def as_complex(x):
    """``x`` cast to its FFT complex dtype (differentiable: the real part of the gradient
    reaches a real input)."""
    d = complex_dtype(x._value.dtype)
    return x if x._value.dtype == d else cast(x, d)


def resize(x, axis, n, fname):
    """``x`` cropped or zero-padded to length ``n`` along ``axis`` (an FFT's length
    argument: ``fasteager.numpy.fft`` and ``fe.signal``)."""
    if n is None:
        return x
    n = int(n)
    if n < 1:
        raise InvalidArgumentError("fasteager.numpy.fft.%s: invalid number of data points "
                                   "(%d) specified" % (fname, n))
    size = x._value.shape[axis]
    if n < size:
        return x[(slice(None),) * axis + (slice(0, n),)]
    if n > size:
        widths = [[0, 0]] * x._value.ndim
        widths[axis] = [0, n - size]
        return pad(x, widths)
    return x
