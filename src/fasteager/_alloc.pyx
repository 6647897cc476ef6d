# cython: language_level=3
"""The array cache: NumPy's allocator for the arrays fasteager's kernels create.

See _array_cache.h for why and how. ``handler`` is the NEP 49 capsule that ``_core`` and
``_graph`` install (``PyDataMem_SetHandler``) around kernels on large inputs and around
``fe.function`` replays, and take off again after; arrays remember their allocator, so
one made under it and freed anywhere goes back to the pool.
"""
from cpython.pycapsule cimport PyCapsule_New
cimport numpy as cnp

cnp.import_array()

cdef extern from "_array_cache.h":
    ctypedef struct fe_cache_state:
        size_t limit
        size_t cached_bytes
        size_t n_cached
        unsigned long long hits, misses, returned, released
    fe_cache_state fe_cache
    cnp.PyDataMem_Handler fe_cache_handler
    size_t fe_cache_empty()
    void fe_cache_set_limit(size_t limit)

handler = PyCapsule_New(<void*>&fe_cache_handler, "mem_handler", NULL)


def info():
    """What the pool holds and how it was used (a dict of ints)."""
    return {"cached_bytes": fe_cache.cached_bytes, "cached_blocks": fe_cache.n_cached,
            "limit_bytes": fe_cache.limit, "hits": fe_cache.hits, "misses": fe_cache.misses,
            "returned": fe_cache.returned, "released": fe_cache.released}


def set_limit(size_t limit):
    """Keep at most ``limit`` bytes of freed blocks (0 turns reuse off)."""
    fe_cache_set_limit(limit)


def empty():
    """Give every pooled block back to the C library; returns the bytes freed."""
    return fe_cache_empty()
