"""``fe.config``: devices, placement, threading and fe.function settings."""
import collections
import os
import types

import numpy as np

from . import _alloc
from ._src.state import placement as _device

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


def list_physical_devices(device_type=None):
    """Physical devices of ``device_type`` ("CPU", "GPU"; all when None)."""
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    devices += [PhysicalDevice("/physical_device:GPU:%d" % i, "GPU")
                for i in range(_device.num_gpus())]
    if device_type is None:
        return devices
    return [d for d in devices if d.device_type == str(device_type).upper()]


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical device to make of a physical one (``set_logical_device_configuration``)."""

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


_logical_configs = {}     # physical device name -> [LogicalDeviceConfiguration, ...]
_initialized = False      # set when the devices are first listed or used by a strategy


def _mark_initialized():
    global _initialized
    _initialized = True


def set_logical_device_configuration(device, logical_devices):
    """Split the physical ``device`` into the given logical devices ("/device:CPU:0",
    "/device:CPU:1", ...: one replica each for ``fe.distribute.MirroredStrategy``).
    As in TensorFlow, allowed only before the devices are initialized (by listing the
    logical devices or making a strategy); after that only the same configuration may be
    set again, anything else raises RuntimeError. All logical CPUs run on the one CPU."""
    if not isinstance(device, PhysicalDevice) or device not in list_physical_devices():
        raise ValueError("set_logical_device_configuration: device must be one of "
                         "fe.config.list_physical_devices() (got %r)" % (device,))
    if logical_devices is None:
        configs = None
    else:
        configs = list(logical_devices)
        for c in configs:
            if not isinstance(c, LogicalDeviceConfiguration):
                raise TypeError("set_logical_device_configuration: logical_devices must be "
                                "fe.config.LogicalDeviceConfiguration objects (got %s)"
                                % type(c).__name__)
        if not configs:
            raise ValueError("set_logical_device_configuration: logical_devices must not be "
                             "empty (got [])")
        if device.device_type == "GPU" and len(configs) > 1:
            raise ValueError("set_logical_device_configuration: fasteager cannot split a GPU "
                             "into several logical GPUs (got %d configurations for %s)"
                             % (len(configs), device.name))
    if _logical_configs.get(device.name) == configs:
        return
    if _initialized:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    if configs is None:
        _logical_configs.pop(device.name, None)
    else:
        _logical_configs[device.name] = configs


def get_logical_device_configuration(device):
    """The logical devices set for ``device`` (None when it was never split)."""
    if not isinstance(device, PhysicalDevice):
        raise ValueError("get_logical_device_configuration: device must be one of "
                         "fe.config.list_physical_devices() (got %r)" % (device,))
    configs = _logical_configs.get(device.name)
    return None if configs is None else list(configs)


def list_logical_devices(device_type=None):
    """The logical devices: each physical device, or as many as its configuration says.
    Listing them initializes the devices (their configuration is then fixed)."""
    _mark_initialized()
    out = []
    counts = {}
    for d in list_physical_devices(device_type):
        for _ in _logical_configs.get(d.name) or [None]:
            index = counts.get(d.device_type, 0)
            counts[d.device_type] = index + 1
            out.append(LogicalDevice("/device:%s:%d" % (d.device_type, index), d.device_type))
    return out


def get_visible_devices(device_type=None):
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Accepted for compatibility; every listed device stays visible."""


def set_memory_growth(device, enable):
    """Accepted for compatibility (the GPU pool grows on demand)."""


def get_memory_growth(device):
    return True


set_soft_device_placement = _device.set_soft_device_placement
get_soft_device_placement = _device.get_soft_device_placement

def get_array_cache_info():
    """What fasteager's array cache holds (``cached_bytes``, ``cached_blocks``,
    ``limit_bytes``) and how often it served a block (``hits``) or had to allocate one
    (``misses``). The cache keeps freed result blocks of 64 KiB and more from fasteager's
    kernels for reuse; NumPy code outside fasteager never allocates from it."""
    return _alloc.info()


_SIZE_MAX = int(np.iinfo(np.uintp).max)


