"""Keras utilities: ``Progbar`` (the training progress bar), ``to_categorical``,
``get_file`` (download into Keras's cache, ``_files.py``), the image helpers
``load_img``, ``img_to_array``, ``array_to_img``, ``save_img`` (``_image_utils.py``), and
the serialization registry (``register_keras_serializable`` ..., also in
``fe.keras.saving``)."""
import logging
import math
import os
import sys
import time

import numpy as np

from ._config import Config  # noqa: F401
from ._dataset_utils import (  # noqa: F401
    PyDataset,
    Sequence,
    normalize,
    pack_x_y_sample_weight,
    pad_sequences,
    split_dataset,
    timeseries_dataset_from_array,
    unpack_x_y_sample_weight,
)
from ._directory_datasets import (  # noqa: F401
    audio_dataset_from_directory,
    image_dataset_from_directory,
    text_dataset_from_directory,
)
from ._files import extract_archive, get_file, validate_file  # noqa: F401
from ._graph_utils import get_source_inputs  # noqa: F401
from ._image_utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from ._model_visualization import model_to_dot, plot_model  # noqa: F401
from ._serialization import (  # noqa: F401
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from .backend import clear_session, is_keras_tensor, standardize_dtype  # noqa: F401
from .random import set_random_seed  # noqa: F401


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


# Keras 3's progress bar draws in place ("\b" + "\r") wherever this holds: note that
# "posix" is in sys.modules on every POSIX Python, so on Linux and macOS it always does,
# a pipe or a StringIO included; elsewhere only a terminal, IPython or PyCharm
def _dynamic_display():
    return bool((hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
                or "ipykernel" in sys.modules or "posix" in sys.modules
                or "PYCHARM_HOSTED" in os.environ)


_INTERACTIVE_LOGGING = True


def enable_interactive_logging():
    """Progress bars and fit's messages go to ``sys.stdout`` (the default), as Keras 3."""
    global _INTERACTIVE_LOGGING
    _INTERACTIVE_LOGGING = True


def disable_interactive_logging():
    """Progress bars and fit's messages go to the ``logging`` module (logger
    ``fasteager.keras``, level INFO) instead of ``sys.stdout``, as Keras 3 sends them to
    absl logging."""
    global _INTERACTIVE_LOGGING
    _INTERACTIVE_LOGGING = False


def is_interactive_logging_enabled():
    """Whether progress output goes to ``sys.stdout`` (True) or to logging (False)."""
    return _INTERACTIVE_LOGGING


def _write(message):
    """Write to the current ``sys.stdout`` as Keras's ``print_msg``: a stream that cannot
    encode the bar's '━' gets '=' instead; to logging when interactive logging is off."""
    if not _INTERACTIVE_LOGGING:
        logging.getLogger("fasteager.keras").info(message.rstrip("\n"))
        return
    try:
        sys.stdout.write(message)
    except UnicodeEncodeError:
        encoding = sys.stdout.encoding or "utf-8"
        sys.stdout.write(message.replace("━", "=").encode(encoding, errors="ignore")
                         .decode(encoding))
    sys.stdout.flush()


def _format_eta(eta):
    if eta > 3600:
        return "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
    if eta > 60:
        return "%d:%02d" % (eta // 60, eta % 60)
    return "%ds" % eta


def _format_step_time(seconds, unit_name):
    if seconds >= 1 or seconds == 0:
        return " %.0fs/%s" % (seconds, unit_name)
    if seconds >= 1e-3:
        return " %.0fms/%s" % (seconds * 1e3, unit_name)
    return " %.0fus/%s" % (seconds * 1e6, unit_name)


_BOLD, _GREEN, _GREY, _RESET = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"


class Progbar:
    """Keras 3's progress bar, written to ``sys.stdout``:
    `` 32/1875 ━━━━━━━━━━━━━━━━━━━━ 1:02 33ms/step - loss: 0.5012`` with ANSI styles
    (bold count and time, the done part green and the rest grey, 20 wide).

    ``verbose=1`` redraws the line in place ("\\b"s and "\\r") where Keras 3 does (always on
    POSIX, see ``_dynamic_display``; elsewhere a newline per update), at most once per
    ``interval`` seconds, and ends it at ``finalize``; ``verbose=2`` writes one line at
    ``finalize`` only. A value named in ``stateful_metrics`` is shown as given, any other is
    averaged over the steps it covered (with ``stateless_metrics``, only the named ones
    are averaged), as Keras does.
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Progbar: pass only one of stateful_metrics or "
                             "stateless_metrics (got both)")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        if stateless_metrics is not None:
            self.stateful_metrics, self.stateless_metrics = None, set(stateless_metrics)
        else:
            self.stateful_metrics, self.stateless_metrics = set(stateful_metrics or ()), None
        self._dynamic_display = _dynamic_display()
        self._seen_so_far = 0
        self._values = {}          # name -> [sum of value * steps, steps]
        self._values_order = []
        self._start = _now()
        self._last_update = 0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def update(self, current, values=None, finalize=None):
        """Show step ``current``; ``values`` is a list of ``(name, value)``."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for k, v in values or ():
            if k not in self._values_order:
                self._values_order.append(k)
            averaged = (k not in self.stateful_metrics if self.stateful_metrics is not None
                        else k in self.stateless_metrics)
            if averaged and not finalize:
                steps = max(current - self._seen_so_far, 1)
                total = self._values.setdefault(k, [0.0, 0])
                total[0] += v * steps
                total[1] += steps
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current
        now = _now()
        per_step = self._step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, now, per_step, finalize)
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            info = "%*d/%d - %.0fs -%s" % (digits, current, self.target, now - self._start,
                                           _format_step_time(per_step, self.unit_name))
            # Keras 3 tests avg > 1e-3 here (not abs): negative values print as 1.0e-01
            info += "".join(" - %s: %s" % (k, _format_average(self._values[k], abs_test=False))
                            for k in self._values_order)
            _write(info + "\n")
        self._last_update = now

    def _draw(self, current, now, per_step, finalize):
        message = ("\b" * self._prev_total_width + "\r") if self._dynamic_display else "\n"
        if self.target:
            digits = int(math.log10(self.target)) + 1
            count = "%*d/%d" % (digits, current, self.target)
            done = int(self.width * float(current) / self.target)
            bar = _BOLD + count + _RESET + " "
            if done > 0:
                bar += _GREEN + "━" * done + _RESET
            bar += _GREY + "━" * (self.width - done) + _RESET
            visible = len(count) + 1 + self.width
        else:
            bar = "%7d/Unknown" % current
            visible = len(bar)
        if self.target and not finalize:
            clock = _format_eta(per_step * (self.target - current))
        else:
            clock = "%.0fs" % (now - self._start)
        info = " " + _BOLD + clock + _RESET + _format_step_time(per_step, self.unit_name)
        info += "".join(" - %s: %s" % (k, _format_average(self._values[k]))
                        for k in self._values_order)
        visible += len(info) - len(_BOLD) - len(_RESET)
        message += bar + info
        if self._prev_total_width > visible:
            message += " " * (self._prev_total_width - visible)
        if finalize:
            message += "\n"
        _write(message)
        self._prev_total_width = visible

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    def _step_duration(self, current, now):
        """Seconds per step; the first step (compilation, warm-up) is left out of the
        estimate once there are later ones, as Keras does."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            per_step = (now - self._time_after_first_step) / (current - 1)
        else:
            per_step = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_step


def _format_average(total, abs_test=True):
    value, count = total
    if not isinstance(value, float):
        value = np.mean(value)
    avg = value / max(1, count)
    return ("%.4f" if (abs(avg) if abs_test else avg) > 1e-3 else "%.4e") % avg


# the progress bar's clock (tests replace it)
_now = time.time
