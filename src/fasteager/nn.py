"""``fe.nn``: activations, losses, convolution and pooling (NHWC), as ``tf.nn``.

>>> fe.nn.relu([-1., 2.]).numpy()
array([0., 2.], dtype=float32)
"""
from .ops.conv_ops import (avg_pool, avg_pool1d, avg_pool2d, conv1d, conv2d,  # noqa: F401
                           conv2d_transpose, convolution, depthwise_conv2d, max_pool,
                           max_pool1d, max_pool2d)
from .ops.math_ops import sigmoid, tanh  # noqa: F401
from .ops.nn_ops import (batch_normalization, bias_add, dropout, elu, gelu,  # noqa: F401
                         l2_loss, l2_normalize, leaky_relu, log_softmax, moments, relu, relu6,
                         selu, sigmoid_cross_entropy_with_logits, silu, softmax,
                         softmax_cross_entropy_with_logits,
                         softmax_cross_entropy_with_logits_v2, softplus, softsign,
                         sparse_softmax_cross_entropy_with_logits, swish)
from .ragged import embedding_lookup  # noqa: F401,E402
from .sparse import embedding_lookup_sparse  # noqa: F401,E402
from ._src.state.replicas import compute_average_loss, scale_regularization_loss  # noqa: F401,E402,E501
from .ops.more_math_ops import (approx_max_k, approx_min_k, in_top_k,  # noqa: F401,E402
                                zero_fraction)
from .ops.more_nn_ops import (atrous_conv2d, atrous_conv2d_transpose, avg_pool3d,  # noqa: F401,E402,E501
                              batch_norm_with_global_normalization, collapse_repeated,
                              conv1d_transpose, conv3d, conv3d_transpose, conv_transpose, crelu,
                              depth_to_space, depthwise_conv2d_backprop_filter,
                              depthwise_conv2d_backprop_input, dilation2d, erosion2d,
                              local_response_normalization, log_poisson_loss, lrn, max_pool3d,
                              max_pool_with_argmax, normalize_moments, pool, separable_conv2d,
                              space_to_depth, sufficient_statistics,
                              weighted_cross_entropy_with_logits, weighted_moments)
from .ops.special_ops import top_k  # noqa: F401,E402
from .ops.sequence_ops import space_to_batch  # noqa: F401,E402 - tf.nn.space_to_batch is tf.space_to_batch
