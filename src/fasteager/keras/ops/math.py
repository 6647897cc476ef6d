"""``keras.ops`` math: segment reductions, top-k, logsumexp, pairwise distances, framing,
FFTs on (real, imag) pairs, STFT/ISTFT, and special functions — Keras 3.15's
``keras.src.ops.math`` with the TensorFlow backend's semantics, on fasteager's ops.

Keras passes complex values as a ``(real, imag)`` pair of float tensors and returns pairs.
"""
import fasteager as fe

from ..backend import standardize_dtype
from .core import convert_to_tensor

__all__ = [
    "cdist", "erf", "erfc", "erfinv", "extract_sequences", "fft", "fft2", "ifft2",
    "in_top_k", "irfft", "istft", "logdet", "logsumexp", "rfft", "rsqrt", "segment_max",
    "segment_min", "segment_prod", "segment_sum", "stft", "top_k", "view_as_complex",
    "view_as_real",
]


# ----- segment reductions -----

def _segment(kind, data, segment_ids, num_segments, sorted):
    data = convert_to_tensor(data)
    segment_ids = convert_to_tensor(segment_ids)
    if len(segment_ids.shape) > 1:
        raise ValueError(
            "Argument `segment_ids` should be an 1-D vector, got shape: %d. Consider either "
            "flatten input with segment_ids.reshape((-1)) and data.reshape((-1, ) + "
            "data.shape[len(segment_ids.shape):]) or vectorize with vmap."
            % len(segment_ids.shape))
    if segment_ids.shape[0] != data.shape[0]:
        raise ValueError("Argument `segment_ids` and `data` should have same leading "
                         "dimension. Got %s v.s. %s." % (tuple(segment_ids.shape),
                                                         tuple(data.shape)))
    if sorted:
        if num_segments is not None:
            raise ValueError(
                "Argument `num_segments` cannot be set when sorted is True when using the "
                "tensorflow backend.Received: num_segments=%s, sorted=%s."
                % (num_segments, sorted))
        return getattr(fe.math, "segment_" + kind)(data, segment_ids)
    if num_segments is None:
        if kind == "sum":
            # TF's backend counts distinct ids here (not max + 1, as for the others).
            num_segments = int(fe.unique(segment_ids)[0].shape[0])
        else:
            num_segments = fe.cast(fe.reduce_max(segment_ids) + 1, "int32")
    return getattr(fe.math, "unsorted_segment_" + kind)(data, segment_ids, num_segments)


def segment_sum(data, segment_ids, num_segments=None, sorted=False):
    """Sum of ``data``'s rows per segment id."""
    return _segment("sum", data, segment_ids, num_segments, sorted)


def segment_max(data, segment_ids, num_segments=None, sorted=False):
    """Max of ``data``'s rows per segment id (empty segments: the dtype's lowest value)."""
    return _segment("max", data, segment_ids, num_segments, sorted)


def segment_min(data, segment_ids, num_segments=None, sorted=False):
    """Min of ``data``'s rows per segment id (empty segments: the dtype's highest value)."""
    return _segment("min", data, segment_ids, num_segments, sorted)


def segment_prod(data, segment_ids, num_segments=None, sorted=False):
    """Product of ``data``'s rows per segment id (empty segments: 1)."""
    return _segment("prod", data, segment_ids, num_segments, sorted)


# ----- reductions and comparisons -----

def top_k(x, k, sorted=True):
    """The ``k`` largest entries of ``x``'s last axis and their indices."""
    return fe.math.top_k(x, k, sorted=sorted)


