/* Vectorisable float32 exp, log, tanh and sigmoid for the fused elementwise kernel
 * (_graph.pyx), its sqrt loops, and, in _kernels.pyx, the eager float32 sigmoid and the
 * non-aliasing add of the convolution kernels.
 *
 * libm's expf/logf/tanhf are scalar calls, several times slower per element than
 * NumPy's SIMD loops, so fused chains with them used to be left unfused on large float32
 * arrays. These are branch-free (selects instead of branches), so GCC vectorises the
 * loops below; on x86-64 Linux each loop is also compiled for AVX2 and AVX-512F and
 * picked at load time (target_clones). Neither enables FMA, so every clone does the same
 * IEEE float operations and gives bitwise the same results.
 *
 * Accuracy (tests/function/test_fastmath.py sweeps the float32 range against NumPy):
 * exp and log within 2 ulp, tanh within 3 ulp, sigmoid within 3 ulp of the float64
 * result (tiny tail: see its comment); inf, -inf, NaN, 0 and subnormal inputs and
 * results follow C99 (exp underflows through the subnormals to 0).
 *
 * The polynomials are the classic minimax fits for single precision (as in the Cephes
 * library): exp on [-ln2/2, ln2/2] after n = round(x / ln 2); log on [sqrt(1/2)-1,
 * sqrt(2)-1] after splitting off the exponent; tanh as an odd polynomial below 0.625 and
 * 1 - 2 / (exp(2|x|) + 1) above.
 */
#ifndef FASTEAGER_FASTMATH_H
#define FASTEAGER_FASTMATH_H

#include <stdint.h>
#include <string.h>
#include <stddef.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FE_CLONES
#endif

/* GCC turns the selects into vector blends only when FP compares may not trap (and sqrt
 * into a vector instruction only under -fno-math-errno, which setup.py passes); nothing
 * here enables traps or reads errno, and NumPy clears the FP status flags before each of
 * its loops. GCC also contracts a * b + c into an FMA in the AVX2 and AVX-512 clones
 * unless told not to; fp-contract=off keeps every clone's operations the same. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math", "fp-contract=off")
#endif

static inline float fe_bits_to_float(int32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline int32_t fe_float_to_bits(float f) { int32_t b; memcpy(&b, &f, 4); return b; }

static inline float fe_expf(float x) {
    const float hi = 88.72283935546875f, lo = -103.97208f;
    float xc = x > hi ? hi : x;                  /* NaN passes through both clamps */
    xc = xc < lo ? lo : xc;
    /* n = round(x / ln2) by the 1.5 * 2^23 trick (|x / ln2| < 2^22) */
    float fx = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = xc - fx * 0.693359375f;
    r = r - fx * -2.12194440e-4f;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * (r * r) + r + 1.0f;
    /* times 2^n in two steps, so that subnormal results and 2^128 * y < FLT_MAX work */
    int32_t n = (int32_t)fx;
    int32_t n1 = n >> 1, n2 = n - n1;
    y = y * fe_bits_to_float((n1 + 127) << 23);
    y = y * fe_bits_to_float((n2 + 127) << 23);
    y = x > hi ? __builtin_inff() : y;
    y = x < lo ? 0.0f : y;
    return y;
}

static inline float fe_logf(float x) {
    /* subnormals: scale into the normal range first */
    int sub = x < 1.17549435e-38f;
    float xs = sub ? x * 8388608.0f : x;         /* 2^23 */
    int32_t b = fe_float_to_bits(xs);
    int32_t e = ((b >> 23) & 0xff) - 126 - (sub ? 23 : 0);
    float m = fe_bits_to_float((b & 0x807fffff) | 0x3f000000);   /* [0.5, 1) */
    int small = m < 0.707106781186547524f;
    e = small ? e - 1 : e;
    m = small ? m + m - 1.0f : m - 1.0f;
    float fe = (float)e;
    float z = m * m;
    float y = 7.0376836292e-2f;
    y = y * m - 1.1514610310e-1f;
    y = y * m + 1.1676998740e-1f;
    y = y * m - 1.2420140846e-1f;
    y = y * m + 1.4249322787e-1f;
    y = y * m - 1.6668057665e-1f;
    y = y * m + 2.0000714765e-1f;
    y = y * m - 2.4999993993e-1f;
    y = y * m + 3.3333331174e-1f;
    y = y * m * z;
    y = y + fe * -2.12194440e-4f;
    y = y - 0.5f * z;
    float r = m + y;
    r = r + fe * 0.693359375f;
    r = x == __builtin_inff() ? x : r;
    r = x == 0.0f ? -__builtin_inff() : r;
    r = (x < 0.0f || x != x) ? __builtin_nanf("") : r;
    return r;
}

static inline float fe_tanhf(float x) {
    float ax = x < 0.0f ? -x : x;
    float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    float small = x + x * z * p;
    small = x == 0.0f ? x : small;                 /* tanh(-0) = -0 */
    float e = fe_expf(ax + ax);
    float big = 1.0f - 2.0f / (e + 1.0f);          /* exp overflow: 1 - 0 = 1 */
    big = x < 0.0f ? -big : big;
    return ax < 0.625f ? small : big;              /* NaN: the big branch, NaN */
}

