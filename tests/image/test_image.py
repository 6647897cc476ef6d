"""fe.image: resize against per-pixel references written from TensorFlow's kernels (and
TensorFlow's printed values where known), gradients, and the colour/dtype/crop helpers."""
import math

import numpy as np
import pytest

import fasteager as tf
from fasteager.errors import InvalidArgumentError

f32 = np.float32


# ---- per-pixel references: one output pixel at a time, as TensorFlow's C++ kernels loop ----

def ref_bilinear(img, oh, ow):
    h, w, c = img.shape
    hs, ws = f32(h) / f32(oh), f32(w) / f32(ow)
    out = np.zeros((oh, ow, c), f32)
    for y in range(oh):
        in_y = (f32(y) + f32(.5)) * hs - f32(.5)
        top, bottom = max(math.floor(in_y), 0), min(math.ceil(in_y), h - 1)
        yl = f32(in_y - math.floor(in_y))
        for x in range(ow):
            in_x = (f32(x) + f32(.5)) * ws - f32(.5)
            left, right = max(math.floor(in_x), 0), min(math.ceil(in_x), w - 1)
            xl = f32(in_x - math.floor(in_x))
            t = img[top, left] + (img[top, right] - img[top, left]) * xl
            b = img[bottom, left] + (img[bottom, right] - img[bottom, left]) * xl
            out[y, x] = t + (b - t) * yl
    return out


def ref_nearest(img, oh, ow):
    h, w, _ = img.shape
    ys = [min(math.floor((y + .5) * (h / oh)), h - 1) for y in range(oh)]
    xs = [min(math.floor((x + .5) * (w / ow)), w - 1) for x in range(ow)]
    return img[ys][:, xs]


def ref_area(img, oh, ow):
    h, w, c = img.shape
    hs, ws = h / oh, w / ow
    out = np.zeros((oh, ow, c))
    for y in range(oh):
        for x in range(ow):
            acc = np.zeros(c)
            for i in range(math.floor(y * hs), math.ceil((y + 1) * hs)):
                wy = min(i + 1, (y + 1) * hs) - max(i, y * hs)
                for j in range(math.floor(x * ws), math.ceil((x + 1) * ws)):
                    wx = min(j + 1, (x + 1) * ws) - max(j, x * ws)
                    acc += wy * wx * img[min(i, h - 1), min(j, w - 1)]
            out[y, x] = acc / (hs * ws)
    return out


def _keys(t, a=-0.5):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def _lanczos3(t):
    t = abs(t)
    if t > 3:
        return 0.0
    if t <= 1e-3:
        return 1.0
    return 3 * math.sin(math.pi * t) * math.sin(math.pi * t / 3) / (math.pi ** 2 * t * t)


def _separable(img, oh, ow, taps):
    """Each output pixel as the sum over its (row, column) taps, ``taps(o, n_in, n_out)``
    giving (input index, weight) pairs, normalised to sum to one."""
    h, w, c = img.shape

    def normalised(o, n_in, n_out):
        pts = taps(o, n_in, n_out)
        total = sum(k for _, k in pts)
        return [(p, k / total) for p, k in pts]
    out = np.zeros((oh, ow, c))
    for y in range(oh):
        for x in range(ow):
            out[y, x] = sum(ky * kx * img[i, j] for i, ky in normalised(y, h, oh)
                            for j, kx in normalised(x, w, ow))
    return out


def _bicubic_taps(o, n_in, n_out):
    # Keys cubic at half-pixel centres; taps outside the image are dropped
    src = (o + .5) * (n_in / n_out) - .5
    base = math.floor(src)
    return [(p, _keys(src - p)) for p in range(base - 1, base + 3) if 0 <= p < n_in]


def _lanczos3_taps(o, n_in, n_out):
    # TF's scale_and_translate without antialias: the span around each sample
    sample = (o + .5) * (n_in / n_out)
    lo = min(max(math.ceil(sample - 3 - .5), 0), n_in - 1)
    hi = min(max(math.floor(sample + 3 - .5), 0), n_in - 1)
    return [(p, _lanczos3(p + .5 - sample)) for p in range(lo, hi + 1)]


def ref_bicubic(img, oh, ow):
    return _separable(img, oh, ow, _bicubic_taps)


def ref_lanczos3(img, oh, ow):
    return _separable(img, oh, ow, _lanczos3_taps)


SIZES = [(5, 7, 3, 4), (4, 4, 8, 8), (6, 3, 4, 7), (3, 5, 3, 5), (7, 6, 2, 3)]


@pytest.mark.parametrize("h,w,oh,ow", SIZES)
@pytest.mark.parametrize("method,ref,tol", [
    ("bilinear", ref_bilinear, 1e-6), ("nearest", ref_nearest, 0),
    ("area", ref_area, 1e-5), ("bicubic", ref_bicubic, 3e-3), ("lanczos3", ref_lanczos3, 1e-5)])