def in_top_k(targets, predictions, k):
    """Whether each target's prediction is among the row's ``k`` largest."""
    return fe.math.in_top_k(targets, predictions, k)


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` over ``axis``, computed stably."""
    return fe.math.reduce_logsumexp(x, axis=axis, keepdims=keepdims)


def cdist(x, y):
    """Euclidean distances between the rows of ``x`` and of ``y`` (batched)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y)
    if len(x.shape) < 2 or len(y.shape) < 2:
        raise ValueError("`cdist` inputs must have rank >= 2")
    if x.shape[-1] != y.shape[-1]:
        raise ValueError("Last dimension of inputs to `cdist` must match")
    diff = fe.expand_dims(x, -2) - fe.expand_dims(y, -3)
    return fe.sqrt(fe.reduce_sum(fe.square(diff), axis=-1))


def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` along the last axis, every ``sequence_stride``."""
    return fe.signal.frame(convert_to_tensor(x), frame_length=sequence_length,
                              frame_step=sequence_stride, axis=-1, pad_end=False)


# ----- FFTs on (real, imag) pairs -----

def _parts(x):
    """The validated ``(real, imag)`` float tensors of the pair ``x``."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError("Input `x` should be a tuple of two tensors - real and imaginary."
                         "Received: x=%s" % (x,))
    real, imag = convert_to_tensor(x[0]), convert_to_tensor(x[1])
    if tuple(real.shape) != tuple(imag.shape):
        raise ValueError(
            "Input `x` should be a tuple of two tensors - real and imaginary.Both the real "
            "and imaginary parts should have the same shape. Received: x[0].shape = %s, "
            "x[1].shape = %s" % (tuple(real.shape), tuple(imag.shape)))
    if not real.dtype.is_floating or not imag.dtype.is_floating:
        raise ValueError("At least one tensor in input `x` is not of type float.Received: "
                         "x=%s." % (x,))
    return real, imag


def _complex_from_pair(x):
    return fe.complex(*_parts(x))


def _pair(z):
    return fe.math.real(z), fe.math.imag(z)


def fft(x):
    """FFT over the last axis of the complex ``(real, imag)`` pair ``x``."""
    return _pair(fe.signal.fft(_complex_from_pair(x)))


def fft2(x):
    """2-D FFT over the last two axes of the ``(real, imag)`` pair ``x``."""
    return _pair(fe.signal.fft2d(_complex_from_pair(x)))


def ifft2(x):
    """Inverse 2-D FFT of the ``(real, imag)`` pair ``x``: conj(fft2(conj(x))) / (h * w)."""
    real, imag = _parts(x)
    n = fe.cast(real.shape[-2] * real.shape[-1], real.dtype)
    fr, fi = fft2((real, -imag))
    return fr / n, -fi / n


def rfft(x, fft_length=None):
    """FFT of the real ``x`` over its last axis (non-negative frequencies), as a pair."""
    if fft_length is not None:
        fft_length = [fft_length]
    return _pair(fe.signal.rfft(convert_to_tensor(x), fft_length=fft_length))


def irfft(x, fft_length=None):
    """Inverse of ``rfft``: the real signal of the ``(real, imag)`` half spectrum ``x``."""
    if fft_length is not None:
        fft_length = [fft_length]
    return fe.signal.irfft(_complex_from_pair(x), fft_length)


def _window(window, sequence_length, dtype, l_pad, r_pad):
    if isinstance(window, str):
        make = fe.signal.hann_window if window == "hann" else fe.signal.hamming_window
        win = make(sequence_length, periodic=True, dtype=dtype)
    else:
        win = convert_to_tensor(window, dtype=standardize_dtype(dtype))
    if len(win.shape) != 1 or win.shape[-1] != sequence_length:
        raise ValueError("The shape of `window` must be equal to [sequence_length]."
                         "Received: window shape=%s" % (tuple(win.shape),))
    return fe.pad(win, [[l_pad, r_pad]])


