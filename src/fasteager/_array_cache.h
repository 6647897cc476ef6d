/* A caching allocator for the data of the arrays fasteager's ops create.
 *
 * Why: an eager training step allocates the same large temporaries (activations, im2col
 * buffers, gradients) every step and frees them a moment later. glibc serves blocks over
 * its mmap threshold with mmap and gives them back with munmap, so every step touches
 * fresh pages: a page fault and a zero-fill per 4 KiB. Keeping freed large blocks for
 * reuse removes that, as the device allocators of TensorFlow and PyTorch do.
 *
 * How it stays a guest: NumPy lets a library choose the allocator of the arrays created
 * while it runs (PyDataMem_SetHandler, NEP 49; the choice lives in a context variable).
 * fasteager sets this handler only around its own kernels on large inputs and restores
 * the caller's handler after, so NumPy code outside fasteager and other libraries keep
 * glibc's defaults; nothing process-wide (mallopt, environment) changes.
 *
 * Layout: every block carries a 64-byte header (magic, capacity, size), so free() never
 * trusts the size NumPy passes, and the data stays 64-byte aligned. Blocks of at least
 * FE_CACHE_MIN bytes go back to a small pool on free (best fit on malloc, within 1/8 of
 * the size); the pool holds at most `limit` bytes and FE_CACHE_SLOTS blocks. A mutex
 * guards the pool (NumPy frees array data with the GIL held, but nothing promises it).
 */
#ifndef FASTEAGER_ARRAY_CACHE_H
#define FASTEAGER_ARRAY_CACHE_H

#include <Python.h>
#include <numpy/arrayobject.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FE_CACHE_HEADER 64
#define FE_CACHE_MIN ((size_t)64 << 10)      /* blocks this large are kept for reuse */
#define FE_CACHE_SLOTS 256
#define FE_CACHE_MAGIC 0x66656361636865ULL    /* "fecache" */

typedef struct {
    uint64_t magic;
    size_t capacity;   /* usable bytes after the header */
    size_t size;       /* bytes asked for */
} fe_block_header;

typedef struct {
    pthread_mutex_t lock;
    size_t limit;            /* most bytes the pool keeps */
    size_t cached_bytes;
    size_t n_cached;
    void *slots[FE_CACHE_SLOTS];       /* header pointers of pooled blocks */
    size_t slot_capacity[FE_CACHE_SLOTS];
    /* counters, for fe.config.experimental.get_memory_info-style reporting and tests */
    uint64_t hits, misses, returned, released;
} fe_cache_state;

static fe_cache_state fe_cache = {PTHREAD_MUTEX_INITIALIZER, (size_t)256 << 20, 0, 0,
                                  {0}, {0}, 0, 0, 0, 0};

static size_t fe_round_up(size_t n) {
    /* whole 4 KiB pages for the pooled sizes, so near-equal requests share blocks */
    return n >= FE_CACHE_MIN ? (n + 4095) & ~(size_t)4095 : n;
}

static void *fe_fresh(size_t capacity) {
    void *base = NULL;
    if (posix_memalign(&base, 64, FE_CACHE_HEADER + capacity) != 0) return NULL;
    fe_block_header *h = (fe_block_header *)base;
    h->magic = FE_CACHE_MAGIC;
    h->capacity = capacity;
    return base;
}

/* A pooled block of at least `want` bytes and at most want + want/8, or NULL. */
static void *fe_take(size_t want) {
    void *best = NULL;
    size_t best_i = 0, best_cap = (size_t)-1, most = want + want / 8;
    pthread_mutex_lock(&fe_cache.lock);
    for (size_t i = 0; i < fe_cache.n_cached; i++) {
        size_t cap = fe_cache.slot_capacity[i];
        if (cap >= want && cap <= most && cap < best_cap) {
            best = fe_cache.slots[i];
            best_i = i;
            best_cap = cap;
            if (cap == want) break;
        }
    }
    if (best != NULL) {
        fe_cache.n_cached--;
        fe_cache.slots[best_i] = fe_cache.slots[fe_cache.n_cached];
        fe_cache.slot_capacity[best_i] = fe_cache.slot_capacity[fe_cache.n_cached];
        fe_cache.cached_bytes -= best_cap;
        fe_cache.hits++;
    } else {
        fe_cache.misses++;
    }
    pthread_mutex_unlock(&fe_cache.lock);
    return best;
}

