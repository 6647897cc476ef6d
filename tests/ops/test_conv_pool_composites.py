"""tf.nn convolutions and pooling built from other ops (separable, transposed and 3-D
convolution, N-D pooling, max_pool_with_argmax, morphology): values and errors as
TensorFlow 2.21 gives them (literal values below were printed by TensorFlow), gradients
against finite differences."""
import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads

nn = fe.nn


def close(t, want, dtype=None, rtol=1e-6, atol=1e-6):
    assert isinstance(t, fe.Tensor)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    np.testing.assert_allclose(t.numpy(), np.asarray(want), rtol=rtol, atol=atol)


def _conv3d_ref(x, w, stride, pads, dilation):
    # direct loops over output positions and filter taps
    x = np.pad(x, [(0, 0)] + list(pads) + [(0, 0)])
    kd, kh, kw = w.shape[:3]
    outs = [(x.shape[1 + i] - (k - 1) * dilation - 1) // stride + 1
            for i, k in enumerate((kd, kh, kw))]
    y = np.zeros([x.shape[0]] + outs + [w.shape[-1]])
    for i, j, k in np.ndindex(*outs):
        for a, b, c in np.ndindex(kd, kh, kw):
            y[:, i, j, k] += x[:, i * stride + a * dilation, j * stride + b * dilation,
                               k * stride + c * dilation] @ w[a, b, c]
    return y


def test_separable_and_transposed_convolutions():
    sep = nn.separable_conv2d(fe.ones([1, 4, 4, 2]), fe.ones([3, 3, 2, 2]), fe.ones([1, 1, 4, 3]),
                              [1, 1, 1, 1], "SAME")
    close(sep[0, :, :, 0], [[16., 24., 24., 16.], [24., 36., 36., 24.],
                            [24., 36., 36., 24.], [16., 24., 24., 16.]])
    y = nn.conv1d_transpose(fe.ones([1, 3, 2]), fe.ones([2, 4, 2]), [1, 6, 4], 2, "SAME")
    close(y[0, :, 0],
          [2.] * 6)
    rng = np.random.default_rng(0)
    check_grads(lambda x, w: nn.conv1d_transpose(x, w, [1, 5, 2], 2, "VALID"),
                [rng.standard_normal((1, 2, 3)), rng.standard_normal((3, 2, 3))])


def test_pool():
    image = fe.reshape(fe.range(16.), [1, 4, 4, 1])
    close(nn.pool(image, [2, 2], "AVG", strides=[2, 2], padding="SAME")[0, :, :, 0],
          [[2.5, 4.5], [10.5, 12.5]])
    close(nn.pool(image, [2, 2], "MAX", dilations=[2, 2], padding="VALID")[0, :, :, 0],
          [[10., 11.], [14., 15.]])
    close(nn.pool(fe.reshape(fe.range(8.), [1, 8, 1]), [3], "MAX", strides=[2],
                  padding="SAME")[0, :, 0], [2., 4., 6., 7.])
    with pytest.raises(ValueError, match="dilations"):
        nn.pool(image, [2, 2], "MAX", strides=[2, 2], dilations=[2, 2])
    with pytest.raises(ValueError, match="SAME"):
        nn.pool(image, [2, 2], "AVG", padding="SAME", dilations=[2, 2])
    # dilated VALID pooling: windows of taps two apart
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 5, 5, 2))
    got = nn.pool(x, [2, 2], "AVG", padding="VALID", dilations=[2, 2]).numpy()
    want = np.mean([x[:, i:i + 3, j:j + 3] for i in (0, 2) for j in (0, 2)], axis=0)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    check_grads(lambda t: nn.pool(t, [2, 2], "MAX", padding="VALID", dilations=[2, 1]), [x])


def test_pool3d():
    x = np.random.default_rng(2).standard_normal((1, 4, 4, 4, 2))
    got = nn.max_pool3d(x, 2, 2, "VALID").numpy()
    want = x.reshape(1, 2, 2, 2, 2, 2, 2, 2).max(axis=(2, 4, 6))
    np.testing.assert_allclose(got, want)
    got = nn.avg_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID").numpy()
    np.testing.assert_allclose(got, x.reshape(1, 2, 2, 2, 2, 2, 2, 2).mean(axis=(2, 4, 6)))
    check_grads(lambda t: nn.avg_pool3d(t, 2, 1, "SAME"), [x[:, :2, :2, :3, :1]])


def test_conv3d():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 5, 6, 4, 3)), rng.standard_normal((2, 3, 2, 3, 2))
    close(nn.conv3d(x, w, [1, 1, 1, 1, 1], "VALID"), _conv3d_ref(x, w, 1, [(0, 0)] * 3, 1),
          rtol=1e-12)
    # SAME: the odd cell of padding goes after (TensorFlow's rule)
    close(nn.conv3d(x, w, 2, "SAME"), _conv3d_ref(x, w, 2, [(0, 1), (0, 1), (0, 0)], 1),
          rtol=1e-12)
    close(nn.conv3d(x, w, 1, "VALID", dilations=2), _conv3d_ref(x, w, 1, [(0, 0)] * 3, 2),
          rtol=1e-12)
    ncdhw = nn.conv3d(np.moveaxis(x, -1, 1), w, 1, "VALID", data_format="NCDHW")
    close(ncdhw, np.moveaxis(_conv3d_ref(x, w, 1, [(0, 0)] * 3, 1), -1, 1), rtol=1e-12)
    with pytest.raises(fe.errors.InvalidArgumentError, match="input depth 3"):
        nn.conv3d(x, w[:, :, :, :2], 1, "SAME")
    check_grads(lambda a, b: nn.conv3d(a, b, 1, "SAME"),
                [x[:1, :2, :3, :2, :2], w[:2, :1, :2, :2, :1]])


