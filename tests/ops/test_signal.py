"""fe.signal: FFTs, shifts, framing, windows and the STFT against NumPy and values printed
by TensorFlow 2.21; gradients of the composites against finite differences."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

sig = fe.signal


def close(t, want, dtype=None, rtol=1e-6, atol=1e-6):
    assert isinstance(t, fe.Tensor)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    np.testing.assert_allclose(t.numpy(), np.asarray(want), rtol=rtol, atol=atol)


def test_complex_ffts():
    x = fe.constant([1 + 0j, 2, 3, 4], fe.complex64)
    close(sig.fft(x), [10, -2 + 2j, -2, -2 - 2j], fe.complex64)
    close(sig.ifft(x), [2.5, -0.5 - 0.5j, -0.5, -0.5 + 0.5j], fe.complex64)
    close(sig.fft2d(fe.constant([[1 + 0j, 2], [3, 4]], fe.complex64)), [[10, -2], [-4, 0]])
    z = np.random.default_rng(0).standard_normal((2, 3, 4, 5)) * (1 + 0.5j)
    close(sig.fft3d(z), np.fft.fftn(z, axes=(1, 2, 3)), fe.complex128, rtol=1e-12)
    close(sig.ifft2d(sig.fft2d(z)), z, rtol=1e-12, atol=1e-12)
    with pytest.raises(fe.errors.InvalidArgumentError, match="complex64 or complex128"):
        sig.fft(fe.constant([1., 2.]))


def test_real_ffts():
    close(sig.rfft([1., 2., 3., 4.]), [10, -2 + 2j, -2], fe.complex64)
    close(sig.rfft([1., 2., 3., 4.], fft_length=[6]),
          [10, -3.5 - 4.330127j, 2.5 + 0.866025j, -2])
    close(sig.rfft([1., 2., 3., 4.], fft_length=[2]), [3, -1])
    close(sig.rfft(fe.constant([1., 2.], fe.float64)), [3, -1], fe.complex128)
    spec = fe.constant([10 + 0j, -2 + 2j, -2], fe.complex64)
    close(sig.irfft(spec), [1., 2., 3., 4.], fe.float32)
    close(sig.irfft(spec, fft_length=[5]), [0.4, 1.639155, 1.929772, 2.870228, 3.160845])
    x = fe.constant([[1., 2, 3], [3, 4, 5]])
    close(sig.rfft2d(x), [[18, -3 + 1.732051j], [-6, 0]])
    close(sig.irfft2d(sig.rfft2d(x), fft_length=[2, 3]), x)
    check_grads(lambda t: fe.math.real(sig.rfft(t, [6])) + fe.math.imag(sig.rfft(t, [6])),
                [[0.5, -1.0, 2.0, 0.3]])


def test_shifts():
    close(sig.fftshift(fe.range(5)), [3, 4, 0, 1, 2], fe.int32)
    close(sig.fftshift(fe.reshape(fe.range(6), [2, 3]), axes=1), [[2, 0, 1], [5, 3, 4]])
    close(sig.ifftshift(fe.range(5)), [2, 3, 4, 0, 1])
    x = np.arange(24.).reshape(2, 3, 4)
    close(sig.fftshift(x), np.fft.fftshift(x))
    close(sig.ifftshift(sig.fftshift(x)), x)


def test_frame_and_overlap_and_add():
    close(sig.frame(fe.range(10), 4, 3), [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]])
    close(sig.frame(fe.range(10), 4, 3, pad_end=True, pad_value=-1)[-1], [9, -1, -1, -1])
    close(sig.frame(fe.reshape(fe.range(12), [6, 2]), 3, 2, axis=0),
          [[[0, 1], [2, 3], [4, 5]], [[4, 5], [6, 7], [8, 9]]])
    assert sig.frame(fe.range(3), 4, 3).shape == (0, 4)
    close(sig.overlap_and_add(fe.reshape(fe.range(12.), [3, 4]), 2),
          [0., 1., 6., 8., 14., 16., 10., 11.])
    # steps that do not divide the frame length, and batches
    frames = np.random.default_rng(1).standard_normal((2, 4, 5))
    want = np.zeros((2, 3 * 3 + 5))
    for f in range(4):
        want[:, f * 3:f * 3 + 5] += frames[:, f]
    close(sig.overlap_and_add(frames, 3), want, rtol=1e-12)
    check_grads(lambda t: sig.overlap_and_add(sig.frame(t, 4, 3), 3), [np.linspace(-1, 1, 11)])


def test_windows():
    close(sig.hann_window(5), [0., 0.5, 1., 0.5, 0.], fe.float32)
    close(sig.hann_window(5, periodic=False), [0., 0.5, 1., 0.5, 0.])   # odd: TF's rule
    close(sig.hann_window(4), [0., 0.5, 1., 0.5])
    close(sig.hann_window(4, periodic=False), [0., 0.75, 0.75, 0.])
    close(sig.hann_window(1), [1.])
    close(sig.hamming_window(4, dtype=fe.float64), [0.08, 0.54, 1., 0.54], fe.float64)


def test_stft_and_inverse():
    x = fe.constant(np.arange(16.) / 16, fe.float32)
    s = sig.stft(x, 8, 4)
    assert s.shape == (3, 5) and s.dtype == fe.complex64
    close(s[:, 0], [1., 2., 3.], rtol=1e-5)
    close(s[:, 1], [-0.5 + 0.239277j, -1. + 0.239277j, -1.5 + 0.239277j], rtol=1e-5)
    close(s[:, 2], [-0.051777j] * 3, atol=2e-6)
    assert sig.stft(x, 6, 4, fft_length=8, pad_end=True).shape == (4, 5)
    wave = fe.constant(np.sin(np.arange(64.)), fe.float32)
    s = sig.stft(wave, 16, 4)
    close(sig.inverse_stft(s, 16, 4, window_fn=sig.inverse_stft_window_fn(4))[20:26],
          [0.912945, 0.836656, -0.008851, -0.84622, -0.905578, -0.132352], atol=2e-6)
    close(sig.inverse_stft(s, 16, 4)[20:26],
          [1.369418, 1.254983, -0.013277, -1.269331, -1.358368, -0.198528], atol=2e-6)
    # the inverse window makes inverse_stft undo stft away from the edges
    back = sig.inverse_stft(s, 16, 4, window_fn=sig.inverse_stft_window_fn(4))
    close(back[12:48], wave[12:48], atol=1e-5)
    # (a ramp would put the Nyquist bin at 0, where abs has no derivative)
    check_grads(lambda t: fe.math.abs(sig.stft(t, 4, 2)),
                [np.random.default_rng(2).standard_normal(8)])


# DCT references: SciPy's conventions, which TensorFlow's follow, as explicit sums
def _dct_ref(x, kind, norm=None):
    n = x.shape[-1]
    j = np.arange(n)
    out = np.zeros_like(x)
    for k in range(n):
        if kind == 1:
            out[..., k] = (x[..., 0] + (-1) ** k * x[..., -1]
                           + 2 * np.sum(x[..., 1:-1] * np.cos(np.pi * k * j[1:-1] / (n - 1)),
                                        -1))
        elif kind == 2:
            out[..., k] = 2 * np.sum(x * np.cos(np.pi * k * (2 * j + 1) / (2 * n)), -1)
        elif kind == 3:
            out[..., k] = x[..., 0] + 2 * np.sum(
                x[..., 1:] * np.cos(np.pi * j[1:] * (2 * k + 1) / (2 * n)), -1)
        else:
            out[..., k] = 2 * np.sum(x * np.cos(np.pi * (2 * k + 1) * (2 * j + 1) / (4 * n)),
                                     -1)
    return out


def test_dct_idct():
    x = np.random.default_rng(3).standard_normal((3, 6))
    for kind in (1, 2, 3, 4):
        close(sig.dct(x, type=kind), _dct_ref(x, kind), rtol=1e-12, atol=1e-12)
    # orthonormal types 2 and 3 are each other's inverse, 4 its own
    for kind in (2, 3, 4):
        close(sig.idct(sig.dct(x, type=kind, norm="ortho"), type=kind, norm="ortho"), x,
              rtol=1e-12, atol=1e-12)
    close(sig.dct(fe.constant([[1., 2., 4., 7.]]), norm="ortho"),
          [[7., -4.460885, 1., -0.3170253]])
    close(sig.dct([[1., 2., 4., 7.]], n=6)[0, :3], [28., 3.207365, -17.320507], rtol=1e-6)
    close(sig.idct([[1., 2., 4., 7.]]), [[15.70994, -16.060434, 6.746725, -2.3962312]])
    with pytest.raises(ValueError, match="type-1"):
        sig.dct(x, type=1, norm="ortho")
    with pytest.raises(NotImplementedError, match="axis"):
        sig.dct(x, axis=0)
    check_grads(lambda t: sig.dct(t, type=2, norm="ortho"), [x[:1, :4]])


def test_windows_and_mel():
    close(sig.kaiser_window(5), [5.2773448e-05, 2.1567266e-01, 1., 2.1567266e-01,
                                 5.2773448e-05], fe.float32)
    close(sig.kaiser_window(4, beta=3.), [0.2048847, 0.8712419, 0.8712419, 0.2048847])
    close(sig.vorbis_window(4), [0.2280144, 0.9736578, 0.9736578, 0.2280142])
    mel = sig.linear_to_mel_weight_matrix(4, 5, 16, 1., 7., dtype=fe.float64)
    # TensorFlow's float32 kernel gives these to 5e-5 (its mel scale runs in float32)
    close(mel, [[0., 0., 0., 0.], [0.83629824, 0., 0., 0.], [0., 0.49467328, 0.50532672, 0.],
                [0., 0., 0., 0.83037964], [0., 0., 0., 0.]], rtol=1e-7)
    assert sig.linear_to_mel_weight_matrix().shape == (129, 20)
    with pytest.raises(ValueError, match="Nyquist"):
        sig.linear_to_mel_weight_matrix(4, 5, 16, 100., 3000.)
    log_mel = fe.constant([[1., 2., 4., 7.], [0., 1., -1., 3.]])
    close(sig.mfccs_from_log_mel_spectrograms(log_mel),
          [[9.899495, -4.460885, 1., -0.3170253], [2.1213202, -1.4186482, 1.4999999,
                                                    -2.118357]])


def test_transforms_trace_in_function():
    f = fe.function(lambda t: (fe.math.abs(sig.stft(t, 8, 4)), sig.dct(sig.frame(t, 8, 4))))
    x = fe.constant(np.sin(np.arange(32.)), fe.float32)
    for v in (x, 2 * x):
        spectrum, cosines = f(v)
        close(spectrum, fe.math.abs(sig.stft(v, 8, 4)), rtol=1e-6, atol=1e-6)
        close(cosines, sig.dct(sig.frame(v, 8, 4)), rtol=1e-6, atol=1e-6)


def test_rfft3d_and_kbd_window():
    x = np.random.default_rng(4).standard_normal((2, 3, 4, 6))
    close(sig.rfft3d(x), np.fft.rfftn(x, axes=(1, 2, 3)), fe.complex128, rtol=1e-12,
          atol=1e-12)
    close(sig.rfft3d(x, [2, 5, 4]), np.fft.rfftn(x, s=(2, 5, 4), axes=(1, 2, 3)), rtol=1e-12,
          atol=1e-12)
    close(sig.irfft3d(sig.rfft3d(x)), x, rtol=1e-12, atol=1e-12)
    close(sig.kaiser_bessel_derived_window(6), [0.007131, 0.7071068, 0.9999745, 0.9999745,
                                                0.7071068, 0.007131], fe.float32)
    close(sig.kaiser_bessel_derived_window(4, beta=2.),
          [0.4833917, 0.8754042, 0.8754042, 0.4833917])
    assert sig.kaiser_bessel_derived_window(7).shape == (6,)    # 2 * (7 // 2), as TF


def test_mdct_and_inverse():
    x = np.random.default_rng(1).standard_normal((2, 32))
    half, length = 8, 16
    got = sig.mdct(x, length)
    assert got.shape == (2, 3, half)
    # the textbook MDCT, 2 sum_n w_n x_n cos(pi/N (n + 1/2 + N/2)(k + 1/2)) (the DCT-IV's
    # factor 2 of TensorFlow's unnormalized convention)
    w = sig.vorbis_window(length, dtype=fe.float64).numpy()
    n, k = np.arange(length), np.arange(half)
    basis = np.cos(np.pi / half * (n[None, :] + 0.5 + half / 2) * (k[:, None] + 0.5))
    frames = np.stack([x[:, i:i + length] for i in range(0, 32 - length + 1, half)], axis=1)
    close(got, 2 * (frames * w) @ basis.T, rtol=1e-12, atol=1e-12)
    # the Vorbis window is power-complementary: the inverse reconstructs the inner samples
    for norm in (None, "ortho"):
        back = sig.inverse_mdct(sig.mdct(x, length, norm=norm), norm=norm)
        close(back[:, half:-half], x[:, half:-half], rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="multiple of 4"):
        sig.mdct(x, 10)
    check_grads(lambda t: sig.inverse_mdct(sig.mdct(t, 8)), [x[0, :16]])
