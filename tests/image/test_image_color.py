"""fe.image colour spaces, saturation/hue/gamma, random and stateless augmentation, and
the crop/pad/gradient helpers, against values TensorFlow 2.21 returns (recorded here),
with TF's gradients (or their absence), dtypes and error classes."""
import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import FailedPreconditionError, InvalidArgumentError
from tests.gradcheck import check_grads

X = np.array([[[0.9, 0.2, 0.1], [0.3, 0.6, 0.2]], [[0.1, 0.4, 0.8], [0.5, 0.5, 0.5]]],
             np.float32)
U8 = np.array([[[229, 51, 25], [76, 153, 51]], [[25, 102, 204], [127, 127, 127]]], np.uint8)


def close(got, want, dtype=np.float32, atol=1e-6):
    assert got.dtype == tf.as_dtype(dtype), got.dtype
    np.testing.assert_allclose(got.numpy(), np.asarray(want, np.float64), atol=atol)


def test_rgb_to_hsv_and_back_as_tensorflow():
    hsv = [[[0.02083334, 0.88888884, 0.9], [0.2916667, 0.6666667, 0.6]],
           [[0.5952381, 0.875, 0.8], [0., 0., 0.5]]]
    close(tf.image.rgb_to_hsv(X), hsv)
    close(tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(X)), X)
    h = np.array([[[0.05, 0.8, 0.9], [0.3, 0.5, 0.6]], [[0.7, 1.0, 0.4], [0.95, 0.2, 1.0]]],
                 np.float32)
    close(tf.image.hsv_to_rgb(h), [[[0.9, 0.39599994, 0.17999998], [0.35999998, 0.6, 0.3]],
                                   [[0.07999992, 0., 0.4], [1., 0.8, 0.8600001]]])
    # hues outside [0, 1): TF's default sector (red), e.g. h = -0.5, 1.0, 1.2
    out = np.array([[-0.5, 0.5, 0.5], [1.0, 0.5, 0.5], [1.2, 0.5, 0.5]], np.float32)
    close(tf.image.hsv_to_rgb(out), [[0.5, 0.25, 0.25]] * 3)
    # integer and float64 inputs: float32 out, values not rescaled (TF)
    close(tf.image.rgb_to_hsv(np.array([[0, 10, 20]], np.uint8)), [[0.5833334, 1., 20.]])
    assert tf.image.rgb_to_hsv(X.astype(np.float64)).dtype == tf.float32
    with pytest.raises(FailedPreconditionError, match="rgb_to_hsv: input must have 3 channels"):
        tf.image.rgb_to_hsv(np.zeros((2, 4), np.float32))


def test_hsv_gradients_as_tensorflow():
    # rgb_to_hsv is float32 end to end (TF): a float32 central difference, loose tolerance
    rng = np.random.default_rng(0)
    x = rng.uniform(0.05, 0.95, (2, 3, 3)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3)).astype(np.float32)
    v = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.rgb_to_hsv(v) * w)
    grad = tape.gradient(y, v).numpy()
    eps, numeric = 1e-3, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (np.sum(tf.image.rgb_to_hsv(up).numpy() * w)
                      - np.sum(tf.image.rgb_to_hsv(down).numpy() * w)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, atol=2e-2)
    v = tf.Variable(X)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.hsv_to_rgb(v))
    assert tape.gradient(y, v) is None           # TF 2.21's HSVToRGB gradient is None


def test_yuv_yiq():
    yuv = tf.image.rgb_to_yuv(X)
    np.testing.assert_allclose(yuv.numpy()[0, 0], [0.3979, -0.14659986, 0.44048378], atol=1e-6)
    np.testing.assert_allclose(tf.image.rgb_to_yiq(X).numpy()[0, 0],
                               [0.3979, 0.44926476, 0.11692271], atol=1e-6)
    # TF's rounded kernels invert each other to about 1e-4
    close(tf.image.yuv_to_rgb(yuv), X, atol=1e-4)
    close(tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(X)), X, atol=1e-4)
    assert tf.image.rgb_to_yuv(X.astype(np.float64)).dtype == tf.float64
    with pytest.raises(TypeError, match="rgb_to_yuv"):
        tf.image.rgb_to_yuv(U8)


