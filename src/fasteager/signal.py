"""``fe.signal``: FFTs over the innermost axes, shifts, framing, windows, the short-time
Fourier transform, DCTs and mel features, as ``tf.signal``.

The transforms run on the op table's ``fft``/``rfft``/``irfft`` ops (``ops/fft_ops.py``,
NumPy's pocketfft), so they are differentiable; framing and overlap-add are gathers and
sums of slices, differentiable too. TensorFlow's rules kept here: ``fft``/``ifft`` take
complex input only; ``fft_length`` crops or zero-pads the innermost axes first; windows
are float32 by default, and ``periodic`` changes only even-length windows (TensorFlow
computes ``n = length + periodic * (length is even) - 1``).

>>> fe.signal.rfft([1., 2., 3., 4.]).numpy()
array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
"""
from .ops.signal_ops import (dct, fft, fft2d, fft3d, fftshift, frame, hamming_window,  # noqa: F401
                             hann_window, idct, ifft, ifft2d, ifft3d, ifftshift, inverse_mdct,
                             inverse_stft, inverse_stft_window_fn, irfft, irfft2d, irfft3d,
                             kaiser_bessel_derived_window, kaiser_window,
                             linear_to_mel_weight_matrix, mdct, mfccs_from_log_mel_spectrograms,
                             overlap_and_add, rfft, rfft2d, rfft3d, stft, vorbis_window)