/* 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0, with e = exp(-|x|) in (0, 1]: no
 * overflow, and no cancellation for negative x (where (1 + tanh(x / 2)) / 2 loses up to
 * 2e-4 relative at x = -10). One select and one division, so it stays branch-free; e
 * underflows through the subnormals as fe_expf does, so the tiny tail follows it. */
static inline float fe_sigmoidf(float x) {
    float ax = x < 0.0f ? -x : x;                  /* NaN: ax is NaN, so is the result */
    float e = fe_expf(-ax);
    float num = x < 0.0f ? e : 1.0f;
    return num / (1.0f + e);
}

FE_CLONES static void fe_exp_loop(const float* a, float* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = fe_expf(a[i]);
}
FE_CLONES static void fe_log_loop(const float* a, float* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = fe_logf(a[i]);
}
FE_CLONES static void fe_tanh_loop(const float* a, float* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = fe_tanhf(a[i]);
}
FE_CLONES static void fe_sigmoid_loop(const float* a, float* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = fe_sigmoidf(a[i]);
}

/* sqrt and 1/sqrt are correctly rounded IEEE operations: the same results as libm */
FE_CLONES static void fe_sqrt_loop(const float* a, float* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = __builtin_sqrtf(a[i]);
}
FE_CLONES static void fe_rsqrt_loop(const float* a, float* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = 1.0f / __builtin_sqrtf(a[i]);
}
FE_CLONES static void fe_sqrt_loop_f64(const double* a, double* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = __builtin_sqrt(a[i]);
}
FE_CLONES static void fe_rsqrt_loop_f64(const double* a, double* d, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] = 1.0 / __builtin_sqrt(a[i]);
}

/* d += s over n elements that do not overlap (restrict: one vector loop, no alias check) */
static inline void fe_add_into_f32(float* __restrict__ d, const float* __restrict__ s,
                                   ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] += s[i];
}
static inline void fe_add_into_f64(double* __restrict__ d, const double* __restrict__ s,
                                   ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) d[i] += s[i];
}

/* out[o, :] = x[o, 0, :] + x[o, 1, :] + ... in that order (NumPy's order for a sum over
 * middle axes, so the same bits), x of shape (outer, n, inner); additions only, so every
 * clone gives the same results */
#define FE_SUM_ROWS(name, T)                                                              \
    FE_CLONES static void name(const T* x, ptrdiff_t outer, ptrdiff_t n, ptrdiff_t inner,  \
                               T* out) {                                                  \
        for (ptrdiff_t o = 0; o < outer; ++o) {                                           \
            const T* src = x + o * n * inner;                                             \
            T* __restrict__ dst = out + o * inner;                                        \
            memcpy(dst, src, inner * sizeof(T));                                          \
            for (ptrdiff_t i = 1; i < n; ++i) {                                           \
                const T* __restrict__ row = src + i * inner;                              \
                for (ptrdiff_t c = 0; c < inner; ++c) dst[c] += row[c];                   \
            }                                                                             \
        }                                                                                 \
    }
FE_SUM_ROWS(fe_sum_rows_f32, float)
FE_SUM_ROWS(fe_sum_rows_f64, double)

/* g * (x > 0 ? 1 : 0): relu's gradient (a product, not a select: g = inf at x <= 0 gives
 * NaN, as TensorFlow's) */
#define FE_RELU_GRAD(name, T)                                                             \
    FE_CLONES static void name(const T* __restrict__ g, const T* __restrict__ x,          \
                               T* __restrict__ out, ptrdiff_t n) {                        \
        for (ptrdiff_t i = 0; i < n; ++i) out[i] = g[i] * (x[i] > 0 ? (T)1 : (T)0);       \
    }
FE_RELU_GRAD(fe_relu_grad_f32, float)
FE_RELU_GRAD(fe_relu_grad_f64, double)

/* dz = g * (x > 0 ? 1 : 0) over (rows, inner) and sum[c] = dz[0, c] + dz[1, c] + ... in
 * that order: relu's gradient and the bias gradient under it in one pass (the same bits
 * as FE_RELU_GRAD then FE_SUM_ROWS) */
#define FE_RELU_GRAD_SUM(name, T)                                                         \
    FE_CLONES static void name(const T* __restrict__ g, const T* __restrict__ x,          \
                               T* __restrict__ dz, ptrdiff_t rows, ptrdiff_t inner,       \
                               T* __restrict__ sum) {                                     \
        for (ptrdiff_t c = 0; c < inner; ++c)                                             \
            sum[c] = dz[c] = g[c] * (x[c] > 0 ? (T)1 : (T)0);                             \
        for (ptrdiff_t i = 1; i < rows; ++i) {                                            \
            const ptrdiff_t o = i * inner;                                                \
            for (ptrdiff_t c = 0; c < inner; ++c) {                                       \
                const T d = g[o + c] * (x[o + c] > 0 ? (T)1 : (T)0);                      \
                dz[o + c] = d;                                                            \
                sum[c] += d;                                                              \
            }                                                                             \
        }                                                                                 \
    }
FE_RELU_GRAD_SUM(fe_relu_grad_sum_f32, float)
FE_RELU_GRAD_SUM(fe_relu_grad_sum_f64, double)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#endif