def _inverse_window(win, step):
    # The window that makes overlap-add invert the forward one: win / (overlapping sum of
    # win**2), as tf.signal.inverse_stft_window_fn, but in tensor ops so that a trainable
    # window gets its gradient (fe.signal's version computes in NumPy).
    n = int(win.shape[0])
    overlaps = -(-n // step)
    squares = fe.pad(win * win, [[0, overlaps * step - n]])
    denom = fe.tile(fe.reduce_sum(fe.reshape(squares, [overlaps, step]), axis=0), [overlaps])
    return win / denom[:n]


def _check_stride(sequence_stride):
    if not isinstance(sequence_stride, int) or sequence_stride <= 0:
        raise ValueError("`sequence_stride` must be a positive integer. Received: "
                         "sequence_stride=%s" % (sequence_stride,))


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Short-time Fourier transform of the real ``x`` over its last axis, as a pair."""
    _check_stride(sequence_stride)
    x = convert_to_tensor(x)
    if standardize_dtype(x.dtype) not in ("float32", "float64"):
        raise TypeError("Invalid input type. Expected `float32` or `float64`. Received: "
                        "input type=%s" % (x.dtype.name,))
    if fft_length < sequence_length:
        raise ValueError("`fft_length` must equal or larger than `sequence_length`. "
                         "Received: sequence_length=%s, fft_length=%s"
                         % (sequence_length, fft_length))
    if isinstance(window, str) and window not in ("hann", "hamming"):
        raise ValueError('If a string is passed to `window`, it must be one of `"hann"`, '
                         '`"hamming"`. Received: window=%s' % (window,))
    if center:
        pads = [[0, 0]] * (len(x.shape) - 1) + [[fft_length // 2, fft_length // 2]]
        x = fe.pad(x, pads, mode="REFLECT")
    l_pad = (fft_length - sequence_length) // 2
    r_pad = fft_length - sequence_length - l_pad
    win_fn = None
    if window is not None:
        win = _window(window, sequence_length, x.dtype, l_pad, r_pad)
        win_fn = lambda frame_length, dtype: win
    out = fe.signal.stft(x, frame_length=sequence_length + l_pad + r_pad,
                         frame_step=sequence_stride, fft_length=fft_length, window_fn=win_fn)
    return _pair(out)


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """Inverse of ``stft``: the real signal of the ``(real, imag)`` frames ``x``."""
    _check_stride(sequence_stride)
    z = _complex_from_pair(x)
    dtype = fe.math.real(z).dtype
    expected_len = fft_length + sequence_stride * (z.shape[-2] - 1)
    l_pad = (fft_length - sequence_length) // 2
    r_pad = fft_length - sequence_length - l_pad
    win_fn = None
    if window is not None:
        win = _inverse_window(_window(window, sequence_length, dtype, l_pad, r_pad),
                              sequence_stride)
        win_fn = lambda frame_length, dtype: win
    out = fe.signal.inverse_stft(z, frame_length=sequence_length + l_pad + r_pad,
                                 frame_step=sequence_stride, fft_length=fft_length,
                                 window_fn=win_fn)
    start = 0 if center is False else fft_length // 2
    if length is not None:
        end = start + length
    elif center is True:
        end = -(fft_length // 2)
    else:
        end = expected_len
    return out[..., start:end]


# ----- elementwise special functions -----

def rsqrt(x):
    """``1 / sqrt(x)``."""
    return fe.math.rsqrt(convert_to_tensor(x))


def erf(x):
    """The error function."""
    return fe.math.erf(convert_to_tensor(x))


def erfc(x):
    """The complementary error function ``1 - erf(x)``."""
    return fe.math.erfc(convert_to_tensor(x))


def erfinv(x):
    """The inverse error function (float16 computed in float32, as Keras)."""
    x = convert_to_tensor(x)
    if standardize_dtype(x.dtype) in ("bfloat16", "float16"):
        return fe.cast(fe.math.erfinv(fe.cast(x, "float32")), x.dtype)
    return fe.math.erfinv(x)


def logdet(x):
    """``log(det(x))`` of Hermitian positive-definite matrices."""
    return fe.linalg.logdet(convert_to_tensor(x))


# ----- complex views -----

def view_as_complex(x):
    """The complex64 tensor of ``x``'s last axis read as (real, imag)."""
    x = convert_to_tensor(x)
    if len(x.shape) < 1 or x.shape[-1] != 2:
        raise ValueError("Last dimension of input must be size 2 (real and imaginary). "
                         "Received shape: %s" % (tuple(x.shape),))
    real = fe.cast(x[..., 0], "complex64")
    imag = fe.cast(x[..., 1], "complex64")
    return real + fe.constant(1j, "complex64") * imag


def view_as_real(x):
    """``x``'s real and imaginary parts stacked on a new last axis."""
    x = convert_to_tensor(x)
    return fe.stack([fe.math.real(x), fe.math.imag(x)], axis=-1)
