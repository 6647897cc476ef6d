/* Direct 2-D convolution kernels (NHWC input, filter taps as rows of K = KH*KW*C) for
 * _kernels.pyx: the forward pass (also the stride-1 input gradient, as a convolution of
 * the padded output gradient with the flipped, transposed filter) and the filter gradient,
 * without an im2col buffer.
 *
 * Why: for the few-channel convolutions of small convnets (C_in 1-16, C_out 16) im2col
 * copies each input value KH*KW times and the GEMM that follows is too thin for OpenBLAS
 * to pack efficiently. Here one vector of L = 64 / sizeof(T) lanes holds L output
 * channels of one pixel (all 16 float32 channels of a 16-channel layer fit one AVX-512
 * register), and each tile keeps 6 such accumulators in registers while it walks the K
 * taps: one filter-row load and 6 broadcasts of the input per 6 fused multiply-adds.
 *
 * Geometry: the input is addressed through strides (image, row; a pixel is C values), so
 * the caller passes either the input itself or a zero-padded copy; a tap k of a window
 * whose origin is at element `p` reads p + off[k]. Every read is in bounds by
 * construction (the caller pads), so the loops hold no bounds checks.
 *
 * Portability: GCC vector extensions, lowered for each target_clones variant (AVX-512 +
 * FMA, AVX2 + FMA, and the x86-64 baseline or any other architecture), so the module
 * runs on every CPU it builds for. FMA rounds differently from a multiply and an add:
 * the result differs from the im2col path in the last bits, as any change of summation
 * order does.
 *
 * The functions are serial; the caller runs them in parallel over disjoint outputs.
 */
#ifndef FASTEAGER_CONV_DIRECT_H
#define FASTEAGER_CONV_DIRECT_H

#include <stddef.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FE_CONV_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", \
                                                     "default")))
#define FE_CONV_X86 1
#else
#define FE_CONV_CLONES
#define FE_CONV_X86 0
#endif

typedef struct {
    ptrdiff_t OH, OW, O;   /* output rows, columns, channels */
    ptrdiff_t img, row, C; /* input strides (elements) of an image and a row; channels */
    ptrdiff_t sh, sw;      /* strides of the window origin */
    ptrdiff_t K;           /* taps per window (KH * KW * C) */
    const ptrdiff_t* off;  /* K offsets of the taps from a window origin */
} fe_conv_geom;

/* 1 when the CPU runs the vector clones (AVX2 and FMA, or AVX-512): only there are the
 * direct kernels faster than im2col + OpenBLAS; elsewhere they stay correct but the
 * callers keep im2col. */
