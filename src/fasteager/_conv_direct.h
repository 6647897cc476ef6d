/* Direct 2-D convolution kernels (NHWC input, filter taps as rows of K = KH*KW*C) for
 * _kernels.pyx: the forward pass (also the stride-1 input gradient, as a convolution of
 * the padded output gradient with the flipped, transposed filter) and the filter gradient,
 * without an im2col buffer.
 *
 * Why: for the few-channel convolutions of small convnets (C_in 1-16, C_out 16) im2col
 * copies each input value KH*KW times and the GEMM that follows is too thin for OpenBLAS
 * to pack efficiently. Here one vector of L = 64 / sizeof(T) lanes holds L output
 * channels of one pixel (all 16 float32 channels of a 16-channel layer fit one AVX-512
 * register), and each tile keeps up to 12 such accumulators in registers (pixels times
 * channel blocks) while it walks the K taps: per tap, one filter-row load per block and
 * one broadcast of the input per pixel feed all of them.
 *
 * Geometry: the input is addressed through strides (image, row; a pixel is C values), so
 * the caller passes either the input itself or a zero-padded copy; a tap k of a window
 * whose origin is at element `p` reads p + off[k]. Every read is in bounds by
 * construction (the caller pads), so the loops hold no bounds checks.
 *
 * Portability: GCC vector extensions, compiled three times with the register tile each
 * instruction set holds (AVX-512F: 12 accumulators; AVX2 + FMA: 6; the baseline, or any
 * other architecture: 3) and picked at run time (__builtin_cpu_supports), so the module
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

#include "_cpu_level.h"
#define FE_CONV_X86 FE_X86_LEVELS

typedef struct {
    ptrdiff_t OH, OW, O;   /* output rows, columns, channels */
    ptrdiff_t yimg, yrow, ypix; /* forward output strides (elements) of an image, a row
                                 * and a pixel: (OH*OW*O, OW*O, O) for a dense result; a
                                 * phase of a strided input gradient writes every s-th */
    ptrdiff_t img, row, C; /* input strides (elements) of an image and a row; channels */
    ptrdiff_t sh, sw;      /* strides of the window origin */
    ptrdiff_t K;           /* taps per window (KH * KW * C) */
    ptrdiff_t span;        /* taps of a kernel row consecutive in x (KW * C; C if dilated) */
    const ptrdiff_t* off;  /* K offsets of the taps from a window origin */
    int level;             /* the variant to run (<= fe_conv_level()): see below */
    /* forward epilogue (fused_conv2d): bias (NULL or O values, T) added to each output
     * pixel, then max(y, 0) when relu; done on the registers before the store, so the
     * output is written once */
    const void* bias;
    int relu;
} fe_conv_geom;

/* The instruction set the kernels run with, found once: 2 = AVX-512F (x86-64-v4),
 * 1 = AVX2 + FMA (x86-64-v3), 0 = the baseline (any other CPU or architecture). */
static inline int fe_conv_level(void) { return fe_cpu_level(); }

/* 1 when the vector kernels run (AVX2 + FMA or AVX-512): only there are they faster
 * than im2col + OpenBLAS; elsewhere they stay correct but callers keep im2col. */
static inline int fe_conv_direct_fast(void) { return fe_conv_level() >= 1; }

#if defined(__GNUC__)
#define FE_CONV_INLINE static inline __attribute__((always_inline))
#else
#define FE_CONV_INLINE static inline
#endif

/* The bytes of filter rows a tile may walk and still find in L1 (48 KiB on recent x86,
 * less the input rows and the stack; 32 KiB on older ones) */
#define FE_CONV_L1_FILTER_BYTES 40960

/* Whether the forward kernel runs tiles of two channel blocks for K filter taps: they
 * halve the broadcasts per FMA, but only pay while the two blocks' filter rows (2 * K
 * vectors of 64 bytes, walked by every tile of a row) stay in L1. */
static inline int fe_conv_fwd_pairs(ptrdiff_t K) {
    return 2 * K * 64 <= FE_CONV_L1_FILTER_BYTES;
}

template <typename T> struct fe_cvec;
template <> struct fe_cvec<float> { typedef float V __attribute__((vector_size(64))); };
template <> struct fe_cvec<double> { typedef double V __attribute__((vector_size(64))); };

