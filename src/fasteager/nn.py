"""``fe.nn``: activations, losses, convolution and pooling (NHWC), as ``tf.nn``.

>>> fe.nn.relu([-1., 2.]).numpy()
array([0., 2.], dtype=float32)
"""
from ._src.composite.embedding import embedding_lookup, embedding_lookup_sparse  # noqa: F401
from ._src.state.replicas import compute_average_loss, scale_regularization_loss  # noqa: F401
from .ops.conv_ops import (atrous_conv2d, atrous_conv2d_transpose, conv1d,  # noqa: F401
                           conv1d_transpose, conv2d, conv2d_transpose, conv3d, conv3d_transpose,
                           conv_transpose, convolution, depthwise_conv2d,
                           depthwise_conv2d_backprop_filter, depthwise_conv2d_backprop_input,
                           separable_conv2d)
from .ops.elementwise_ops import sigmoid, tanh  # noqa: F401
from .ops.nn_ops import (bias_add, crelu, dropout, elu, gelu, l2_loss, l2_normalize,  # noqa: F401
                         leaky_relu, log_poisson_loss, log_softmax, relu, relu6, selu,
                         sigmoid_cross_entropy_with_logits, silu, softmax,
                         softmax_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2,
                         softplus, softsign, sparse_softmax_cross_entropy_with_logits, swish,
                         weighted_cross_entropy_with_logits)
from .ops.norm_ops import (batch_norm_with_global_normalization, batch_normalization,  # noqa: F401
                           local_response_normalization, lrn, moments, normalize_moments,
                           sufficient_statistics, weighted_moments)
from .ops.pool_ops import (avg_pool, avg_pool1d, avg_pool2d, avg_pool3d, dilation2d,  # noqa: F401
                           erosion2d, max_pool, max_pool1d, max_pool2d, max_pool3d,
                           max_pool_with_argmax, pool)
from .ops.reduction_ops import zero_fraction  # noqa: F401
from .ops.sequence_ops import (collapse_repeated, depth_to_space, space_to_batch,  # noqa: F401
                               space_to_depth)
from .ops.sort_ops import approx_max_k, approx_min_k, in_top_k, top_k  # noqa: F401
