"""``fe.config.experimental`` (TensorFlow's ``tf.config.experimental``): device listing,
virtual (logical) device configuration, memory growth, and fasteager's array cache."""
from .._src.state.devices import (
    LogicalDeviceConfiguration as VirtualDeviceConfiguration,
)
from .._src.state.devices import (
    get_logical_device_configuration as get_virtual_device_configuration,
)
from .._src.state.devices import (
    get_memory_growth,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_memory_growth,
    set_visible_devices,
)
from .._src.state.devices import (
    set_logical_device_configuration as set_virtual_device_configuration,
)
from .._src.state.memory import empty_array_cache, get_array_cache_info, set_array_cache_limit

__all__ = ["VirtualDeviceConfiguration", "empty_array_cache", "get_array_cache_info",
           "get_memory_growth", "get_virtual_device_configuration", "get_visible_devices",
           "list_logical_devices", "list_physical_devices", "set_array_cache_limit",
           "set_memory_growth", "set_virtual_device_configuration", "set_visible_devices"]
