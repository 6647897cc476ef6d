/* The time loops of the recurrent layers (LSTM, GRU, simple RNN), forward and backward
 * through time, for one block of batch rows. Included by _rnn.pyx only.
 *
 * Why a block of rows: in every step, batch row b of the new state depends only on row b
 * of the old one, so each thread can run the whole time loop on its own rows with no
 * barrier between steps. The recurrent GEMM of one step is then small (about 32 x 128
 * by 128 x 512), where OpenBLAS splits it between threads that mostly wait for each other
 * (measured on 2 cores: 66 us a step with two threads, 69 us with one); here each thread
 * does its rows' product with the recurrent kernel packed once for the whole loop, and
 * the gate nonlinearities run on the rows while they are still in cache.
 *
 * The loops also do the input projection (forward) and sum the weight gradients
 * (backward) per block, so a recurrent layer's step calls no multithreaded BLAS: after a call,
 * OpenBLAS's worker threads spin for a while, and on a 2-core machine the spinning one
 * took half the core the second block ran on (the forward loop ran no faster on two
 * threads than on one until the projection moved in here).
 *
 * The GEMM kernel (gemm_block) keeps 8 rows by 2 vectors of 64 bytes in registers
 * (GCC vector extensions: zmm registers with FMA on x86-64-v4, pairs of ymm on v3, SSE
 * otherwise; each loop entry point below is compiled for all three and picked at load
 * time). Its sums run in a different order from OpenBLAS's, so results differ from
 * np.dot by rounding only.
 *
 * Layouts (all C-contiguous, time-major): x projections xp (T, B, G*U), states and
 * sequences (T, B, U), gates (T, B, G*U), mask m (T, B) of 0/1 in the same dtype. Gate
 * order and the meaning of every output follow _rnn.pyx's docstring.
 */
#ifndef FASTEAGER_RNN_LOOPS_H
#define FASTEAGER_RNN_LOOPS_H

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstddef>

#include "_fastmath.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FE_RNN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FE_RNN_CLONES
#endif
#define FE_RNN_INLINE static inline __attribute__((always_inline))

