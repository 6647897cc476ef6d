"""Keras 3's audio front ends: MelSpectrogram (an STFT power spectrum on a mel filter
bank, optionally in decibels) and STFTSpectrogram (the STFT as two fixed convolution
kernels from ``initializers.STFT``, with its output modes).

They follow Keras 3.15.1: the same frames (``keras.ops.stft`` centred with reflect
padding; STFTSpectrogram's strided convolution), mel matrix, decibel floor and layouts.
"""
import math
import warnings

from .. import backend as _backend
from .. import initializers
from .. import ops as kops
from .._image_utils import standardize_data_format
from .base import Layer

# the mel scale of Keras (and TensorFlow's signal.linear_to_mel_weight_matrix)
_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies):
    return _MEL_HIGH_FREQUENCY_Q * kops.log(1.0 + frequencies / _MEL_BREAK_FREQUENCY_HERTZ)


class MelSpectrogram(Layer):
    """The mel spectrogram of audio of shape ``(samples,)`` or ``(batch, samples)``:
    ``|stft|**mag_exp`` on ``num_mel_bins`` triangular mel bands between ``min_freq``
    and ``max_freq``, in decibels relative to ``ref_power`` (floored ``top_db`` below
    the batch's maximum) with ``power_to_db``; output ``(..., num_mel_bins, frames)``."""

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None,
                 window="hann", sampling_rate=16000, num_mel_bins=128, min_freq=20.0,
                 max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0, min_power=1e-10,
                 ref_power=1.0, **kwargs):
        self.fft_length = fft_length
        self.sequence_stride = sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError("`fft_length` must be greater than or equal to  `sequence_length`."
                             " Received: `sequence_length`=%s, `fft_length`=%s."
                             % (self.sequence_length, self.fft_length))
        self.window = window
        self.sampling_rate = sampling_rate
        self.num_mel_bins = num_mel_bins
        self.min_freq = min_freq
        self.max_freq = max_freq or int(sampling_rate / 2)
        self.power_to_db = power_to_db
        self.top_db = top_db
        self.mag_exp = mag_exp
        self.min_power = min_power
        self.ref_power = ref_power
        super().__init__(**kwargs)

    def _convert_input(self, x):
        dtype = self.dtype if self.dtype in ("float32", "float64") else "float32"
        return kops.convert_to_tensor(x, dtype=dtype)

    def call(self, inputs):
        real, imag = kops.stft(inputs, sequence_length=self.sequence_length,
                               sequence_stride=self.sequence_stride,
                               fft_length=self.fft_length, window=self.window, center=True)
        spec = kops.power(kops.sqrt(kops.square(real) + kops.square(imag)), self.mag_exp)
        matrix = self.linear_to_mel_weight_matrix(
            num_mel_bins=self.num_mel_bins, num_spectrogram_bins=spec.shape[-1],
            sampling_rate=self.sampling_rate, lower_edge_hertz=self.min_freq,
            upper_edge_hertz=self.max_freq)
        outputs = kops.tensordot(spec, matrix, axes=1)
        if self.power_to_db:
            outputs = self._dbscale(outputs)
        return kops.cast(kops.swapaxes(outputs, -1, -2), self.dtype)

    def _dbscale(self, inputs):
        log_spec = 10.0 * kops.log10(kops.maximum(inputs, self.min_power))
        ref = kops.abs(kops.convert_to_tensor(self.ref_power))
        log_spec = log_spec - 10.0 * kops.log10(kops.maximum(ref, self.min_power))
        return kops.maximum(log_spec, kops.max(log_spec) - self.top_db)

    def linear_to_mel_weight_matrix(self, num_mel_bins=20, num_spectrogram_bins=129,
                                    sampling_rate=8000, lower_edge_hertz=125.0,
                                    upper_edge_hertz=3800.0, dtype="float32"):
        """The ``(num_spectrogram_bins, num_mel_bins)`` matrix of triangular mel bands
        (the DC bin weighs nothing), as TensorFlow's ``linear_to_mel_weight_matrix``."""
        sampling_rate = kops.cast(sampling_rate, dtype)
        lower = kops.convert_to_tensor(lower_edge_hertz, dtype)
        upper = kops.convert_to_tensor(upper_edge_hertz, dtype)
        zero = kops.convert_to_tensor(0.0, dtype)
        linear = kops.linspace(zero, sampling_rate / 2.0, num_spectrogram_bins)[1:]
        bins_mel = kops.expand_dims(_hertz_to_mel(linear), 1)
        edges = kops.extract_sequences(
            kops.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2),
            sequence_length=3, sequence_stride=1)
        lower_mel, center_mel, upper_mel = (kops.reshape(t, [1, num_mel_bins])
                                            for t in kops.split(edges, 3, axis=1))
        lower_slopes = (bins_mel - lower_mel) / (center_mel - lower_mel)
        upper_slopes = (upper_mel - bins_mel) / (upper_mel - center_mel)
        weights = kops.maximum(zero, kops.minimum(lower_slopes, upper_slopes))
        return kops.pad(weights, [[1, 0], [0, 0]])

    def compute_output_shape(self, input_shape):
        def frames(n):
            return None if n is None else (n + self.sequence_stride + 1) // \
                self.sequence_stride
        if len(input_shape) == 1:
            return [self.num_mel_bins, frames(input_shape[0])]
        return [input_shape[0], self.num_mel_bins, frames(input_shape[1])]

    def get_config(self):
        config = super().get_config()
        config.update({
            "fft_length": self.fft_length, "sequence_stride": self.sequence_stride,
            "sequence_length": self.sequence_length, "window": self.window,
            "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
            "min_freq": self.min_freq, "max_freq": self.max_freq,
            "power_to_db": self.power_to_db, "top_db": self.top_db,
            "mag_exp": self.mag_exp, "min_power": self.min_power,
            "ref_power": self.ref_power})
        return config


