/* float32 GEMM for the thin products of small models (_gemm.pyx): C = A B with
 * A (M x K) addressed by any two strides and B (K x N) with unit stride along N.
 *
 * Why: NumPy's OpenBLAS packs B on every call and threads M = 784, K = 32 badly, so the
 * products of a Dense layer at batch 32 (32x784 @ 784x128 and its gradients) take
 * 2-3x what a register-blocked kernel needs (docs/gemm.md has the figures).
 *
 * Scheme: a tile of MR rows x NV vectors of C stays in registers while the kernel walks
 * k: per k, NV loads of B's row and MR broadcasts of A(i, k) feed MR * NV FMAs. B's
 * panel (NV vectors wide) is walked KC rows at a time so it stays in L1 across all
 * row tiles; the last vector of a panel is masked (N = 10 is one masked vector, not a
 * scalar tail). A is read through strides, so A^T (a transposed view) needs no copy;
 * a B with unit stride along K (g @ W^T) is packed one L1 block at a time (8x8 AVX
 * transposes) right before the row tiles read it.
 *
 * Bits: every output element is one FMA chain over k = 0..K-1 in order, started from
 * zero; K blocks reload the partial sums into the same chain. So the result is the same
 * for every tiling, thread count and call (it depends only on the instruction set level).
 * Nothing is skipped: NaN and inf propagate as in a plain sum of products.
 *
 * Portability: the kernels are compiled three times (this header includes itself):
 * AVX-512F (x86-64-v4: 32 zmm, tiles up to 6x4 vectors), AVX2 + FMA (x86-64-v3: 16 ymm,
 * 6x2) and a baseline of GCC vector extensions (4 lanes; SSE2 on x86-64, no FMA), picked
 * at run time with __builtin_cpu_supports. */
#ifndef FE_GEMM_BODY
#ifndef FASTEAGER_GEMM_H
#define FASTEAGER_GEMM_H

#include <stddef.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "_cpu_level.h"
#define FE_GEMM_X86 FE_X86_LEVELS
#if FE_GEMM_X86
#include <immintrin.h>
#endif

typedef struct {
    ptrdiff_t M, N, K;
    const float* a; ptrdiff_t sam, sak;  /* A(i, k) = a[i * sam + k * sak] */
    const float* b; ptrdiff_t ldb;       /* B(k, j) = b[k * ldb + j], or with bt
                                          * b[j * ldb + k] (packed per block) */
    int bt;
    float* c; ptrdiff_t ldc;             /* C(i, j) = c[i * ldc + j] */
} fe_gemm_args;

/* 2 = AVX-512F (x86-64-v4), 1 = AVX2 + FMA (x86-64-v3), 0 = the baseline */
static inline int fe_gemm_level(void) { return fe_cpu_level(); }

/* The bytes of B's panel a K block walks: kept within L1 (48 KiB on recent x86, with
 * room for A's rows and C's tile) */
#ifndef FE_GEMM_L1_PANEL_BYTES
#define FE_GEMM_L1_PANEL_BYTES 16384
#endif

#define FE_GEMM_FN static inline __attribute__((always_inline)) FE_GEMM_TARGET

#if FE_GEMM_X86
/* dst[i * ldd + j] = src[j * lds + i] for an 8x8 block, in AVX registers: rows j and
 * j + 4 are loaded into the two halves of one register (the load ports do that part),
 * then each half is a 4x4 transpose (unpack, shuffle): 16 shuffles for 64 floats */
static inline __attribute__((always_inline, target("arch=x86-64-v3")))
void fe_gemm_t8x8(const float* src, ptrdiff_t lds, float* dst, ptrdiff_t ldd) {
#define FE_GEMM_ROWS(j, c) _mm256_insertf128_ps(_mm256_castps128_ps256( \
        _mm_loadu_ps(src + (j) * lds + (c))), _mm_loadu_ps(src + ((j) + 4) * lds + (c)), 1)
    for (int c = 0; c < 8; c += 4) {   /* columns c..c+3 of the block: rows c..c+3 of dst */
        __m256 r0 = FE_GEMM_ROWS(0, c), r1 = FE_GEMM_ROWS(1, c);
        __m256 r2 = FE_GEMM_ROWS(2, c), r3 = FE_GEMM_ROWS(3, c);
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        _mm256_storeu_ps(dst + (c + 0) * ldd, _mm256_shuffle_ps(t0, t2, 0x44));
        _mm256_storeu_ps(dst + (c + 1) * ldd, _mm256_shuffle_ps(t0, t2, 0xEE));
        _mm256_storeu_ps(dst + (c + 2) * ldd, _mm256_shuffle_ps(t1, t3, 0x44));
        _mm256_storeu_ps(dst + (c + 3) * ldd, _mm256_shuffle_ps(t1, t3, 0xEE));
    }
