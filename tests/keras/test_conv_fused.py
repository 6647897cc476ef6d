"""Keras Conv2D through the fused op (nn_ops.fused_conv2d): conv2d, bias and relu as one
op, with the bias and relu applied in the direct kernel's registers. Same values and
gradients as the separate ops on every kernel path, one tape record, the separate ops
where the fusion does not apply."""
import numpy as np
import pytest

import fasteager as fe
from fasteager import _kernels
from fasteager.keras.layers.core import cpu_fusable
from fasteager.ops import nn_ops
from tests.keras.test_dense_fused import assert_fused_matches_separate


def _conv(activation, use_bias=True, data_format=None, **kwargs):
    fe.random.set_seed(0)
    layer = fe.keras.layers.Conv2D(6, 3, activation=activation, use_bias=use_bias,
                                   data_format=data_format, **kwargs)
    layer.build([None, 3, 7, 7] if data_format == "channels_first" else [None, 7, 7, 3])
    if use_bias:
        layer.bias.assign(np.random.default_rng(1).standard_normal(6).astype(np.float32))
    return layer


def _separate(layer, x):
    if layer.data_format == "channels_first":
        x = fe.transpose(x, [0, 2, 3, 1])
    y = fe.nn.conv2d(x, layer.kernel, layer.strides, layer.padding.upper(),
                     dilations=layer.dilation_rate)
    if layer.use_bias:
        y = y + layer.bias
    y = layer.activation(y)
    if layer.data_format == "channels_first":
        y = fe.transpose(y, [0, 3, 1, 2])
    return y


@pytest.mark.parametrize("activation", [None, "relu"])
@pytest.mark.parametrize("kwargs", [{}, {"strides": 2, "padding": "same"},
                                    {"dilation_rate": 2}, {"data_format": "channels_first"}])
def test_values_and_gradients_match_the_separate_ops(activation, kwargs):
    layer = _conv(activation, **kwargs)
    shape = (2, 3, 7, 7) if kwargs.get("data_format") == "channels_first" else (2, 7, 7, 3)
    x = fe.constant(np.random.default_rng(2).standard_normal(shape).astype(np.float32))
    assert_fused_matches_separate(layer, lambda v: _separate(layer, v), x, tol=2e-5)


def test_one_tape_record_per_layer():
    layer = _conv("relu")
    x = fe.constant(np.ones((2, 7, 7, 3), np.float32))
    assert cpu_fusable(layer, x)
    with fe.GradientTape() as tape:
        layer(x)
    assert tape._num_records == 1


@pytest.mark.parametrize("kwargs", [{"activation": "tanh"}, {"activation": "relu",
                                                              "use_bias": False}])
def test_other_activations_and_no_bias_use_the_separate_ops(kwargs):
    layer = _conv(**kwargs)
    x = fe.constant(np.ones((2, 7, 7, 3), np.float32))
    assert not cpu_fusable(layer, x)
    with fe.GradientTape() as tape:
        layer(x)
    assert tape._num_records > 1


def test_second_order_matches_the_separate_ops():
    layer = _conv("linear")
    x = fe.constant(np.random.default_rng(3).standard_normal((1, 7, 7, 3)).astype(np.float32))
    v = fe.constant(np.random.default_rng(4).standard_normal((1, 7, 7, 3)).astype(np.float32))
    outs = []
    for run in (layer, lambda t: _separate(layer, t)):
        with fe.GradientTape() as outer:
            with fe.GradientTape() as inner:
                inner.watch(x)
                loss = fe.reduce_sum(fe.tanh(run(x)))
            dx = inner.gradient(loss, x)
            dot = fe.reduce_sum(dx * v)
        outs.append(outer.gradient(dot, layer.kernel))
    np.testing.assert_allclose(outs[0].numpy(), outs[1].numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("algorithm", ["direct", "im2col"])
@pytest.mark.parametrize("geometry", [((2, 9, 11, 3), (3, 3, 3, 16), 1, "VALID"),
                                      ((3, 8, 8, 16), (3, 3, 16, 20), 2, "SAME"),
                                      ((1, 6, 6, 4), (2, 2, 4, 37), 1, "SAME")])
def test_kernel_epilogue_on_each_path(dtype, algorithm, geometry):
    # channel counts off the vector width (20, 37) exercise the masked last block
    x_shape, w_shape, stride, padding = geometry
    rng = np.random.default_rng(5)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    b = rng.standard_normal(w_shape[3]).astype(dtype)
    plain = _kernels.conv2d_forward(x, w, (stride, stride), padding, (1, 1), algorithm)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for relu in (False, True):
        got = _kernels.conv2d_forward(x, w, (stride, stride), padding, (1, 1), algorithm,
                                      b, relu)
        want = plain + b
        np.testing.assert_allclose(got, np.maximum(want, 0) if relu else want,
                                   rtol=tol, atol=tol)


def test_relu_epilogue_keeps_nan():
    x = np.full((1, 4, 4, 1), np.nan, np.float32)
    w = np.ones((3, 3, 1, 2), np.float32)
    y = _kernels.conv2d_forward(x, w, (1, 1), "VALID", (1, 1), "direct",
                                np.zeros(2, np.float32), True)
    assert np.isnan(y).all()


def test_bad_bias_is_a_clear_error():
    x, w = fe.ones([1, 5, 5, 2]), fe.ones([3, 3, 2, 4])
    with pytest.raises(fe.errors.InvalidArgumentError, match="fused_conv2d: bias must have "
                       r"one value per output channel \(expected shape \[4\], got \[3\]\)"):
        nn_ops.fused_conv2d(x, w, fe.ones([3]))
    with pytest.raises(fe.errors.InvalidArgumentError, match="activation must be one of"):
        nn_ops.fused_conv2d(x, w, fe.ones([4]), activation="tanh")
    with pytest.raises(ValueError, match="bias must have one value per output channel"):
        _kernels.conv2d_forward(np.ones((1, 5, 5, 2), np.float32),
                                np.ones((3, 3, 2, 4), np.float32), bias=np.ones(3, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_gradient_and_bias_sum_in_one_pass_have_the_separate_bits(dtype):
    rng = np.random.default_rng(6)
    g = rng.standard_normal((4, 5, 6, 16)).astype(dtype)
    y = np.maximum(rng.standard_normal((4, 5, 6, 16)), 0).astype(dtype)
    dz, db = _kernels.relu_backward_sum(g, y)
    want = _kernels.relu_backward(g, y)
    np.testing.assert_array_equal(dz, want)
    np.testing.assert_array_equal(db, np.add.reduce(want, axis=(0, 1, 2)))
    with pytest.raises(ValueError, match="relu_backward_sum: g and x must be"):
        _kernels.relu_backward_sum(g, y[:2])
