/* The SGD and Adam updates of the optimizers (_kernels.pyx: sgd_update, adam_update) as
 * plain loops over restrict pointers, one per case, so GCC vectorises them; each is
 * compiled for AVX-512F, AVX2 and the baseline and picked at load time (FE_CLONES of
 * _fastmath.h).
 *
 * The Cython loops they replace had the case tests inside the element loop and indexed
 * memoryviews that may alias, and stayed scalar: 26 us for a 784x128 float32 kernel,
 * against 11 us for PyTorch's add_. The operations, and their order, are those of the
 * Cython loops (Keras 3's update rules). GCC contracts a * b + c into one FMA in the
 * AVX2 and AVX-512 clones unless told not to (fp-contract=off below), which would change
 * the rounding from clone to clone; without it every clone gives the same bits.
 */
#ifndef FASTEAGER_OPT_KERNELS_H
#define FASTEAGER_OPT_KERNELS_H

#include <math.h>
#include <stddef.h>

#include "_fastmath.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

#define FE_SGD(NAME, T)                                                                    \
    FE_CLONES static void NAME(T* __restrict__ var, const T* __restrict__ g,               \
                               T* __restrict__ vel, T lr, T mom, int use_mom,              \
                               int nesterov, ptrdiff_t n) {                                \
        if (!use_mom) {                                                                    \
            for (ptrdiff_t i = 0; i < n; ++i) var[i] = var[i] - g[i] * lr;                 \
        } else if (nesterov) {                                                             \
            for (ptrdiff_t i = 0; i < n; ++i) {                                            \
                T v = vel[i] * mom - g[i] * lr;                                            \
                vel[i] = v;                                                                \
                var[i] = var[i] + (v * mom - g[i] * lr);                                   \
            }                                                                              \
        } else {                                                                           \
            for (ptrdiff_t i = 0; i < n; ++i) {                                            \
                T v = vel[i] * mom - g[i] * lr;                                            \
                vel[i] = v;                                                                \
                var[i] = var[i] + v;                                                       \
            }                                                                              \
        }                                                                                  \
    }
FE_SGD(fe_sgd_f32, float)
FE_SGD(fe_sgd_f64, double)

/* AMSGrad's running maximum keeps the Cython loop's comparison (vhat > v picks vhat), so
 * a NaN in v stays NaN as before. The amsgrad test is invariant: -O3 unswitches it into
 * two vectorised loops. */
#define FE_ADAM(NAME, T, SQRT)                                                             \
    FE_CLONES static void NAME(T* __restrict__ var, T* __restrict__ m, T* __restrict__ v,  \
                               const T* __restrict__ g, T* __restrict__ vhat, T alpha,     \
                               T one_m_b1, T one_m_b2, T eps, T decay, int use_decay,      \
                               int amsgrad, ptrdiff_t n) {                                 \
        if (use_decay)                                                                     \
            for (ptrdiff_t i = 0; i < n; ++i) var[i] = var[i] - var[i] * decay;            \
        for (ptrdiff_t i = 0; i < n; ++i) {                                                \
            T gi = g[i];                                                                   \
            T mi = m[i] + (gi - m[i]) * one_m_b1;                                          \
            T vi = v[i] + (gi * gi - v[i]) * one_m_b2;                                     \
            m[i] = mi;                                                                     \
            v[i] = vi;                                                                     \
            if (amsgrad) {                                                                 \
                vi = vhat[i] > vi ? vhat[i] : vi;                                          \
                vhat[i] = vi;                                                              \
            }                                                                              \
            var[i] = var[i] - (mi * alpha) / (SQRT(vi) + eps);                             \
        }                                                                                  \
    }
FE_ADAM(fe_adam_f32, float, sqrtf)
FE_ADAM(fe_adam_f64, double, sqrt)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#endif