def test_max_pool_with_argmax():
    x = fe.reshape(fe.constant([1., 5, 3, 4, 2, 2, 8, 1, 0, 9, 1, 1, 3, 3, 3, 3] * 2),
                   [2, 4, 2, 2])
    out, argmax = nn.max_pool_with_argmax(x, 2, 2, "SAME")
    close(out, [[[[8., 5.]], [[3., 9.]]]] * 2)
    close(argmax, [[[[6, 1]], [[12, 9]]]] * 2, fe.int64)
    res = nn.max_pool_with_argmax(x, [3, 3], 2, "SAME", include_batch_in_index=True)
    close(res.argmax, [[[[6, 9]], [[12, 9]]], [[[22, 25]], [[28, 25]]]])
    close(res.output, nn.max_pool2d(x, 3, 2, "SAME"))


def test_conv3d_transpose_is_the_adjoint_of_conv3d():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((2, 3, 2, 3, 4))
    for padding, stride, shape in [("SAME", 2, (2, 6, 4, 4, 3)), ("SAME", 2, (2, 5, 3, 4, 3)),
                                   ("VALID", 2, (2, 6, 5, 4, 3)), ("VALID", 1, (2, 4, 4, 3, 3))]:
        y = rng.standard_normal(shape)
        fwd = nn.conv3d(y, w, stride, padding)
        x = rng.standard_normal(fwd.shape)
        back = nn.conv3d_transpose(x, w, shape, stride, padding)
        assert back.shape == shape
        # <conv3d(y), x> == <y, conv3d_transpose(x)>
        np.testing.assert_allclose(np.sum(fwd.numpy() * x), np.sum(y * back.numpy()),
                                   rtol=1e-10)
    ones = nn.conv3d_transpose(fe.ones([1, 2, 2, 2, 1]), fe.ones([2, 2, 2, 3, 1]),
                               [1, 4, 4, 4, 3], 2, "SAME")
    close(ones, np.ones((1, 4, 4, 4, 3)))
    with pytest.raises(fe.errors.InvalidArgumentError, match="output_shape"):
        nn.conv3d_transpose(fe.ones([1, 2, 2, 2, 1]), fe.ones([2, 2, 2, 3, 1]),
                            [1, 7, 4, 4, 3], 2, "SAME")
    check_grads(lambda a, b: nn.conv3d_transpose(a, b, [1, 3, 2, 2, 1], 2, "SAME"),
                [rng.standard_normal((1, 2, 1, 1, 2)), rng.standard_normal((2, 1, 2, 1, 2))])


def test_conv_transpose_atrous_weighted_moments():
    x, w = fe.ones([1, 3, 2]), fe.ones([2, 4, 2])
    close(nn.conv_transpose(x, w, [1, 6, 4], 2), nn.conv1d_transpose(x, w, [1, 6, 4], 2))
    image = fe.reshape(fe.range(25.), [1, 5, 5, 1])
    close(nn.atrous_conv2d(image, fe.ones([2, 2, 1, 1]), 2, "VALID")[0, :, :, 0],
          [[24., 28., 32.], [44., 48., 52.], [64., 68., 72.]])
    v = fe.constant([[1., 2., 4., 7.], [0., 1., -1., 3.]])
    mean, var = nn.weighted_moments(v, [1], fe.constant([[1., 2., 1., 0.]] * 2))
    close(mean, [2.25, 0.25])
    close(var, [1.1875, 0.6875])
    mean, var = nn.weighted_moments(v, [0, 1], 2., keepdims=True)
    close(mean, [[2.125]])
    close(var, [[5.609375]])


def test_morphology():
    image = fe.reshape(fe.range(16.), [1, 4, 4, 1])
    f = fe.constant([[[0.], [1.]], [[2.], [0.]]])
    close(nn.dilation2d(image, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])[0, :, :, 0],
          [[6., 7., 8.], [10., 11., 12.], [14., 15., 16.]])
    close(nn.dilation2d(image, f, [1, 2, 2, 1], "SAME", "NHWC", [1, 2, 2, 1])[0, :, :, 0],
          [[10., 12.], [11., 10.]])
    close(nn.erosion2d(image, f, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1])[0, :, :, 0],
          [[-1., 0., 1.], [3., 4., 5.], [7., 8., 9.]])
    rng = np.random.default_rng(6)
    check_grads(lambda x, w: nn.dilation2d(x, w, 1, "SAME", "NHWC", 1),
                [rng.standard_normal((1, 3, 3, 2)), rng.standard_normal((2, 2, 2))])


def test_transposed_and_backprop_wrappers():
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((1, 4, 4, 2)), rng.standard_normal((3, 3, 3, 2))
    close(nn.atrous_conv2d_transpose(x, w, [1, 4, 4, 3], 2, "SAME"),
          nn.conv2d_transpose(x, w, [1, 4, 4, 3], 1, "SAME", dilations=2), rtol=1e-12)
    # the backprop wrappers are the tape's gradients of depthwise_conv2d
    x, w = fe.constant(rng.standard_normal((2, 6, 5, 3))), fe.constant(
        rng.standard_normal((3, 2, 3, 2)))
    with fe.GradientTape() as tape:
        tape.watch([x, w])
        y = nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")
    dy = fe.constant(rng.standard_normal(y.shape))
    gx, gw = tape.gradient(y, [x, w], output_gradients=dy)
    close(nn.depthwise_conv2d_backprop_input([2, 6, 5, 3], w, dy, [1, 2, 2, 1], "SAME"), gx,
          rtol=1e-12)
    close(nn.depthwise_conv2d_backprop_filter(x, [3, 2, 3, 2], dy, [1, 2, 2, 1], "SAME"), gw,
          rtol=1e-12)
