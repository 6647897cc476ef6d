"""``fe.config`` (TensorFlow's ``tf.config``): devices, placement, threading and fe.function
settings. Re-exports (the devices, memory and threads are in ``fasteager._src.state``),
with ``experimental`` and ``threading`` as TensorFlow lays them out."""
import numpy as _np

from .._src.state.devices import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    get_logical_device_configuration,
    get_memory_growth,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_memory_growth,
    set_visible_devices,
)
from .._src.state.memory import empty_array_cache, get_array_cache_info, set_array_cache_limit
from .._src.state.placement import get_soft_device_placement, set_soft_device_placement
from .._src.tracing.function import run_eagerly as _run_eagerly
from .._src.tracing.function import set_run_eagerly as _set_run_eagerly
from . import experimental, threading

__all__ = ["LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice", "empty_array_cache",
           "experimental", "experimental_functions_run_eagerly",
           "experimental_run_functions_eagerly", "functions_run_eagerly",
           "get_array_cache_info", "get_logical_device_configuration", "get_memory_growth",
           "get_soft_device_placement", "get_visible_devices", "list_logical_devices",
           "list_physical_devices", "run_functions_eagerly", "set_array_cache_limit",
           "set_logical_device_configuration", "set_memory_growth",
           "set_soft_device_placement", "set_visible_devices", "threading"]


def run_functions_eagerly(run_eagerly):
    """While True, every ``fe.function`` call runs its Python function eagerly (no trace:
    Python side effects happen on each call), until set back to False. Process-wide, as
    in TensorFlow: it applies to every thread.

    >>> fe.config.run_functions_eagerly(True)
    >>> fe.config.functions_run_eagerly()
    True
    >>> fe.config.run_functions_eagerly(False)
    """
    if not isinstance(run_eagerly, (bool, _np.bool_)):
        raise TypeError("run_functions_eagerly: run_eagerly must be a bool (expected True or "
                        "False, got %s)" % type(run_eagerly).__name__)
    _set_run_eagerly(bool(run_eagerly))


def functions_run_eagerly():
    """Whether ``run_functions_eagerly`` is on (False by default)."""
    return _run_eagerly()


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly
