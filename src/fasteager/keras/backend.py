"""Keras backend utilities: unique layer names, ``clear_session``, ``epsilon``, ``floatx``,
``image_data_format`` (the settings ``keras.config`` reads and sets), and Keras's dtype
promotion (``result_type``, ``standardize_dtype``; implemented in keras.ops._dtypes)."""
import collections
import threading

import numpy as np

_lock = threading.Lock()
_name_counts = collections.defaultdict(int)
_EPSILON = 1e-7
_FLOATX = "float32"
_IMAGE_DATA_FORMAT = "channels_last"
# (process-wide, as Keras 3 keeps them: one setting for every thread)


def unique_name(base):
    """'dense', then 'dense_1', 'dense_2' ... as Keras names layers."""
    with _lock:
        n = _name_counts[base]
        _name_counts[base] += 1
    return base if n == 0 else "%s_%d" % (base, n)


def clear_session():
    """Reset the layer-name counters (the next Dense is 'dense' again)."""
    with _lock:
        _name_counts.clear()


def reset_uids():
    clear_session()


def epsilon():
    """The fuzz factor used by losses and metrics (1e-7)."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def floatx():
    """The default float dtype of layers' weights and Keras variables ('float32')."""
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    accepted = {"bfloat16", "float16", "float32", "float64"}
    if value not in accepted:
        raise ValueError("Unknown `floatx` value: %s. Expected one of %s" % (value, accepted))
    _FLOATX = str(value)


def image_data_format():
    """The default layout of image layers and utilities ('channels_last')."""
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    value = str(data_format).lower()
    if value not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', "
                         "'channels_last'}. Received: data_format=%s" % (data_format,))
    _IMAGE_DATA_FORMAT = value


def backend():
    """The name of the backend Keras runs on: fasteager stands for TensorFlow's."""
    return "tensorflow"


def get_value(x):
    """The NumPy value of a tensor, variable or Python number."""
    if hasattr(x, "numpy"):
        return x.numpy()
    return np.asarray(x)


def set_value(x, value):
    x.assign(value)



# Keras's dtype promotion lives with keras.ops (its one user); exported here as Keras does.
from .ops._dtypes import result_type, standardize_dtype  # noqa: F401