def test_adjust_saturation_and_hue_as_tensorflow():
    close(tf.image.adjust_saturation(X, 0.5),
          [[[0.9, 0.55, 0.5], [0.45, 0.6, 0.4]], [[0.45, 0.6, 0.8], [0.5, 0.5, 0.5]]])
    close(tf.image.adjust_hue(X, 0.25),
          [[[0.4, 0.9, 0.1], [0.2, 0.5, 0.6]], [[0.8, 0.1, 0.75], [0.5, 0.5, 0.5]]], atol=1e-6)
    sat = tf.image.adjust_saturation(U8, 1.8)
    assert sat.dtype == tf.uint8
    assert sat.numpy().tolist() == [[[229, 29, 0], [37, 153, 0]], [[0, 87, 204], [127, 127, 127]]]
    assert tf.image.adjust_hue(U8, -0.3).numpy().tolist() == \
        [[[91, 25, 229], [153, 51, 55]], [[66, 204, 25], [127, 127, 127]]]
    assert tf.image.adjust_saturation(X.astype(np.float64), 0.5).dtype == tf.float64
    with pytest.raises(InvalidArgumentError, match="adjust_saturation: input must have 3 ch"):
        tf.image.adjust_saturation(np.zeros((2, 2, 4), np.float32), 0.5)
    with pytest.raises(InvalidArgumentError, match="adjust_hue: input must be at least 3-D"):
        tf.image.adjust_hue(np.zeros((2, 3), np.float32), 0.5)
    v = tf.Variable(X)
    for fn in (tf.image.adjust_saturation, tf.image.adjust_hue):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(fn(v, 0.3))
        with pytest.raises(LookupError, match="gradient registry has no entry"):
            tape.gradient(y, v)


def test_adjust_gamma():
    close(tf.image.adjust_gamma(X, 2.0, 0.5),
          [[[0.405, 0.02, 0.005], [0.045, 0.18, 0.02]], [[0.005, 0.08, 0.32], [0.125] * 3]])
    assert tf.image.adjust_gamma(U8, 0.5).numpy().tolist() == \
        [[[242, 114, 80], [139, 197, 114]], [[80, 161, 228], [180, 180, 180]]]
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number"):
        tf.image.adjust_gamma(X, -1)
    # float64 images are computed in float32 (TF): check d/dx gain * x**gamma in closed form
    v = tf.Variable(X + 0.05)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.adjust_gamma(v, 0.7, 1.2))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 1.2 * 0.7 * (X + 0.05) ** -0.3,
                               rtol=1e-5)


def test_adjust_jpeg_quality():
    pytest.importorskip("PIL")
    y, x = np.mgrid[0:16, 0:16]
    img = np.stack([x * 15, y * 15, (x + y) * 7], axis=-1).astype(np.uint8)
    out = tf.image.adjust_jpeg_quality(img, 90)
    assert out.dtype == tf.uint8 and out.shape == (16, 16, 3)
    assert np.abs(out.numpy().astype(int) - img).mean() < 3
    f = tf.image.adjust_jpeg_quality(img / 255.0, 90)
    assert f.dtype == tf.float64
    assert tf.image.adjust_jpeg_quality(img[..., :1], 50).shape == (16, 16, 1)
    assert tf.image.random_jpeg_quality(img, 40, 60, seed=1).shape == (16, 16, 3)
    a = tf.image.stateless_random_jpeg_quality(img, 10, 90, seed=[1, 2])
    b = tf.image.stateless_random_jpeg_quality(img, 10, 90, seed=[1, 2])
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="`min_jpeg_quality` must be less than"):
        tf.image.random_jpeg_quality(img, 50, 40)


BATCH = np.random.default_rng(3).random((4, 5, 6, 3)).astype(np.float32)


