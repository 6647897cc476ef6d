"""``keras.applications.imagenet_utils``: the input preprocessing and the decoding of
ImageNet predictions shared by the Keras applications, and the input-shape checks their
constructors make (Keras 3's rules and messages).

``preprocess_input`` modes: ``"caffe"`` (RGB -> BGR, minus the ImageNet mean pixel),
``"tf"`` (scaled to [-1, 1]) and ``"torch"`` ([0, 1], then per-channel ImageNet mean and
std). A NumPy float array is preprocessed in place, as in Keras; a tensor gives a new
tensor.
"""
import json
import warnings

import numpy as np

from ..._core import convert_to_tensor
from ...ops import indexing_ops
from ...ops.array_ops import constant
from ...ops.elementwise_ops import cast
from .. import activations, backend
from .._files import get_file
from .._image_utils import image_data_format
from ..functional import Functional
from ..layers import GlobalAveragePooling2D, GlobalMaxPooling2D
from ._weights import source_inputs

CLASS_INDEX = None
CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
_CLASS_INDEX_MD5 = "c2c37ea517e94d9795004a39431a14cb"

_CAFFE_MEAN = (103.939, 116.779, 123.68)         # BGR order, as the caffe weights expect
_TORCH_MEAN = (0.485, 0.456, 0.406)
_TORCH_STD = (0.229, 0.224, 0.225)


def preprocess_input(x, data_format=None, mode="caffe"):
    """Preprocess a batch of images (values in [0, 255], 3 colour channels) for an
    ImageNet model; ``mode`` is ``"caffe"``, ``"tf"`` or ``"torch"`` (see the module).

    >>> preprocess_input(np.full((1, 2, 2, 3), 255.), mode="tf")[0, 0, 0]
    array([1., 1., 1.])
    """
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                         "Received: mode=%s" % (mode,))
    if data_format is None:
        data_format = image_data_format()
    elif data_format not in ("channels_first", "channels_last"):
        raise ValueError("Expected data_format to be one of `channels_first` or "
                         "`channels_last`. Received: data_format=%s" % (data_format,))
    if isinstance(x, np.ndarray):
        return _preprocess_numpy(x, data_format, mode)
    return _preprocess_tensor(convert_to_tensor(x), data_format, mode)


def _channel_axis(ndim, data_format):
    if data_format == "channels_last":
        return ndim - 1
    return 0 if ndim == 3 else 1


def _mean_std(mode):
    if mode == "torch":
        return _TORCH_MEAN, _TORCH_STD
    return _CAFFE_MEAN, None


def _preprocess_numpy(x, data_format, mode):
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(backend.floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    axis = _channel_axis(x.ndim, data_format)
    if mode == "torch":
        x /= 255.0
    else:
        x = np.flip(x, axis=axis)        # RGB -> BGR, a view as in Keras
    mean, std = _mean_std(mode)
    shape = [1] * x.ndim
    shape[axis] = 3
    x -= np.asarray(mean, dtype=x.dtype).reshape(shape)
    if std is not None:
        x /= np.asarray(std, dtype=x.dtype).reshape(shape)
    return x


def _preprocess_tensor(x, data_format, mode):
    if not x.dtype.is_floating:
        x = cast(x, backend.floatx())
    if mode == "tf":
        return x / 127.5 - 1.0
    axis = _channel_axis(x.shape.rank, data_format)
    if mode == "torch":
        x = x / 255.0
    else:
        x = indexing_ops.reverse(x, [axis])
    mean, std = _mean_std(mode)
    shape = [1] * x.shape.rank
    shape[axis] = 3
    x = x - constant(np.asarray(mean).reshape(shape), dtype=x.dtype)
    if std is not None:
        x = x / constant(np.asarray(std).reshape(shape), dtype=x.dtype)
    return x


def decode_predictions(preds, top=5):
    """The ``top`` ImageNet classes of each prediction in a (samples, 1000) batch, as
    lists of ``(class_name, class_description, score)``, best first. The class index
    (a JSON file) is downloaded once with ``get_file`` into the ``models`` cache."""
    global CLASS_INDEX
    shape = tuple(preds.shape)
    if len(shape) != 2 or shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D "
                         "array of shape (samples, 1000)). Received array with shape: %s"
                         % (shape,))
    if CLASS_INDEX is None:
        path = get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                        file_hash=_CLASS_INDEX_MD5)
        with open(path) as f:
            CLASS_INDEX = json.load(f)
    results = []
    for pred in np.asarray(preds):
        best = pred.argsort()[-top:][::-1]
        result = [tuple(CLASS_INDEX[str(i)]) + (pred[i],) for i in best]
        result.sort(key=lambda entry: entry[2], reverse=True)
        results.append(result)
    return results


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                       weights=None):
    """The model's input shape (without the batch dimension): ``input_shape`` checked
    against what the architecture and the ImageNet weights allow, or the default."""
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in (1, 3):
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          "passed an input_shape with %s input channels." % (channels,),
                          stacklevel=3)
        default_shape = ((channels, default_size, default_size) if channels_first
                         else (default_size, default_size, channels))
    else:
        default_shape = ((3, default_size, default_size) if channels_first
                         else (default_size, default_size, 3))
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` "
                             "weights, `input_shape` should be %s.  Received: input_shape=%s"
                             % (default_shape, input_shape))
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if channels_first else input_shape[-1]
        rows, cols = input_shape[1:] if channels_first else input_shape[:2]
        if channels != 3 and weights == "imagenet":
            raise ValueError("The input must have 3 channels; Received `input_shape=%s`"
                             % (input_shape,))
        if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
            raise ValueError("Input size must be at least %dx%d; Received: input_shape=%s"
                             % (min_size, min_size, input_shape))
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in tuple(input_shape):
        raise ValueError("If `include_top` is True, you should specify a static "
                         "`input_shape`. Received: input_shape=%s" % (input_shape,))
    return tuple(input_shape)


def correct_pad(inputs, kernel_size):
    """The ``((top, bottom), (left, right))`` zero padding that makes a strided 'valid'
    convolution of ``kernel_size`` on ``inputs`` line up as 'same' padding would."""
    rows, cols = inputs.shape[1:3] if image_data_format() == "channels_last" \
        else inputs.shape[2:4]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if rows is None else (1 - rows % 2, 1 - cols % 2)
    half = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((half[0] - adjust[0], half[0]), (half[1] - adjust[1], half[1]))


def validate_activation(classifier_activation, weights):
    """Pretrained weights allow only ``None`` or ``"softmax"`` on the classifier."""
    if weights is None:
        return
    fn = activations.get(classifier_activation)
    if fn not in (activations.get("softmax"), activations.get(None)):
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, "
                         "with `include_top=True`; Received: classifier_activation=%s"
                         % (classifier_activation,))


def pooled_model(x, pooling, input_tensor, img_input, name):
    """The headless tail both MobileNets share: ``x`` pooled as ``pooling`` asks ('avg',
    'max' or None), then a Functional model from the network's inputs (``input_tensor``'s
    source inputs when one was given)."""
    if pooling == "avg":
        x = GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = GlobalMaxPooling2D()(x)
    inputs = source_inputs(input_tensor) if input_tensor is not None else img_input
    return Functional(inputs, x, name=name)
