/* The x86-64 level the multiversioned kernels (_conv_direct.h, _gemm.h) run, found once:
 * 2 = AVX-512F (x86-64-v4), 1 = AVX2 + FMA (x86-64-v3), 0 = the baseline (any other CPU,
 * compiler or architecture). FE_X86_LEVELS says whether the levels exist at all. */
#ifndef FASTEAGER_CPU_LEVEL_H
#define FASTEAGER_CPU_LEVEL_H

#if defined(__GNUC__) && __GNUC__ >= 12 && !defined(__clang__) && defined(__x86_64__) \
    && defined(__linux__)
/* (GCC 12 names the x86-64 levels both in target() and in __builtin_cpu_supports) */
#define FE_X86_LEVELS 1
#else
#define FE_X86_LEVELS 0
#endif

static inline int fe_cpu_level(void) {
#if FE_X86_LEVELS
    static int level = -1;  /* idempotent: a race only computes it twice */
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("x86-64-v4") ? 2
              : __builtin_cpu_supports("x86-64-v3") ? 1 : 0;
    }
    return level;
#else
    return 0;
#endif
}

#endif
