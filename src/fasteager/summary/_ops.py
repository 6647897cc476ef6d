"""Summary ops: ``scalar``, ``histogram``, ``image``, ``audio``, ``text`` and ``write``.

Each op writes the TF2 form that TensorBoard's plugins read: a tensor value plus
SummaryMetadata naming the plugin and its data class (tensorboard/plugins/*/metadata.py
and summary_v2.py). Data may be a Python value, a NumPy array, or anything with
``__array__`` (fasteager tensors); it is converted with ``np.asarray``.

As in TF, an op returns False without touching its data beyond cheap checks when there
is no default writer or ``record_if`` is off; the expensive parts (histogram buckets,
PNG encoding) run only when the summary is actually recorded.

Arguments are checked as TF checks them (``_checks``): names, descriptions, bucket
counts, ``max_outputs`` and metadata at every call, as TF's ``summary_scope`` does; data
and steps when the summary is recorded. Every check runs before the event is queued.
"""

import functools
import time

import numpy as np

from ..errors import InvalidArgumentError
from . import _checks, _events
from .._src.io.png import encode as encode_png
from ._wav import MAX_CHANNELS, encode_wav
from .writer import _state, resolve_step, should_record_summaries

__all__ = ["audio", "histogram", "image", "scalar", "text", "write"]

DEFAULT_BUCKET_COUNT = 30  # tensorboard/plugins/histogram/summary_v2.py
# 65536 buckets are 1.5 MiB per histogram, far more than TensorBoard draws (it resamples
# to a few dozen); the bound stops a typo such as buckets=10**10 from allocating 240 GB.
MAX_BUCKET_COUNT = 1 << 16


def _record(op, tag, make_tensor, step, metadata):
    """Shared tail of every op: check state, resolve the step, serialize, queue.

    The whole event is built before it is queued, so an error in the data or the step
    writes nothing.
    """
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
    step = resolve_step(step, f"summary.{op}")
    value = _events.summary_value(tag, make_tensor(), metadata)
    writer._write_event(_events.event(time.time(), step, (value,)))
    return True


@functools.lru_cache(maxsize=256)
def _metadata(plugin_name, data_class, description):
    return _events.summary_metadata(plugin_name, data_class, description)


def _plugin_metadata(op, plugin_name, data_class, description):
    if description is not None:
        description = _checks.string(f"summary.{op}", "description", description)
    return _metadata(plugin_name, data_class, description)


def _tensor_bytes(value):
    """Serialize a tensor given as an array (numeric or string) to a TensorProto."""
    arr = _checks.as_array("summary.write", "tensor", value)
    if arr.dtype.kind in "USO":
        flat = [_to_bytes(x, "summary.write", "tensor") for x in arr.reshape(-1)]
        return _events.string_tensor_proto(flat, arr.shape)
    return _events.tensor_proto(arr)


def _to_bytes(x, op, arg):
    # String tensors hold arbitrary bytes (TensorProto.string_val is `bytes`), so only
    # str needs care: lone surrogates cannot be encoded.
    if isinstance(x, (bytes, bytearray, memoryview, np.bytes_)):
        return bytes(x)
    if isinstance(x, str):
        return _checks.utf8(op, arg, x)
    raise TypeError(f"{op}: {arg} must hold strings (expected str or bytes, "
                    f"got {type(x).__name__})")


def _serialized_metadata(metadata):
    if metadata is None:
        return b""
    if hasattr(metadata, "SerializeToString"):
        metadata = metadata.SerializeToString()
    if not isinstance(metadata, (bytes, bytearray, memoryview)):
        raise TypeError(f"summary.write: metadata must be a SummaryMetadata (expected a proto "
                        f"or its serialized bytes, got {type(metadata).__name__})")
    metadata = bytes(metadata)
    try:
        _events.check_summary_metadata(metadata)
    except ValueError as e:
        raise InvalidArgumentError(f"summary.write: metadata is not a valid SummaryMetadata "
                                   f"(expected a serialized proto, got {len(metadata)} bytes: "
                                   f"{e})") from None
    return metadata


