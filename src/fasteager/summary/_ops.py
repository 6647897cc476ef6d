"""Summary ops: ``scalar``, ``histogram``, ``image``, ``text`` and the generic ``write``.

Each op writes the TF2 form that TensorBoard's plugins read: a tensor value plus
SummaryMetadata naming the plugin and its data class (tensorboard/plugins/*/metadata.py
and summary_v2.py). Data may be a Python value, a NumPy array, or anything with
``__array__`` (fasteager tensors); it is converted with ``np.asarray``.

As in TF, an op returns False without touching its data beyond cheap checks when there
is no default writer or ``record_if`` is off; the expensive parts (histogram buckets,
PNG encoding) run only when the summary is actually recorded.
"""

import functools
import time

import numpy as np

from . import _events
from ._png import encode_png
from .writer import _state, should_record_summaries

__all__ = ["histogram", "image", "scalar", "text", "write"]

DEFAULT_BUCKET_COUNT = 30  # tensorboard/plugins/histogram/summary_v2.py


def _resolve_step(step, op):
    if type(step) is int:
        return step
    value = np.asarray(step)
    if value.ndim != 0:
        raise ValueError(f"summary.{op}: step must be a scalar (expected shape (), "
                         f"got {value.shape})")
    if value.dtype.kind in "iu":
        return int(value)
    if value.dtype.kind == "f" and float(value).is_integer():
        return int(value)
    raise ValueError(f"summary.{op}: step must be an integer (expected int64-castable, "
                     f"got {value.dtype} {value!r})")


def _record(op, tag, make_tensor, step, metadata):
    """Shared tail of every op: check state, resolve the step, serialize, queue."""
    writer = _state.writer
    if writer is None:
        return False
    if step is None:
        step = _state.step
    if not should_record_summaries():
        return False
    if step is None:
        raise ValueError(f"summary.{op}: no step set (expected the `step` argument or "
                         f"fe.summary.experimental.set_step(), got None)")
    step = _resolve_step(step, op)
    value = _events.summary_value(tag, make_tensor(), metadata)
    writer._write_event(_events.event(time.time(), step, (value,)))
    return True


@functools.lru_cache(maxsize=256)
def _metadata(plugin_name, data_class, description):
    return _events.summary_metadata(plugin_name, data_class, description)


def _tensor_bytes(value):
    """Serialize a tensor given as an array (numeric or string) to a TensorProto."""
    arr = np.asarray(value)
    if arr.dtype.kind in "USO":
        flat = [_to_bytes(x, "write") for x in arr.reshape(-1)]
        return _events.string_tensor_proto(flat, arr.shape)
    return _events.tensor_proto(arr)


def _to_bytes(x, op):
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (np.bytes_, bytearray, memoryview)):
        return bytes(x)
    raise TypeError(f"summary.{op}: data must be strings (expected str or bytes, "
                    f"got {type(x).__name__})")


def write(tag, tensor, step=None, metadata=None, name=None):
    """Write a generic tensor summary to the default writer.

    ``tensor`` is array-like or a callable returning one (called only if recording);
    ``metadata`` is a serialized SummaryMetadata (bytes), an object with
    ``SerializeToString()``, or None. Returns True if written, False if there is no
    default writer or recording is off.

    >>> fe.summary.write("raw", np.eye(2), step=0)
    True
    """
    if metadata is None:
        metadata = b""
    elif hasattr(metadata, "SerializeToString"):
        metadata = metadata.SerializeToString()
    else:
        metadata = bytes(metadata)
    return _record("write", tag,
                   lambda: _tensor_bytes(tensor() if callable(tensor) else tensor),
                   step, metadata)