/* Loads L lanes at p into *v, of which the first `lanes` are real (the rest read as
 * zero). (Through a pointer: a vector returned by value would change the baseline
 * variant's ABI.) */
template <typename T, typename V>
FE_CONV_INLINE void fe_conv_load(V* v, const T* p, int lanes) {
    if (lanes == (int)(sizeof(V) / sizeof(T))) {
        memcpy(v, p, sizeof(V));
    } else {
        T tmp[sizeof(V) / sizeof(T)] = {};
        for (int o = 0; o < lanes; o++) tmp[o] = p[o];
        memcpy(v, tmp, sizeof(V));
    }
}

template <typename T, typename V>
FE_CONV_INLINE void fe_conv_store(T* p, const V& v, int lanes) {
    if (lanes == (int)(sizeof(V) / sizeof(T))) {
        memcpy(p, &v, sizeof v);
    } else {
        T tmp[sizeof(V) / sizeof(T)];
        memcpy(tmp, &v, sizeof v);
        for (int o = 0; o < lanes; o++) p[o] = tmp[o];
    }
}

/* y[p*O + b*L + o] = sum_k x[p*pstep + off[k]] * wp[b*K*L + k*L + o] for p < P pixels and
 * b < B channel blocks (the last with `lanes` real lanes): P * B independent accumulator
 * chains, enough to hide the FMA latency; each broadcast of x feeds B of them. */
template <typename T, int P, int B>
FE_CONV_INLINE void fe_conv_fwd_tile(const T* x, ptrdiff_t pstep, const ptrdiff_t* off,
                                     ptrdiff_t K, const T* wp, T* y, ptrdiff_t ypix, int lanes,
                                     const T* bias, int relu) {
    typedef typename fe_cvec<T>::V V;
    const int L = (int)(sizeof(V) / sizeof(T));
    V acc[P][B];
    for (int p = 0; p < P; p++)
        for (int b = 0; b < B; b++) acc[p][b] = V{};
    for (ptrdiff_t k = 0; k < K; k++) {
        V wv[B];
        for (int b = 0; b < B; b++) memcpy(&wv[b], wp + (b * K + k) * L, sizeof(V));
        const T* xk = x + off[k];
        for (int p = 0; p < P; p++) {
            const T xs = xk[p * pstep];
            for (int b = 0; b < B; b++) acc[p][b] += xs * wv[b];
        }
    }
    if (bias != NULL) {
        for (int b = 0; b < B; b++) {
            V bv;
            fe_conv_load<T, V>(&bv, bias + b * L, b == B - 1 ? lanes : L);
            for (int p = 0; p < P; p++) acc[p][b] += bv;
        }
    }
    if (relu) {
        /* (acc < 0) ? 0 : acc, as np.maximum(acc, 0): NaN stays NaN */
        for (int p = 0; p < P; p++)
            for (int b = 0; b < B; b++) acc[p][b] = acc[p][b] < 0 ? V{} : acc[p][b];
    }
    for (int p = 0; p < P; p++)
        for (int b = 0; b < B; b++)
            fe_conv_store<T, V>(y + p * ypix + b * L, acc[p][b], b == B - 1 ? lanes : L);
}

/* fe_conv_fwd_tile with P = n (1 <= n <= P): the register tile of a row's last pixels */
template <typename T, int P, int B>
FE_CONV_INLINE void fe_conv_fwd_tile_n(int n, const T* x, ptrdiff_t pstep,
                                       const ptrdiff_t* off, ptrdiff_t K, const T* wp, T* y,
                                       ptrdiff_t ypix, int lanes, const T* bias, int relu) {
    if (n == P) {
        fe_conv_fwd_tile<T, P, B>(x, pstep, off, K, wp, y, ypix, lanes, bias, relu);
    } else if constexpr (P > 1) {
        fe_conv_fwd_tile_n<T, P - 1, B>(n, x, pstep, off, K, wp, y, ypix, lanes, bias, relu);
    }
}

/* Tiles of at most P items splitting `count` evenly (26 with P = 12: 9, 9, 8), so no
 * tile is left with too few chains to cover the FMA latency. */
static inline int fe_conv_tile_size(ptrdiff_t count, int P) {
    ptrdiff_t tiles = (count + P - 1) / P;
    return (int)((count + tiles - 1) / tiles);
}