@pytest.mark.parametrize("name,flip", [("flip_left_right", 2), ("flip_up_down", 1)])
def test_random_flips(name, flip):
    stateful = getattr(tf.image, "random_" + name)
    stateless = getattr(tf.image, "stateless_random_" + name)
    for images in (BATCH, BATCH[0]):
        flipped = np.flip(images, axis=flip - (images.ndim == 3))
        for out in (stateful(images, seed=5), stateless(images, seed=[1, 2])):
            out = out.numpy()
            pieces = zip(out, images, flipped) if images.ndim == 4 else [(out, images, flipped)]
            for o, i, f in pieces:
                assert np.array_equal(o, i) or np.array_equal(o, f)
    outs = {tuple(stateless(BATCH, seed=[s, 0]).numpy()[:, 0, 0, 0]) for s in range(12)}
    assert len(outs) > 1     # different seeds flip different images
    np.testing.assert_array_equal(stateless(BATCH, seed=[7, 8]).numpy(),
                                  stateless(BATCH, seed=[7, 8]).numpy())
    with pytest.raises(ValueError, match="must be at least three-dimensional"):
        stateful(BATCH[0, 0])


def test_random_colour_ops_ranges_and_determinism():
    img = BATCH[0]
    for _ in range(3):
        delta = tf.image.random_brightness(img, 0.2).numpy() - img
        assert np.allclose(delta, delta.flat[0], atol=1e-6) and abs(delta.flat[0]) <= 0.2
    for stateless, args in [(tf.image.stateless_random_brightness, (0.2,)),
                            (tf.image.stateless_random_contrast, (0.5, 1.5)),
                            (tf.image.stateless_random_saturation, (0.5, 1.5)),
                            (tf.image.stateless_random_hue, (0.2,))]:
        a, b = stateless(img, *args, seed=[3, 4]), stateless(img, *args, seed=[3, 4])
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert a.shape == img.shape and a.dtype == tf.float32
    assert tf.image.random_contrast(img, 0.5, 1.5, seed=1).shape == img.shape
    assert tf.image.random_saturation(img, 0.5, 1.5).shape == img.shape
    assert tf.image.random_hue(img, 0.5).shape == img.shape
    for call, match in [(lambda: tf.image.random_brightness(img, -1), "max_delta must be non"),
                        (lambda: tf.image.random_contrast(img, 0.5, 0.4), "upper must be >"),
                        (lambda: tf.image.random_contrast(img, -0.5, 0.4), "lower must be non"),
                        (lambda: tf.image.random_saturation(img, 0.5, 0.4), "upper must be >"),
                        (lambda: tf.image.random_hue(img, 0.6), r"max_delta must be <= 0.5"),
                        (lambda: tf.image.random_hue(img, -0.1), "max_delta must be non")]:
        with pytest.raises(ValueError, match=match):
            call()


def test_random_crop():
    value = np.arange(2 * 3 * 3).reshape(2, 3, 3)
    for out in (tf.image.random_crop(value, [1, 2, 3], seed=3),
                tf.image.stateless_random_crop(value, [1, 2, 3], seed=[1, 2])):
        o = out.numpy()
        assert o.shape == (1, 2, 3)
        assert any(np.array_equal(o, value[i:i + 1, j:j + 2]) for i in range(2)
                   for j in range(2))
    np.testing.assert_array_equal(tf.image.stateless_random_crop(value, [1, 2, 3], [5, 6]),
                                  tf.image.stateless_random_crop(value, [1, 2, 3], [5, 6]))
    assert tf.image.random_crop(value, [2, 3, 3]).numpy().tolist() == value.tolist()
    with pytest.raises(InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.random_crop(value, [3, 3, 3])
    with pytest.raises(InvalidArgumentError, match="random_crop"):
        tf.image.random_crop(value, [3, 3])
    v = tf.Variable(BATCH)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.stateless_random_crop(v, [4, 2, 2, 3], seed=[1, 1]))
    assert tape.gradient(y, v).numpy().sum() == 4 * 2 * 2 * 3


def test_resize_with_crop_or_pad_as_tensorflow():
    a = np.arange(12).reshape(3, 4, 1)
    assert tf.image.resize_with_crop_or_pad(a, 2, 7).numpy()[..., 0].tolist() == \
        [[0, 0, 1, 2, 3, 0, 0], [0, 4, 5, 6, 7, 0, 0]]
    assert tf.image.resize_with_crop_or_pad(a, 5, 1).numpy()[..., 0].tolist() == \
        [[0], [1], [5], [9], [0]]
    assert tf.image.resize_with_crop_or_pad(BATCH, 3, 8).shape == (4, 3, 8, 3)
    with pytest.raises(ValueError, match="target_height must be > 0"):
        tf.image.resize_with_crop_or_pad(a, 0, 1)
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.resize_with_crop_or_pad(a[..., 0], 2, 1)