def scalar(name, data, step=None, description=None):
    """Write a scalar summary (plugin "scalars"): a float32 0-d tensor.

    Returns True if written, False if there is no default writer or recording is off.
    Raises ValueError if ``data`` is not a scalar, or if no step is given or set.

    >>> with writer.as_default():
    ...     fe.summary.scalar("loss", 0.25, step=10)
    True
    """
    arr = np.asarray(data)
    if arr.ndim != 0:
        raise ValueError(f"summary.scalar: data must be a scalar (expected shape (), "
                         f"got {arr.shape}) for {name!r}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"summary.scalar: data must be numeric (expected a real number, "
                        f"got {arr.dtype}) for {name!r}")
    metadata = _metadata("scalars", _events.DATA_CLASS_SCALAR, description)
    return _record("scalar", name,
                   lambda: _events.tensor_proto(arr.astype(np.float32)), step, metadata)


def _buckets(data, bucket_count):
    """Histogram buckets as a float64 (k, 3) array of [left, right, count].

    Same rules as TensorBoard's summary_v2 ``_buckets``: k equal-width buckets between
    min and max, the max falling in the last one; a single distinct value gives k
    buckets of zero width with every count in the last; empty data gives zeros.
    """
    data = np.asarray(data, dtype=np.float64).reshape(-1)
    k = max(0, int(bucket_count))
    if data.size == 0 or k == 0:
        return np.zeros((k, 3), dtype=np.float64)
    lo, hi = float(data.min()), float(data.max())
    if hi == lo:
        counts = np.zeros(k, dtype=np.float64)
        counts[-1] = data.size
        edges = np.full(k, hi)
        return np.stack([edges, edges, counts], axis=1)
    width = (hi - lo) / k
    index = np.minimum(np.floor((data - lo) / width).astype(np.int64), k - 1)
    counts = np.bincount(index, minlength=k).astype(np.float64)
    edges = np.linspace(lo, hi, k + 1)
    edges[-1] = hi
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram summary (plugin "histograms") of all values in ``data``.

    Stored as a float64 tensor of shape (buckets, 3): [left edge, right edge, count];
    ``buckets`` defaults to 30.

    >>> fe.summary.histogram("weights", np.random.randn(1000), step=0)
    True
    """
    k = DEFAULT_BUCKET_COUNT if buckets is None else buckets
    metadata = _metadata("histograms", _events.DATA_CLASS_TENSOR, description)
    return _record("histogram", name, lambda: _events.tensor_proto(_buckets(data, k)),
                   step, metadata)


def _to_uint8_images(data):
    # As tf.image.convert_image_dtype(saturate=True): floats scale by 255.5 and truncate
    # after clipping; wider integers are divided down to 8 bits.
    arr = np.asarray(data)
    kind = arr.dtype.kind
    if arr.dtype == np.uint8:
        return arr
    if kind == "f":
        return np.clip(np.nan_to_num(arr.astype(np.float64) * 255.5), 0, 255).astype(np.uint8)
    if kind == "b":
        return arr.astype(np.uint8) * 255
    if kind in "iu":
        info = np.iinfo(arr.dtype)
        scale = max(1, (int(info.max) + 1) // 256)
        return np.clip(arr // scale, 0, 255).astype(np.uint8)
    raise TypeError(f"summary.image: data must be numeric (expected float in [0, 1] or "
                    f"uint8, got {arr.dtype})")


def image(name, data, step=None, max_outputs=3, description=None):
    """Write an image summary (plugin "images") of up to ``max_outputs`` images.

    ``data`` has shape (N, H, W, C) with C in 1 (grayscale), 2, 3 (RGB) or 4 (RGBA);
    floats are taken in [0, 1] (clipped), uint8 in [0, 255]. Stored as a string
    tensor [width, height, png_1, ..., png_n].

    >>> fe.summary.image("samples", np.random.rand(2, 28, 28, 1), step=0)
    True
    """
    if isinstance(max_outputs, bool) or int(max_outputs) < 0:
        raise ValueError(f"summary.image: max_outputs must be non-negative "
                         f"(expected >= 0, got {max_outputs!r})")

    def make_tensor():
        arr = np.asarray(data)
        if arr.ndim != 4 or arr.shape[3] not in (1, 2, 3, 4):
            raise ValueError(f"summary.image: data must have shape (N, H, W, C) with C in "
                             f"1..4 (expected rank 4, got shape {arr.shape}) for {name!r}")
        images = _to_uint8_images(arr[:int(max_outputs)])
        height, width = arr.shape[1], arr.shape[2]
        items = [str(width).encode(), str(height).encode()]
        items.extend(encode_png(img) for img in images)
        return _events.string_tensor_proto(items, (len(items),))

    metadata = _metadata("images", _events.DATA_CLASS_BLOB_SEQUENCE, description)
    return _record("image", name, make_tensor, step, metadata)


def text(name, data, step=None, description=None):
    """Write a text summary (plugin "text"): a string or array of strings (Markdown).

    >>> fe.summary.text("notes", "loss went **down**", step=0)
    True
    """
    def make_tensor():
        if isinstance(data, (str, bytes)):
            return _events.string_tensor_proto([_to_bytes(data, "text")], ())
        arr = np.asarray(data)
        if arr.dtype.kind not in "USO":
            raise TypeError(f"summary.text: data must be strings (expected str or bytes, "
                            f"got {arr.dtype}) for {name!r}")
        flat = [_to_bytes(x, "text") for x in arr.reshape(-1)]
        return _events.string_tensor_proto(flat, arr.shape)

    metadata = _metadata("text", _events.DATA_CLASS_TENSOR, description)
    return _record("text", name, make_tensor, step, metadata)
