"""fe.nn at the op layer: conv/pool against loop references over odd sizes, strides 1-3,
both paddings and dilation 2; dtype rules and error messages; stable losses at 1e4 and
-inf; composites (dropout, moments, batch_normalization, l2_normalize); NCHW and 1-D forms.
The op-table test (test_op_table.py) covers forward and orders 1-2 of every op's gradient."""
import itertools

import numpy as np
import pytest

import fasteager as fe
from tests.gradcheck import check_grads
from tests.ops.op_specs_nn import (avg_pool_ref, conv2d_backprop_filter_ref,
                                   conv2d_backprop_input_ref, conv2d_ref, max_pool_ref,
                                   sparse_xent_ref)

rng = np.random.default_rng(0)


def _rand(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


# ---- convolution ----------------------------------------------------------------------

CONV_CASES = list(itertools.product([(2, 7, 6, 3)], [(3, 3, 3, 2), (2, 3, 3, 4), (1, 1, 3, 2)],
                                    [1, 2, 3], ["SAME", "VALID"]))


@pytest.mark.parametrize("x_shape,w_shape,stride,padding", CONV_CASES)
def test_conv2d_matches_loops_with_gradients(x_shape, w_shape, stride, padding):
    x, w = _rand(*x_shape), _rand(*w_shape)
    s = (stride, stride)
    xt, wt = fe.constant(x), fe.constant(w)
    with fe.GradientTape() as tape:
        tape.watch([xt, wt])
        y = fe.nn.conv2d(xt, wt, stride, padding)
    np.testing.assert_allclose(y.numpy(), conv2d_ref(x, w, s, padding), rtol=1e-10, atol=1e-10)
    dy = _rand(*y.shape)
    dx, dw = tape.gradient(y, [xt, wt], output_gradients=fe.constant(dy))
    np.testing.assert_allclose(dx.numpy(), conv2d_backprop_input_ref(dy, w, x.shape, s, padding),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dw.numpy(), conv2d_backprop_filter_ref(x, dy, w.shape, s, padding),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [1, (2, 1)])
def test_conv2d_dilation_2(padding, strides):
    x, w = _rand(1, 9, 8, 2), _rand(3, 2, 2, 3)
    s = (strides, strides) if isinstance(strides, int) else strides
    y = fe.nn.conv2d(x, w, strides, padding, dilations=2)
    np.testing.assert_allclose(y.numpy(), conv2d_ref(x, w, s, padding, (2, 2)), rtol=1e-10,
                               atol=1e-10)
    check_grads(lambda a, b: fe.nn.conv2d(a, b, strides, padding, dilations=[1, 2, 2, 1]),
                [x[:, :7, :6], w], order=2)


def test_conv2d_float32_stays_float32_and_four_entry_strides():
    x, w = _rand(2, 5, 5, 3, dtype=np.float32), _rand(3, 3, 3, 4, dtype=np.float32)
    y = fe.nn.conv2d(x, w, strides=[1, 2, 2, 1], padding="SAME")
    assert y.dtype == fe.float32 and y.shape == (2, 3, 3, 4)
    np.testing.assert_allclose(y.numpy(), conv2d_ref(x, w, (2, 2), "SAME"), rtol=1e-5, atol=1e-5)


def test_conv2d_nchw_and_conv1d():
    x, w = _rand(2, 3, 6, 5), _rand(3, 2, 3, 4)
    y = fe.nn.conv2d(x, w, 1, "SAME", data_format="NCHW")
    ref = conv2d_ref(x.transpose(0, 2, 3, 1), w, (1, 1), "SAME").transpose(0, 3, 1, 2)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-10)
    check_grads(lambda a, b: fe.nn.conv2d(a, b, 2, "SAME", data_format="NCHW"), [x, w], order=1)
    x1, w1 = _rand(2, 9, 3), _rand(3, 3, 2)
    y1 = fe.nn.conv1d(x1, w1, stride=2, padding="VALID")
    ref1 = conv2d_ref(x1[:, None], w1[None], (1, 2), "VALID")[:, 0]
    np.testing.assert_allclose(y1.numpy(), ref1, rtol=1e-10)
    np.testing.assert_allclose(fe.nn.convolution(x1, w1, padding="VALID").numpy(),
                               conv2d_ref(x1[:, None], w1[None])[:, 0], rtol=1e-10)
    check_grads(lambda a, b: fe.nn.conv1d(a, b, 1, "SAME", dilations=2), [x1, w1], order=2)


