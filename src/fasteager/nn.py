"""``fe.nn``: activations, losses, convolution and pooling (NHWC), as ``tf.nn``.

>>> fe.nn.relu([-1., 2.]).numpy()
array([0., 2.], dtype=float32)
"""
from .ops.pool_ops import (avg_pool, avg_pool1d, avg_pool2d, max_pool, max_pool1d,  # noqa: F401
                           max_pool2d)
from .ops.conv_ops import (conv1d, conv2d, conv2d_transpose, convolution,  # noqa: F401
                           depthwise_conv2d)
from .ops.elementwise_ops import sigmoid, tanh  # noqa: F401
from .ops.norm_ops import batch_normalization, moments  # noqa: F401
from .ops.nn_ops import (bias_add, dropout, elu, gelu, l2_loss, l2_normalize,  # noqa: F401
                         leaky_relu, log_softmax, relu, relu6, selu,
                         sigmoid_cross_entropy_with_logits, silu, softmax,
                         softmax_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2,
                         softplus, softsign, sparse_softmax_cross_entropy_with_logits, swish)
from .ragged import embedding_lookup  # noqa: F401,E402
from .sparse import embedding_lookup_sparse  # noqa: F401,E402
from ._src.state.replicas import compute_average_loss, scale_regularization_loss  # noqa: F401,E402,E501
from .ops.sort_ops import approx_max_k, approx_min_k, in_top_k  # noqa: F401,E402
from .ops.reduction_ops import zero_fraction  # noqa: F401,E402
from .ops.conv_ops import (atrous_conv2d, atrous_conv2d_transpose,  # noqa: F401,E402,E501
                           conv1d_transpose, conv3d, conv3d_transpose, conv_transpose,
                           depthwise_conv2d_backprop_filter, depthwise_conv2d_backprop_input,
                           separable_conv2d)
from .ops.pool_ops import (avg_pool3d, dilation2d, erosion2d, max_pool3d,  # noqa: F401,E402,E501
                           max_pool_with_argmax, pool)
from .ops.norm_ops import (batch_norm_with_global_normalization,  # noqa: F401,E402,E501
                           local_response_normalization, lrn, normalize_moments,
                           sufficient_statistics, weighted_moments)
from .ops.sequence_ops import (collapse_repeated, depth_to_space,  # noqa: F401,E402,E501
                               space_to_depth)
from .ops.nn_ops import (crelu, log_poisson_loss,  # noqa: F401,E402,E501
                         weighted_cross_entropy_with_logits)
from .ops.sort_ops import top_k  # noqa: F401,E402
from .ops.sequence_ops import space_to_batch  # noqa: F401,E402 - tf.nn.space_to_batch is tf.space_to_batch
