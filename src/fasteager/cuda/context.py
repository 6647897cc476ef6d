"""The lazy PyCUDA import and the CUDA context (one per device, made on first use).

``pycuda.autoinit`` is never imported: library code must not create a context as a side
effect of an import. The primary context of each device is retained and pushed the first
time that device is used, and popped at interpreter exit.
"""
import atexit
import os
import threading

from ..errors import InvalidArgumentError

_lock = threading.Lock()
_driver = None          # the pycuda.driver module, once imported
_import_error = None    # why PyCUDA could not be used (shown in error messages)
_count = None
_contexts = {}


def driver():
    """``pycuda.driver``, initialised; None when PyCUDA or the driver is missing."""
    global _driver, _import_error
    if _driver is not None or _import_error is not None:
        return _driver
    with _lock:
        if _driver is None and _import_error is None:
            if os.environ.get("FASTEAGER_DISABLE_GPU"):
                _import_error = "FASTEAGER_DISABLE_GPU is set"
                return None
            try:
                import pycuda.driver as drv
                drv.init()
                _driver = drv
            except Exception as e:   # ImportError without libcuda, LogicError without devices
                _import_error = "%s: %s" % (type(e).__name__, e)
    return _driver


def unavailable_reason():
    driver()
    return _import_error


def num_gpus():
    """CUDA devices usable through PyCUDA: 0 without PyCUDA, a driver or a device."""
    global _count
    if _count is None:
        drv = driver()
        try:
            _count = drv.Device.count() if drv is not None else 0
        except Exception:
            _count = 0
    return _count


def context(index=0):
    """The CUDA context of device ``index``, created (and made current) on first use."""
    ctx = _contexts.get(index)
    if ctx is not None:
        return ctx
    with _lock:
        ctx = _contexts.get(index)
        if ctx is None:
            drv = driver()
            if drv is None or index >= num_gpus():
                raise InvalidArgumentError(
                    "cuda: no GPU %d (expected an index below %d; %s)"
                    % (index, num_gpus(), unavailable_reason() or "no device"))
            ctx = drv.Device(index).retain_primary_context()
            ctx.push()
            _contexts[index] = ctx
            if len(_contexts) == 1:
                atexit.register(_release)
    return ctx


def activate(index=0):
    """Make device ``index``'s context current on this thread (contexts are per thread)."""
    ctx = context(index)
    drv = _driver
    if drv.Context.get_current() != ctx:
        ctx.push()
    return ctx


def _release():
    drv = _driver
    if drv is None:
        return
    for _ in range(len(_contexts)):
        try:
            drv.Context.pop()
        except Exception:
            break
    _contexts.clear()
