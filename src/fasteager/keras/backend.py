"""Keras backend utilities: unique layer names, ``clear_session``, ``epsilon``, ``floatx``."""
import collections
import threading

import numpy as np

_lock = threading.Lock()
_name_counts = collections.defaultdict(int)
_EPSILON = 1e-7
_FLOATX = "float32"


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
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    _FLOATX = str(value)


def get_value(x):
    """The NumPy value of a tensor, variable or Python number."""
    if hasattr(x, "numpy"):
        return x.numpy()
    return np.asarray(x)


def set_value(x, value):
    x.assign(value)
