"""tf.nn functions built from other ops (block rearrangements, crelu and losses, moment
statistics, local response normalization, sequence helpers): values and errors as
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


BLOCKS = [[0., 1., 4., 5.], [2., 3., 6., 7.], [8., 9., 12., 13.], [10., 11., 14., 15.]]


def test_depth_to_space_and_back():
    x = fe.reshape(fe.range(16, dtype=fe.float32), [1, 2, 2, 4])
    close(nn.depth_to_space(x, 2)[0, :, :, 0], BLOCKS)
    image = fe.reshape(fe.range(16.), [1, 4, 4, 1])
    close(nn.space_to_depth(image, 2)[0], np.reshape(BLOCKS, (2, 2, 4)))
    close(nn.depth_to_space(nn.space_to_depth(image, 2), 2), image)
    nchw = fe.transpose(x, [0, 3, 1, 2])
    close(nn.depth_to_space(nchw, 2, data_format="NCHW")[0, 0], BLOCKS)
    with pytest.raises(fe.errors.InvalidArgumentError, match="divisible by: 4"):
        nn.depth_to_space(fe.zeros([1, 2, 2, 3]), 2)
    with pytest.raises(fe.errors.InvalidArgumentError, match="divisible by block_size: 2"):
        nn.space_to_depth(fe.zeros([1, 3, 3, 1]), 2)


def test_crelu_and_losses():
    close(nn.crelu([[-1., 2.]]), [[0., 2., 1., 0.]])
    close(nn.log_poisson_loss([0., 1., 3.], [0.5, -1., 2.]), [1.6487212, 1.3678794, 1.3890562])
    close(nn.log_poisson_loss([0., 1., 3.], [0.5, -1., 2.], compute_full_loss=True),
          [1.6487212, 1.3678794, 3.1531377])
    close(nn.weighted_cross_entropy_with_logits([0., 1., 1.], [0.5, -1., 2.], 3.),
          [0.974077, 3.9397852, 0.380784])
    check_grads(lambda z, x: nn.weighted_cross_entropy_with_logits(z, x, 2.5),
                [[0.2, 0.9, 0.5], [0.5, -1.0, 2.0]])
    check_grads(lambda t, x: nn.log_poisson_loss(t, x, compute_full_loss=True),
                [[0.5, 2.0, 3.0], [0.5, -1.0, 2.0]])


def test_moment_statistics():
    x = fe.constant([[1., 2.], [3., 5.]])
    count, m_ss, v_ss, shift = nn.sufficient_statistics(x, [0])
    close(count, 2.)
    close(m_ss, [4., 7.])
    close(v_ss, [10., 29.])
    assert shift is None
    count, m_ss, v_ss, shift = nn.sufficient_statistics(x, [0], shift=[1., 1.], keepdims=True)
    close(m_ss, [[2., 5.]])
    close(v_ss, [[4., 17.]])
    close(shift, [1., 1.])
    mean, var = nn.normalize_moments(2., fe.constant([2., 5.]), fe.constant([4., 17.]),
                                     fe.constant([1., 1.]))
    close(mean, [2., 3.5])
    close(var, [1., 2.25])
    mean0, var0 = nn.moments(x, [0])
    close(mean, mean0)
    close(var, var0)


def test_local_response_normalization():
    x = fe.reshape(fe.range(1., 9.), [1, 1, 2, 4])
    close(nn.local_response_normalization(x, depth_radius=1, bias=1., alpha=0.5, beta=0.75),
          [[[[0.39079496, 0.4204482, 0.38403648, 0.5679494],
             [0.37604257, 0.29309627, 0.27329895, 0.38312373]]]])
    close(nn.lrn(fe.reshape(fe.range(1., 9.), [1, 1, 1, 8])),
          [[[[0.1042572, 0.16843037, 0.2095291, 0.27937213, 0.34921515, 0.4190582,
              0.490098, 0.5656854]]]])
    check_grads(lambda t: nn.lrn(t, depth_radius=1, alpha=0.3),
                [np.linspace(-1, 1, 10).reshape(1, 1, 2, 5)])


def test_sequence_and_norm_helpers():
    labels, lengths = nn.collapse_repeated([[1, 1, 2, 2, 2, 3], [4, 4, 5, 0, 0, 0]], [6, 3])
    close(labels, [[1, 2, 3], [4, 5, 0]], fe.int32)
    close(lengths, [3, 2], fe.int32)
    t = fe.constant([[1., 2.], [3., 4.]])
    args = (fe.constant([1., 2.]), fe.constant([0.5, 1.]), fe.constant([0.1, 0.2]),
            fe.constant([2., 3.]), 0.01)
    close(nn.batch_norm_with_global_normalization(t, *args, True),
          nn.batch_normalization(t, args[0], args[1], args[2], args[3], 0.01))
    close(nn.batch_norm_with_global_normalization(t, *args, False),
          nn.batch_normalization(t, args[0], args[1], args[2], None, 0.01))


def test_space_to_batch_is_the_package_function():
    assert nn.space_to_batch is fe.space_to_batch
    assert nn.space_to_batch(fe.reshape(fe.range(8.), [1, 2, 4, 1]), [2, 2],
                             [[0, 0], [0, 0]]).shape == (4, 1, 2, 1)