namespace fe_rnn {

/* ---- GEMM: C = Cinit + A @ B for a few rows, B packed in column strips ---------------- */

template <typename T> struct Vec { typedef T type __attribute__((vector_size(64))); };
template <typename T> constexpr ptrdiff_t lanes() { return 64 / (ptrdiff_t)sizeof(T); }
template <typename T> constexpr ptrdiff_t strip() { return 2 * lanes<T>(); }

/* Size of the packed copy of a K x N matrix: N rounded up to whole strips. */
template <typename T> FE_RNN_INLINE ptrdiff_t packed_size(ptrdiff_t K, ptrdiff_t N) {
    return (N + strip<T>() - 1) / strip<T>() * strip<T>() * K;
}

/* Pack B, whose (k, j) entry is B[k * sk + j * sj], into strips of strip<T>() columns,
 * each strip K rows of contiguous entries, zero-padded on the right. */
template <typename T>
static void pack(const T* B, ptrdiff_t sk, ptrdiff_t sj, ptrdiff_t K, ptrdiff_t N, T* P) {
    const ptrdiff_t NR = strip<T>();
    for (ptrdiff_t j0 = 0; j0 < N; j0 += NR) {
        ptrdiff_t w = N - j0 < NR ? N - j0 : NR;
        T* dst = P + j0 * K;
        for (ptrdiff_t k = 0; k < K; ++k, dst += NR) {
            ptrdiff_t j = 0;
            for (; j < w; ++j) dst[j] = B[k * sk + (j0 + j) * sj];
            for (; j < NR; ++j) dst[j] = 0;
        }
    }
}

/* MR rows of C = Cinit + A @ B. A's (i, k) entry is A[i * sai + k * sak]. B is packed
 * (PACKED: strips from pack()) or row-major with leading dimension ldb. Cinit may be null
 * (zero), ldi 0 (one row, broadcast), or C itself (accumulate). */
template <typename T, int MR, bool PACKED>
FE_RNN_INLINE void gemm_block(const T* A, ptrdiff_t sai, ptrdiff_t sak, ptrdiff_t K,
                              const T* Bm, ptrdiff_t ldb, ptrdiff_t N, const T* Cinit,
                              ptrdiff_t ldi, T* C, ptrdiff_t ldc) {
    typedef typename Vec<T>::type V;
    const ptrdiff_t L = lanes<T>(), NR = strip<T>();
    for (ptrdiff_t j0 = 0; j0 < N; j0 += NR) {
        ptrdiff_t w = N - j0 < NR ? N - j0 : NR;
        if (!PACKED && w < NR) {      /* a row-major B's last, partial strip: entry by entry */
            for (int i = 0; i < MR; ++i)
                for (ptrdiff_t j = 0; j < w; ++j) {
                    T acc = 0;
                    for (ptrdiff_t k = 0; k < K; ++k)
                        acc += A[i * sai + k * sak] * Bm[k * ldb + j0 + j];
                    C[i * ldc + j0 + j] = (Cinit ? Cinit[i * ldi + j0 + j] : 0) + acc;
                }
            continue;
        }
        const T* p = PACKED ? Bm + j0 * K : Bm + j0;
        const ptrdiff_t ks = PACKED ? NR : ldb;
        V c0[MR], c1[MR];
        for (int i = 0; i < MR; ++i) {
            c0[i] = (V){};
            c1[i] = (V){};
        }
        for (ptrdiff_t k = 0; k < K; ++k) {
            V b0, b1;
            memcpy(&b0, p + k * ks, sizeof(V));
            memcpy(&b1, p + k * ks + L, sizeof(V));
            for (int i = 0; i < MR; ++i) {
                T a = A[i * sai + k * sak];
                c0[i] += a * b0;
                c1[i] += a * b1;
            }
        }
        if (w == NR) {          /* a whole strip: add and store as vectors */
            for (int i = 0; i < MR; ++i) {
                T* out = C + i * ldc + j0;
                if (Cinit) {
                    V i0, i1;
                    memcpy(&i0, Cinit + i * ldi + j0, sizeof(V));
                    memcpy(&i1, Cinit + i * ldi + j0 + L, sizeof(V));
                    c0[i] += i0;
                    c1[i] += i1;
                }
                memcpy(out, &c0[i], sizeof(V));
                memcpy(out + L, &c1[i], sizeof(V));
            }
            continue;
        }
        for (int i = 0; i < MR; ++i) {
            T acc[2 * lanes<T>()];
            memcpy(acc, &c0[i], sizeof(V));
            memcpy(acc + L, &c1[i], sizeof(V));
            T* out = C + i * ldc + j0;
            if (Cinit) {
                const T* init = Cinit + i * ldi + j0;
                for (ptrdiff_t j = 0; j < w; ++j) out[j] = init[j] + acc[j];
            } else {
                for (ptrdiff_t j = 0; j < w; ++j) out[j] = acc[j];
            }
        }
    }
}

/* M rows of C = Cinit + A @ B, A's (i, k) entry A[i * sai + k * sak] (see gemm_block). */
template <typename T, bool PACKED>
FE_RNN_INLINE void gemm_strided(const T* A, ptrdiff_t sai, ptrdiff_t sak, ptrdiff_t M,
                                ptrdiff_t K, const T* Bm, ptrdiff_t ldb, ptrdiff_t N,
                                const T* Cinit, ptrdiff_t ldi, T* C, ptrdiff_t ldc) {
    ptrdiff_t i = 0;
    for (; i + 8 <= M; i += 8)
        gemm_block<T, 8, PACKED>(A + i * sai, sai, sak, K, Bm, ldb, N,
                                 Cinit ? Cinit + i * ldi : nullptr, ldi, C + i * ldc, ldc);
    for (; i + 4 <= M; i += 4)
        gemm_block<T, 4, PACKED>(A + i * sai, sai, sak, K, Bm, ldb, N,
                                 Cinit ? Cinit + i * ldi : nullptr, ldi, C + i * ldc, ldc);
    for (; i < M; ++i)
        gemm_block<T, 1, PACKED>(A + i * sai, sai, sak, K, Bm, ldb, N,
                                 Cinit ? Cinit + i * ldi : nullptr, ldi, C + i * ldc, ldc);
}

/* M rows of C = Cinit + A @ P (A row-major with leading dim lda; P packed by pack()). */
template <typename T>
FE_RNN_INLINE void gemm_rows(const T* A, ptrdiff_t lda, ptrdiff_t M, ptrdiff_t K, const T* P,
                             ptrdiff_t N, const T* Cinit, ptrdiff_t ldi, T* C, ptrdiff_t ldc) {
    gemm_strided<T, true>(A, lda, 1, M, K, P, 0, N, Cinit, ldi, C, ldc);
}

/* C (K x N) += A^T @ Bm for A (M x K, leading dim lda) and Bm (M x N, leading dim ldb):
 * a block of rows' contribution to a weight gradient. */
template <typename T>
FE_RNN_INLINE void gemm_at_b_acc(const T* A, ptrdiff_t lda, ptrdiff_t M, ptrdiff_t K,
                                 const T* Bm, ptrdiff_t ldb, ptrdiff_t N, T* C) {
    gemm_strided<T, false>(A, 1, lda, K, M, Bm, ldb, N, C, N, C, N);
}

/* ---- activations, by the codes of _rnn.ACTIVATIONS: 0 linear, 1 tanh, 2 sigmoid, 3 relu */

FE_RNN_INLINE double sigmoid(double v) {
    if (v >= 0) return 1.0 / (1.0 + std::exp(-v));   /* split by sign: exp never overflows */
    double e = std::exp(v);
    return e / (1.0 + e);
}

FE_RNN_INLINE void apply(int code, float* p, ptrdiff_t n) {
    if (code == 1) fe_tanh_loop(p, p, n);       /* _fastmath.h's SIMD loops */
    else if (code == 2) fe_sigmoid_loop(p, p, n);
    else if (code == 3) for (ptrdiff_t k = 0; k < n; ++k) p[k] = p[k] > 0 ? p[k] : 0;
}

FE_RNN_INLINE void apply(int code, double* p, ptrdiff_t n) {
    if (code == 1) for (ptrdiff_t k = 0; k < n; ++k) p[k] = std::tanh(p[k]);
    else if (code == 2) for (ptrdiff_t k = 0; k < n; ++k) p[k] = sigmoid(p[k]);
    else if (code == 3) for (ptrdiff_t k = 0; k < n; ++k) p[k] = p[k] > 0 ? p[k] : 0;
}

/* the derivative from the activation's output y */
template <typename T> FE_RNN_INLINE T dact(int code, T y) {
    if (code == 1) return 1 - y * y;
    if (code == 2) return y * (1 - y);
    if (code == 3) return y > 0 ? 1 : 0;
    return 1;
}

/* the state of step t's predecessor: s0 for t == 0, else seq[t - 1] (row 0 of a block) */
template <typename T>
FE_RNN_INLINE const T* prev(const T* s0, const T* seq, ptrdiff_t t, ptrdiff_t B, ptrdiff_t U,
                            ptrdiff_t b0) {
    return t == 0 ? s0 + b0 * U : seq + ((t - 1) * B + b0) * U;
}

/* One step's share of a block's weight gradients, summed while the step is in cache:
 * dW (D, G) += x_t^T dproj, dR (U, G) += h_prev^T drec, db += column sums of dproj and,
 * where db_rec is given (the GRU's recurrent bias), db_rec += those of drec. */
template <typename T>
FE_RNN_INLINE void weight_grads_step(const T* xr, ptrdiff_t D, const T* hp, ptrdiff_t U,
                                     ptrdiff_t nb, const T* dproj, const T* drec,
                                     ptrdiff_t G, T* dW, T* dR, T* db, T* db_rec) {
    gemm_at_b_acc<T>(xr, D, nb, D, dproj, G, G, dW);
    gemm_at_b_acc<T>(hp, U, nb, U, drec, G, G, dR);
    for (ptrdiff_t r = 0; r < nb; ++r) {
        for (ptrdiff_t k = 0; k < G; ++k) db[k] += dproj[r * G + k];
        if (db_rec)
            for (ptrdiff_t k = 0; k < G; ++k) db_rec[k] += drec[r * G + k];
    }
}

template <typename T>
FE_RNN_INLINE void zero_weight_grads(ptrdiff_t D, ptrdiff_t U, ptrdiff_t G, T* dW, T* dR,
                                     T* db, ptrdiff_t nbias) {
    memset(dW, 0, D * G * sizeof(T));
    memset(dR, 0, U * G * sizeof(T));
    memset(db, 0, nbias * G * sizeof(T));
}

/* ---- LSTM: gates [i, f, c, o] -------------------------------------------------------- */

/* Rows [b0, b1) of the forward loop. x (T, B, D); W, R: the packed input (D, 4U) and
 * recurrent (U, 4U) kernels; bias (4U) may be null. Each step's gates are
 * bias + x_t @ W + h_prev @ R, all computed here: no BLAS call in the loop (OpenBLAS's
 * threads, spinning after a call, would take the core another block runs on). */
template <typename T>
FE_RNN_INLINE void lstm_forward(ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D,
                                ptrdiff_t b0, ptrdiff_t b1, const T* x, const T* W,
                                const T* bias, const T* h0, const T* c0, const T* R,
                                const T* m, T* h_seq, T* c_seq, T* gates, T* tmp, int act,
                                int ract) {
    const ptrdiff_t G = 4 * U, nb = b1 - b0;
    for (ptrdiff_t t = 0; t < nT; ++t) {
        const T* hp = prev(h0, h_seq, t, B, U, b0);
        const T* cp = prev(c0, c_seq, t, B, U, b0);
        T* g = gates + (t * B + b0) * G;
        gemm_rows<T>(x + (t * B + b0) * D, D, nb, D, W, G, bias, 0, g, G);
        gemm_rows<T>(hp, U, nb, U, R, G, g, G, g, G);
        for (ptrdiff_t r = 0; r < nb; ++r, g += G) {
            const ptrdiff_t b = b0 + r;
            const T mb = m[t * B + b];
            const T* cpr = cp + r * U;
            const T* hpr = hp + r * U;
            T* c = c_seq + (t * B + b) * U;
            T* h = h_seq + (t * B + b) * U;
            apply(ract, g, 2 * U);
            apply(act, g + 2 * U, U);
            apply(ract, g + 3 * U, U);
            for (ptrdiff_t u = 0; u < U; ++u) {
                T cn = g[U + u] * cpr[u] + g[u] * g[2 * U + u];
                tmp[u] = cn;
                c[u] = mb * cn + (1 - mb) * cpr[u];   /* a masked step carries the state */
            }
            apply(act, tmp, U);
            for (ptrdiff_t u = 0; u < U; ++u)
                h[u] = mb * (g[3 * U + u] * tmp[u]) + (1 - mb) * hpr[u];
        }
    }
}

/* One row of one step of the LSTM backward loop. A, RA: the activation codes when known
 * at compile time (Keras's defaults, so that the loop vectorises), -1 to read act, ract. */
template <typename T, int A, int RA>
FE_RNN_INLINE void lstm_back_row(ptrdiff_t U, T mb, const T* __restrict__ gt,
                                 const T* __restrict__ cpr, const T* __restrict__ ght,
                                 const T* __restrict__ gct, const T* __restrict__ tc,
                                 T* __restrict__ dzr, T* __restrict__ dhr,
                                 T* __restrict__ dcr, T* __restrict__ cr, int act, int ract) {
    const int a = A >= 0 ? A : act, ra = RA >= 0 ? RA : ract;
    for (ptrdiff_t u = 0; u < U; ++u) {
        T dht = dhr[u] + ght[u];
        T dct = dcr[u] + gct[u];
        T gi = gt[u], gf = gt[U + u], gc = gt[2 * U + u], go = gt[3 * U + u];
        T dhn = mb * dht;
        T dcn = mb * dct + dhn * go * dact(a, tc[u]);
        dzr[u] = (dcn * gc) * dact(ra, gi);
        dzr[U + u] = (dcn * cpr[u]) * dact(ra, gf);
        dzr[2 * U + u] = (dcn * gi) * dact(a, gc);
        dzr[3 * U + u] = (dhn * tc[u]) * dact(ra, go);
        dcr[u] = (1 - mb) * dct + dcn * gf;
        cr[u] = (1 - mb) * dht;
    }
}

/* dz += the gates' own gradients times the activation derivatives */
template <typename T, int A, int RA>
FE_RNN_INLINE void lstm_back_gates(ptrdiff_t U, const T* __restrict__ gt,
                                   const T* __restrict__ ggt, T* __restrict__ dzr, int act,
                                   int ract) {
    const int a = A >= 0 ? A : act, ra = RA >= 0 ? RA : ract;
    for (ptrdiff_t k = 0; k < 4 * U; ++k) {
        int code = (k >= 2 * U && k < 3 * U) ? a : ra;
        dzr[k] += ggt[k] * dact(code, gt[k]);
    }
}

/* Rows [b0, b1) of the backward loop. gh, gc, gg: the gradients of h_seq, c_seq and gates
 * (gc and gg may be null: zero). Writes dz (T, B, 4U) and, for the rows, dh and dc
 * (B, U): on exit the gradients of h0 and c0. Rt: the packed transpose of R (4U, U).
 * The block's parts of the weight gradients are summed as the steps go, while dz is in
 * cache: dW (D, 4U) += x_t^T dz_t, dR (U, 4U) += h_prev^T dz_t, db (4U) += sum of dz_t
 * (the caller adds the blocks). carry: (b1 - b0) x U scratch; tc: U scratch; zeros: U
 * zeros (read only). */
template <typename T>
FE_RNN_INLINE void lstm_backward(ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D,
                                 ptrdiff_t b0, ptrdiff_t b1, const T* gh, const T* gc,
                                 const T* gg, const T* gates, const T* c_seq, const T* c0,
                                 const T* x, const T* h0, const T* h_seq, const T* m,
                                 const T* Rt, T* dz, T* dh, T* dc, T* dW, T* dR, T* db,
                                 T* carry, T* tc, const T* zeros, int act, int ract) {
    const ptrdiff_t G = 4 * U, nb = b1 - b0;
    const bool defaults = act == 1 && ract == 2;
    for (ptrdiff_t i = 0; i < nb * U; ++i) {
        dh[b0 * U + i] = 0;
        dc[b0 * U + i] = 0;
    }
    zero_weight_grads<T>(D, U, G, dW, dR, db, 1);
    for (ptrdiff_t t = nT - 1; t >= 0; --t) {
        const T* cp = prev(c0, c_seq, t, B, U, b0);
        const T* hp = prev(h0, h_seq, t, B, U, b0);
        for (ptrdiff_t r = 0; r < nb; ++r) {
            const ptrdiff_t b = b0 + r, row = t * B + b;
            const T* gt = gates + row * G;
            const T* gct = gc ? gc + row * U : zeros;
            T* dzr = dz + row * G;
            memcpy(tc, c_seq + row * U, U * sizeof(T));
            apply(act, tc, U);
            if (defaults)
                lstm_back_row<T, 1, 2>(U, m[row], gt, cp + r * U, gh + row * U, gct, tc, dzr,
                                       dh + b * U, dc + b * U, carry + r * U, act, ract);
            else
                lstm_back_row<T, -1, -1>(U, m[row], gt, cp + r * U, gh + row * U, gct, tc,
                                         dzr, dh + b * U, dc + b * U, carry + r * U, act,
                                         ract);
            if (gg) {
                if (defaults) lstm_back_gates<T, 1, 2>(U, gt, gg + row * G, dzr, act, ract);
                else lstm_back_gates<T, -1, -1>(U, gt, gg + row * G, dzr, act, ract);
            }
        }
        const T* dzt = dz + (t * B + b0) * G;
        /* the state gradient carried back: dh = dz @ R^T + the masked part */
        gemm_rows<T>(dzt, G, nb, G, Rt, U, carry, U, dh + b0 * U, U);
        weight_grads_step<T>(x + (t * B + b0) * D, D, hp, U, nb, dzt, dzt, G, dW, dR, db,
                             nullptr);
    }
}

/* ---- GRU (reset_after): gates [z, r, h], recurrent bias rb added before r multiplies -- */

/* x (T, B, D); W, R: the packed input (D, 3U) and recurrent (U, 3U) kernels; bias (2, 3U):
 * input then recurrent. xb, hr: (b1 - b0) x 3U scratch (a step's input and recurrent
 * projections); hrh (T, B, U) receives h_prev @ R_h + rb_h. */
template <typename T>
FE_RNN_INLINE void gru_forward(ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D,
                               ptrdiff_t b0, ptrdiff_t b1, const T* xs, const T* W,
                               const T* bias, const T* h0, const T* R, const T* m, T* h_seq,
                               T* gates, T* hrh, T* xb, T* hr, int act, int ract) {
    const ptrdiff_t G = 3 * U, nb = b1 - b0;
    for (ptrdiff_t t = 0; t < nT; ++t) {
        const T* hp = prev(h0, h_seq, t, B, U, b0);
        gemm_rows<T>(xs + (t * B + b0) * D, D, nb, D, W, G, bias, 0, xb, G);
        gemm_rows<T>(hp, U, nb, U, R, G, bias + G, 0, hr, G);
        for (ptrdiff_t r = 0; r < nb; ++r) {
            const ptrdiff_t row = t * B + b0 + r;
            const T mb = m[row];
            const T* x = xb + r * G;
            const T* rr = hr + r * G;
            const T* hpr = hp + r * U;
            T* g = gates + row * G;
            T* q = hrh + row * U;
            T* h = h_seq + row * U;
            for (ptrdiff_t k = 0; k < 2 * U; ++k) g[k] = x[k] + rr[k];
            apply(ract, g, 2 * U);
            for (ptrdiff_t u = 0; u < U; ++u) {
                q[u] = rr[2 * U + u];
                g[2 * U + u] = x[2 * U + u] + g[U + u] * rr[2 * U + u];
            }
            apply(act, g + 2 * U, U);
            for (ptrdiff_t u = 0; u < U; ++u) {
                T hn = g[u] * hpr[u] + (1 - g[u]) * g[2 * U + u];
                h[u] = mb * hn + (1 - mb) * hpr[u];
            }
        }
    }
}

template <typename T, int A, int RA>
FE_RNN_INLINE void gru_back_row(ptrdiff_t U, T mb, const T* __restrict__ g,
                                const T* __restrict__ q, const T* __restrict__ ght,
                                const T* __restrict__ ggt, const T* __restrict__ gq,
                                const T* __restrict__ hpr, T* __restrict__ dx,
                                T* __restrict__ dr, const T* __restrict__ dhb,
                                T* __restrict__ cr, int act, int ract) {
    const int a = A >= 0 ? A : act, ra = RA >= 0 ? RA : ract;
    for (ptrdiff_t u = 0; u < U; ++u) {
        T dht = dhb[u] + ght[u];
        T dhn = mb * dht;
        T gz = g[u], gr = g[U + u], gn = g[2 * U + u];
        T dgz = dhn * (hpr[u] - gn) + ggt[u];
        T dgn = dhn * (1 - gz) + ggt[2 * U + u];
        T da = dgn * dact(a, gn);
        T dgr = da * q[u] + ggt[U + u];
        T dz = dgz * dact(ra, gz), drr = dgr * dact(ra, gr);
        dx[u] = dz;
        dx[U + u] = drr;
        dx[2 * U + u] = da;
        dr[u] = dz;
        dr[U + u] = drr;
        dr[2 * U + u] = da * gr + gq[u];
        cr[u] = (1 - mb) * dht + dhn * gz;
    }
}

/* Writes dxp and dhr (T, B, 3U): the gradients of the input projections and of the
 * recurrent ones (h_prev @ R + rb); dh rows on exit: the gradient of h0; the block's
 * weight gradients dW (D, 3U), dR (U, 3U), db (2, 3U) (see weight_grads_step). gg and
 * ghrh may be null (zero). carry: (b1 - b0) x U scratch; zeros: 3U zeros (read only). */
template <typename T>
FE_RNN_INLINE void gru_backward(ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D,
                                ptrdiff_t b0, ptrdiff_t b1, const T* gh, const T* gg,
                                const T* ghrh, const T* gates, const T* hrh, const T* xs,
                                const T* h0, const T* h_seq, const T* m, const T* Rt, T* dxp,
                                T* dhr, T* dh, T* dW, T* dR, T* db, T* carry, const T* zeros,
                                int act, int ract) {
    const ptrdiff_t G = 3 * U, nb = b1 - b0;
    const bool defaults = act == 1 && ract == 2;
    for (ptrdiff_t i = 0; i < nb * U; ++i) dh[b0 * U + i] = 0;
    zero_weight_grads<T>(D, U, G, dW, dR, db, 2);
    for (ptrdiff_t t = nT - 1; t >= 0; --t) {
        const T* hp = prev(h0, h_seq, t, B, U, b0);
        for (ptrdiff_t r = 0; r < nb; ++r) {
            const ptrdiff_t b = b0 + r, row = t * B + b;
            const T* ggt = gg ? gg + row * G : zeros;
            const T* gq = ghrh ? ghrh + row * U : zeros;
            if (defaults)
                gru_back_row<T, 1, 2>(U, m[row], gates + row * G, hrh + row * U,
                                      gh + row * U, ggt, gq, hp + r * U, dxp + row * G,
                                      dhr + row * G, dh + b * U, carry + r * U, act, ract);
            else
                gru_back_row<T, -1, -1>(U, m[row], gates + row * G, hrh + row * U,
                                        gh + row * U, ggt, gq, hp + r * U, dxp + row * G,
                                        dhr + row * G, dh + b * U, carry + r * U, act, ract);
        }
        gemm_rows<T>(dhr + (t * B + b0) * G, G, nb, G, Rt, U, carry, U, dh + b0 * U, U);
        weight_grads_step<T>(xs + (t * B + b0) * D, D, hp, U, nb, dxp + (t * B + b0) * G,
                             dhr + (t * B + b0) * G, G, dW, dR, db, db + G);
    }
}

/* ---- simple RNN: h = act(x @ W + h_prev @ R + b) ------------------------------------- */

/* x (T, B, D); W, R: the packed kernels; bias (U) may be null. */
template <typename T>
FE_RNN_INLINE void simple_forward(ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D,
                                  ptrdiff_t b0, ptrdiff_t b1, const T* xs, const T* W,
                                  const T* bias, const T* h0, const T* R, const T* m,
                                  T* h_seq, int act) {
    const ptrdiff_t nb = b1 - b0;
    for (ptrdiff_t t = 0; t < nT; ++t) {
        const T* hp = prev(h0, h_seq, t, B, U, b0);
        T* h = h_seq + (t * B + b0) * U;
        gemm_rows<T>(xs + (t * B + b0) * D, D, nb, D, W, U, bias, 0, h, U);
        gemm_rows<T>(hp, U, nb, U, R, U, h, U, h, U);
        apply(act, h, nb * U);
        for (ptrdiff_t r = 0; r < nb; ++r) {
            const T mb = m[t * B + b0 + r];
            if (mb != 1)
                for (ptrdiff_t u = 0; u < U; ++u)
                    h[r * U + u] = mb * h[r * U + u] + (1 - mb) * hp[r * U + u];
        }
    }
}

template <typename T, int A>
FE_RNN_INLINE void simple_back_row(ptrdiff_t U, T mb, const T* __restrict__ h,
                                   const T* __restrict__ ght, T* __restrict__ d,
                                   const T* __restrict__ dhb, T* __restrict__ cr, int act) {
    const int a = A >= 0 ? A : act;
    for (ptrdiff_t u = 0; u < U; ++u) {
        T dht = dhb[u] + ght[u];
        d[u] = mb * dht * dact(a, h[u]);
        cr[u] = (1 - mb) * dht;
    }
}

/* Writes da (T, B, U), the pre-activation gradients; dh rows on exit: the gradient of h0;
 * the block's weight gradients dW (D, U), dR (U, U), db (U). */
template <typename T>
FE_RNN_INLINE void simple_backward(ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D,
                                   ptrdiff_t b0, ptrdiff_t b1, const T* gh, const T* xs,
                                   const T* h0, const T* h_seq, const T* m, const T* Rt, T* da,
                                   T* dh, T* dW, T* dR, T* db, T* carry, int act) {
    const ptrdiff_t nb = b1 - b0;
    for (ptrdiff_t i = 0; i < nb * U; ++i) dh[b0 * U + i] = 0;
    zero_weight_grads<T>(D, U, U, dW, dR, db, 1);
    for (ptrdiff_t t = nT - 1; t >= 0; --t) {
        const T* hp = prev(h0, h_seq, t, B, U, b0);
        for (ptrdiff_t r = 0; r < nb; ++r) {
            const ptrdiff_t b = b0 + r, row = t * B + b;
            if (act == 1)
                simple_back_row<T, 1>(U, m[row], h_seq + row * U, gh + row * U, da + row * U,
                                      dh + b * U, carry + r * U, act);
            else
                simple_back_row<T, -1>(U, m[row], h_seq + row * U, gh + row * U,
                                       da + row * U, dh + b * U, carry + r * U, act);
        }
        gemm_rows<T>(da + (t * B + b0) * U, U, nb, U, Rt, U, carry, U, dh + b0 * U, U);
        weight_grads_step<T>(xs + (t * B + b0) * D, D, hp, U, nb, da + (t * B + b0) * U,
                             da + (t * B + b0) * U, U, dW, dR, db, nullptr);
    }
}

}  // namespace fe_rnn