#undef FE_GEMM_ROWS
}

#endif

#define FE_GEMM_BODY 1
#if FE_GEMM_X86
#define FE_GEMM_NS fe_gemm_v4
#define FE_GEMM_LEVEL 2
#define FE_GEMM_TARGET __attribute__((target("arch=x86-64-v4")))
#include "_gemm.h"
#undef FE_GEMM_NS
#undef FE_GEMM_LEVEL
#undef FE_GEMM_TARGET
#define FE_GEMM_NS fe_gemm_v3
#define FE_GEMM_LEVEL 1
#define FE_GEMM_TARGET __attribute__((target("arch=x86-64-v3")))
#include "_gemm.h"
#undef FE_GEMM_NS
#undef FE_GEMM_LEVEL
#undef FE_GEMM_TARGET
#endif
#define FE_GEMM_NS fe_gemm_base
#define FE_GEMM_LEVEL 0
#define FE_GEMM_TARGET
#include "_gemm.h"
#undef FE_GEMM_NS
#undef FE_GEMM_LEVEL
#undef FE_GEMM_TARGET
#undef FE_GEMM_BODY

/* The columns of one panel at `level` (how the work splits between threads) */
static inline ptrdiff_t fe_gemm_panel_cols(int level) {
#if FE_GEMM_X86
    if (level == 2) return fe_gemm_v4::P;
    if (level == 1) return fe_gemm_v3::P;
#endif
    return fe_gemm_base::P;
}

static inline void fe_gemm_run_level(const fe_gemm_args* g, int level, ptrdiff_t m0,
                                     ptrdiff_t m1, ptrdiff_t n0, ptrdiff_t n1) {
#if FE_GEMM_X86
    if (level == 2) { fe_gemm_v4::run(g, m0, m1, n0, n1); return; }
    if (level == 1) { fe_gemm_v3::run(g, m0, m1, n0, n1); return; }
#endif
    fe_gemm_base::run(g, m0, m1, n0, n1);
}

/* C = A B (M, N, K >= 1) with the kernels of `level` (<= fe_gemm_level()) on up to
 * `nthreads` threads, each writing disjoint tiles: bands of rows (multiples of 16, so
 * tiles stay whole) when C has at least as many rows as columns or the panels do not
 * split evenly, else whole panels of columns (a wide C of few rows: the Dense forward).
 * Bands keep each thread's rows of C whole (no cache line written by both). */
static void fe_sgemm(const fe_gemm_args* g, int level, int nthreads) {
    ptrdiff_t P = fe_gemm_panel_cols(level);
    ptrdiff_t panels = (g->N + P - 1) / P;
    if (nthreads <= 1) {
        fe_gemm_run_level(g, level, 0, g->M, 0, g->N);
        return;
    }
#ifdef _OPENMP
    #pragma omp parallel num_threads(nthreads)
    {
        ptrdiff_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (g->M < g->N && panels % nt == 0) {
            ptrdiff_t p0 = panels * t / nt, p1 = panels * (t + 1) / nt;
            ptrdiff_t n1 = p1 * P < g->N ? p1 * P : g->N;
            if (p0 < p1) fe_gemm_run_level(g, level, 0, g->M, p0 * P, n1);
        } else {
            ptrdiff_t band = ((g->M + nt - 1) / nt + 15) / 16 * 16;
            ptrdiff_t m0 = band * t, m1 = m0 + band < g->M ? m0 + band : g->M;
            if (m0 < m1) fe_gemm_run_level(g, level, m0, m1, 0, g->N);
        }
    }
#else
    fe_gemm_run_level(g, level, 0, g->M, 0, g->N);
#endif
}

#if FE_GEMM_X86
/* In 16x16 tiles of four 8x8 blocks, so every cache line read or written is used whole,
 * walked in strips of 64 rows of bs so the pages both sides touch stay few (a strip of
 * 16 rows of out may span 13 pages: across all of K, the TLB thrashed) */
