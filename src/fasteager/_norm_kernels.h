/* Per-chunk loops of the fused batch normalisation (_norm.pyx).
 *
 * The data is seen as rows x C (channels last, C contiguous). _norm.pyx splits the rows
 * into fixed chunks of FE_BN_CHUNK rows, runs one chunk per call (OpenMP threads take
 * chunks), and adds the chunks' partial sums in chunk order. Sums are kept in double for
 * both float32 and float64 data, and every loop vectorises across channels only (one
 * lane per channel, each channel's terms added in row order), so the result does not
 * depend on the number of threads or on the instruction set the clone runs with.
 *
 * Each loop is compiled for AVX-512F, AVX2 and the baseline (target_clones), without
 * FMA contraction, so every clone does the same IEEE operations in the same order.
 */
#ifndef FASTEAGER_NORM_KERNELS_H
#define FASTEAGER_NORM_KERNELS_H

#include <stddef.h>

#define FE_BN_CHUNK 256

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FE_BN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FE_BN_CLONES
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

/* s[c] += sum_r x[r, c] */
template <typename T>
static inline __attribute__((always_inline)) void fe_bn_sum_body(
        const T* x, ptrdiff_t rows, ptrdiff_t C, double* s) {
    for (ptrdiff_t r = 0; r < rows; ++r) {
        const T* xr = x + r * C;
        for (ptrdiff_t c = 0; c < C; ++c) s[c] += (double)xr[c];
    }
}

/* d1[c] += sum_r (x - mean), d2[c] += sum_r (x - mean)^2: the corrected two-pass
 * variance (Chan, Golub and LeVeque 1983) takes var = (d2 - d1^2 / n) / n. */
template <typename T>
static inline __attribute__((always_inline)) void fe_bn_centered_body(
        const T* x, const double* mean, ptrdiff_t rows, ptrdiff_t C, double* d1, double* d2) {
    for (ptrdiff_t r = 0; r < rows; ++r) {
        const T* xr = x + r * C;
        for (ptrdiff_t c = 0; c < C; ++c) {
            double d = (double)xr[c] - mean[c];
            d1[c] += d;
            d2[c] += d * d;
        }
    }
}

/* y = (x - mean) * scale + shift, per channel (training: scale = gamma / sqrt(var + eps),
 * shift = beta; inference the same with the moving statistics) */
template <typename T>
static inline __attribute__((always_inline)) void fe_bn_affine_body(
        const T* x, const T* mean, const T* scale, const T* shift, ptrdiff_t rows,
        ptrdiff_t C, T* y) {
    for (ptrdiff_t r = 0; r < rows; ++r) {
        const T* xr = x + r * C;
        T* yr = y + r * C;
        for (ptrdiff_t c = 0; c < C; ++c) yr[c] = (xr[c] - mean[c]) * scale[c] + shift[c];
    }
}

/* backward, first pass: sg[c] += sum_r dy, sgx[c] += sum_r dy * (x - mean) */
template <typename T>
static inline __attribute__((always_inline)) void fe_bn_grad_sums_body(
        const T* dy, const T* x, const double* mean, ptrdiff_t rows, ptrdiff_t C,
        double* sg, double* sgx) {
    for (ptrdiff_t r = 0; r < rows; ++r) {
        const T* gr = dy + r * C;
        const T* xr = x + r * C;
        for (ptrdiff_t c = 0; c < C; ++c) {
            double g = (double)gr[c];
            sg[c] += g;
            sgx[c] += g * ((double)xr[c] - mean[c]);
        }
    }
}

/* backward, second pass: dx = k1 * dy + k2 * (x - mean) + k3, per channel */
template <typename T>
static inline __attribute__((always_inline)) void fe_bn_grad_dx_body(
        const T* dy, const T* x, const T* mean, const T* k1, const T* k2, const T* k3,
        ptrdiff_t rows, ptrdiff_t C, T* dx) {
    for (ptrdiff_t r = 0; r < rows; ++r) {
        const T* gr = dy + r * C;
        const T* xr = x + r * C;
        T* dr = dx + r * C;
        for (ptrdiff_t c = 0; c < C; ++c)
            dr[c] = k1[c] * gr[c] + k2[c] * (xr[c] - mean[c]) + k3[c];
    }
}

#define FE_BN_DEFINE(SUF, T)                                                              \
    FE_BN_CLONES void fe_bn_sum_##SUF(const T* x, ptrdiff_t rows, ptrdiff_t C, double* s) \
    { fe_bn_sum_body<T>(x, rows, C, s); }                                                 \
    FE_BN_CLONES void fe_bn_centered_##SUF(const T* x, const double* mean, ptrdiff_t rows, \
                                           ptrdiff_t C, double* d1, double* d2)           \
    { fe_bn_centered_body<T>(x, mean, rows, C, d1, d2); }                                 \
    FE_BN_CLONES void fe_bn_affine_##SUF(const T* x, const T* mean, const T* scale,       \
                                         const T* shift, ptrdiff_t rows, ptrdiff_t C, T* y) \
    { fe_bn_affine_body<T>(x, mean, scale, shift, rows, C, y); }                          \
    FE_BN_CLONES void fe_bn_grad_sums_##SUF(const T* dy, const T* x, const double* mean,  \
                                            ptrdiff_t rows, ptrdiff_t C, double* sg,      \
                                            double* sgx)                                  \
    { fe_bn_grad_sums_body<T>(dy, x, mean, rows, C, sg, sgx); }                           \
    FE_BN_CLONES void fe_bn_grad_dx_##SUF(const T* dy, const T* x, const T* mean,         \
                                          const T* k1, const T* k2, const T* k3,          \
                                          ptrdiff_t rows, ptrdiff_t C, T* dx)             \
    { fe_bn_grad_dx_body<T>(dy, x, mean, k1, k2, k3, rows, C, dx); }

FE_BN_DEFINE(f32, float)
FE_BN_DEFINE(f64, double)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#endif