def test_resize_matches_the_reference(h, w, oh, ow, method, ref, tol):
    img = np.random.default_rng(h * 10 + w).uniform(0, 1, (h, w, 2)).astype(f32)
    got = tf.image.resize(img, [oh, ow], method=method)
    assert got.shape == (oh, ow, 2)
    assert got.dtype == tf.float32
    # bicubic reads TF's 1024-entry weight table: within its quantisation of the exact kernel
    np.testing.assert_allclose(got.numpy(), ref(img, oh, ow), rtol=0, atol=tol)


def test_resize_values_tensorflow_prints():
    x = tf.constant([[1., 2.], [3., 4.]])[None, :, :, None]
    np.testing.assert_allclose(tf.image.resize(x, [4, 4])[0, :, :, 0].numpy(),
                               [[1., 1.25, 1.75, 2.], [1.5, 1.75, 2.25, 2.5],
                                [2.5, 2.75, 3.25, 3.5], [3., 3.25, 3.75, 4.]])
    y = tf.constant(np.arange(16.).reshape(1, 4, 4, 1).astype(f32))
    np.testing.assert_allclose(tf.image.resize(y, [2, 2], method="area")[0, :, :, 0].numpy(),
                               [[2.5, 4.5], [10.5, 12.5]])
    # antialiased bilinear downscale: the triangle kernel widened 2x ((0+1)*3/7 + 2/7 ...)
    np.testing.assert_allclose(
        tf.image.resize(y, [2, 2], antialias=True)[0, :, :, 0].numpy(),
        [[25 / 7, 36 / 7], [69 / 7, 80 / 7]], rtol=1e-6)


def test_resize_dtypes_and_methods():
    img = tf.constant(np.arange(12, dtype=np.uint8).reshape(2, 2, 3))
    near = tf.image.resize(img, [4, 4], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    assert near.dtype == tf.uint8
    assert tf.image.resize(img, [3, 3]).dtype == tf.float32
    for m in ("lanczos5", "gaussian", "mitchellcubic"):
        out = tf.image.resize(tf.ones([5, 5, 1]), [3, 7], method=m)
        np.testing.assert_allclose(out.numpy(), 1, rtol=1e-6)      # weights sum to one
    assert tf.image.resize(tf.ones([2, 4, 6, 1]), [3, 3]).shape == (2, 3, 3, 1)
    assert tf.image.resize(tf.ones([4, 8, 1]), [4, 4], preserve_aspect_ratio=True).shape == \
        (2, 4, 1)
    with pytest.raises(InvalidArgumentError, match="resize: unknown method 'cubic'"):
        tf.image.resize(img, [2, 2], method="cubic")
    with pytest.raises(ValueError, match="resize: image must have rank 3"):
        tf.image.resize(tf.ones([2, 2]), [2, 2])
    with pytest.raises(InvalidArgumentError, match="size must be"):
        tf.image.resize(img, [0, 2])


@pytest.mark.parametrize("method", ["bilinear", "bicubic", "area", "lanczos3"])
def test_resize_gradient_is_the_transposed_resampling(method):
    # resize is linear in the image: finite differences of any step are exact up to
    # float32 rounding, and the second derivative is zero
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 3, 4, 2)).astype(f32)
    v = tf.constant(rng.standard_normal((1, 5, 3, 2)).astype(f32))

    def loss(a):
        return tf.reduce_sum(tf.image.resize(a, [5, 3], method=method) * v)
    xt = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(xt)
        with tf.GradientTape() as inner:
            inner.watch(xt)
            y = loss(xt)
        g = inner.gradient(y, xt)
        gg = tf.reduce_sum(g * g)
    numeric = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x).reshape(-1)
        e[k] = 0.5
        e = e.reshape(x.shape)
        numeric.reshape(-1)[k] = (float(loss(tf.constant(x + e)))
                                  - float(loss(tf.constant(x - e)))) / 1.0
    np.testing.assert_allclose(g.numpy(), numeric, rtol=1e-4, atol=1e-4)
    second = outer.gradient(gg, xt, unconnected_gradients="zero")
    np.testing.assert_allclose(second.numpy(), 0, atol=1e-6)