def test_conv2d_transpose_is_the_input_gradient():
    dy, w = _rand(2, 3, 3, 4), _rand(3, 3, 2, 4)
    y = fe.nn.conv2d_transpose(dy, w, [2, 6, 6, 2], strides=2, padding="SAME")
    np.testing.assert_allclose(y.numpy(),
                               conv2d_backprop_input_ref(dy, w, (2, 6, 6, 2), (2, 2), "SAME"),
                               rtol=1e-10)


def test_conv2d_errors():
    x, w = fe.zeros([1, 5, 5, 3]), fe.zeros([3, 3, 2, 4])
    with pytest.raises(fe.errors.InvalidArgumentError) as e:
        fe.nn.conv2d(x, w, 1, "SAME")
    msg = str(e.value)
    assert msg.startswith("conv2d:") and "[1, 5, 5, 3]" in msg and "[3, 3, 2, 4]" in msg
    with pytest.raises(fe.errors.InvalidArgumentError, match="conv2d: input must be 4-D"):
        fe.nn.conv2d(fe.zeros([5, 5, 3]), fe.zeros([3, 3, 3, 4]), 1, "SAME")
    with pytest.raises(fe.errors.InvalidArgumentError, match="conv2d: padding"):
        fe.nn.conv2d(fe.zeros([1, 5, 5, 3]), fe.zeros([3, 3, 3, 4]), 1, "FULL")
    with pytest.raises(fe.errors.InvalidArgumentError, match="conv2d: strides must be 1"):
        fe.nn.conv2d(fe.zeros([1, 5, 5, 3]), fe.zeros([3, 3, 3, 4]), [2, 1, 1, 1], "SAME")
    with pytest.raises(fe.errors.InvalidArgumentError, match="larger than the input"):
        fe.nn.conv2d(fe.zeros([1, 2, 5, 3]), fe.zeros([3, 3, 3, 4]), 1, "VALID")
    with pytest.raises(fe.errors.InvalidArgumentError, match="conv2d: input must be floating"):
        fe.nn.conv2d(np.zeros([1, 5, 5, 3], np.int32), fe.zeros([3, 3, 3, 4]), 1, "SAME")
    with pytest.raises(fe.errors.InvalidArgumentError, match="same dtype"):
        fe.nn.conv2d(np.zeros([1, 5, 5, 3]), fe.zeros([3, 3, 3, 4]), 1, "SAME")
    with pytest.raises(fe.errors.UnimplementedError):
        fe.nn.conv2d(x, fe.zeros([3, 3, 3, 4]), 1, [[0, 0], [1, 1], [1, 1], [0, 0]])


@pytest.mark.parametrize("x_shape,w_shape", [((0, 5, 5, 2), (3, 3, 2, 4)),
                                             ((2, 5, 5, 0), (3, 3, 0, 4)),
                                             ((2, 5, 5, 2), (3, 3, 2, 0)),
                                             ((0, 5, 5, 2), (1, 1, 2, 4))])
def test_conv2d_empty_shapes(x_shape, w_shape):
    # empty batches and zero channels reach the kernels (fixed there: they used reshape(-1))
    x, w = fe.constant(np.ones(x_shape)), fe.constant(np.ones(w_shape))
    with fe.GradientTape() as tape:
        tape.watch([x, w])
        y = fe.nn.conv2d(x, w, 2, "SAME")
    assert y.shape == conv2d_ref(np.ones(x_shape), np.ones(w_shape), (2, 2), "SAME").shape
    assert not y.numpy().any()
    dx, dw = tape.gradient(y, [x, w])
    assert dx.shape == x_shape and dw.shape == w_shape and not dw.numpy().any()


# ---- pooling ----------------------------------------------------------------------------

POOL_CASES = list(itertools.product([(2, 7, 5, 3)], [1, 2, 3], [1, 2, 3], ["SAME", "VALID"]))