def write(tag, tensor, step=None, metadata=None, name=None):
    """Write a generic tensor summary to the default writer.

    ``tensor`` is array-like or a callable returning one (called only if recording);
    ``metadata`` is a serialized SummaryMetadata (bytes), an object with
    ``SerializeToString()``, or None. Returns True if written, False if there is no
    default writer or recording is off.

    >>> fe.summary.write("raw", np.eye(2), step=0)
    True
    """
    tag = _checks.string("summary.write", "tag", tag)
    metadata = _serialized_metadata(metadata)
    if name is not None:
        _checks.string("summary.write", "name", name)
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
    tag = _checks.string("summary.scalar", "name", name, default="scalar_summary")
    metadata = _plugin_metadata("scalar", "scalars", _events.DATA_CLASS_SCALAR, description)
    arr = _checks.as_array("summary.scalar", "data", data)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"summary.scalar: data must be numeric (expected a real number, "
                        f"got {arr.dtype}) for {tag.decode()!r}")
    if arr.ndim != 0:
        raise ValueError(f"summary.scalar: data must be a scalar (expected shape (), "
                         f"got {arr.shape}) for {tag.decode()!r}")

    def make_tensor():
        with np.errstate(over="ignore"):   # beyond float32's range is +-inf, as in TF
            return _events.tensor_proto(arr.astype(np.float32))

    return _record("scalar", tag, make_tensor, step, metadata)


def _histogram_data(data, tag):
    """``data`` flattened to float64, refusing what has no place on a histogram's axis."""
    arr = _checks.as_array("summary.histogram", "data", data)
    if arr.dtype.kind not in "biufO":
        raise TypeError(f"summary.histogram: data must be real numbers (expected a float64-"
                        f"castable dtype, got {arr.dtype}) for {tag!r}")
    try:
        with np.errstate(over="ignore"):   # float128 beyond float64 is caught as Inf below
            values = arr.astype(np.float64).reshape(-1)
    except (TypeError, ValueError) as e:
        raise TypeError(f"summary.histogram: data must be real numbers (expected a float64-"
                        f"castable dtype, got {arr.dtype}: {e}) for {tag!r}") from None
    finite = np.isfinite(values)
    if not finite.all():
        # TF's own histogram kernel refuses these ("Nan in summary histogram for: ...");
        # TensorBoard's summary_v2 would write NaN edges that spoil the whole series.
        n_nan = int(np.isnan(values).sum())
        raise InvalidArgumentError(
            f"summary.histogram: data must be finite (expected no NaN or Inf, got {n_nan} NaN "
            f"and {values.size - int(finite.sum()) - n_nan} Inf among {values.size} values) "
            f"for {tag!r}")
    return values


def _buckets(data, bucket_count):
    """Histogram buckets of finite float64 ``data`` as a (k, 3) array of [left, right, count].

    Same rules as TensorBoard's summary_v2 ``_buckets``: k equal-width buckets between
    min and max, the max falling in the last one; a single distinct value gives k
    buckets of zero width with every count in the last; empty data gives zeros.
    """
    k = bucket_count
    if data.size == 0:
        return np.zeros((k, 3), dtype=np.float64)
    lo, hi = float(data.min()), float(data.max())
    if hi == lo:
        counts = np.zeros(k, dtype=np.float64)
        counts[-1] = data.size
        edges = np.full(k, hi)
        return np.stack([edges, edges, counts], axis=1)
    # Work on the data times an exact power of two, so that neither hi - lo (which
    # overflows when the values reach both ends of the float range) nor the bucket width
    # (which underflows for spans of a few subnormals) leaves the normal float range.
    # Usually the scale is 1 and this is TensorBoard's arithmetic exactly.
    span = hi - lo
    scale = 0.5 if span == np.inf else (2.0 ** 600 if span < 2.0 ** -900 else 1.0)
    lo_s, hi_s = lo * scale, hi * scale
    width = (hi_s - lo_s) / k
    index = np.floor((data * scale - lo_s) / width)
    counts = np.bincount(np.minimum(index.astype(np.int64), k - 1), minlength=k)
    # Scaling back may round an edge past float max (clipped below) or into subnormals.
    with np.errstate(over="ignore", under="ignore"):
        edges = np.linspace(lo_s, hi_s, k + 1) / scale
    edges[0], edges[-1] = lo, hi
    np.clip(edges, lo, hi, out=edges)
    return np.stack([edges[:-1], edges[1:], counts.astype(np.float64)], axis=1)