def test_convert_image_dtype_follows_tensorflow():
    u8 = tf.constant([0, 128, 255], dtype=tf.uint8)
    np.testing.assert_allclose(tf.image.convert_image_dtype(u8, tf.float32).numpy(),
                               [0, 128 / 255, 1], rtol=1e-6)
    # float to int: scale by MAX + 0.5 and truncate; saturate clips first
    f = tf.constant([0., 0.5, 1.0, 1.2, -0.1])
    assert tf.image.convert_image_dtype(f, tf.uint8, saturate=True).numpy().tolist() == \
        [0, 127, 255, 255, 0]
    assert tf.image.convert_image_dtype(tf.constant([0., 0.5, 1.0]), tf.uint8).numpy() \
        .tolist() == [0, 127, 255]
    # integer to integer: a power-of-two scale
    assert tf.image.convert_image_dtype(u8, tf.int8).numpy().tolist() == [0, 64, 127]
    assert tf.image.convert_image_dtype(tf.constant([127, 1], dtype=tf.int8),
                                        tf.uint8).numpy().tolist() == [254, 2]
    assert tf.image.convert_image_dtype(u8, tf.int32).numpy().tolist() == \
        [0, 128 * 2 ** 23, 255 * 2 ** 23]
    assert tf.image.convert_image_dtype(f, tf.float64).dtype == tf.float64
    with pytest.raises(InvalidArgumentError, match="must be a float or integer"):
        tf.image.convert_image_dtype(u8, tf.bool)


def test_colour_and_geometry():
    rng = np.random.default_rng(4)
    img = rng.uniform(0, 1, (2, 3, 3)).astype(f32)
    gray = tf.image.rgb_to_grayscale(img)
    np.testing.assert_allclose(gray.numpy()[..., 0], img @ np.array([0.2989, 0.587, 0.114]),
                               rtol=1e-5)
    u8 = (img * 255).astype(np.uint8)
    g8 = tf.image.rgb_to_grayscale(u8)
    assert g8.dtype == tf.uint8 and g8.shape == (2, 3, 1)
    assert tf.image.grayscale_to_rgb(gray).shape == (2, 3, 3)
    std = tf.image.per_image_standardization(u8).numpy()
    assert std.dtype == np.float32
    np.testing.assert_allclose([std.mean(), std.std()], [0, 1], atol=1e-5)
    flat = tf.image.per_image_standardization(tf.ones([2, 2, 1])).numpy()
    np.testing.assert_array_equal(flat, 0)          # stddev floored at 1/sqrt(N)
    np.testing.assert_array_equal(tf.image.flip_left_right(img).numpy(), img[:, ::-1])
    np.testing.assert_array_equal(tf.image.flip_up_down(img[None]).numpy(), img[None, ::-1])
    np.testing.assert_allclose(tf.image.adjust_brightness(img, 0.1).numpy(), img + 0.1)
    m = img.mean(axis=(0, 1))
    np.testing.assert_allclose(tf.image.adjust_contrast(img, 2.).numpy(), (img - m) * 2 + m,
                               rtol=1e-5, atol=1e-6)
    assert tf.image.adjust_brightness(u8, 0.5).numpy().max() == 255       # saturates
    assert tf.image.central_crop(tf.ones([10, 8, 1]), 0.5).shape == (6, 4, 1)
    assert tf.image.central_crop(tf.ones([2, 10, 8, 1]), 1.0).shape == (2, 10, 8, 1)
    with pytest.raises(ValueError, match="central_fraction"):
        tf.image.central_crop(tf.ones([4, 4, 1]), 0.)
    padded = tf.image.resize_with_pad(tf.ones([4, 8, 1]), 8, 8).numpy()[..., 0]
    np.testing.assert_array_equal(padded[:2], 0)
    np.testing.assert_array_equal(padded[2:6], 1)
    np.testing.assert_array_equal(padded[6:], 0)
    box = tf.image.crop_to_bounding_box(tf.constant(img), 1, 0, 1, 2)
    np.testing.assert_array_equal(box.numpy(), img[1:2, 0:2])
    with pytest.raises(InvalidArgumentError, match="must lie inside the image"):
        tf.image.crop_to_bounding_box(img, 1, 0, 2, 2)
    with pytest.raises(InvalidArgumentError, match="last dimension must be 3"):
        tf.image.rgb_to_grayscale(tf.ones([2, 2, 4]))


def test_rank_rules_and_error_classes_follow_tensorflow():
    # what TF 2.21 accepts and raises for a 2-D and a 5-D input
    x2, x5 = tf.fill([2, 3], 0.5), tf.ones([1, 1, 2, 2, 3])
    assert tf.image.adjust_brightness(x2, 0.5).shape == (2, 3)
    assert tf.image.adjust_brightness(x5, 0.5).shape == (1, 1, 2, 2, 3)
    assert tf.image.adjust_contrast(x5, 2.0).shape == (1, 1, 2, 2, 3)
    assert tf.image.per_image_standardization(x5).shape == (1, 1, 2, 2, 3)
    with pytest.raises(InvalidArgumentError, match="adjust_contrast: images must have rank"):
        tf.image.adjust_contrast(x2, 2.0)
    for fn in (tf.image.flip_left_right, tf.image.flip_up_down,
               lambda x: tf.image.resize(x, [1, 1]), lambda x: tf.image.central_crop(x, 0.5)):
        for x in (x2, x5):
            with pytest.raises(ValueError, match="image must have rank 3"):
                fn(x)
    with pytest.raises(ValueError, match="per_image_standardization: image must have rank >= 3"):
        tf.image.per_image_standardization(x2)