/* ---- entry points: one per loop and dtype, each compiled for three x86-64 levels ------ */

#define FE_RNN_ENTRY(name, impl, params, args)                                           \
    FE_RNN_CLONES static void name##_f32 params(float) { fe_rnn::impl<float> args; }      \
    FE_RNN_CLONES static void name##_f64 params(double) { fe_rnn::impl<double> args; }

#define FE_LSTM_FWD_PARAMS(T)                                                             \
    (ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D, ptrdiff_t b0, ptrdiff_t b1,     \
     const T* x, const T* W, const T* bias, const T* h0, const T* c0, const T* R,         \
     const T* m, T* h_seq, T* c_seq, T* gates, T* tmp, int act, int ract)
FE_RNN_ENTRY(fe_lstm_forward, lstm_forward, FE_LSTM_FWD_PARAMS,
             (nT, B, U, D, b0, b1, x, W, bias, h0, c0, R, m, h_seq, c_seq, gates, tmp, act,
              ract))

#define FE_LSTM_BWD_PARAMS(T)                                                             \
    (ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D, ptrdiff_t b0, ptrdiff_t b1,     \
     const T* gh, const T* gc, const T* gg, const T* gates, const T* c_seq, const T* c0,  \
     const T* x, const T* h0, const T* h_seq, const T* m, const T* Rt, T* dz, T* dh,      \
     T* dc, T* dW, T* dR, T* db, T* carry, T* tc, const T* zeros, int act, int ract)