/* One output row's channel blocks o0 / L ... o0 / L + B - 1 (bias: the epilogue's
 * values from channel o0, or NULL), in tiles of pixels. */
template <typename T, int P, int B>
FE_CONV_INLINE void fe_conv_fwd_row_blocks(const T* xr, const T* wb, T* yr,
                                           const fe_conv_geom* g, int lanes, const T* bias) {
    const ptrdiff_t pstep = g->sw * g->C, ypix = g->ypix, OW = g->OW;
    const int tile = fe_conv_tile_size(OW, P);
    for (ptrdiff_t ow = 0; ow < OW; ow += tile) {
        const int n_px = (int)(OW - ow < tile ? OW - ow : tile);
        fe_conv_fwd_tile_n<T, P, B>(n_px, xr + ow * pstep, pstep, g->off, g->K, wb,
                                    yr + ow * ypix, ypix, lanes, bias, g->relu);
    }
}

/* Output rows r0 <= r < r1 (r = n * OH + oh) of the convolution of x with the packed
 * filter wp: ceil(O / L) blocks, each K rows of L channels, zero past O. Channel blocks
 * go two at a time while two remain (half the pixels per tile). */
template <typename T, int P>
FE_CONV_INLINE void fe_conv_fwd_rows(const T* x, const T* wp, T* y, const fe_conv_geom* g,
                                     ptrdiff_t r0, ptrdiff_t r1) {
    typedef typename fe_cvec<T>::V V;
    const ptrdiff_t L = (ptrdiff_t)(sizeof(V) / sizeof(T));
    const ptrdiff_t O = g->O;
    const T* bias = (const T*)g->bias;
    for (ptrdiff_t r = r0; r < r1; r++) {
        const ptrdiff_t n = r / g->OH, oh = r % g->OH;
        const T* xr = x + n * g->img + oh * g->sh * g->row;
        T* yr = y + n * g->yimg + oh * g->yrow;
        ptrdiff_t o0 = 0;
        if constexpr (P >= 2) {
            if (fe_conv_fwd_pairs(g->K)) {
                for (; o0 + L < O; o0 += 2 * L) {
                    const int lanes = (int)(O - o0 - L < L ? O - o0 - L : L);
                    fe_conv_fwd_row_blocks<T, P / 2, 2>(xr, wp + (o0 / L) * g->K * L,
                                                        yr + o0, g, lanes,
                                                        bias ? bias + o0 : NULL);
                }
            }
        }
        for (; o0 < O; o0 += L) {
            const int lanes = (int)(O - o0 < L ? O - o0 : L);
            fe_conv_fwd_row_blocks<T, P, 1>(xr, wp + (o0 / L) * g->K * L, yr + o0, g, lanes,
                                            bias ? bias + o0 : NULL);
        }
    }
}

/* dwp[(b*K + r)*L + o] += sum over the pixels of image n of
 * x[origin + off[r]] * dy[pixel, o0 + b*L + o] for r < R taps and b < B channel blocks
 * (the last with `lanes` real lanes), in R * B accumulators. CONTIG: the R taps are
 * consecutive in x (off[r] = off[0] + r; the channels of a kernel row), so they need no
 * offset registers. */
template <typename T, int R, int B, bool CONTIG, bool FULL>
FE_CONV_INLINE void fe_conv_bwf_tile(const T* x, const T* dy, const fe_conv_geom* g,
                                     const ptrdiff_t* off, ptrdiff_t n, ptrdiff_t o0,
                                     int lanes, T* dwp) {
    typedef typename fe_cvec<T>::V V;
    const int L = (int)(sizeof(V) / sizeof(T));
    const ptrdiff_t pstep = g->sw * g->C, O = g->O, K = g->K;
    ptrdiff_t o_r[R];
    for (int r = 0; r < R; r++) o_r[r] = CONTIG ? r : off[r] - off[0];
    V acc[R][B];
    for (int r = 0; r < R; r++)
        for (int b = 0; b < B; b++) acc[r][b] = V{};
    for (ptrdiff_t oh = 0; oh < g->OH; oh++) {
        const T* xr = x + n * g->img + oh * g->sh * g->row + off[0];
        const T* dr = dy + ((n * g->OH + oh) * g->OW) * O + o0;
        for (ptrdiff_t ow = 0; ow < g->OW; ow++) {
            V d[B];
            for (int b = 0; b < B - 1; b++) memcpy(&d[b], dr + ow * O + b * L, sizeof(V));
            if (FULL)
                memcpy(&d[B - 1], dr + ow * O + (B - 1) * L, sizeof(V));
            else
                fe_conv_load<T, V>(&d[B - 1], dr + ow * O + (B - 1) * L, lanes);
            const T* xp = xr + ow * pstep;
            for (int r = 0; r < R; r++) {
                const T xs = CONTIG ? xp[r] : xp[o_r[r]];
                for (int b = 0; b < B; b++) acc[r][b] += xs * d[b];
            }
        }
    }
    for (int r = 0; r < R; r++) {
        for (int b = 0; b < B; b++) {
            V s;
            memcpy(&s, dwp + (b * K + r) * L, sizeof s);
            s += acc[r][b];
            memcpy(dwp + (b * K + r) * L, &s, sizeof s);
        }
    }
}

template <typename T, int R, int B, bool CONTIG>
FE_CONV_INLINE void fe_conv_bwf_tile_n(int n_taps, const T* x, const T* dy,
                                       const fe_conv_geom* g, const ptrdiff_t* off,
                                       ptrdiff_t n, ptrdiff_t o0, int lanes, T* dwp) {
    if (n_taps == R) {
        if (lanes == (int)(sizeof(typename fe_cvec<T>::V) / sizeof(T)))
            fe_conv_bwf_tile<T, R, B, CONTIG, true>(x, dy, g, off, n, o0, lanes, dwp);
        else
            fe_conv_bwf_tile<T, R, B, CONTIG, false>(x, dy, g, off, n, o0, lanes, dwp);
    } else if constexpr (R > 1) {
        fe_conv_bwf_tile_n<T, R - 1, B, CONTIG>(n_taps, x, dy, g, off, n, o0, lanes, dwp);
    }
}

/* One image's filter gradient for channel blocks o0 / L ... o0 / L + B - 1. The taps of
 * a kernel row lie consecutively in x (g->span of them: KW * C, or C when dilated): when
 * a row holds at least half a tile, tiles stay within rows and take the CONTIG kernel. */
template <typename T, int R, int B>
FE_CONV_INLINE void fe_conv_bwf_blocks(const T* x, const T* dy, T* db, const fe_conv_geom* g,
                                       ptrdiff_t n, ptrdiff_t o0, int lanes) {
    typedef typename fe_cvec<T>::V V;
    const ptrdiff_t L = (ptrdiff_t)(sizeof(V) / sizeof(T));
    const ptrdiff_t K = g->K, span = g->span;
    if (2 * span >= R) {
        const int tile = fe_conv_tile_size(span, R);
        for (ptrdiff_t k0 = 0; k0 < K; k0 += span) {
            for (ptrdiff_t k = k0; k < k0 + span; k += tile) {
                const int n_taps = (int)(k0 + span - k < tile ? k0 + span - k : tile);
                fe_conv_bwf_tile_n<T, R, B, true>(n_taps, x, dy, g, g->off + k, n, o0, lanes,
                                                  db + k * L);
            }
        }
        return;
    }
    const int tile = fe_conv_tile_size(K, R);
    for (ptrdiff_t k = 0; k < K; k += tile) {
        const int n_taps = (int)(K - k < tile ? K - k : tile);
        fe_conv_bwf_tile_n<T, R, B, false>(n_taps, x, dy, g, g->off + k, n, o0, lanes,
                                           db + k * L);
    }
}

/* Adds the filter gradient of images n0 <= n < n1 into dwp, laid out as the packed
 * filter (ceil(O / L) blocks of K rows of L lanes; lanes past O stay zero). */
template <typename T, int R>
FE_CONV_INLINE void fe_conv_bwf_images(const T* x, const T* dy, T* dwp, const fe_conv_geom* g,
                                       ptrdiff_t n0, ptrdiff_t n1) {
    typedef typename fe_cvec<T>::V V;
    const ptrdiff_t L = (ptrdiff_t)(sizeof(V) / sizeof(T));
    const ptrdiff_t K = g->K, O = g->O;
    for (ptrdiff_t n = n0; n < n1; n++) {
        ptrdiff_t o0 = 0;
        if constexpr (R >= 2) {
            for (; o0 + L < O; o0 += 2 * L) {
                const int lanes = (int)(O - o0 - L < L ? O - o0 - L : L);
                fe_conv_bwf_blocks<T, R / 2, 2>(x, dy, dwp + (o0 / L) * K * L, g, n, o0, lanes);
            }
        }
        for (; o0 < O; o0 += L) {
            const int lanes = (int)(O - o0 < L ? O - o0 : L);
            fe_conv_bwf_blocks<T, R, 1>(x, dy, dwp + (o0 / L) * K * L, g, n, o0, lanes);
        }
    }
}

/* One compiled variant per instruction set, each with the tile its registers hold:
 * 32 zmm registers take 12 accumulators of one vector; under AVX2 a 64-byte vector is
 * two of the 16 ymm registers (6 accumulators); the baseline's four xmm (3). */
#define FE_CONV_VARIANTS(NAME, T, BODY, A0, A1)                                        \
    FE_CONV_VARIANT_X86(NAME, T, BODY, A0, A1)                                          \
    static void NAME##_base(const T* a, const T* b, T* c, const fe_conv_geom* g,        \
                            ptrdiff_t A0, ptrdiff_t A1) { BODY<T, 3>(a, b, c, g, A0, A1); }

#if FE_CONV_X86
#define FE_CONV_VARIANT_X86(NAME, T, BODY, A0, A1)                                      \
    __attribute__((target("arch=x86-64-v4"))) static void NAME##_v4(                   \
        const T* a, const T* b, T* c, const fe_conv_geom* g, ptrdiff_t A0, ptrdiff_t A1) { \
        BODY<T, 12>(a, b, c, g, A0, A1); }                                              \
    __attribute__((target("arch=x86-64-v3"))) static void NAME##_v3(                   \
        const T* a, const T* b, T* c, const fe_conv_geom* g, ptrdiff_t A0, ptrdiff_t A1) { \
        BODY<T, 6>(a, b, c, g, A0, A1); }
#define FE_CONV_DISPATCH(NAME, ...)                                                     \
    switch (g->level) {                                                                 \
        case 2: NAME##_v4(__VA_ARGS__); return;                                         \
        case 1: NAME##_v3(__VA_ARGS__); return;                                         \
        default: NAME##_base(__VA_ARGS__); return;                                      \
    }
#else
#define FE_CONV_VARIANT_X86(NAME, T, BODY, A0, A1)
#define FE_CONV_DISPATCH(NAME, ...) NAME##_base(__VA_ARGS__);
#endif

FE_CONV_VARIANTS(fe_conv_fwd_f32_, float, fe_conv_fwd_rows, r0, r1)
FE_CONV_VARIANTS(fe_conv_fwd_f64_, double, fe_conv_fwd_rows, r0, r1)
FE_CONV_VARIANTS(fe_conv_bwf_f32_, float, fe_conv_bwf_images, n0, n1)
FE_CONV_VARIANTS(fe_conv_bwf_f64_, double, fe_conv_bwf_images, n0, n1)

/* The entry points. */
static void fe_conv_fwd_f32(const float* x, const float* wp, float* y, const fe_conv_geom* g,
                            ptrdiff_t r0, ptrdiff_t r1) {
    FE_CONV_DISPATCH(fe_conv_fwd_f32_, x, wp, y, g, r0, r1)
}

static void fe_conv_fwd_f64(const double* x, const double* wp, double* y,
                            const fe_conv_geom* g, ptrdiff_t r0, ptrdiff_t r1) {
    FE_CONV_DISPATCH(fe_conv_fwd_f64_, x, wp, y, g, r0, r1)
}

static void fe_conv_bwf_f32(const float* x, const float* dy, float* dwp,
                            const fe_conv_geom* g, ptrdiff_t n0, ptrdiff_t n1) {
    FE_CONV_DISPATCH(fe_conv_bwf_f32_, x, dy, dwp, g, n0, n1)
}

static void fe_conv_bwf_f64(const double* x, const double* dy, double* dwp,
                            const fe_conv_geom* g, ptrdiff_t n0, ptrdiff_t n1) {
    FE_CONV_DISPATCH(fe_conv_bwf_f64_, x, dy, dwp, g, n0, n1)
}

#endif