def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram summary (plugin "histograms") of all values in ``data``.

    Stored as a float64 tensor of shape (buckets, 3): [left edge, right edge, count].
    ``buckets`` is an int in [1, 65536] (default 30). Data must be finite: NaN or Inf
    raise InvalidArgumentError, as TF's histogram kernel does, rather than spoil the
    series' axis.

    >>> fe.summary.histogram("weights", np.random.randn(1000), step=0)
    True
    """
    tag = _checks.string("summary.histogram", "name", name, default="histogram_summary")
    k = DEFAULT_BUCKET_COUNT if buckets is None else _checks.integer(
        "summary.histogram", "buckets", buckets, 1, MAX_BUCKET_COUNT)
    metadata = _plugin_metadata("histogram", "histograms", _events.DATA_CLASS_TENSOR,
                                description)
    return _record("histogram", tag,
                   lambda: _events.tensor_proto(_buckets(_histogram_data(data, tag.decode()), k)),
                   step, metadata)


def _to_uint8_images(arr):
    # As tf.image.convert_image_dtype(saturate=True): floats scale by 255.5 and truncate
    # after clipping; wider integers are divided down to 8 bits.
    kind = arr.dtype.kind
    if arr.dtype == np.uint8:
        return arr
    if kind == "f":
        with np.errstate(over="ignore", invalid="ignore"):   # +-Inf and NaN saturate
            scaled = np.nan_to_num(arr.astype(np.float64) * 255.5)
        return np.clip(scaled, 0, 255).astype(np.uint8)
    if kind == "b":
        return arr.astype(np.uint8) * 255
    info = np.iinfo(arr.dtype)
    scale = max(1, (int(info.max) + 1) // 256)
    return np.clip(arr // scale, 0, 255).astype(np.uint8)


def image(name, data, step=None, max_outputs=3, description=None):
    """Write an image summary (plugin "images") of up to ``max_outputs`` images.

    ``data`` has shape (N, H, W, C) with C in 1 (grayscale), 2, 3 (RGB) or 4 (RGBA);
    floats are taken in [0, 1] (clipped), uint8 in [0, 255]. Stored as a string
    tensor [width, height, png_1, ..., png_n].

    >>> fe.summary.image("samples", np.random.rand(2, 28, 28, 1), step=0)
    True
    """
    tag = _checks.string("summary.image", "name", name, default="image_summary")
    max_outputs = _checks.integer("summary.image", "max_outputs", max_outputs, 0,
                                  _checks.INT32_MAX)
    metadata = _plugin_metadata("image", "images", _events.DATA_CLASS_BLOB_SEQUENCE,
                                description)

    def make_tensor():
        arr = _checks.as_array("summary.image", "data", data)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"summary.image: data must be numeric (expected float in [0, 1] "
                            f"or uint8, got {arr.dtype}) for {tag.decode()!r}")
        if arr.ndim != 4 or arr.shape[3] not in (1, 2, 3, 4):
            raise ValueError(f"summary.image: data must have shape (N, H, W, C) with C in "
                             f"1..4 (expected rank 4, got shape {arr.shape}) for "
                             f"{tag.decode()!r}")
        height, width = arr.shape[1], arr.shape[2]
        images = _to_uint8_images(arr[:max_outputs])
        if len(images) and not (height and width):
            raise InvalidArgumentError(f"summary.image: images must not be empty (expected "
                                       f"H, W > 0, got shape {arr.shape}) for "
                                       f"{tag.decode()!r}")
        items = [str(width).encode(), str(height).encode()]
        items.extend(encode_png(img) for img in images)
        return _events.string_tensor_proto(items, (len(items),))

    return _record("image", tag, make_tensor, step, metadata)


def text(name, data, step=None, description=None):
    """Write a text summary (plugin "text"): a string or array of strings (Markdown).

    >>> fe.summary.text("notes", "loss went **down**", step=0)
    True
    """
    tag = _checks.string("summary.text", "name", name, default="text_summary")
    metadata = _plugin_metadata("text", "text", _events.DATA_CLASS_TENSOR, description)

    def make_tensor():
        if isinstance(data, (str, bytes)):
            return _events.string_tensor_proto([_to_bytes(data, "summary.text", "data")], ())
        arr = _checks.as_array("summary.text", "data", data)
        if arr.dtype.kind not in "USO":
            raise TypeError(f"summary.text: data must be strings (expected str or bytes, "
                            f"got {arr.dtype}) for {tag.decode()!r}")
        flat = [_to_bytes(x, "summary.text", "data") for x in arr.reshape(-1)]
        return _events.string_tensor_proto(flat, arr.shape)

    return _record("text", tag, make_tensor, step, metadata)


# AudioPluginData (tensorboard/plugins/audio/plugin_data.proto): encoding = 2, WAV = 11.
_AUDIO_PLUGIN_CONTENT = b"\x10\x0b"
_WAV_MAX_BYTES = 0xFFFFFFFF - 36   # RIFF sizes are uint32


def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None,
          description=None):
    """Write an audio summary (plugin "audio") of up to ``max_outputs`` clips.

    ``data`` has shape (k, frames, channels), floats in [-1, 1] (clipped);
    ``sample_rate`` is a positive int (Hz); ``encoding`` is "wav" (the only one, as in
    TF). Stored as a string tensor of shape (k, 2): [WAV bytes, label ""] per clip.

    >>> fe.summary.audio("tone", np.sin(np.arange(8000) / 5)[None, :, None], 8000, step=0)
    True
    """
    op = "summary.audio"
    tag = _checks.string(op, "name", name, default="audio_summary")
    sample_rate = _checks.integer(op, "sample_rate", sample_rate, 1, _checks.INT32_MAX)
    max_outputs = _checks.integer(op, "max_outputs", max_outputs, 0, _checks.INT32_MAX)
    if encoding is not None and encoding != "wav":
        raise InvalidArgumentError(f"{op}: unknown encoding (expected 'wav', got {encoding!r})")
    if description is not None:
        description = _checks.string(op, "description", description)
    metadata = _events.summary_metadata("audio", _events.DATA_CLASS_BLOB_SEQUENCE,
                                        description, content=_AUDIO_PLUGIN_CONTENT)

    def make_tensor():
        arr = _checks.as_array(op, "data", data)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{op}: data must be numeric (expected floats in [-1, 1], "
                            f"got {arr.dtype}) for {tag.decode()!r}")
        if arr.ndim != 3:
            raise ValueError(f"{op}: data must have shape (k, frames, channels) (expected "
                             f"rank 3, got shape {arr.shape}) for {tag.decode()!r}")
        clips = arr[:max_outputs]
        frames, channels = arr.shape[1], arr.shape[2]
        if len(clips) and not 1 <= channels <= MAX_CHANNELS:
            raise InvalidArgumentError(f"{op}: channels out of range (expected 1 <= channels "
                                       f"<= {MAX_CHANNELS}, got shape {arr.shape}) for "
                                       f"{tag.decode()!r}")
        if len(clips) and (frames * channels * 2 > _WAV_MAX_BYTES
                           or sample_rate * channels * 2 > 0xFFFFFFFF):
            raise InvalidArgumentError(f"{op}: clip too large for a WAV file (expected under "
                                       f"4 GiB and byte rate under 2**32, got {frames} frames "
                                       f"x {channels} channels at {sample_rate} Hz) for "
                                       f"{tag.decode()!r}")
        items = []
        for clip in clips:
            items.extend((encode_wav(clip, sample_rate), b""))
        return _events.string_tensor_proto(items, (len(clips), 2))

    return _record("audio", tag, make_tensor, step, metadata)
