"""Keep freed array memory in the process (glibc malloc), so eager steps stop faulting.

Eager execution allocates fresh arrays for every op result and frees them a moment later.
With glibc's defaults, arrays over the (adaptive) mmap threshold are mapped and unmapped
on every allocation, and freed memory at the top of the heap is given back to the kernel
soon after: the next step touches brand-new pages, and every page is a fault plus a
zero-fill. On the guide's convnet step that was about 40% of the time (18 ms -> 11.5 ms
with the settings below, on this project's 2-vCPU machines).

``tune()`` (called once at import) sets M_MMAP_THRESHOLD to 32 MiB (glibc's maximum:
arrays up to that size come from the heap and are reused) and M_TRIM_THRESHOLD to
64 MiB (up to that much free memory stays in the process), as TensorFlow's and
PyTorch's device allocators keep memory for reuse. It does nothing off glibc, when the
user configured malloc (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``,
``GLIBC_TUNABLES``), or with ``FASTEAGER_MALLOC_TUNING=0``.
"""
import ctypes
import os
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20
_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")

tuned = False


def tune():
    """Apply the settings (once); returns whether they are in effect."""
    global tuned
    if tuned:
        return True
    if not sys.platform.startswith("linux") or \
            os.environ.get("FASTEAGER_MALLOC_TUNING", "1") == "0" or \
            any(name in os.environ for name in _USER_SETTINGS):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version          # glibc only (musl has no mallopt options)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    tuned = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return tuned