def set_array_cache_limit(nbytes):
    """Keep at most ``nbytes`` of freed blocks for reuse (default 256 MiB; 0: none)."""
    # the limit is a C size_t: a larger int would overflow the conversion
    if (isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer))
            or not 0 <= int(nbytes) <= _SIZE_MAX):
        raise ValueError("set_array_cache_limit: nbytes must be an int in [0, %d] (got %r)"
                         % (_SIZE_MAX, nbytes))
    _alloc.set_limit(int(nbytes))


def empty_array_cache():
    """Give the cached blocks back to the C library; returns how many bytes that freed."""
    return _alloc.empty()


experimental = types.SimpleNamespace(
    get_array_cache_info=get_array_cache_info,
    set_array_cache_limit=set_array_cache_limit,
    empty_array_cache=empty_array_cache,
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    set_virtual_device_configuration=set_logical_device_configuration,
    get_virtual_device_configuration=get_logical_device_configuration,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    set_memory_growth=set_memory_growth,
    get_memory_growth=get_memory_growth,
    set_visible_devices=set_visible_devices,
    get_visible_devices=get_visible_devices,
)


def _blas_thread_functions():
    """(set, get) of the OpenBLAS that NumPy loaded, through ctypes; (None, None) if absent.

    NumPy's wheels bundle OpenBLAS under prefixed symbol names; distribution builds use the
    plain ones. This is what threadpoolctl does, without the dependency.
    """
    import ctypes
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "openblas" in line.lower()
                            and line.split()[-1].startswith("/")})
    except OSError:
        return None, None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("scipy_", "64_"), ("", "64_"), ("", "")):
            set_fn = getattr(lib, "%sopenblas_set_num_threads%s" % (prefix, suffix), None)
            get_fn = getattr(lib, "%sopenblas_get_num_threads%s" % (prefix, suffix), None)
            if set_fn is not None and get_fn is not None:
                set_fn.argtypes = [ctypes.c_int]
                get_fn.restype = ctypes.c_int
                return set_fn, get_fn
    return None, None


class _Threading:
    """Thread-count settings: they size the Cython kernels' parallel loops and NumPy's
    OpenBLAS thread pool (the large GEMMs)."""

    def __init__(self):
        self._intra = 0
        self._inter = 0

    def set_intra_op_parallelism_threads(self, num_threads):
        """Threads one op may use (0: the default, every CPU)."""
        n = int(num_threads)
        if n < 0:
            from .errors import InvalidArgumentError
            raise InvalidArgumentError("set_intra_op_parallelism_threads: num_threads must be "
                                       ">= 0 (got %d)" % n)
        self._intra = n
        set_fn, _ = _blas_thread_functions()
        if set_fn is not None:
            set_fn(n if n > 0 else (os.cpu_count() or 1))

    def blas_threads(self):
        """Threads of NumPy's OpenBLAS pool now (None when it cannot be queried)."""
        _, get_fn = _blas_thread_functions()
        return None if get_fn is None else int(get_fn())

    def get_intra_op_parallelism_threads(self):
        return self._intra

    def set_inter_op_parallelism_threads(self, num_threads):
        self._inter = max(int(num_threads), 0)

    def get_inter_op_parallelism_threads(self):
        return self._inter

    def kernel_threads(self):
        """Threads a kernel may use: the intra-op setting, else the CPU count."""
        return self._intra or os.cpu_count() or 1


threading = _Threading()


def run_functions_eagerly(run_eagerly):
    """While True, every ``fe.function`` call runs its Python function eagerly (no trace:
    Python side effects happen on each call), until set back to False. Process-wide, as
    in TensorFlow: it applies to every thread.

    >>> fe.config.run_functions_eagerly(True)
    >>> fe.config.functions_run_eagerly()
    True
    >>> fe.config.run_functions_eagerly(False)
    """
    from .function import set_run_eagerly
    if not isinstance(run_eagerly, (bool, np.bool_)):
        raise TypeError("run_functions_eagerly: run_eagerly must be a bool (expected True or "
                        "False, got %s)" % type(run_eagerly).__name__)
    set_run_eagerly(bool(run_eagerly))


def functions_run_eagerly():
    """Whether ``run_functions_eagerly`` is on (False by default)."""
    from .function import run_eagerly
    return run_eagerly()


experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly
