"""Host memory: fasteager's array cache (``fe.config.experimental``'s
``get_array_cache_info``, ``set_array_cache_limit``, ``empty_array_cache``)."""
import numpy as np

from ... import _alloc


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
