"""``fe.keras.layers``: the Layer base class and the built-in layers."""
from .base import Input, InputLayer, KerasTensor, Layer  # noqa: F401
from .conv import (AveragePooling2D, AvgPool2D, Conv1D, Conv2D, Convolution1D,  # noqa: F401
                   Convolution2D, GlobalAveragePooling1D, GlobalAveragePooling2D,
                   GlobalAvgPool2D, GlobalMaxPool2D, GlobalMaxPooling1D, GlobalMaxPooling2D,
                   MaxPool2D, MaxPooling2D)
from .core import (Activation, Dense, Dropout, Embedding, Flatten, Lambda,  # noqa: F401
                   LeakyReLU, ReLU, Reshape, Softmax)
from .normalization import BatchNormalization, LayerNormalization  # noqa: F401