FE_RNN_ENTRY(fe_lstm_backward, lstm_backward, FE_LSTM_BWD_PARAMS,
             (nT, B, U, D, b0, b1, gh, gc, gg, gates, c_seq, c0, x, h0, h_seq, m, Rt, dz, dh,
              dc, dW, dR, db, carry, tc, zeros, act, ract))

#define FE_GRU_FWD_PARAMS(T)                                                              \
    (ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D, ptrdiff_t b0, ptrdiff_t b1,     \
     const T* xs, const T* W, const T* bias, const T* h0, const T* R, const T* m,         \
     T* h_seq, T* gates, T* hrh, T* xb, T* hr, int act, int ract)
FE_RNN_ENTRY(fe_gru_forward, gru_forward, FE_GRU_FWD_PARAMS,
             (nT, B, U, D, b0, b1, xs, W, bias, h0, R, m, h_seq, gates, hrh, xb, hr, act,
              ract))

#define FE_GRU_BWD_PARAMS(T)                                                              \
    (ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D, ptrdiff_t b0, ptrdiff_t b1,     \
     const T* gh, const T* gg, const T* ghrh, const T* gates, const T* hrh, const T* xs,  \
     const T* h0, const T* h_seq, const T* m, const T* Rt, T* dxp, T* dhr, T* dh, T* dW,  \
     T* dR, T* db, T* carry, const T* zeros, int act, int ract)