def test_total_variation_and_gradients():
    out = tf.image.total_variation(X)
    assert out.shape == () and abs(float(out) - 4.2) < 1e-5
    batch = tf.image.total_variation(BATCH)
    assert batch.shape == (4,)
    ref = (np.abs(np.diff(BATCH, axis=1)).sum(axis=(1, 2, 3))
           + np.abs(np.diff(BATCH, axis=2)).sum(axis=(1, 2, 3)))
    np.testing.assert_allclose(batch.numpy(), ref, rtol=1e-5)
    check_grads(tf.image.total_variation, [BATCH[:2].astype(np.float64)], order=1)
    with pytest.raises(ValueError, match="must be either 3 or 4-dimensional"):
        tf.image.total_variation(X[0])
    with pytest.raises(InvalidArgumentError, match="total_variation"):
        tf.image.total_variation(U8)


def test_image_gradients():
    img = np.arange(1 * 3 * 4 * 1, dtype=np.float32).reshape(1, 3, 4, 1) ** 2
    dy, dx = tf.image.image_gradients(img)
    want_dy = np.zeros_like(img)
    want_dy[:, :-1] = img[:, 1:] - img[:, :-1]
    want_dx = np.zeros_like(img)
    want_dx[:, :, :-1] = img[:, :, 1:] - img[:, :, :-1]
    np.testing.assert_array_equal(dy.numpy(), want_dy)
    np.testing.assert_array_equal(dx.numpy(), want_dx)
    with pytest.raises(ValueError, match="image_gradients expects a 4D tensor"):
        tf.image.image_gradients(img[0])


def test_sobel_edges_as_tensorflow():
    y = np.arange(2 * 3 * 4 * 1, dtype=np.float32).reshape(2, 3, 4, 1) ** 1.5
    out = tf.image.sobel_edges(y)
    assert out.shape == (2, 3, 4, 1, 2) and out.dtype == tf.float32
    want = [[[0., 0.], [0., 19.050732], [0., 23.072142], [0., 0.]],
            [[97.25484, 0.], [103.42177, 25.217665], [114.87542, 28.35886], [120.16214, 0.]],
            [[0., 0.], [0., 31.384594], [0., 33.645584], [0., 0.]]]
    np.testing.assert_allclose(out.numpy()[0, :, :, 0, :], want, atol=1e-4)
    check_grads(tf.image.sobel_edges, [y[:1].astype(np.float64)], order=1)
    with pytest.raises(ValueError, match="sobel_edges"):
        tf.image.sobel_edges(y[0])
    with pytest.raises(InvalidArgumentError, match="float"):
        tf.image.sobel_edges(y.astype(np.uint8))


def test_against_tensorflow_live():
    real = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(9)
    x = rng.random((2, 5, 6, 3)).astype(np.float32)
    for name in ("rgb_to_hsv", "hsv_to_rgb", "rgb_to_yuv", "yuv_to_rgb", "rgb_to_yiq",
                 "yiq_to_rgb", "total_variation", "sobel_edges"):
        np.testing.assert_allclose(getattr(tf.image, name)(x).numpy(),
                                   getattr(real.image, name)(real.constant(x)).numpy(),
                                   atol=1e-5, err_msg=name)
    for f in (0.3, 1.7):
        np.testing.assert_allclose(tf.image.adjust_saturation(x, f).numpy(),
                                   real.image.adjust_saturation(x, f).numpy(), atol=1e-5)
        np.testing.assert_allclose(tf.image.adjust_hue(x, f - 1).numpy(),
                                   real.image.adjust_hue(x, f - 1).numpy(), atol=1e-5)
    v, rv = tf.Variable(x), real.Variable(x)
    with tf.GradientTape() as t1:
        y1 = tf.reduce_sum(tf.image.rgb_to_hsv(v) * np.float32(1.3))
    with real.GradientTape() as t2:
        y2 = real.reduce_sum(real.image.rgb_to_hsv(rv) * np.float32(1.3))
    np.testing.assert_allclose(t1.gradient(y1, v).numpy(), t2.gradient(y2, rv).numpy(),
                               atol=1e-4)
