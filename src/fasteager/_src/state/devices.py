"""The device inventory behind ``fe.config``: physical devices (the CPU, and the GPUs the
placement layer's backend reports), their split into logical devices (one replica each
for ``fe.distribute.MirroredStrategy``), visibility and memory growth."""
import collections

from . import placement

# namedtuples name the module they are made in: these are fe.config's types
PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"],
                                        module="fasteager.config")
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"],
                                       module="fasteager.config")


def list_physical_devices(device_type=None):
    """Physical devices of ``device_type`` ("CPU", "GPU"; all when None)."""
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
    devices += [PhysicalDevice("/physical_device:GPU:%d" % i, "GPU")
                for i in range(placement.num_gpus())]
    if device_type is None:
        return devices
    return [d for d in devices if d.device_type == str(device_type).upper()]


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical device to make of a physical one (``set_logical_device_configuration``)."""

    __module__ = "fasteager.config"

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