__attribute__((target("arch=x86-64-v3")))
static void fe_gemm_pack_bt_avx2(const float* bs, ptrdiff_t ldbs, ptrdiff_t K, ptrdiff_t N,
                                 float* out) {
    ptrdiff_t j8 = N / 8 * 8, k8 = K / 8 * 8;
    for (ptrdiff_t js = 0; js < j8; js += 64) {
        ptrdiff_t je = js + 64 < j8 ? js + 64 : j8;
        for (ptrdiff_t k0 = 0; k0 < k8; k0 += 16) {
            ptrdiff_t kn = k0 + 16 <= k8 ? 16 : 8;
            for (ptrdiff_t j0 = js; j0 < je; j0 += 16) {
                ptrdiff_t jn = j0 + 16 <= je ? 16 : 8;
                for (ptrdiff_t jj = 0; jj < jn; jj += 8)
                    for (ptrdiff_t kk = 0; kk < kn; kk += 8)
                        fe_gemm_t8x8(bs + (j0 + jj) * ldbs + k0 + kk, ldbs,
                                     out + (k0 + kk) * N + j0 + jj, N);
            }
        }
        for (ptrdiff_t k = k8; k < K; k++)
            for (ptrdiff_t j = js; j < je; j++) out[k * N + j] = bs[j * ldbs + k];
    }
    for (ptrdiff_t j = j8; j < N; j++)
        for (ptrdiff_t k = 0; k < K; k++) out[k * N + j] = bs[j * ldbs + k];
}
#endif

/* out (K x N, row-major) = the transpose of bs (N x K, rows ldbs apart): a B with unit
 * stride along K packed for the kernels of `level` (the same bytes on every path). */
static void fe_gemm_pack_bt(const float* bs, ptrdiff_t ldbs, ptrdiff_t K, ptrdiff_t N,
                            float* out, int level) {
#if FE_GEMM_X86
    if (level >= 1) {
        fe_gemm_pack_bt_avx2(bs, ldbs, K, N, out);
        return;
    }
#endif
    /* blocked, so reads and writes both stay within a few cache lines at a time */
    const ptrdiff_t T = 16;
    for (ptrdiff_t j0 = 0; j0 < N; j0 += T) {
        ptrdiff_t j1 = j0 + T < N ? j0 + T : N;
        for (ptrdiff_t k0 = 0; k0 < K; k0 += T) {
            ptrdiff_t k1 = k0 + T < K ? k0 + T : K;
            for (ptrdiff_t j = j0; j < j1; j++)
                for (ptrdiff_t k = k0; k < k1; k++)
                    out[k * N + j] = bs[j * ldbs + k];
        }
    }
}

#endif  /* FASTEAGER_GEMM_H */
#else   /* FE_GEMM_BODY: the kernels of one instruction set level */