@pytest.mark.parametrize("x_shape,k,stride,padding", POOL_CASES)
def test_pooling_matches_loops_with_gradients(x_shape, k, stride, padding):
    x = _rand(*x_shape)
    ks, ss = (k, k), (stride, stride)
    np.testing.assert_allclose(fe.nn.max_pool2d(x, k, stride, padding).numpy(),
                               max_pool_ref(x, ks, ss, padding), rtol=1e-12)
    np.testing.assert_allclose(fe.nn.avg_pool2d(x, k, stride, padding).numpy(),
                               avg_pool_ref(x, ks, ss, padding), rtol=1e-12)
    check_grads(lambda a: fe.nn.max_pool2d(a, k, stride, padding), [x], order=1)
    check_grads(lambda a: fe.nn.avg_pool2d(a, k, stride, padding), [x], order=1)


def test_max_pool_ties_go_to_the_first_maximum():
    x = fe.constant(np.ones((1, 2, 2, 1)))
    with fe.GradientTape() as tape:
        tape.watch(x)
        y = fe.nn.max_pool2d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [1, 0, 0, 0])


def test_pool_aliases_nchw_and_1d():
    x = _rand(2, 3, 6, 4)
    y = fe.nn.max_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW")
    ref = max_pool_ref(x.transpose(0, 2, 3, 1), (2, 2), (2, 2), "VALID").transpose(0, 3, 1, 2)
    np.testing.assert_allclose(y.numpy(), ref)
    x1 = _rand(2, 7, 3)
    np.testing.assert_allclose(fe.nn.avg_pool(x1, 3, 2, "SAME").numpy(),
                               avg_pool_ref(x1[:, None], (1, 3), (1, 2), "SAME")[:, 0])
    np.testing.assert_allclose(fe.nn.max_pool1d(x1, 2, 1, "VALID").numpy(),
                               max_pool_ref(x1[:, None], (1, 2), (1, 1), "VALID")[:, 0])
    check_grads(lambda a: fe.nn.max_pool1d(a, 2, 2, "SAME"), [x1], order=2)


def test_pool_errors():
    with pytest.raises(fe.errors.InvalidArgumentError, match="max_pool2d: input must be 4-D"):
        fe.nn.max_pool2d(fe.zeros([4, 4]), 2, 2, "VALID")
    with pytest.raises(fe.errors.InvalidArgumentError, match="avg_pool2d: ksize"):
        fe.nn.avg_pool2d(fe.zeros([1, 4, 4, 1]), [2, 2, 2], 2, "VALID")
    with pytest.raises(fe.errors.InvalidArgumentError, match="max_pool2d: input must be floating"):
        fe.nn.max_pool2d(np.zeros([1, 4, 4, 1], np.int64), 2, 2, "VALID")


# ---- activations: dtype rules --------------------------------------------------------------

FLOAT_ONLY = [fe.nn.elu, fe.nn.selu, fe.nn.gelu, fe.nn.softplus, fe.nn.softsign, fe.nn.silu,
              fe.nn.softmax, fe.nn.log_softmax, fe.nn.l2_loss, fe.nn.sigmoid, fe.nn.tanh]


@pytest.mark.parametrize("fn", FLOAT_ONLY)
def test_float_ops_reject_ints(fn):
    with pytest.raises(fe.errors.InvalidArgumentError, match="unsupported dtype"):
        fn(fe.constant([1, 2, 3]))


def test_int_friendly_activations_follow_tf():
    assert fe.nn.relu(fe.constant([-1, 3])).numpy().tolist() == [0, 3]
    assert fe.nn.relu6(fe.constant([-1, 9])).numpy().tolist() == [0, 6]
    y = fe.nn.leaky_relu(fe.constant([-10, 3]))      # TF casts integer input to float32
    assert y.dtype == fe.float32 and y.numpy().tolist() == [-2.0, 3.0]


def test_softplus_and_softmax_are_stable():
    x = fe.constant([-1e4, 0.0, 1e4])
    np.testing.assert_allclose(fe.nn.softplus(x).numpy(), [0, np.log(2), 1e4], rtol=1e-6)
    np.testing.assert_allclose(fe.nn.softmax(x).numpy(), [0, 0, 1])
    assert np.isfinite(fe.nn.log_softmax(x).numpy()).all()


