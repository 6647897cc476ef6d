"""Device memory: ``DeviceArray`` and the caching allocator behind it.

``cuMemAlloc``/``cuMemFree`` synchronise the device and cost tens of microseconds, so
they are kept off the hot path: freed blocks go back to a pool keyed by *size class*
and the next request of that class reuses one (the scheme of PyTorch's caching
allocator, simplified: 512-byte classes up to 1 MiB rounded to powers of two, 2 MiB
multiples above). Out of memory, the pool is emptied and the allocation retried once;
if it still fails a ``ResourceExhaustedError`` says how much was asked and is free.

The allocator takes its three driver calls as arguments, so its bookkeeping is tested
on machines without a GPU (tests/gpu/test_cpu_side.py).
"""
import threading

import numpy as np

from ..errors import ResourceExhaustedError
from . import context

_MIN = 512
_SMALL = 1 << 20
_LARGE_STEP = 2 << 20


def size_class(nbytes):
    """The bytes actually reserved for a request of ``nbytes`` (0 stays 0)."""
    n = int(nbytes)
    if n <= 0:
        return 0
    if n <= _MIN:
        return _MIN
    if n <= _SMALL:
        return 1 << (n - 1).bit_length()
    return -(-n // _LARGE_STEP) * _LARGE_STEP


class Block:
    """One reserved device buffer; returns itself to its pool when garbage-collected."""
    __slots__ = ("ptr", "size", "handle", "pool", "__weakref__")

    def __init__(self, ptr, size, handle, pool):
        self.ptr, self.size, self.handle, self.pool = ptr, size, handle, pool

    def __del__(self):
        pool = self.pool
        if pool is not None and self.size:
            pool._give_back(self.ptr, self.size, self.handle)


class CachingAllocator:
    """Pool of device buffers keyed by size class.

    ``alloc(nbytes) -> handle`` (``int(handle)`` is the device pointer),
    ``free(handle)``, ``mem_info() -> (free, total)``, and ``oom`` the exception type
    ``alloc`` raises when the device is full.
    """

    def __init__(self, alloc, free, mem_info, oom=MemoryError, device=0):
        self._alloc, self._free, self._mem_info, self._oom = alloc, free, mem_info, oom
        self.device = device
        self._cache = {}                  # size class -> [(ptr, handle), ...]
        self._lock = threading.Lock()
        self.in_use_bytes = 0
        self.cached_bytes = 0
        self.n_driver_allocs = 0

    def malloc(self, nbytes):
        size = size_class(nbytes)
        if size == 0:
            return Block(0, 0, None, None)
        with self._lock:
            free_list = self._cache.get(size)
            if free_list:
                ptr, handle = free_list.pop()
                self.cached_bytes -= size
                self.in_use_bytes += size
                return Block(ptr, size, handle, self)
        handle = self._driver_alloc(nbytes, size)
        with self._lock:
            self.in_use_bytes += size
            self.n_driver_allocs += 1
        return Block(int(handle), size, handle, self)

    def _driver_alloc(self, nbytes, size):
        try:
            return self._alloc(size)
        except self._oom:
            pass
        self.empty_cache()
        try:
            return self._alloc(size)
        except self._oom:
            try:
                free, total = self._mem_info()
            except Exception:
                free, total = -1, -1
            raise ResourceExhaustedError(
                "cuda: out of GPU memory on /device:GPU:%d (asked for %d bytes (%s, size "
                "class %d), free %d of %d bytes (%s of %s) after emptying the cache; %d bytes "
                "are in use by live tensors)" % (
                    self.device, nbytes, _human(nbytes), size, free, total, _human(free),
                    _human(total), self.in_use_bytes)) from None

    def _give_back(self, ptr, size, handle):
        with self._lock:
            self._cache.setdefault(size, []).append((ptr, handle))
            self.in_use_bytes -= size
            self.cached_bytes += size

    def empty_cache(self):
        """Release every cached (unused) buffer to the driver."""
        with self._lock:
            lists, self._cache = self._cache, {}
            self.cached_bytes = 0
        for free_list in lists.values():
            for _, handle in free_list:
                self._free(handle)


def _human(n):
    if n < 0:
        return "unknown"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0


_allocators = {}


def allocator(device=0):
    """The caching allocator of one GPU (its context is created on first use)."""
    a = _allocators.get(device)
    if a is None:
        context.context(device)
        drv = context.driver()
        a = CachingAllocator(drv.mem_alloc, lambda h: h.free(), drv.mem_get_info,
                             oom=drv.MemoryError, device=device)
        _allocators[device] = a
    return a


class DeviceArray:
    """A C-contiguous array in GPU memory: ``shape``, ``dtype``, ``ptr``; ``get()`` copies
    it to the host. Views (``reshape``) share the block and keep it alive."""
    __slots__ = ("shape", "dtype", "block", "ptr", "device", "__weakref__")

    def __init__(self, shape, dtype, block=None, ptr=None, device=0):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.device = device
        if block is None:
            block = allocator(device).malloc(self.nbytes)
        self.block = block
        self.ptr = block.ptr if ptr is None else ptr

    # -- metadata ----------------------------------------------------------------------
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def device_name(self):
        return "/job:localhost/replica:0/task:0/device:GPU:%d" % self.device

    def __repr__(self):
        return "DeviceArray(shape=%s, dtype=%s, device=%d)" % (self.shape, self.dtype,
                                                                self.device)

    # -- copies ------------------------------------------------------------------------
    @classmethod
    def from_host(cls, array, device=0):
        arr = np.ascontiguousarray(array)
        out = cls(arr.shape, arr.dtype, device=device)
        if out.nbytes:
            context.driver().memcpy_htod(out.ptr, arr)
        return out

    def get(self):
        """A new host ndarray with this array's contents."""
        host = np.empty(self.shape, self.dtype)
        if self.nbytes:
            context.driver().memcpy_dtoh(host, self.ptr)
        return host

    def __array__(self, dtype=None, copy=None):
        host = self.get()
        return host if dtype is None else host.astype(dtype)

    def copy(self):
        out = DeviceArray(self.shape, self.dtype, device=self.device)
        if self.nbytes:
            context.driver().memcpy_dtod(out.ptr, self.ptr, self.nbytes)
        return out

    def reshape(self, shape):
        """A view with a new shape (same element count), sharing this array's memory."""
        shape = tuple(int(d) for d in shape)
        if -1 in shape:
            known = 1
            for d in shape:
                if d != -1:
                    known *= d
            shape = tuple(self.size // max(known, 1) if d == -1 else d for d in shape)
        n = 1
        for d in shape:
            n *= d
        if n != self.size:
            raise ValueError("cannot reshape a DeviceArray of %d elements into shape %s"
                             % (self.size, shape))
        return DeviceArray(shape, self.dtype, block=self.block, ptr=self.ptr,
                           device=self.device)

    def view_at(self, offset_elems, shape):
        """A contiguous sub-array starting ``offset_elems`` elements in (rows of axis 0)."""
        return DeviceArray(shape, self.dtype, block=self.block,
                           ptr=self.ptr + offset_elems * self.dtype.itemsize, device=self.device)


def empty(shape, dtype, device=0):
    return DeviceArray(shape, dtype, device=device)