FE_RNN_ENTRY(fe_gru_backward, gru_backward, FE_GRU_BWD_PARAMS,
             (nT, B, U, D, b0, b1, gh, gg, ghrh, gates, hrh, xs, h0, h_seq, m, Rt, dxp, dhr,
              dh, dW, dR, db, carry, zeros, act, ract))

#define FE_SIMPLE_FWD_PARAMS(T)                                                           \
    (ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D, ptrdiff_t b0, ptrdiff_t b1,     \
     const T* xs, const T* W, const T* bias, const T* h0, const T* R, const T* m,         \
     T* h_seq, int act)
FE_RNN_ENTRY(fe_simple_forward, simple_forward, FE_SIMPLE_FWD_PARAMS,
             (nT, B, U, D, b0, b1, xs, W, bias, h0, R, m, h_seq, act))

#define FE_SIMPLE_BWD_PARAMS(T)                                                           \
    (ptrdiff_t nT, ptrdiff_t B, ptrdiff_t U, ptrdiff_t D, ptrdiff_t b0, ptrdiff_t b1,     \
     const T* gh, const T* xs, const T* h0, const T* h_seq, const T* m, const T* Rt,      \
     T* da, T* dh, T* dW, T* dR, T* db, T* carry, int act)
FE_RNN_ENTRY(fe_simple_backward, simple_backward, FE_SIMPLE_BWD_PARAMS,
             (nT, B, U, D, b0, b1, gh, xs, h0, h_seq, m, Rt, da, dh, dW, dR, db, carry, act))

/* packing is memory-bound: no clones */
static void fe_rnn_pack_f32(const float* B, ptrdiff_t sk, ptrdiff_t sj, ptrdiff_t K,
                            ptrdiff_t N, float* P) { fe_rnn::pack<float>(B, sk, sj, K, N, P); }
static void fe_rnn_pack_f64(const double* B, ptrdiff_t sk, ptrdiff_t sj, ptrdiff_t K,
                            ptrdiff_t N, double* P) { fe_rnn::pack<double>(B, sk, sj, K, N, P); }
static ptrdiff_t fe_rnn_packed_size_f32(ptrdiff_t K, ptrdiff_t N) {
    return fe_rnn::packed_size<float>(K, N);
}
static ptrdiff_t fe_rnn_packed_size_f64(ptrdiff_t K, ptrdiff_t N) {
    return fe_rnn::packed_size<double>(K, N);
}

#endif