def test_gelu_matches_tf_values():
    # tf.nn.gelu([-1., 0.5, 2.]) and approximate=True
    np.testing.assert_allclose(fe.nn.gelu([-1.0, 0.5, 2.0]).numpy(),
                               [-0.15865526, 0.34573123, 1.9544997], rtol=1e-6)
    np.testing.assert_allclose(fe.nn.gelu([-1.0, 0.5, 2.0], approximate=True).numpy(),
                               [-0.15880796, 0.34571401, 1.9545977], rtol=1e-6)


def test_softmax_axis_errors():
    with pytest.raises(fe.errors.InvalidArgumentError, match="softmax"):
        fe.nn.softmax(fe.constant(1.0))
    with pytest.raises(fe.errors.InvalidArgumentError, match="out of range"):
        fe.nn.softmax(fe.zeros([2, 3]), axis=2)


# ---- losses --------------------------------------------------------------------------------

def test_losses_are_finite_at_1e4_and_with_minus_inf_masks():
    logits = fe.constant([[1e4, 0.0, -np.inf], [-1e4, 1e4, -np.inf]], dtype=fe.float32)
    labels = fe.constant([1, 0])
    dense = fe.constant([[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])
    with fe.GradientTape(persistent=True) as tape:
        tape.watch([logits, dense])
        sparse = fe.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        soft = fe.nn.softmax_cross_entropy_with_logits(labels=dense, logits=logits)
    for loss in (sparse, soft):
        assert np.isfinite(loss.numpy()).all()
        g = tape.gradient(loss, logits)
        assert np.isfinite(g.numpy()).all()
        assert g.numpy()[0, 2] == 0 and g.numpy()[1, 2] == 0
    np.testing.assert_allclose(sparse.numpy(), [1e4, 2e4], rtol=1e-6)
    assert np.isfinite(tape.gradient(soft, dense).numpy()[:, :2]).all()
    # sigmoid: stable at +-1e4, and a -inf mask with label 0 costs nothing
    z = fe.constant([0.0, 1.0, 0.0, 1.0])
    x = fe.constant([1e4, -1e4, -np.inf, 1e4])
    with fe.GradientTape() as tape:
        tape.watch(x)
        s = fe.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    np.testing.assert_allclose(s.numpy(), [1e4, 1e4, 0, 0])
    np.testing.assert_allclose(tape.gradient(s, x).numpy(), [1, -1, 0, 0])


def test_sparse_xent_any_rank_and_int_kinds():
    x = _rand(2, 3, 5)
    labels = np.array([[0, 4, 2], [1, 1, 3]], dtype=np.int64)
    for lab in (labels, labels.astype(np.int32), labels.astype(np.uint8)):
        y = fe.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=x)
        np.testing.assert_allclose(y.numpy(), sparse_xent_ref(labels, x), rtol=1e-12)
    check_grads(lambda a: fe.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=a),
                [x], order=2)


def test_xent_argument_rules():
    x, lab = fe.zeros([2, 3]), fe.constant([0, 1])
    # TF2 signature: labels first, positional allowed
    np.testing.assert_allclose(fe.nn.sparse_softmax_cross_entropy_with_logits(lab, x).numpy(),
                               np.log(3) * np.ones(2), rtol=1e-6)
    with pytest.raises(fe.errors.InvalidArgumentError, match="swapped"):
        fe.nn.sparse_softmax_cross_entropy_with_logits(x, lab)
    with pytest.raises(ValueError, match="labels=..., logits=..."):
        fe.nn.softmax_cross_entropy_with_logits(logits=x)
    with pytest.raises(TypeError):
        fe.nn.sigmoid_cross_entropy_with_logits(x, x, x)
    with pytest.raises(fe.errors.InvalidArgumentError, match="label"):
        fe.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 3], logits=x)
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"expected labels shape \[2\]"):
        fe.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2], logits=x)
    with pytest.raises(fe.errors.InvalidArgumentError, match="shapes differ"):
        fe.nn.softmax_cross_entropy_with_logits(labels=fe.zeros([2, 4]), logits=x)
    with pytest.raises(fe.errors.InvalidArgumentError, match="shapes differ"):
        fe.nn.sigmoid_cross_entropy_with_logits(labels=fe.zeros([3]), logits=x)