static inline int fe_conv_direct_fast(void) {
#if FE_CONV_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

#if defined(__GNUC__)
#define FE_CONV_INLINE static inline __attribute__((always_inline))
#else
#define FE_CONV_INLINE static inline
#endif

template <typename T> struct fe_cvec;
template <> struct fe_cvec<float> { typedef float V __attribute__((vector_size(64))); };
template <> struct fe_cvec<double> { typedef double V __attribute__((vector_size(64))); };

enum { FE_CONV_P = 6 };  /* pixels per forward tile, taps per filter-gradient tile */

/* y[p*O + o] = sum_k x[p*pstep + off[k]] * wp[k*L + o] for p < P, o < lanes. */
template <typename T, int P>
FE_CONV_INLINE void fe_conv_fwd_tile(const T* x, ptrdiff_t pstep, const ptrdiff_t* off,
                                     ptrdiff_t K, const T* wp, T* y, ptrdiff_t O, int lanes) {
    typedef typename fe_cvec<T>::V V;
    const int L = (int)(sizeof(V) / sizeof(T));
    V acc[P];
    for (int p = 0; p < P; p++) acc[p] = V{};
    for (ptrdiff_t k = 0; k < K; k++) {
        V wv;
        memcpy(&wv, wp + k * L, sizeof wv);
        const T* xk = x + off[k];
        for (int p = 0; p < P; p++) acc[p] += xk[p * pstep] * wv;
    }
    for (int p = 0; p < P; p++) {
        if (lanes == L) {
            memcpy(y + p * O, &acc[p], sizeof(V));
        } else {
            T tmp[L];
            memcpy(tmp, &acc[p], sizeof(V));
            for (int o = 0; o < lanes; o++) y[p * O + o] = tmp[o];
        }
    }
}

/* Output rows r0 <= r < r1 (r = n * OH + oh) of the convolution of x with the packed
 * filter wp: ceil(O / L) blocks, each K rows of L channels, zero past O. */
template <typename T>
FE_CONV_INLINE void fe_conv_fwd_rows(const T* x, const T* wp, T* y, const fe_conv_geom* g,
                                     ptrdiff_t r0, ptrdiff_t r1) {
    typedef typename fe_cvec<T>::V V;
    const ptrdiff_t L = (ptrdiff_t)(sizeof(V) / sizeof(T));
    const ptrdiff_t pstep = g->sw * g->C, O = g->O, OW = g->OW;
    for (ptrdiff_t r = r0; r < r1; r++) {
        const ptrdiff_t n = r / g->OH, oh = r % g->OH;
        const T* xr = x + n * g->img + oh * g->sh * g->row;
        T* yr = y + r * OW * O;
        for (ptrdiff_t o0 = 0; o0 < O; o0 += L) {
            const T* wb = wp + (o0 / L) * g->K * L;
            const int lanes = (int)(O - o0 < L ? O - o0 : L);
            ptrdiff_t ow = 0;
            for (; ow + FE_CONV_P <= OW; ow += FE_CONV_P)
                fe_conv_fwd_tile<T, FE_CONV_P>(xr + ow * pstep, pstep, g->off, g->K, wb,
                                               yr + ow * O + o0, O, lanes);
            const T* xt = xr + ow * pstep;
            T* yt = yr + ow * O + o0;
            switch (OW - ow) {
                case 5: fe_conv_fwd_tile<T, 5>(xt, pstep, g->off, g->K, wb, yt, O, lanes); break;
                case 4: fe_conv_fwd_tile<T, 4>(xt, pstep, g->off, g->K, wb, yt, O, lanes); break;
                case 3: fe_conv_fwd_tile<T, 3>(xt, pstep, g->off, g->K, wb, yt, O, lanes); break;
                case 2: fe_conv_fwd_tile<T, 2>(xt, pstep, g->off, g->K, wb, yt, O, lanes); break;
                case 1: fe_conv_fwd_tile<T, 1>(xt, pstep, g->off, g->K, wb, yt, O, lanes); break;
                default: break;
            }
        }
    }
}

/* dwp[r*L + o] += sum over the pixels of image n of x[origin + off[r]] * dy[pixel, o0 + o]
 * for r < R: R taps of one channel block, with R accumulators. */
template <typename T, int R>
FE_CONV_INLINE void fe_conv_bwf_tile(const T* x, const T* dy, const fe_conv_geom* g,
                                     const ptrdiff_t* off, ptrdiff_t n, ptrdiff_t o0,
                                     int lanes, T* dwp) {
    typedef typename fe_cvec<T>::V V;
    const ptrdiff_t L = (ptrdiff_t)(sizeof(V) / sizeof(T));
    const ptrdiff_t pstep = g->sw * g->C, O = g->O;
    V acc[R];
    for (int r = 0; r < R; r++) acc[r] = V{};
    for (ptrdiff_t oh = 0; oh < g->OH; oh++) {
        const T* xr = x + n * g->img + oh * g->sh * g->row;
        const T* dr = dy + ((n * g->OH + oh) * g->OW) * O + o0;
        for (ptrdiff_t ow = 0; ow < g->OW; ow++) {
            V d;
            if (lanes == L) {
                memcpy(&d, dr + ow * O, sizeof d);
            } else {
                T tmp[L] = {};
                for (int o = 0; o < lanes; o++) tmp[o] = dr[ow * O + o];
                memcpy(&d, tmp, sizeof d);
            }
            const T* xp = xr + ow * pstep;
            for (int r = 0; r < R; r++) acc[r] += xp[off[r]] * d;
        }
    }
    for (int r = 0; r < R; r++) {
        V s;
        memcpy(&s, dwp + r * L, sizeof s);
        s += acc[r];
        memcpy(dwp + r * L, &s, sizeof s);
    }
}

/* Adds the filter gradient of images n0 <= n < n1 into dwp, laid out as the packed
 * filter (ceil(O / L) blocks of K rows of L lanes; lanes past O stay zero). */
template <typename T>
FE_CONV_INLINE void fe_conv_bwf_images(const T* x, const T* dy, T* dwp, const fe_conv_geom* g,
                                       ptrdiff_t n0, ptrdiff_t n1) {
    typedef typename fe_cvec<T>::V V;
    const ptrdiff_t L = (ptrdiff_t)(sizeof(V) / sizeof(T));
    const ptrdiff_t K = g->K, O = g->O;
    for (ptrdiff_t n = n0; n < n1; n++) {
        for (ptrdiff_t o0 = 0; o0 < O; o0 += L) {
            T* db = dwp + (o0 / L) * K * L;
            const int lanes = (int)(O - o0 < L ? O - o0 : L);
            ptrdiff_t k = 0;
            for (; k + FE_CONV_P <= K; k += FE_CONV_P)
                fe_conv_bwf_tile<T, FE_CONV_P>(x, dy, g, g->off + k, n, o0, lanes, db + k * L);
            const ptrdiff_t* ot = g->off + k;
            T* dt = db + k * L;
            switch (K - k) {
                case 5: fe_conv_bwf_tile<T, 5>(x, dy, g, ot, n, o0, lanes, dt); break;
                case 4: fe_conv_bwf_tile<T, 4>(x, dy, g, ot, n, o0, lanes, dt); break;
                case 3: fe_conv_bwf_tile<T, 3>(x, dy, g, ot, n, o0, lanes, dt); break;
                case 2: fe_conv_bwf_tile<T, 2>(x, dy, g, ot, n, o0, lanes, dt); break;
                case 1: fe_conv_bwf_tile<T, 1>(x, dy, g, ot, n, o0, lanes, dt); break;
                default: break;
            }
        }
    }
}

/* The entry points: one clone set per dtype (target_clones does not apply to templates). */
FE_CONV_CLONES static void fe_conv_fwd_f32(const float* x, const float* wp, float* y,
                                    const fe_conv_geom* g, ptrdiff_t r0, ptrdiff_t r1) {
    fe_conv_fwd_rows<float>(x, wp, y, g, r0, r1);
}

FE_CONV_CLONES static void fe_conv_fwd_f64(const double* x, const double* wp, double* y,
                                    const fe_conv_geom* g, ptrdiff_t r0, ptrdiff_t r1) {
    fe_conv_fwd_rows<double>(x, wp, y, g, r0, r1);
}

FE_CONV_CLONES static void fe_conv_bwf_f32(const float* x, const float* dy, float* dwp,
                                    const fe_conv_geom* g, ptrdiff_t n0, ptrdiff_t n1) {
    fe_conv_bwf_images<float>(x, dy, dwp, g, n0, n1);
}

FE_CONV_CLONES static void fe_conv_bwf_f64(const double* x, const double* dy, double* dwp,
                                    const fe_conv_geom* g, ptrdiff_t n0, ptrdiff_t n1) {
    fe_conv_bwf_images<double>(x, dy, dwp, g, n0, n1);
}

#endif
