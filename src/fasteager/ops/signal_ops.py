"""Signal processing (``fe.signal``): FFTs over the innermost axes, shifts, framing,
windows, the short-time Fourier transform, DCTs and mel features, as ``tf.signal``.

The transforms run on the op table's ``fft``/``rfft``/``irfft`` ops (``ops/fft_ops.py``,
NumPy's pocketfft), so they are differentiable; framing and overlap-add are gathers and
sums of slices, differentiable too. TensorFlow's rules kept here: ``fft``/``ifft`` take
complex input only; ``fft_length`` crops or zero-pads the innermost axes first; windows
are float32 by default, and ``periodic`` changes only even-length windows (TensorFlow
computes ``n = length + periodic * (length is even) - 1``).

>>> fe.signal.rfft([1., 2., 3., 4.]).numpy()
array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
"""
import math

import numpy as np

from .. import _core
from ..dtypes import as_dtype
from ..errors import InvalidArgumentError
from . import fft_ops as _f
from .array_ops import concat
from .array_ops import getitem as _getitem
from .array_ops import pad as _pad
from .array_ops import reshape as _reshape
from .elementwise_ops import cast as _cast
from .fft_ops import resize as _resize
from .linalg_ops import matmul
from .registry import execute as _execute
from .registry import single_axis as _single_axis
from .special_ops import _bessel_scaled_np

_to_tensor = _core.convert_to_tensor


# ---- FFTs ---------------------------------------------------------------------------------

def _complex_input(fname, x, rank):
    x = _to_tensor(x)
    if x._value.dtype.kind != "c":
        raise InvalidArgumentError("%s: input must be complex64 or complex128 (got %s)"
                                   % (fname, x._value.dtype))
    if x._value.ndim < rank:
        raise InvalidArgumentError("%s: input must have rank >= %d (got shape %s)"
                                   % (fname, rank, list(x._value.shape)))
    return x


def _fft(fname, x, rank, inverse):
    x = _complex_input(fname, x, rank)
    axes = tuple(range(x._value.ndim - rank, x._value.ndim))
    return _execute(_f.fft_op, x, axes=axes, norm="backward", inverse=inverse)


def fft(input, name=None):
    """The discrete Fourier transform over the innermost axis (complex input)."""
    return _fft("fft", input, 1, False)


def ifft(input, name=None):
    """The inverse DFT over the innermost axis (scaled by 1/n)."""
    return _fft("ifft", input, 1, True)


def fft2d(input, name=None):
    """The 2-D DFT over the two innermost axes."""
    return _fft("fft2d", input, 2, False)


def ifft2d(input, name=None):
    """The inverse 2-D DFT over the two innermost axes."""
    return _fft("ifft2d", input, 2, True)


def fft3d(input, name=None):
    """The 3-D DFT over the three innermost axes."""
    return _fft("fft3d", input, 3, False)


def ifft3d(input, name=None):
    """The inverse 3-D DFT over the three innermost axes."""
    return _fft("ifft3d", input, 3, True)


def _fit(x, axis, n):
    """``x`` cropped or zero-padded to length ``n >= 1`` along ``axis``."""
    return _resize(x, axis, n, "signal")


def _lengths(fname, fft_length, rank, default):
    if fft_length is None:
        return list(default)
    lengths = [int(v) for v in np.asarray(
        fft_length._value if isinstance(fft_length, _core.Tensor) else fft_length
    ).reshape(-1)]
    if len(lengths) != rank or min(lengths) < 1:
        raise InvalidArgumentError("%s: fft_length must be %d positive ints (got %r)"
                                   % (fname, rank, fft_length))
    return lengths


def _real_input(fname, x, rank):
    x = _to_tensor(x)
    if x._value.dtype.kind not in "fiu":
        raise InvalidArgumentError("%s: input must be real (got %s)" % (fname, x._value.dtype))
    if x._value.dtype.kind != "f":
        x = _cast(x, np.float32)
    if x._value.ndim < rank:
        raise InvalidArgumentError("%s: input must have rank >= %d (got shape %s)"
                                   % (fname, rank, list(x._value.shape)))
    return x


