"""``fe.config``: devices, placement and threading settings."""
import collections
import os
import types

from . import placement as _device

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


def list_logical_devices(device_type=None):
    return [LogicalDevice(d.name.replace("/physical_device:", "/device:"), d.device_type)
            for d in list_physical_devices(device_type)]


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

experimental = types.SimpleNamespace(
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    set_memory_growth=set_memory_growth,
    get_memory_growth=get_memory_growth,
    set_visible_devices=set_visible_devices,
    get_visible_devices=get_visible_devices,
)


class _Threading:
    """Thread-count settings; they size the Cython kernels' parallel loops."""

    def __init__(self):
        self._intra = 0
        self._inter = 0

    def set_intra_op_parallelism_threads(self, num_threads):
        self._intra = max(int(num_threads), 0)

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
    """Accepted: without fe.function traces everything already runs eagerly."""


def functions_run_eagerly():
    return True