static void *fe_cache_malloc(void *ctx, size_t size) {
    (void)ctx;
    size_t capacity = fe_round_up(size ? size : 1);
    void *base = capacity >= FE_CACHE_MIN ? fe_take(capacity) : NULL;
    if (base == NULL && (base = fe_fresh(capacity)) == NULL) return NULL;
    ((fe_block_header *)base)->size = size;
    return (char *)base + FE_CACHE_HEADER;
}

static void *fe_cache_calloc(void *ctx, size_t nelem, size_t elsize) {
    if (elsize && nelem > (size_t)-1 / elsize) return NULL;
    size_t size = nelem * elsize;
    void *p = fe_cache_malloc(ctx, size);
    if (p != NULL) memset(p, 0, size);
    return p;
}

static void fe_cache_free(void *ctx, void *ptr, size_t size_hint) {
    (void)ctx; (void)size_hint;
    if (ptr == NULL) return;
    void *base = (char *)ptr - FE_CACHE_HEADER;
    fe_block_header *h = (fe_block_header *)base;
    size_t capacity = h->capacity;
    if (capacity >= FE_CACHE_MIN) {
        pthread_mutex_lock(&fe_cache.lock);
        if (fe_cache.n_cached < FE_CACHE_SLOTS &&
                fe_cache.cached_bytes + capacity <= fe_cache.limit) {
            fe_cache.slots[fe_cache.n_cached] = base;
            fe_cache.slot_capacity[fe_cache.n_cached] = capacity;
            fe_cache.n_cached++;
            fe_cache.cached_bytes += capacity;
            fe_cache.returned++;
            pthread_mutex_unlock(&fe_cache.lock);
            return;
        }
        fe_cache.released++;
        pthread_mutex_unlock(&fe_cache.lock);
    }
    free(base);
}

static void *fe_cache_realloc(void *ctx, void *ptr, size_t new_size) {
    if (ptr == NULL) return fe_cache_malloc(ctx, new_size);
    fe_block_header *h = (fe_block_header *)((char *)ptr - FE_CACHE_HEADER);
    if (new_size <= h->capacity) {
        h->size = new_size;
        return ptr;
    }
    void *fresh = fe_cache_malloc(ctx, new_size);
    if (fresh == NULL) return NULL;
    memcpy(fresh, ptr, h->size);
    fe_cache_free(ctx, ptr, h->size);
    return fresh;
}

/* Give every pooled block back to the C library (fe.config.experimental.empty_cache). */
static size_t fe_cache_empty(void) {
    size_t n;
    pthread_mutex_lock(&fe_cache.lock);
    n = fe_cache.cached_bytes;
    for (size_t i = 0; i < fe_cache.n_cached; i++) free(fe_cache.slots[i]);
    fe_cache.n_cached = 0;
    fe_cache.cached_bytes = 0;
    pthread_mutex_unlock(&fe_cache.lock);
    return n;
}

static void fe_cache_set_limit(size_t limit) {
    pthread_mutex_lock(&fe_cache.lock);
    fe_cache.limit = limit;
    /* drop what no longer fits, newest first */
    while (fe_cache.n_cached && fe_cache.cached_bytes > limit) {
        fe_cache.n_cached--;
        fe_cache.cached_bytes -= fe_cache.slot_capacity[fe_cache.n_cached];
        free(fe_cache.slots[fe_cache.n_cached]);
    }
    pthread_mutex_unlock(&fe_cache.lock);
}

static PyDataMem_Handler fe_cache_handler = {
    "fasteager_array_cache", 1,
    {NULL, fe_cache_malloc, fe_cache_calloc, fe_cache_realloc, fe_cache_free}};

#endif
