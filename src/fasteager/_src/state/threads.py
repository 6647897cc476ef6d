"""Thread counts (``fe.config.threading``): they size the Cython kernels' parallel loops
and NumPy's OpenBLAS thread pool (the large GEMMs)."""
import ctypes
import os

from ...errors import InvalidArgumentError

_intra = 0
_inter = 0


def _blas_thread_functions():
    """(set, get) of the OpenBLAS that NumPy loaded, through ctypes; (None, None) if absent.

    NumPy's wheels bundle OpenBLAS under prefixed symbol names; distribution builds use the
    plain ones. This is what threadpoolctl does, without the dependency.
    """
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


def set_intra_op_parallelism_threads(num_threads):
    """Threads one op may use (0: the default, every CPU)."""
    global _intra
    n = int(num_threads)
    if n < 0:
        raise InvalidArgumentError("set_intra_op_parallelism_threads: num_threads must be "
                                   ">= 0 (got %d)" % n)
    _intra = n
    set_fn, _ = _blas_thread_functions()
    if set_fn is not None:
        set_fn(n if n > 0 else (os.cpu_count() or 1))


def blas_threads():
    """Threads of NumPy's OpenBLAS pool now (None when it cannot be queried)."""
    _, get_fn = _blas_thread_functions()
    return None if get_fn is None else int(get_fn())


def get_intra_op_parallelism_threads():
    return _intra


def set_inter_op_parallelism_threads(num_threads):
    global _inter
    _inter = max(int(num_threads), 0)


def get_inter_op_parallelism_threads():
    return _inter


def kernel_threads():
    """Threads a kernel may use: the intra-op setting, else the CPU count."""
    return _intra or os.cpu_count() or 1
