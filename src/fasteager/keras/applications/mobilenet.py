"""``keras.applications.MobileNet`` (Howard et al. 2017, https://arxiv.org/abs/1704.04861):
the Keras 3 architecture with its layer names (``conv1``, ``conv_dw_1``, ``conv_dw_1_bn``,
``conv_dw_1_relu``, ``conv_pw_1`` ... ``conv_preds``, ``reshape_2``, ``predictions``), so
Keras's ImageNet weight files map onto it layer by layer.

``weights="imagenet"`` downloads Keras's weight file with ``keras.utils.get_file`` into
the ``models`` cache (offline, get_file's error says which URL failed); ``weights=None``
builds random weights; any other value is a weights file for ``Model.load_weights``.
"""
import os
import warnings

from .. import layers
from . import imagenet_utils
from ._weights import load_application_weights

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/"
_IMAGENET_ALPHAS = (0.25, 0.50, 0.75, 1.0)
_IMAGENET_SIZES = (128, 160, 192, 224)
_ALPHA_TEXT = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0", 0.25: "2_5"}

# (pointwise filters, stride) of the 13 depthwise-separable blocks, as in the paper
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
           (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1))


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3,
              include_top=True, weights="imagenet", input_tensor=None, pooling=None,
              classes=1000, classifier_activation="softmax", name=None):
    """The MobileNet image classifier (a Functional model), optionally with its ImageNet
    weights. Inputs are RGB images preprocessed by ``mobilenet.preprocess_input``.

    >>> model = fe.keras.applications.MobileNet(weights=None, alpha=0.25,
    ...                                         input_shape=(128, 128, 3))
    >>> model.output_shape
    (None, 1000)
    """
    if not (weights in ("imagenet", None) or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), 'imagenet' (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded. Received weights=%s" % (weights,))
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError("If using `weights='imagenet'` with `include_top=True`, `classes` "
                         "should be 1000.  Received classes=%s" % (classes,))
    data_format = imagenet_utils.image_data_format()
    default_size = 224
    if input_shape is not None:
        rows, cols = input_shape[1:3] if data_format == "channels_first" else input_shape[:2]
        if rows == cols and rows in _IMAGENET_SIZES:
            default_size = rows
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32, data_format=data_format,
        require_flatten=include_top, weights=weights)
    rows, cols = input_shape[1:3] if data_format == "channels_first" else input_shape[:2]
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be "
                             "1.  Received depth_multiplier=%s" % (depth_multiplier,))
        if alpha not in _IMAGENET_ALPHAS:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of"
                             "`0.25`, `0.50`, `0.75` or `1.0` only.  Received alpha=%s"
                             % (alpha,))
        if rows != cols or rows not in _IMAGENET_SIZES:
            rows = 224
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                          "[128, 160, 192, 224]. Weights for input shape (224, 224) will be "
                          "loaded as the default.", stacklevel=2)
    img_input = layers.Input(shape=input_shape) if input_tensor is None else input_tensor
    if input_tensor is not None and not isinstance(input_tensor, layers.KerasTensor):
        # Keras wraps a backend tensor with Input(tensor=...); fasteager's Input refuses
        # tensor= with its own clear error
        img_input = layers.Input(tensor=input_tensor, shape=input_shape)

    channel_axis = 1 if data_format == "channels_first" else -1
    x = _conv_block(img_input, 32, alpha, channel_axis, strides=(2, 2))
    for block_id, (filters, stride) in enumerate(_BLOCKS, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, channel_axis,
                                  strides=(stride, stride), block_id=block_id)
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        imagenet_utils.validate_activation(classifier_activation, weights)
        x = layers.Activation(activation=classifier_activation, name="predictions")(x)
    if name is None:
        name = "mobilenet_%0.2f_%s" % (alpha, rows)
    model = imagenet_utils.pooled_model(x, None if include_top else pooling, input_tensor,
                                        img_input, name)

    if weights == "imagenet":
        suffix = "" if include_top else "_no_top"
        file_name = "mobilenet_%s_%d_tf%s.h5" % (_ALPHA_TEXT[alpha], rows, suffix)
        load_application_weights(model, file_name, BASE_WEIGHT_PATH + file_name)
    elif weights is not None:
        load_application_weights(model, weights)
    return model


def _conv_block(inputs, filters, alpha, channel_axis, kernel=(3, 3), strides=(1, 1)):
    """The first layer: a strided 3x3 convolution, batch norm and ReLU6."""
    x = layers.Conv2D(int(filters * alpha), kernel, padding="same", use_bias=False,
                      strides=strides, name="conv1")(inputs)
    x = layers.BatchNormalization(axis=channel_axis, name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _depthwise_conv_block(inputs, pointwise_filters, alpha, depth_multiplier, channel_axis,
                          strides=(1, 1), block_id=1):
    """A depthwise 3x3 convolution and a pointwise 1x1 one, each with batch norm and
    ReLU6; a strided block pads bottom/right by one and convolves 'valid' (Keras's
    layout, which the ImageNet weights were trained with)."""
    if strides == (1, 1):
        x = inputs
    else:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name="conv_pad_%d" % block_id)(inputs)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                               depth_multiplier=depth_multiplier, strides=strides,
                               use_bias=False, name="conv_dw_%d" % block_id)(x)
    x = layers.BatchNormalization(axis=channel_axis, name="conv_dw_%d_bn" % block_id)(x)
    x = layers.ReLU(6.0, name="conv_dw_%d_relu" % block_id)(x)
    x = layers.Conv2D(int(pointwise_filters * alpha), (1, 1), padding="same", use_bias=False,
                      strides=(1, 1), name="conv_pw_%d" % block_id)(x)
    x = layers.BatchNormalization(axis=channel_axis, name="conv_pw_%d_bn" % block_id)(x)
    return layers.ReLU(6.0, name="conv_pw_%d_relu" % block_id)(x)


def preprocess_input(x, data_format=None):
    """Scale pixels from [0, 255] to [-1, 1], sample-wise (``imagenet_utils``'s "tf"
    mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


def decode_predictions(preds, top=5):
    """``imagenet_utils.decode_predictions``: the top ImageNet classes of each row."""
    return imagenet_utils.decode_predictions(preds, top=top)