def test_dense_xent_labels_gradient_is_minus_log_softmax():
    y, x = fe.constant(_rand(3, 4)), fe.constant(_rand(3, 4))
    with fe.GradientTape() as tape:
        tape.watch(y)
        loss = fe.nn.softmax_cross_entropy_with_logits(labels=y, logits=x)
    np.testing.assert_allclose(tape.gradient(loss, y).numpy(), -fe.nn.log_softmax(x).numpy())


def test_xent_first_order_skips_the_second_order_term():
    # the backprop output is consumed only by an outer tape; plain training gets the
    # fused gradient alone, which equals softmax - onehot
    x = fe.constant(_rand(4, 3))
    lab = np.array([0, 1, 2, 0])
    with fe.GradientTape() as tape:
        tape.watch(x)
        loss = fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=x))
    p = fe.nn.softmax(x).numpy().copy()
    p[np.arange(4), lab] -= 1
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), p / 4, rtol=1e-12)


def test_l2_loss_and_bias_add():
    x = _rand(3, 4)
    np.testing.assert_allclose(fe.nn.l2_loss(x).numpy(), (x ** 2).sum() / 2)
    with pytest.raises(fe.errors.InvalidArgumentError, match=r"bias_add: .*expected bias \[4\]"):
        fe.nn.bias_add(x, np.zeros(3))
    with pytest.raises(fe.errors.InvalidArgumentError, match="bias_add: bias must be 1-D"):
        fe.nn.bias_add(x, np.zeros((1, 4)))


# ---- composites ------------------------------------------------------------------------

def test_dropout():
    x = fe.ones([200, 50])
    assert fe.nn.dropout(x, 0.0) is x
    fe.random.set_seed(5)
    y = fe.nn.dropout(x, 0.25).numpy()
    assert set(np.unique(y).tolist()) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02
    assert y.dtype == np.float32
    fe.random.set_seed(5)
    np.testing.assert_array_equal(fe.nn.dropout(x, 0.25).numpy(), y)      # reproducible
    fe.random.set_seed(1)
    a = fe.nn.dropout(x, 0.5, seed=3).numpy()
    fe.random.set_seed(1)
    np.testing.assert_array_equal(fe.nn.dropout(x, 0.5, seed=3).numpy(), a)
    z = fe.nn.dropout(x, 0.5, noise_shape=[200, 1]).numpy()
    assert ((z == 0).all(axis=1) | (z != 0).all(axis=1)).all()           # shared along axis 1
    xt = fe.constant(_rand(3, 4))
    with fe.GradientTape() as tape:
        tape.watch(xt)
        d = fe.nn.dropout(xt, 0.5)
    np.testing.assert_allclose(tape.gradient(d, xt).numpy(), (d.numpy() != 0) * 2.0)
    with pytest.raises(fe.errors.InvalidArgumentError, match="dropout: rate"):
        fe.nn.dropout(x, 1.0)
    k = fe.nn.dropout(x, keep_prob=0.8).numpy()                             # the TF1 keyword
    assert set(np.unique(k).tolist()) <= {0.0, np.float32(1 / 0.8)}
    with pytest.raises(fe.errors.InvalidArgumentError, match="exactly one"):
        fe.nn.dropout(x, 0.5, keep_prob=0.5)
    with pytest.raises(fe.errors.InvalidArgumentError, match="dropout: x must be floating"):
        fe.nn.dropout([1, 2], 0.5)
    with pytest.raises(fe.errors.InvalidArgumentError, match="noise_shape"):
        fe.nn.dropout(x, 0.5, noise_shape=[3, 1])


