"""``fe.keras.layers``: the Layer base class and the built-in layers."""
from .. import _serialization
from .._serialization import deserialize_keras_object, serialize_keras_object
from .attention import Attention, MultiHeadAttention  # noqa: F401
from .augmentation import (  # noqa: F401
    ContrastLimitedAdaptiveHistogramEqualization,
    CutMix,
    MixUp,
    RandomBrightness,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomContrast,
    RandomCrop,
    RandomElasticTransform,
    RandomErasing,
    RandomFlip,
    RandomGaussianBlur,
    RandomGrayscale,
    RandomHue,
    RandomInvert,
    RandomPerspective,
    RandomPosterization,
    RandomRotation,
    RandomSaturation,
    RandomSharpness,
    RandomShear,
    RandomTranslation,
    RandomZoom,
)
from .augmentation_policies import AugMix, RandAugment  # noqa: F401
from .base import Input, InputLayer, KerasTensor, Layer  # noqa: F401
from .conv import (  # noqa: F401
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    AvgPool1D,
    AvgPool2D,
    AvgPool3D,
    Conv1D,
    Conv1DTranspose,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Convolution1D,
    Convolution1DTranspose,
    Convolution2D,
    Convolution2DTranspose,
    Convolution3D,
    DepthwiseConv2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalAvgPool3D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPool3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPool1D,
    MaxPool2D,
    MaxPool3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
    SeparableConv2D,
    SeparableConvolution2D,
)
from .core import (  # noqa: F401
    ELU,
    Activation,
    ActivityRegularization,
    AlphaDropout,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    GaussianDropout,
    GaussianNoise,
    Identity,
    Lambda,
    LeakyReLU,
    Masking,
    PReLU,
    ReLU,
    Reshape,
    Softmax,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from .image_preprocessing import (  # noqa: F401
    AutoContrast,
    Equalization,
    MaxNumBoundingBoxes,
    Solarization,
)
from .merging import (  # noqa: F401
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .normalization import (  # noqa: F401
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    RMSNormalization,
    UnitNormalization,
)
from .preprocessing import (  # noqa: F401
    CategoryEncoding,
    CenterCrop,
    Discretization,
    HashedCrossing,
    Hashing,
    Normalization,
    Pipeline,
    Rescaling,
    Resizing,
)
from .recurrent import (  # noqa: F401
    GRU,
    LSTM,
    RNN,
    Bidirectional,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    TimeDistributed,
)
from .reshaping import (  # noqa: F401
    Cropping1D,
    Cropping2D,
    Cropping3D,
    Permute,
    RepeatVector,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from .spectrogram import (  # noqa: F401
    MelSpectrogram,
    STFTSpectrogram,
)
from .text_preprocessing import (  # noqa: F401
    IntegerLookup,
    StringLookup,
    TextVectorization,
)

# Keras 3 breadth (issue 34, part L3)
from .attention import AdditiveAttention, GroupQueryAttention  # noqa: F401,E402
from .conv import (  # noqa: F401,E402
    Conv3DTranspose,
    Convolution3DTranspose,
    DepthwiseConv1D,
    SeparableConv1D,
    SeparableConvolution1D,
)
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D  # noqa: F401,E402
from .core import ReversibleEmbedding  # noqa: F401,E402
from .einsum_dense import EinsumDense  # noqa: F401,E402
from .pooling import (  # noqa: F401,E402
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
)
from .input_spec import InputSpec  # noqa: F401,E402
from .stacked_cells import StackedRNNCells  # noqa: F401,E402
from .wrappers import SpectralNormalization, Wrapper  # noqa: F401,E402


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
