"""``fe.keras.layers``: the Layer base class and the built-in layers."""
from .attention import Attention, MultiHeadAttention  # noqa: F401
from .base import Input, InputLayer, KerasTensor, Layer  # noqa: F401
from .conv import (AveragePooling2D, AvgPool2D, Conv1D, Conv1DTranspose,  # noqa: F401
                   Convolution1DTranspose, Conv2D, Conv2DTranspose,
                   Conv3D, Convolution1D, Convolution2D, Convolution2DTranspose,
                   Convolution3D, DepthwiseConv2D,
                   SeparableConv2D, SeparableConvolution2D, GlobalAveragePooling1D,
                   GlobalAveragePooling2D, GlobalAvgPool2D, GlobalMaxPool2D, GlobalMaxPooling1D, GlobalMaxPooling2D,
                   MaxPool2D, MaxPooling2D, MaxPooling1D, MaxPool1D, AveragePooling1D,
                   AvgPool1D, MaxPooling3D, MaxPool3D, AveragePooling3D, AvgPool3D,
                   GlobalAveragePooling3D, GlobalAvgPool3D, GlobalMaxPooling3D,
                   GlobalMaxPool3D, GlobalAvgPool1D, GlobalMaxPool1D)
from .core import (ELU, Activation, ActivityRegularization, AlphaDropout,  # noqa: F401
                   Dense, Dropout, Embedding, Flatten, GaussianDropout, GaussianNoise,
                   Identity, Lambda, LeakyReLU, Masking, PReLU, ReLU, Reshape, Softmax,
                   SpatialDropout1D, SpatialDropout2D, SpatialDropout3D)
from .normalization import (BatchNormalization, GroupNormalization,  # noqa: F401
                            LayerNormalization, RMSNormalization, UnitNormalization)
from .merging import (Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply,  # noqa: F401
                      Subtract, add, average, concatenate, dot, maximum, minimum, multiply,
                      subtract)
from .reshaping import (Cropping1D, Cropping2D, Cropping3D, Permute,  # noqa: F401
                        RepeatVector, UpSampling1D, UpSampling2D, UpSampling3D, ZeroPadding1D,
                        ZeroPadding2D, ZeroPadding3D)
from .recurrent import (GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell,  # noqa: F401
                        SimpleRNN, SimpleRNNCell, TimeDistributed)
from .._serialization import deserialize_keras_object, serialize_keras_object
from .. import _serialization


def serialize(layer):
    """The layer as a config dict (``class_name``, ``module``, ``config``), as Keras 3's
    ``keras.layers.serialize``."""
    return serialize_keras_object(layer)


def deserialize(config, custom_objects=None):
    """The layer that ``serialize`` described (Keras 3's ``keras.layers.deserialize``)."""
    obj = deserialize_keras_object(config, custom_objects=custom_objects,
                                   where="layers.deserialize")
    if not isinstance(obj, Layer):
        raise ValueError("`keras.layers.deserialize` was passed a `config` object that is "
                         "not a `keras.layers.Layer`. Received: %s" % (config,))
    return obj

# what a saved config may name (see _serialization: loading constructs only these)
_serialization.register_builtins("layers", globals(), Layer)
