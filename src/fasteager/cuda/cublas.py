"""cuBLAS through ctypes, for peak GEMM speed where libcublas is present.

Optional: without libcublas (or with ``FASTEAGER_CUBLAS=0``) matmul uses the tiled
kernel of ``kernels/matmul.cu``. cuBLAS works on the current context; ours is the
device's primary context, the one the CUDA runtime (and so cuBLAS) uses. Row-major
C = A B is computed as the column-major C^T = B^T A^T, which needs no copies.
"""
import ctypes
import ctypes.util
import os

import numpy as np

_lib = None
_handles = {}
_tried = False


def _load():
    global _lib, _tried
    if _tried:
        return _lib
    _tried = True
    if os.environ.get("FASTEAGER_CUBLAS", "1") == "0":
        return None
    for name in ("libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                 ctypes.util.find_library("cublas")):
        if not name:
            continue
        try:
            _lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    return _lib


def available():
    return _load() is not None


def _handle(device):
    h = _handles.get(device)
    if h is None:
        h = ctypes.c_void_p()
        if _lib.cublasCreate_v2(ctypes.byref(h)) != 0:
            raise RuntimeError("cublasCreate failed")
        _handles[device] = h
    return h


def gemm(a, b, out, m, n, k, batch, stride_a, stride_b):
    """out = a @ b through cuBLAS; False (nothing done) when cuBLAS is unavailable."""
    lib = _load()
    if lib is None or a.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        return False
    h = _handle(a.device)
    f32 = a.dtype == np.float32
    ctype = ctypes.c_float if f32 else ctypes.c_double
    one, zero = ctype(1.0), ctype(0.0)
    ptr = ctypes.c_void_p
    N_OP = 0   # CUBLAS_OP_N
    fn = lib.cublasSgemmStridedBatched if f32 else lib.cublasDgemmStridedBatched
    # column-major view: C^T (n x m) = B^T (n x k) @ A^T (k x m)
    status = fn(h, N_OP, N_OP, n, m, k, ctypes.byref(one), ptr(b.ptr), n,
                ctypes.c_longlong(stride_b), ptr(a.ptr), k, ctypes.c_longlong(stride_a),
                ctypes.byref(zero), ptr(out.ptr), n, ctypes.c_longlong(m * n), batch)
    if status != 0:
        raise RuntimeError("cuBLAS gemm failed with status %d" % status)
    return True
