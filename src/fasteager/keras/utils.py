"""Keras utilities: ``Progbar`` (the training progress bar), ``to_categorical``,
``get_file`` (download into Keras's cache, ``_files.py``), the image helpers
``load_img``, ``img_to_array``, ``array_to_img``, ``save_img`` (``_image_utils.py``), and
the serialization registry (``register_keras_serializable`` ..., also in
``fe.keras.saving``)."""
import sys
import time

import numpy as np

from ._files import extract_archive, get_file, validate_file  # noqa: F401
from ._image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from ._serialization import (CustomObjectScope, custom_object_scope,  # noqa: F401
                             deserialize_keras_object, get_custom_objects, get_registered_name,
                             get_registered_object, register_keras_serializable,
                             serialize_keras_object)


def to_categorical(y, num_classes=None, dtype="float32"):
    """One-hot encode integer class labels: (N,) -> (N, num_classes)."""
    y = np.asarray(y, dtype=np.int64)
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.reshape(-1)
    if num_classes is None:
        num_classes = int(y.max()) + 1 if y.size else 0
    if y.size and (y.min() < 0 or y.max() >= num_classes):
        raise ValueError("to_categorical: labels must be in [0, %d) (got values in [%d, %d])"
                         % (num_classes, y.min(), y.max()))
    out = np.zeros((y.size, num_classes), dtype=dtype)
    out[np.arange(y.size), y] = 1
    return out.reshape(shape + (num_classes,))


def _format_time(seconds):
    if seconds >= 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds >= 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % seconds


def _format_value(v):
    return " %.4f" % v if abs(v) > 1e-3 or v == 0 else " %.4e" % v


class Progbar:
    """Keras's progress bar: ``  32/1875 [>.....] - ETA: 1:02 - loss: 0.5012``.

    With ``verbose=1`` on a terminal the line is redrawn in place ('\\r'); elsewhere
    (a pipe, a log file) only the final line of each epoch is written. ``verbose=2``
    writes one summary line at the end. Values are shown as given (metrics are already
    running averages).
    """

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step", stream=None):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stream = stream if stream is not None else sys.stdout
        isatty = getattr(self.stream, "isatty", None)
        self._dynamic = bool(isatty and isatty())
        self._values = {}
        self._start = time.time()
        self._last_update = 0.0
        self._seen = 0
        self._prev_len = 0
        self._done = False

    def update(self, current, values=None, finalize=None):
        if values:
            for k, v in values:
                self._values[k] = float(v)
        self._seen = current
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        if self.verbose == 0 or self._done:
            return
        now = time.time()
        if self.verbose == 1 and not finalize:
            if not self._dynamic or now - self._last_update < self.interval:
                return
        if self.verbose == 2 and not finalize:
            return
        self._last_update = now
        line = self._line(current, now, finalize)
        if self.verbose == 1 and self._dynamic:
            pad = max(self._prev_len - len(line), 0)
            self.stream.write("\r" + line + " " * pad)
            self._prev_len = len(line)
            if finalize:
                self.stream.write("\n")
        elif finalize:
            self.stream.write(line + "\n")
        if finalize:
            self._done = True
        self.stream.flush()

    def add(self, n, values=None):
        self.update(self._seen + n, values)

    def _line(self, current, now, finalize):
        elapsed = now - self._start
        if self.verbose == 2:
            parts = ["%d/%d" % (current, self.target) if self.target else "%d" % current,
                     " - %s" % _format_time(round(elapsed))]
        else:
            if self.target is not None:
                digits = len(str(self.target))
                bar = ("%" + str(digits) + "d/%d [") % (current, self.target)
                filled = int(self.width * min(current / max(self.target, 1), 1.0))
                if filled > 0:
                    bar += "=" * (filled - 1) + (">" if current < self.target else "=")
                bar += "." * (self.width - filled) + "]"
            else:
                bar = "%7d/Unknown" % current
            parts = [bar]
            per_unit = elapsed / max(current, 1)
            if finalize or self.target is None:
                parts.append(" - %s" % _format_time(round(elapsed)))
                if per_unit >= 1:
                    parts.append(" %.0fs/%s" % (per_unit, self.unit_name))
                elif per_unit >= 1e-3:
                    parts.append(" %.0fms/%s" % (per_unit * 1e3, self.unit_name))
                else:
                    parts.append(" %.0fus/%s" % (per_unit * 1e6, self.unit_name))
            else:
                parts.append(" - ETA: %s" % _format_time(per_unit * (self.target - current)))
        for k, v in self._values.items():
            parts.append(" - %s:%s" % (k, _format_value(v)))
        return "".join(parts)