def test_moments_and_batch_normalization():
    x = _rand(4, 3, 5)
    mean, var = fe.nn.moments(x, axes=[0, 1])
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=(0, 1)))
    np.testing.assert_allclose(var.numpy(), x.var(axis=(0, 1)))
    mean_k, var_k = fe.nn.moments(x, axes=[0, 2], keepdims=True)
    assert mean_k.shape == (1, 3, 1) and var_k.shape == (1, 3, 1)
    check_grads(lambda a: list(fe.nn.moments(a, axes=[0])), [x[:, :, 0]], order=2)
    offset, scale = _rand(5), _rand(5)
    y = fe.nn.batch_normalization(x, mean, var, offset, scale, 1e-3)
    ref = (x - x.mean(axis=(0, 1))) / np.sqrt(x.var(axis=(0, 1)) + 1e-3) * scale + offset
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-10)
    check_grads(lambda a, m, v, o, s: fe.nn.batch_normalization(a, m, v + 2.0, o, s, 1e-3),
                [x[0], _rand(5), _rand(5), offset, scale], order=2)
    y2 = fe.nn.batch_normalization(x, mean, var, None, None, 1e-3)
    np.testing.assert_allclose(y2.numpy(), (x - x.mean(axis=(0, 1))) /
                               np.sqrt(x.var(axis=(0, 1)) + 1e-3), rtol=1e-10)
    with pytest.raises(fe.errors.InvalidArgumentError, match="moments: x must be floating"):
        fe.nn.moments([1, 2, 3], axes=[0])


def test_l2_normalize():
    x = _rand(3, 4)
    np.testing.assert_allclose(fe.nn.l2_normalize(x, axis=1).numpy(),
                               x / np.linalg.norm(x, axis=1, keepdims=True))
    np.testing.assert_allclose(fe.nn.l2_normalize(np.zeros(3)).numpy(), np.zeros(3))
    check_grads(lambda a: fe.nn.l2_normalize(a, axis=0), [x], order=2)


NN_NAMES = [
    "relu", "relu6", "elu", "selu", "gelu", "leaky_relu", "softplus", "softsign", "silu", "swish",
    "sigmoid", "tanh", "softmax", "log_softmax", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits", "conv2d",
    "conv1d", "convolution", "conv2d_transpose", "depthwise_conv2d", "max_pool2d", "avg_pool2d",
    "max_pool", "avg_pool", "max_pool1d", "avg_pool1d", "bias_add", "dropout", "moments",
    "batch_normalization", "l2_normalize", "l2_loss"]


def test_namespace_exports():
    for name in NN_NAMES:
        assert callable(getattr(fe.nn, name)), name


def test_depthwise_conv2d():
    x, w = _rand(2, 6, 5, 3), _rand(3, 2, 3, 2)
    y = fe.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")
    ref = np.concatenate([conv2d_ref(x[..., c:c + 1], w[:, :, c:c + 1], (2, 2), "SAME")
                          for c in range(3)], axis=-1)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-10)
    check_grads(lambda a, b: fe.nn.depthwise_conv2d(a, b, 1, "VALID"), [x[:1], w], order=2)


def test_second_order_through_a_small_convnet():
    # conv -> bias -> relu -> max pool -> avg pool -> dense -> sparse xent: a Hessian-vector
    # product runs through every backward op (conv backprops, pool backprops, fused xent)
    labels = np.array([1, 0])

    def net(x, w, b, v):
        h = fe.nn.relu(fe.nn.bias_add(fe.nn.conv2d(x, w, 1, "SAME"), b))
        h = fe.nn.avg_pool2d(fe.nn.max_pool2d(h, 2, 1, "VALID"), 2, 2, "SAME")
        logits = fe.matmul(fe.reshape(h, [2, -1]), v)
        return fe.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)

    x, w, b, v = _rand(2, 4, 4, 2), _rand(3, 3, 2, 3), _rand(3), _rand(12, 2)
    check_grads(net, [x, w, b, v], order=2)


def test_float16_runs_through_float32_kernels():
    x = fe.constant(np.array([[1, 2, 3]], np.float16))
    y = fe.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=x)
    assert y.dtype == fe.float16 and abs(float(y) - 1.4076) < 1e-3
    img = np.arange(16, dtype=np.float16).reshape(1, 4, 4, 1)
    c = fe.nn.conv2d(img, np.ones((2, 2, 1, 1), np.float16), 1, "VALID")
    assert c.dtype == fe.float16
    np.testing.assert_allclose(c.numpy(), conv2d_ref(img.astype(np.float32),
                                                     np.ones((2, 2, 1, 1), np.float32)))
    p = fe.nn.max_pool2d(img, 2, 2, "VALID")
    assert p.dtype == fe.float16 and p.numpy().ravel().tolist() == [5, 7, 13, 15]
