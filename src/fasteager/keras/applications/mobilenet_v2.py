"""``keras.applications.MobileNetV2`` (Sandler et al. 2018, https://arxiv.org/abs/1801.04381):
inverted residual blocks with linear bottlenecks, with Keras 3's architecture and layer
names (``Conv1``, ``bn_Conv1``, ``Conv1_relu``, ``expanded_conv_depthwise`` ...,
``block_N_expand`` / ``_depthwise`` / ``_project`` / ``_add``, ``Conv_1``, ``out_relu``,
``predictions``), so Keras's ImageNet weight files map onto it layer by layer.

``weights`` as for ``MobileNet``: ``"imagenet"`` (Keras's file through ``get_file``),
``None`` (random) or a weights file path.
"""
import os
import warnings

from .. import layers
from . import imagenet_utils
from ._weights import load_application_weights

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_IMAGENET_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
_IMAGENET_SIZES = (96, 128, 160, 192, 224)

# (filters, stride, expansion) of the 17 inverted residual blocks, as in the paper
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
           (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6),
           (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))


def _spatial(shape, data_format, batched):
    """(rows, cols) of an image shape, with or without its batch dimension."""
    offset = 1 if batched else 0
    if data_format == "channels_first":
        offset += 1
    return shape[offset], shape[offset + 1]


def _default_size(input_shape, input_tensor, data_format):
    """The weights' image size the given shape (or input tensor) asks for, else 224."""
    if input_shape is not None:
        rows, cols = _spatial(input_shape, data_format, batched=False)
    elif isinstance(input_tensor, layers.KerasTensor):
        rows, cols = _spatial(input_tensor.shape.as_list(), data_format, batched=True)
    else:
        return 224
    return rows if rows == cols and rows in _IMAGENET_SIZES else 224


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", name=None):
    """The MobileNetV2 image classifier (a Functional model), optionally with its ImageNet
    weights. Inputs are RGB images preprocessed by ``mobilenet_v2.preprocess_input``.

    >>> model = fe.keras.applications.MobileNetV2(weights=None, alpha=0.35,
    ...                                           input_shape=(96, 96, 3))
    >>> model.output_shape
    (None, 1000)
    """
    if not (weights in ("imagenet", None) or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded.  Received `weights=%s`"
                         % (weights,))
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights="imagenet"` with `include_top` as true, `classes` '
                         "should be 1000. Received `classes=%s`" % (classes,))
    data_format = imagenet_utils.image_data_format()
    if input_shape is not None and input_tensor is not None:
        if not isinstance(input_tensor, layers.KerasTensor):
            raise ValueError("input_tensor is not a Keras tensor; Received `input_tensor=%s`"
                             % (input_tensor,))
        tensor_shape = input_tensor.shape.as_list()
        if tensor_shape[2] != input_shape[1]:
            raise ValueError("input_tensor.shape[2] must equal input_shape[1]; Received "
                             "`input_tensor.shape=%s`, `input_shape=%s`"
                             % (input_tensor.shape, input_shape))
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=_default_size(input_shape, input_tensor, data_format),
        min_size=32, data_format=data_format, require_flatten=include_top, weights=weights)
    rows, cols = _spatial(input_shape, data_format, batched=False)
    if weights == "imagenet":
        if alpha not in _IMAGENET_ALPHAS:
            raise ValueError("If imagenet weights are being loaded, alpha must be one of "
                             "`0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; Received "
                             "`alpha=%s`" % (alpha,))
        if rows != cols or rows not in _IMAGENET_SIZES:
            rows = 224
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                          "[96, 128, 160, 192, 224]. Weights for input shape (224, 224) will "
                          "be loaded as the default.", stacklevel=2)
    if input_tensor is None:
        img_input = layers.Input(shape=input_shape)
    elif isinstance(input_tensor, layers.KerasTensor):
        img_input = input_tensor
    else:
        # fasteager's Input refuses tensor= with its own clear error
        img_input = layers.Input(tensor=input_tensor, shape=input_shape)

    channel_axis = 1 if data_format == "channels_first" else -1
    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(img_input)
    x = layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999,
                                  name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, expansion=expansion, stride=stride, alpha=alpha,
                                filters=filters, block_id=block_id,
                                channel_axis=channel_axis)
    # the last convolution only grows with alpha, it never shrinks
    last_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999,
                                  name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if name is None:
        name = "mobilenetv2_%0.2f_%s" % (alpha, rows)
    model = imagenet_utils.pooled_model(x, None if include_top else pooling, input_tensor,
                                        img_input, name)

    if weights == "imagenet":
        file_name = "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_%s_%d%s.h5" % (
            float(alpha), rows, "" if include_top else "_no_top")
        load_application_weights(model, file_name, BASE_WEIGHT_PATH + file_name)
    elif weights is not None:
        load_application_weights(model, weights)
    return model


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id, channel_axis):
    """Expand (1x1, ReLU6; not in block 0), depthwise 3x3 (ReLU6), project (1x1, linear),
    and add the input back when the shapes allow."""
    in_channels = inputs.shape[channel_axis]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = "block_%d_" % block_id
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same",
                          use_bias=False, activation=None, name=prefix + "expand")(x)
        x = layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999,
                                      name=prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3),
                                 name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=prefix + "depthwise")(x)
    x = layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999,
                                  name=prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=prefix + "project")(x)
    x = layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999,
                                  name=prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def _make_divisible(v, divisor, min_value=None):
    """``v`` rounded to the nearest multiple of ``divisor`` (at least ``min_value``),
    never more than 10% below ``v`` (the reference implementation's channel rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def preprocess_input(x, data_format=None):
    """Scale pixels from [0, 255] to [-1, 1], sample-wise (``imagenet_utils``'s "tf"
    mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    """``imagenet_utils.decode_predictions``: the top ImageNet classes of each row."""
    return imagenet_utils.decode_predictions(preds, top=top)