_STFT_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")


class STFTSpectrogram(Layer):
    """The short-time Fourier transform of ``(batch, time, channels)`` signals (or
    channels first) as a strided 1-D convolution with fixed real/imaginary kernels
    (``initializers.STFT``: the window, ``scaling`` and ``periodic``); ``mode`` picks
    log magnitude, magnitude, power spectral density, real, imaginary, angle or both
    parts; each channel's frequencies are stacked (or a new axis with
    ``expand_dims``)."""

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None,
                 window="hann", periodic=False, scaling="density", padding="valid",
                 expand_dims=False, data_format=None, **kwargs):
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError("`frame_step` should be a positive integer not greater than "
                             "`frame_length`. Received frame_step=%s, frame_length=%s"
                             % (frame_step, frame_length))
        if fft_length is not None and fft_length < frame_length:
            raise ValueError("`fft_length` should be not less than `frame_length`. Received "
                             "fft_length=%s, frame_length=%s" % (fft_length, frame_length))
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn("`fft_length` is recommended to be a power of two. Received "
                          "fft_length=%s" % fft_length, stacklevel=2)
        if mode not in _STFT_MODES:
            raise ValueError("Output mode is invalid, it must be one of %s. Received: mode=%s"
                             % (", ".join(_STFT_MODES), mode))
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError("Scaling is invalid, it must be `None`, 'density' or "
                             "'spectrum'. Received scaling=%s" % (scaling,))
        if padding not in ("valid", "same"):
            raise ValueError("Padding is invalid, it should be 'valid', 'same'. Received: "
                             "padding=%s" % (padding,))
        super().__init__(**kwargs)
        self.mode = mode
        self.frame_length = frame_length
        self.frame_step = frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** math.ceil(math.log2(frame_length))
        self.window = window
        self.periodic = periodic
        self.scaling = scaling
        self.padding = padding
        self.expand_dims = expand_dims
        self.data_format = standardize_data_format(data_format)
        self._input_ndim = 3

    def build(self, input_shape):
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(
                name="real_kernel", shape=shape,
                initializer=initializers.STFT("real", self.window, self.scaling,
                                              self.periodic))
        if self.mode != "real":
            self.imag_kernel = self.add_weight(
                name="imag_kernel", shape=shape,
                initializer=initializers.STFT("imag", self.window, self.scaling,
                                              self.periodic))
        self.built = True

    def _apply_conv(self, inputs, kernel):
        if self.data_format == "channels_last":
            _, time_seq, channels = inputs.shape
            inputs = kops.reshape(kops.transpose(inputs, [0, 2, 1]), [-1, time_seq, 1])
        else:
            _, channels, time_seq = inputs.shape
            inputs = kops.reshape(inputs, [-1, 1, time_seq])
        outputs = kops.conv(inputs, kops.cast(kernel, inputs.dtype), padding=self.padding,
                            strides=self._frame_step, data_format=self.data_format)
        if self.data_format == "channels_last":
            _, time_seq, freq = outputs.shape
            outputs = kops.transpose(outputs, [0, 2, 1])
        else:
            _, freq, time_seq = outputs.shape
        return kops.reshape(outputs, [-1, channels, freq, time_seq])

    def _adjust_shapes(self, outputs):
        _, channels, freq, time_seq = outputs.shape
        if self.data_format == "channels_last":
            if self.expand_dims:
                return kops.transpose(outputs, [0, 3, 2, 1])
            outputs = kops.reshape(outputs, [-1, channels * freq, time_seq])
            return kops.transpose(outputs, [0, 2, 1])
        if self.expand_dims:
            return kops.transpose(outputs, [0, 1, 3, 2])
        return kops.reshape(outputs, [-1, channels * freq, time_seq])

    def call(self, inputs):
        if inputs.dtype.name not in ("float16", "float32", "float64"):
            raise TypeError("Invalid input type. Expected `float16`, `float32` or `float64`. "
                            "Received: input type=%s" % inputs.dtype.name)
        real = self._apply_conv(inputs, self.real_kernel) if self.mode != "imag" else None
        imag = self._apply_conv(inputs, self.imag_kernel) if self.mode != "real" else None
        if self.mode == "real":
            return self._adjust_shapes(real)
        if self.mode == "imag":
            return self._adjust_shapes(imag)
        if self.mode == "angle":
            return self._adjust_shapes(kops.arctan2(imag, real))
        if self.mode == "stft":
            return self._adjust_shapes(kops.concatenate([real, imag], axis=2))
        power = kops.square(real) + kops.square(imag)
        if self.mode == "psd":
            # the one-sided density: every bin but DC and Nyquist counts twice
            return self._adjust_shapes(
                power + kops.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]]))
        linear = self._adjust_shapes(kops.sqrt(kops.maximum(power, _backend.epsilon())))
        if self.mode == "magnitude":
            return linear
        return kops.log(kops.maximum(linear, _backend.epsilon()))

    def get_config(self):
        config = super().get_config()
        config.update({
            "mode": self.mode, "frame_length": self.frame_length,
            "frame_step": self.frame_step, "fft_length": self.fft_length,
            "window": self.window, "periodic": self.periodic, "scaling": self.scaling,
            "padding": self.padding, "data_format": self.data_format,
            "expand_dims": self.expand_dims})
        return config
