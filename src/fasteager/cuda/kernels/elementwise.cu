// Elementwise kernels with NumPy broadcasting. This file holds the index helper and the
// macros; fasteager/cuda/kernels.py appends one macro line per (op, dtype) generated from
// the single table of C expressions in fasteager/cuda/elementwise.py, and compiles the
// result with SourceModule (one module per dtype and context).
//
// Broadcast modes (argument `mode` of the binary kernels):
//   0: both inputs have the output's shape;  -1: b is a single element;
//  -2: a is a single element;  ndim > 0: general, `meta` holds shape[ndim], the element
//   strides of a[ndim] and of b[ndim] (0 along broadcast axes), innermost axis last.
#include <cuda_fp16.h>

#define FE_GRID_LOOP(i, n) \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
       i += (long long)blockDim.x * gridDim.x)

__device__ __forceinline__ void fe_bcast(long long i, int mode, const long long* meta,
                                         long long* ia, long long* ib) {
  if (mode == 0) { *ia = i; *ib = i; return; }
  if (mode == -1) { *ia = i; *ib = 0; return; }
  if (mode == -2) { *ia = 0; *ib = i; return; }
  long long a = 0, b = 0, rest = i;
  for (int d = mode - 1; d >= 0; --d) {
    long long extent = meta[d];
    long long c = rest % extent;
    rest /= extent;
    a += c * meta[mode + d];
    b += c * meta[2 * mode + d];
  }
  *ia = a; *ib = b;
}

// Python-style floor division and modulo (NumPy's semantics) for integers
template <typename T> __device__ __forceinline__ T fe_ifloordiv(T a, T b) {
  if (b == 0) return 0;
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
template <typename T> __device__ __forceinline__ T fe_imod(T a, T b) {
  if (b == 0) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T> __device__ __forceinline__ T fe_fmod_floor(T a, T b) {
  T r = fmod(a, b);
  if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
  return r;
}
template <typename T> __device__ __forceinline__ T fe_sign(T x) {
  return (x > T(0)) - (x < T(0));
}
template <typename T> __device__ __forceinline__ T fe_ipow(T a, T b) {
  T r = 1;
  if (b < 0) return (a == 1) ? 1 : ((a == -1) ? ((b & 1) ? -1 : 1) : 0);
  while (b) { if (b & 1) r *= a; a *= a; b >>= 1; }
  return r;
}

// y = EXPR(x[, p]): one scalar parameter p (alpha, beta...) for the ops that take one
#define FE_UNARY(NAME, TI, TO, SFX, EXPR)                                               \
  extern "C" __global__ void fe_##NAME##_##SFX(long long n, const TI* __restrict__ px,   \
                                              TO* __restrict__ out, double p) {         \
    typedef TI T;                                                                       \
    FE_GRID_LOOP(i, n) { T x = px[i]; out[i] = (TO)(EXPR); }                            \
  }

#define FE_BINARY(NAME, TI, TO, SFX, EXPR)                                              \
  extern "C" __global__ void fe_##NAME##_##SFX(long long n, const TI* __restrict__ pa,   \
                                              const TI* __restrict__ pb,                \
                                              TO* __restrict__ out, int mode,           \
                                              const long long* __restrict__ meta) {     \
    typedef TI T;                                                                       \
    FE_GRID_LOOP(i, n) {                                                                \
      long long ia, ib;                                                                 \
      fe_bcast(i, mode, meta, &ia, &ib);                                                \
      T a = pa[ia]; T b = pb[ib];                                                       \
      out[i] = (TO)(EXPR);                                                              \
    }                                                                                   \
  }

// where(c, a, b) with c, a, b of the output's shape
#define FE_SELECT(TI, SFX)                                                              \
  extern "C" __global__ void fe_select_##SFX(long long n, const bool* __restrict__ c,   \
                                            const TI* __restrict__ a,                   \
                                            const TI* __restrict__ b, TI* __restrict__ out) { \
    FE_GRID_LOOP(i, n) { out[i] = c[i] ? a[i] : b[i]; }                                 \
  }