def _rfft(fname, input_tensor, fft_length, rank):
    x = _real_input(fname, input_tensor, rank)
    r = x._value.ndim
    lengths = _lengths(fname, fft_length, rank, x._value.shape[r - rank:])
    for i, n in enumerate(lengths):
        x = _fit(x, r - rank + i, n)
    out = _execute(_f.rfft_op, x, axis=r - 1, norm="backward")
    if rank > 1:
        out = _execute(_f.fft_op, out, axes=tuple(range(r - rank, r - 1)), norm="backward",
                       inverse=False)
    return out


def _irfft(fname, input_tensor, fft_length, rank):
    x = _complex_input(fname, input_tensor, rank)
    r = x._value.ndim
    inner = x._value.shape[r - rank:]
    lengths = _lengths(fname, fft_length, rank,
                       list(inner[:-1]) + [2 * (inner[-1] - 1)])
    for i, n in enumerate(lengths[:-1]):
        x = _fit(x, r - rank + i, n)
    if rank > 1:
        x = _execute(_f.fft_op, x, axes=tuple(range(r - rank, r - 1)), norm="backward",
                     inverse=True)
    x = _fit(x, r - 1, lengths[-1] // 2 + 1)
    return _execute(_f.irfft_op, x, n=lengths[-1], axis=r - 1, norm="backward")


def rfft(input_tensor, fft_length=None, name=None):
    """The DFT of real input over the innermost axis: its ``fft_length // 2 + 1``
    non-negative frequencies (complex64 for float32)."""
    return _rfft("rfft", input_tensor, fft_length, 1)


def irfft(input_tensor, fft_length=None, name=None):
    """The real signal of length ``fft_length`` (default ``2 * (n - 1)``) whose half
    spectrum is ``input_tensor``."""
    return _irfft("irfft", input_tensor, fft_length, 1)


def rfft2d(input_tensor, fft_length=None, name=None):
    """The 2-D DFT of real input over the two innermost axes (half spectrum innermost)."""
    return _rfft("rfft2d", input_tensor, fft_length, 2)


def irfft2d(input_tensor, fft_length=None, name=None):
    """The inverse of ``rfft2d``."""
    return _irfft("irfft2d", input_tensor, fft_length, 2)


def rfft3d(input_tensor, fft_length=None, name=None):
    """The 3-D DFT of real input over the three innermost axes (half spectrum innermost)."""
    return _rfft("rfft3d", input_tensor, fft_length, 3)


def irfft3d(input_tensor, fft_length=None, name=None):
    """The inverse of ``rfft3d``."""
    return _irfft("irfft3d", input_tensor, fft_length, 3)


def _shift(fname, x, axes, sign):
    x = _to_tensor(x)
    r = x._value.ndim
    if axes is None:
        axes = list(range(r))
    elif np.ndim(axes) == 0:
        axes = [int(axes)]
    key = [slice(None)] * r
    for a in axes:
        a = _single_axis(fname, a, r, "axes")
        n = x._value.shape[a]
        idx = np.roll(np.arange(n), sign * (n // 2))
        shape = [1] * r
        shape[a] = n
        key[a] = idx.reshape(shape)
    # fill the other axes with broadcasting aranges so every index array lines up
    for a in range(r):
        if isinstance(key[a], slice):
            shape = [1] * r
            shape[a] = x._value.shape[a]
            key[a] = np.arange(x._value.shape[a]).reshape(shape)
    return _execute(_getitem, x, key=tuple(key)) if r else x


def fftshift(x, axes=None, name=None):
    """Moves the zero frequency to the centre (a roll by ``n // 2`` along ``axes``)."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of ``fftshift``."""
    return _shift("ifftshift", x, axes, -1)


# ---- framing ------------------------------------------------------------------------------

def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of ``frame_length`` samples every ``frame_step`` along ``axis``: that axis
    becomes ``[frames, frame_length]``. ``pad_end`` pads the end with ``pad_value`` so
    every sample starts a frame's step (``ceil(n / step)`` frames)."""
    x = _to_tensor(signal)
    if x._value.ndim == 0:
        raise InvalidArgumentError("frame: signal must have rank >= 1 (got a scalar)")
    length = int(frame_length)
    step = int(frame_step)
    if length < 1 or step < 1:
        raise InvalidArgumentError("frame: frame_length and frame_step must be positive "
                                   "(got %d and %d)" % (length, step))
    ax = _single_axis("frame", axis, x._value.ndim)
    n = x._value.shape[ax]
    if pad_end:
        frames = -(-n // step)
        needed = max((frames - 1) * step + length - n, 0)
        if needed:
            widths = [[0, 0]] * x._value.ndim
            widths[ax] = [0, needed]
            x = _pad(x, widths, constant_values=pad_value)
    else:
        frames = 1 + (n - length) // step if n >= length else 0
    idx = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).astype(np.int64)
    if frames == 0:
        shape = list(x._value.shape)
        shape[ax:ax + 1] = [0, length]
        return _core.wrap(np.zeros(shape, x._value.dtype))
    return _execute(_getitem, x, key=(slice(None),) * ax + (idx,))


def overlap_and_add(signal, frame_step, name=None):
    """The sum of frames ``signal[..., frames, frame_length]`` placed ``frame_step``
    apart: length ``(frames - 1) * frame_step + frame_length``."""
    x = _to_tensor(signal)
    if x._value.ndim < 2:
        raise InvalidArgumentError("overlap_and_add: signal must have rank >= 2 (got shape "
                                   "%s)" % list(x._value.shape))
    step = int(frame_step)
    *batch, frames, length = x._value.shape
    if step < 1:
        raise InvalidArgumentError("overlap_and_add: frame_step must be positive (got %d)"
                                   % step)
    sub = -(-length // step)        # each frame as `sub` rows of `step` samples
    b = len(batch)
    x = _pad(x, [[0, 0]] * (b + 1) + [[0, sub * step - length]])
    x = _reshape(x, tuple(batch) + (frames, sub, step))
    total = None
    for s in range(sub):            # row s of frame f lands at output row f + s
        part = _execute(_getitem, x, key=(Ellipsis, slice(None), s, slice(None)))
        part = _pad(part, [[0, 0]] * b + [[s, sub - 1 - s], [0, 0]])
        total = part if total is None else total + part
    out = _reshape(total, tuple(batch) + ((frames + sub - 1) * step,))
    return _execute(_getitem, out,
                    key=(Ellipsis, slice(0, (frames - 1) * step + length)))


# ---- windows ------------------------------------------------------------------------------

def _raised_cosine(fname, window_length, periodic, dtype, a, b):
    n = int(window_length)
    np_dtype = as_dtype(dtype)._np
    if np_dtype.kind != "f":
        raise InvalidArgumentError("%s: dtype must be floating point (got %s)"
                                   % (fname, np_dtype))
    if n == 1:
        return _core.wrap(np.ones(1, np_dtype))
    denom = n + (1 if periodic and n % 2 == 0 else 0) - 1
    k = np.arange(n, dtype=np.float64)
    return _core.wrap((a - b * np.cos(2 * math.pi * k / denom)).astype(np_dtype))


def hann_window(window_length, periodic=True, dtype=np.float32, name=None):
    """``0.5 - 0.5 cos(2 pi k / N)``, the Hann window."""
    return _raised_cosine("hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=np.float32, name=None):
    """``0.54 - 0.46 cos(2 pi k / N)``, the Hamming window."""
    return _raised_cosine("hamming_window", window_length, periodic, dtype, 0.54, 0.46)


# ---- short-time Fourier transform ---------------------------------------------------------

def _default_fft_length(frame_length):
    return 1 << max(int(frame_length) - 1, 0).bit_length()


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """The short-time Fourier transform: windowed frames of ``signals`` (real, innermost
    axis), each ``rfft``-ed to ``fft_length // 2 + 1`` bins (``fft_length`` defaults to
    the next power of two of ``frame_length``)."""
    x = _real_input("stft", signals, 1)
    n_fft = _default_fft_length(frame_length) if fft_length is None else int(fft_length)
    frames = frame(x, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        frames = frames * window_fn(int(frame_length), dtype=x._value.dtype)
    return rfft(frames, [n_fft])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function that makes ``inverse_stft`` invert ``stft`` made with
    ``forward_window_fn``: the forward window divided by the overlapping sum of its
    squares."""
    step = int(frame_step)

    def window(frame_length, dtype=np.float32):
        forward = np.asarray(forward_window_fn(frame_length, dtype=dtype).numpy())
        overlaps = -(-int(frame_length) // step)
        squares = np.pad(forward ** 2, (0, overlaps * step - int(frame_length)))
        denom = np.tile(squares.reshape(overlaps, step).sum(0), overlaps)
        return _core.wrap((forward / denom[:int(frame_length)]).astype(forward.dtype))
    return window


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """Frames back from ``stfts`` (``irfft``), windowed, then overlap-added. With
    ``window_fn=inverse_stft_window_fn(frame_step)`` this inverts ``stft``."""
    x = _complex_input("inverse_stft", stfts, 2)
    length = int(frame_length)
    n_fft = _default_fft_length(length) if fft_length is None else int(fft_length)
    frames = irfft(x, [n_fft])
    frames = _fit(frames, frames._value.ndim - 1, length)
    if window_fn is not None:
        frames = frames * window_fn(length, dtype=frames._value.dtype)
    return overlap_and_add(frames, frame_step)


def kaiser_window(window_length, beta=12.0, dtype=np.float32, name=None):
    """``I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)``, the Kaiser window."""
    np_dtype = _window_dtype("kaiser_window", dtype)
    n = int(window_length)
    if n == 1:
        return _core.wrap(np.ones(1, np_dtype))
    ratio = 2.0 * np.arange(n) / (n - 1) - 1.0
    arg = float(beta) * np.sqrt(np.maximum(1.0 - ratio * ratio, 0.0))
    # scaled Bessel functions: I0(a)/I0(b) = i0e(a)/i0e(b) e^(a - b), finite for any beta
    w = _bessel_scaled_np(arg, 0) / _bessel_scaled_np(np.array(float(beta)), 0) * np.exp(
        arg - float(beta))
    return _core.wrap(w.astype(np_dtype))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=np.float32, name=None):
    """The Kaiser-Bessel-derived window: ``sqrt`` of the normalized running sum of a
    Kaiser window of ``window_length // 2 + 1`` points, mirrored (TensorFlow's
    construction: ``2 * (window_length // 2)`` points)."""
    np_dtype = _window_dtype("kaiser_bessel_derived_window", dtype)
    half = int(window_length) // 2
    kaiser = np.asarray(kaiser_window(half + 1, beta, dtype=np.float64).numpy())
    running = np.cumsum(kaiser)
    rising = np.sqrt(running[:-1] / running[-1])
    return _core.wrap(np.concatenate([rising, rising[::-1]]).astype(np_dtype))


def vorbis_window(window_length, dtype=np.float32, name=None):
    """``sin(pi/2 sin^2(pi (k + 1/2) / N))``, the Vorbis power-complementary window."""
    np_dtype = _window_dtype("vorbis_window", dtype)
    k = np.arange(int(window_length), dtype=np.float64)
    w = np.sin(0.5 * math.pi * np.sin(math.pi * (k + 0.5) / int(window_length)) ** 2)
    return _core.wrap(w.astype(np_dtype))


def _window_dtype(fname, dtype):
    np_dtype = as_dtype(dtype)._np
    if np_dtype.kind != "f":
        raise InvalidArgumentError("%s: dtype must be floating point (got %s)"
                                   % (fname, np_dtype))
    return np_dtype


# ---- discrete cosine transforms -----------------------------------------------------------

def _dct_matrix(kind, n, norm):
    """The [n, n] matrix C of the type-``kind`` DCT (y = C x), SciPy's conventions (which
    TensorFlow's follow), with the orthonormal scaling for ``norm='ortho'``."""
    j = np.arange(n)[None, :]       # input index
    k = np.arange(n)[:, None]       # output index
    if kind == 1:
        c = 2.0 * np.cos(math.pi * k * j / (n - 1))
        c[:, 0] = 1.0
        c[:, -1] = (-1.0) ** np.arange(n)
    elif kind == 2:
        c = 2.0 * np.cos(math.pi * k * (2 * j + 1) / (2 * n))
        if norm == "ortho":
            c = c * np.where(k == 0, math.sqrt(1.0 / (4 * n)), math.sqrt(1.0 / (2 * n)))
    elif kind == 3:
        c = 2.0 * np.cos(math.pi * j * (2 * k + 1) / (2 * n))
        c[:, 0] = 1.0
        if norm == "ortho":
            c = c * np.where(j == 0, math.sqrt(1.0 / n), math.sqrt(1.0 / (2 * n)))
    else:
        c = 2.0 * np.cos(math.pi * (2 * k + 1) * (2 * j + 1) / (4 * n))
        if norm == "ortho":
            c = c * math.sqrt(1.0 / (2 * n))
    return c


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's name
    """The discrete cosine transform of types 1-4 along the last axis (``n`` crops or
    zero-pads it first; ``norm='ortho'`` for types 2-4), as a product with the DCT
    matrix: exact and differentiable.

    >>> fe.signal.dct([1., 2., 4., 7.], norm="ortho").numpy()
    array([ 7.       , -4.4608855,  1.       , -0.3170253], dtype=float32)
    """
    if type not in (1, 2, 3, 4):
        raise ValueError("dct: only types 1, 2, 3 and 4 are supported (got %r)" % (type,))
    if axis != -1:
        raise NotImplementedError("dct: axis must be -1 (got %r)" % (axis,))
    if norm not in (None, "ortho"):
        raise ValueError("dct: unknown normalization %r (expected None or 'ortho')" % (norm,))
    if type == 1 and norm == "ortho":
        raise ValueError("dct: normalization is not supported for the type-1 DCT")
    x = _real_input("dct", input, 1)
    last = x._value.ndim - 1
    if n is not None:
        if int(n) < 1:
            raise ValueError("dct: n must be positive (got %r)" % (n,))
        x = _fit(x, last, int(n))
    size = x._value.shape[last]
    if type == 1 and size < 2:
        raise ValueError("dct: the type-1 DCT needs at least 2 points (got %d)" % size)
    c = _core.wrap(_dct_matrix(type, size, norm).T.astype(x._value.dtype))
    flat = _reshape(x, (-1, size))
    return _reshape(matmul(flat, c), x._value.shape)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's name
    """The inverse DCT: type 2 and 3 invert each other, 1 and 4 themselves (exactly with
    ``norm='ortho'``; unnormalized, up to TensorFlow's scale factors)."""
    if type not in (1, 2, 3, 4):
        raise ValueError("idct: only types 1, 2, 3 and 4 are supported (got %r)" % (type,))
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm)


# ---- mel spectrograms ---------------------------------------------------------------------

def _hertz_to_mel(f):
    return 1127.0 * np.log1p(f / 700.0)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=np.float32, name=None):
    """The [num_spectrogram_bins, num_mel_bins] matrix mapping a linear spectrogram to mel
    bands: triangles spaced evenly in mel (``1127 ln(1 + f / 700)``); the DC bin gets no
    weight."""
    if int(num_mel_bins) <= 0:
        raise ValueError("num_mel_bins must be positive. Got: %r" % (num_mel_bins,))
    if float(sample_rate) <= 0:
        raise ValueError("sample_rate must be positive. Got: %r" % (sample_rate,))
    if float(lower_edge_hertz) < 0:
        raise ValueError("lower_edge_hertz must be non-negative. Got: %r" % (lower_edge_hertz,))
    if float(lower_edge_hertz) >= float(upper_edge_hertz):
        raise ValueError("lower_edge_hertz %r >= upper_edge_hertz %r"
                         % (lower_edge_hertz, upper_edge_hertz))
    if float(upper_edge_hertz) > float(sample_rate) / 2:
        raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency "
                         "(sample_rate / 2). Got %r for sample_rate: %r"
                         % (upper_edge_hertz, sample_rate))
    np_dtype = _window_dtype("linear_to_mel_weight_matrix", dtype)
    nyquist = float(sample_rate) / 2.0
    bins_mel = _hertz_to_mel(np.linspace(0.0, nyquist, int(num_spectrogram_bins))[1:])[:, None]
    edges = np.linspace(_hertz_to_mel(float(lower_edge_hertz)),
                        _hertz_to_mel(float(upper_edge_hertz)), int(num_mel_bins) + 2)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    rising = (bins_mel - lower) / (center - lower)
    falling = (upper - bins_mel) / (upper - center)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    return _core.wrap(np.pad(weights, [(1, 0), (0, 0)]).astype(np_dtype))


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the unnormalized type-2 DCT of log-mel spectrograms over the last axis,
    times ``rsqrt(2 num_mel_bins)`` (TensorFlow's scaling)."""
    x = _real_input("mfccs_from_log_mel_spectrograms", log_mel_spectrograms, 1)
    bins = x._value.shape[-1]
    if bins < 1:
        raise ValueError("mfccs_from_log_mel_spectrograms: the last dimension must be "
                         "positive (got %d)" % bins)
    return dct(x, type=2) * (1.0 / math.sqrt(2.0 * bins))


# ---- modified DCT -------------------------------------------------------------------------

def _reversed(x):
    n = x._value.shape[-1]
    return _execute(_getitem, x, key=(Ellipsis, slice(n - 1, None, -1) if n else slice(0, 0)))


def _quarters(x, parts):
    n = x._value.shape[-1] // parts
    return [_execute(_getitem, x, key=(Ellipsis, slice(i * n, (i + 1) * n)))
            for i in range(parts)]


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None,
         name=None):
    """The modified DCT of half-overlapping frames: each windowed frame ``(a, b, c, d)``
    (quarters) folded to ``(-c_r - d, a - b_r)`` (``_r``: reversed) and DCT-IV-ed
    (``frame_length`` a multiple of 4; window None scales by ``1/sqrt(2)``)."""
    length = int(frame_length)
    if length % 4:
        raise ValueError("mdct: the frame length must be a multiple of 4 (got %d)" % length)
    x = _real_input("mdct", signals, 1)
    frames = frame(x, length, length // 2, pad_end=pad_end)
    frames = frames * (window_fn(length, dtype=frames._value.dtype) if window_fn is not None
                       else 1.0 / math.sqrt(2.0))
    a, b, c, d = _quarters(frames, 4)
    folded = concat([-_reversed(c) - d, a - _reversed(b)], axis=-1)
    return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The inverse of ``mdct``: DCT-IV, unfolded to full frames, windowed, overlap-added
    (with a power-complementary window, e.g. the default Vorbis one, it reconstructs the
    signal away from the ends)."""
    x = _real_input("inverse_mdct", mdcts, 1)
    half = x._value.shape[-1]
    if norm not in (None, "ortho"):
        raise ValueError("inverse_mdct: unknown normalization %r (expected None or 'ortho')"
                         % (norm,))
    inner = dct(x, type=4) * (0.5 / half) if norm is None else dct(x, type=4, norm="ortho")
    first, second = _quarters(inner, 2)
    frames = concat([second, -_reversed(second), -_reversed(first), -first], axis=-1)
    frames = frames * (window_fn(2 * half, dtype=frames._value.dtype) if window_fn is not None
                       else 1.0 / math.sqrt(2.0))
    return overlap_and_add(frames, half)


# these were defined in fasteager.signal, the public module that re-exports them: they keep
# that module name (printed and pickled by reference as before)
for _public in (fft, ifft, fft2d, ifft2d, fft3d, ifft3d, rfft, irfft, rfft2d, irfft2d, rfft3d,
                irfft3d, fftshift, ifftshift, frame, overlap_and_add, hann_window,
                hamming_window, stft, inverse_stft_window_fn, inverse_stft, kaiser_window,
                kaiser_bessel_derived_window, vorbis_window, dct, idct,
                linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms, mdct,
                inverse_mdct):
    _public.__module__ = "fasteager.signal"
del _public
