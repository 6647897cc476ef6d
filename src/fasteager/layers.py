"""``fe.layers``: the 2017 name of the Keras layers (``tf.layers.Dense(units=10)``)."""
from .keras.layers import *  # noqa: F401,F403
from .keras.layers import (Activation, AveragePooling2D, BatchNormalization, Conv1D,  # noqa: F401
                           Conv2D, Dense, Dropout, Embedding, Flatten, GlobalAveragePooling2D,
                           GlobalMaxPooling2D, Input, InputLayer, Layer, LayerNormalization,
                           MaxPooling2D, ReLU, Reshape, Softmax)