namespace FE_GEMM_NS {

/* V: one vector of L floats; Mask: which lanes of a panel's last vector are real */
#if FE_GEMM_LEVEL == 2
typedef __m512 V;
typedef __mmask16 Mask;
enum { L = 16, NVMAX = 4 };
FE_GEMM_FN Mask vmask(int lanes) { return (Mask)((1u << lanes) - 1u); }
FE_GEMM_FN V vzero() { return _mm512_setzero_ps(); }
FE_GEMM_FN V vbcast(const float* p) { return _mm512_set1_ps(*p); }
FE_GEMM_FN V vload(const float* p) { return _mm512_loadu_ps(p); }
FE_GEMM_FN V vloadm(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
FE_GEMM_FN void vstore(float* p, V v) { _mm512_storeu_ps(p, v); }
FE_GEMM_FN void vstorem(float* p, V v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
FE_GEMM_FN V vfma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
/* rows per tile for NV vectors: MR * NV accumulators + NV B vectors + 1 broadcast
 * within 32 registers (FE_GEMM_MR4: for timing other heights; 4 and 5 were slower
 * than 6 on 32x784 @ 784x128) */
#ifndef FE_GEMM_MR4
#define FE_GEMM_MR4 6
#endif
template <int NV> struct Tile { enum { MR = NV == 4 ? FE_GEMM_MR4 : NV == 3 ? 8 : 12 }; };
#elif FE_GEMM_LEVEL == 1
typedef __m256 V;
typedef __m256i Mask;
enum { L = 8, NVMAX = 2 };
FE_GEMM_FN Mask vmask(int lanes) {
    static const int on[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i*)(on + 8 - lanes));
}
FE_GEMM_FN V vzero() { return _mm256_setzero_ps(); }
FE_GEMM_FN V vbcast(const float* p) { return _mm256_broadcast_ss(p); }
FE_GEMM_FN V vload(const float* p) { return _mm256_loadu_ps(p); }
FE_GEMM_FN V vloadm(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
FE_GEMM_FN void vstore(float* p, V v) { _mm256_storeu_ps(p, v); }
FE_GEMM_FN void vstorem(float* p, V v, Mask m) { _mm256_maskstore_ps(p, m, v); }
FE_GEMM_FN V vfma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
/* 16 registers: 6x2 + 2 + 1, or 8x1 + 1 + 1 */
template <int NV> struct Tile { enum { MR = NV == 2 ? 6 : 8 }; };
#else
typedef float V __attribute__((vector_size(16)));
typedef int Mask;   /* the number of real lanes */
enum { L = 4, NVMAX = 2 };
FE_GEMM_FN Mask vmask(int lanes) { return lanes; }
FE_GEMM_FN V vzero() { V v = {0.f, 0.f, 0.f, 0.f}; return v; }
FE_GEMM_FN V vbcast(const float* p) { V v = {*p, *p, *p, *p}; return v; }
FE_GEMM_FN V vload(const float* p) { V v; memcpy(&v, p, sizeof v); return v; }
FE_GEMM_FN V vloadm(const float* p, Mask m) {
    if (m == L) return vload(p);
    float t[L] = {0.f, 0.f, 0.f, 0.f};
    for (int i = 0; i < m; i++) t[i] = p[i];
    V v; memcpy(&v, t, sizeof v); return v;
}
FE_GEMM_FN void vstore(float* p, V v) { memcpy(p, &v, sizeof v); }
FE_GEMM_FN void vstorem(float* p, V v, Mask m) {
    float t[L]; memcpy(t, &v, sizeof v);
    for (int i = 0; i < m; i++) p[i] = t[i];
}
FE_GEMM_FN V vfma(V a, V b, V c) { return a * b + c; }
template <int NV> struct Tile { enum { MR = NV == 2 ? 4 : 8 }; };
#endif

enum { P = NVMAX * L };   /* the columns of a full panel */

/* C[0:MR, 0:cols] (=|+=) A[0:MR, 0:kc] B[0:kc, 0:cols], cols = (NV - 1) * L + the lanes
 * of `last`. `accumulate`: continue the chains from the partial sums in C. */
template <int MR, int NV>
FE_GEMM_TARGET static void tile(ptrdiff_t kc, const float* a, ptrdiff_t sam, ptrdiff_t sak,
                                const float* b, ptrdiff_t ldb, float* c, ptrdiff_t ldc,
                                Mask last, bool accumulate) {
    V acc[MR][NV];
    #pragma GCC unroll 16
    for (int r = 0; r < MR; r++) {
        #pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            const float* p = c + r * ldc + v * L;
            acc[r][v] = !accumulate ? vzero() : v < NV - 1 ? vload(p) : vloadm(p, last);
        }
    }
    for (ptrdiff_t k = 0; k < kc; k++) {
        const float* bk = b + k * ldb;
        const float* ak = a + k * sak;
        V bv[NV];
        #pragma GCC unroll 4
        for (int v = 0; v < NV - 1; v++) bv[v] = vload(bk + v * L);
        bv[NV - 1] = vloadm(bk + (NV - 1) * L, last);
        #pragma GCC unroll 16
        for (int r = 0; r < MR; r++) {
            V av = vbcast(ak + r * sam);
            #pragma GCC unroll 4
            for (int v = 0; v < NV; v++) acc[r][v] = vfma(av, bv[v], acc[r][v]);
        }
    }
    #pragma GCC unroll 16
    for (int r = 0; r < MR; r++) {
        #pragma GCC unroll 4
        for (int v = 0; v < NV - 1; v++) vstore(c + r * ldc + v * L, acc[r][v]);
        vstorem(c + r * ldc + (NV - 1) * L, acc[r][NV - 1], last);
    }
}

/* A tile of `rows` (< MR) rows: the instance with exactly that many */
template <int MR, int NV> struct Rows {
    FE_GEMM_TARGET static void run(int rows, ptrdiff_t kc, const float* a, ptrdiff_t sam,
                                   ptrdiff_t sak, const float* b, ptrdiff_t ldb, float* c,
                                   ptrdiff_t ldc, Mask last, bool accumulate) {
        if (rows == MR) tile<MR, NV>(kc, a, sam, sak, b, ldb, c, ldc, last, accumulate);
        else Rows<MR - 1, NV>::run(rows, kc, a, sam, sak, b, ldb, c, ldc, last, accumulate);
    }
};
template <int NV> struct Rows<0, NV> {
    FE_GEMM_TARGET static void run(int, ptrdiff_t, const float*, ptrdiff_t, ptrdiff_t,
                                   const float*, ptrdiff_t, float*, ptrdiff_t, Mask, bool) {}
};

/* dst[k * ldd + j] = src[j * lds + k] for k < kc, j < cols: a block of a B stored
 * transposed, packed into the L1 buffer the tiles then read */
FE_GEMM_TARGET static void pack_block(const float* src, ptrdiff_t lds, ptrdiff_t kc,
                                      ptrdiff_t cols, float* dst, ptrdiff_t ldd) {
    ptrdiff_t j8 = 0, k8 = 0;
#if FE_GEMM_LEVEL >= 1
    j8 = cols / 8 * 8;
    k8 = kc / 8 * 8;
    for (ptrdiff_t j = 0; j < j8; j += 8)
        for (ptrdiff_t k = 0; k < k8; k += 8)
            fe_gemm_t8x8(src + j * lds + k, lds, dst + k * ldd + j, ldd);
    for (ptrdiff_t j = 0; j < j8; j++)
        for (ptrdiff_t k = k8; k < kc; k++) dst[k * ldd + j] = src[j * lds + k];
#endif
    for (ptrdiff_t j = j8; j < cols; j++)
        for (ptrdiff_t k = 0; k < kc; k++) dst[k * ldd + j] = src[j * lds + k];
}

/* Rows m0..m1 of the panel of columns n0 .. n0 + cols (cols in ((NV - 1) L, NV L]) */
template <int NV>
FE_GEMM_TARGET static void panel(const fe_gemm_args* g, ptrdiff_t m0, ptrdiff_t m1,
                                 ptrdiff_t n0, ptrdiff_t cols) {
    const int MR = Tile<NV>::MR;
    const ptrdiff_t KC = FE_GEMM_L1_PANEL_BYTES / (NV * L * (ptrdiff_t)sizeof(float));
    Mask last = vmask((int)(cols - (NV - 1) * L));
    /* a transposed B: each K block of the panel packed once, then read by every tile */
    float packed[FE_GEMM_L1_PANEL_BYTES / sizeof(float)] __attribute__((aligned(64)));
    for (ptrdiff_t k0 = 0; k0 < g->K; k0 += KC) {
        ptrdiff_t kc = g->K - k0 < KC ? g->K - k0 : KC;
        const float* b;
        ptrdiff_t ldb = g->ldb;
        if (!g->bt) {
            b = g->b + k0 * g->ldb + n0;
        } else {
            pack_block(g->b + n0 * g->ldb + k0, g->ldb, kc, cols, packed, NV * L);
            b = packed;
            ldb = NV * L;
        }
        for (ptrdiff_t i = m0, rows; i < m1; i += rows) {
            /* the last MR + r rows as two tiles of about (MR + r) / 2, not MR and r:
             * a tile of few rows does few FMAs per load of B */
            ptrdiff_t left = m1 - i;
            rows = left >= 2 * MR || left == MR ? MR : left > MR ? (left + 1) / 2 : left;
            const float* a = g->a + i * g->sam + k0 * g->sak;
            float* c = g->c + i * g->ldc + n0;
            if (rows == MR)
                tile<MR, NV>(kc, a, g->sam, g->sak, b, ldb, c, g->ldc, last, k0 > 0);
            else
                Rows<MR - 1, NV>::run((int)rows, kc, a, g->sam, g->sak, b, ldb, c,
                                      g->ldc, last, k0 > 0);
        }
    }
}

/* Rows m0..m1, columns n0..n1 (n0 at a panel boundary) of C */
FE_GEMM_TARGET static void run(const fe_gemm_args* g, ptrdiff_t m0, ptrdiff_t m1,
                               ptrdiff_t n0, ptrdiff_t n1) {
    for (ptrdiff_t n = n0; n < n1; n += P) {
        ptrdiff_t cols = n1 - n < (ptrdiff_t)P ? n1 - n : (ptrdiff_t)P;
        int nv = (int)((cols + L - 1) / L);
        switch (nv) {
            case 1: panel<1>(g, m0, m1, n, cols); break;
            case 2: panel<2>(g, m0, m1, n, cols); break;
#if FE_GEMM_LEVEL == 2
            case 3: panel<3>(g, m0, m1, n, cols); break;
            case 4: panel<4>(g, m0, m1, n, cols); break;
#endif
            default: break;
        }
    }
}

}  /* namespace FE_GEMM_NS */

#endif  /* FE_GEMM_BODY */
