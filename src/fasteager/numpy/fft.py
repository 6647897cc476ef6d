"""``fasteager.numpy.fft``: NumPy's FFT functions over the table's fft/rfft/irfft ops.

``n``/``s`` crop or zero-pad the input first (slices and ``pad``, as NumPy), so the ops see
exactly the lengths they transform and every function is differentiable: multi-axis
transforms are one ``fft`` op over the axes, ``rfftn`` is ``rfft`` along the last axis
then ``fft`` over the others (``irfftn`` the reverse), and the shifts are ``roll``.
Real input gives complex64 for float32 and complex128 otherwise, as NumPy 2.
"""
import builtins

import numpy as np

from ..errors import InvalidArgumentError
from ..ops import fft_ops as f_ops
from ..ops.fft_ops import resize as _resize
from ..ops import elementwise_ops as ew_ops
from ..ops.registry import execute, single_axis
from ._promotion import tensor
from ._shapes import roll


def _axes_and_sizes(fname, x, s, axes):
    r = x._value.ndim
    if axes is None:
        axes = list(builtins.range(r)) if s is None else list(builtins.range(r - len(s), r))
    axes = [single_axis(fname, a, r, "axes") for a in axes]
    if s is not None and len(s) != len(axes):
        raise InvalidArgumentError("fasteager.numpy.fft.%s: shape and axes have different "
                                   "lengths (%d and %d)" % (fname, len(s), len(axes)))
    return axes, (list(s) if s is not None else [None] * len(axes))


def _complex_transform(fname, a, s, axes, norm, inverse):
    norm = f_ops.check_norm("fasteager.numpy.fft." + fname, norm)
    x = f_ops.as_complex(tensor(a))
    axes, sizes = _axes_and_sizes(fname, x, s, axes)
    for ax, n in zip(axes, sizes):
        x = _resize(x, ax, n, fname)
    if not axes:
        return x
    return execute(f_ops.fft_op, x, axes=tuple(axes), norm=norm, inverse=inverse)


def fft(a, n=None, axis=-1, norm=None):
    """NumPy's ``fft`` along ``axis``."""
    return _complex_transform("fft", a, None if n is None else [n], [axis], norm, False)


def ifft(a, n=None, axis=-1, norm=None):
    """NumPy's ``ifft`` along ``axis``."""
    return _complex_transform("ifft", a, None if n is None else [n], [axis], norm, True)


def fftn(a, s=None, axes=None, norm=None):
    """NumPy's ``fftn`` over ``axes`` (all by default)."""
    return _complex_transform("fftn", a, s, axes, norm, False)


def ifftn(a, s=None, axes=None, norm=None):
    """NumPy's ``ifftn``."""
    return _complex_transform("ifftn", a, s, axes, norm, True)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    """NumPy's ``fft2`` (over the last two axes by default)."""
    return _complex_transform("fft2", a, s, axes, norm, False)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    """NumPy's ``ifft2``."""
    return _complex_transform("ifft2", a, s, axes, norm, True)


def _real_input(fname, a):
    x = tensor(a)
    if x._value.dtype.kind == "c":
        raise InvalidArgumentError("fasteager.numpy.fft.%s: input must be real (got %s; use "
                                   "fft for complex input)" % (fname, x._value.dtype))
    if x._value.dtype.kind != "f":
        x = ew_ops.cast(x, np.float64)
    return x


def rfft(a, n=None, axis=-1, norm=None):
    """NumPy's ``rfft``: the first ``n // 2 + 1`` entries of the FFT of real input."""
    norm = f_ops.check_norm("fasteager.numpy.fft.rfft", norm)
    x = _real_input("rfft", a)
    ax = single_axis("rfft", axis, x._value.ndim)
    x = _resize(x, ax, n, "rfft")
    return execute(f_ops.rfft_op, x, axis=ax, norm=norm)


def irfft(a, n=None, axis=-1, norm=None):
    """NumPy's ``irfft``: ``n`` real values (``2 * (m - 1)`` by default) from a half
    spectrum of ``m`` entries."""
    norm = f_ops.check_norm("fasteager.numpy.fft.irfft", norm)
    x = f_ops.as_complex(tensor(a))
    ax = single_axis("irfft", axis, x._value.ndim)
    if n is None:
        n = 2 * (x._value.shape[ax] - 1)
    n = int(n)
    if n < 1:
        raise InvalidArgumentError("fasteager.numpy.fft.irfft: invalid number of data points "
                                   "(%d) specified" % n)
    x = _resize(x, ax, n // 2 + 1, "irfft")
    return execute(f_ops.irfft_op, x, n=n, axis=ax, norm=norm)


def rfftn(a, s=None, axes=None, norm=None):
    """NumPy's ``rfftn``: ``rfft`` along the last of ``axes``, then ``fft`` over the rest."""
    norm = f_ops.check_norm("fasteager.numpy.fft.rfftn", norm)
    x = _real_input("rfftn", a)
    axes, sizes = _axes_and_sizes("rfftn", x, s, axes)
    for ax, n in zip(axes, sizes):
        x = _resize(x, ax, n, "rfftn")
    x = execute(f_ops.rfft_op, x, axis=axes[-1], norm=norm)
    if len(axes) > 1:
        x = execute(f_ops.fft_op, x, axes=tuple(axes[:-1]), norm=norm, inverse=False)
    return x


def irfftn(a, s=None, axes=None, norm=None):
    """NumPy's ``irfftn``: ``ifft`` over all but the last of ``axes``, then ``irfft``."""
    norm = f_ops.check_norm("fasteager.numpy.fft.irfftn", norm)
    x = f_ops.as_complex(tensor(a))
    axes, sizes = _axes_and_sizes("irfftn", x, s, axes)
    last = sizes[-1] if sizes[-1] is not None else 2 * (x._value.shape[axes[-1]] - 1)
    for ax, n in zip(axes[:-1], sizes[:-1]):
        x = _resize(x, ax, n, "irfftn")
    if len(axes) > 1:
        x = execute(f_ops.fft_op, x, axes=tuple(axes[:-1]), norm=norm, inverse=True)
    x = _resize(x, axes[-1], int(last) // 2 + 1, "irfftn")
    return execute(f_ops.irfft_op, x, n=int(last), axis=axes[-1], norm=norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """NumPy's ``rfft2``."""
    return rfftn(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """NumPy's ``irfft2``."""
    return irfftn(a, s, axes, norm)


def _shift(x, axes, inverse):
    x = tensor(x)
    r = x._value.ndim
    axes = list(builtins.range(r)) if axes is None else list(np.atleast_1d(axes).tolist())
    axes = [single_axis("fftshift", a, r, "axes") for a in axes]
    shifts = [(-(x._value.shape[a] // 2) if inverse else x._value.shape[a] // 2) for a in axes]
    return roll(x, shifts, axes) if axes else x


def fftshift(x, axes=None):
    """NumPy's ``fftshift``: the zero frequency moved to the centre (a roll)."""
    return _shift(x, axes, False)


def ifftshift(x, axes=None):
    """NumPy's ``ifftshift``: the inverse of ``fftshift``."""
    return _shift(x, axes, True)


def fftfreq(n, d=1.0, device=None):
    """NumPy's ``fftfreq``: the sample frequencies (a constant)."""
    return tensor(np.fft.fftfreq(n, d))


def rfftfreq(n, d=1.0, device=None):
    """NumPy's ``rfftfreq``: the non-negative sample frequencies (a constant)."""
    return tensor(np.fft.rfftfreq(n, d))
