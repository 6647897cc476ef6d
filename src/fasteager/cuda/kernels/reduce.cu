// Reductions along axes. The caller views the input as [outer, r, inner] (the reduced
// axes made contiguous by a transpose when they are not) and gets [outer, inner].
// inner == 1 (reducing the last axes, the common case) uses one block per output row
// and a shared-memory tree; otherwise one thread per output walks r with stride inner,
// which keeps consecutive threads on consecutive addresses.
#include <cfloat>

template <typename T> struct SumOp {
  __device__ static T init() { return T(0); }
  __device__ static T apply(T a, T b) { return a + b; }
};
template <typename T> struct MaxOp {
  __device__ static T init();
  __device__ static T apply(T a, T b) { return (a > b || a != a) ? a : b; }  // NaN wins
};
template <typename T> struct MinOp {
  __device__ static T init();
  __device__ static T apply(T a, T b) { return (a < b || a != a) ? a : b; }
};
template <> __device__ float MaxOp<float>::init() { return -INFINITY; }
template <> __device__ double MaxOp<double>::init() { return -INFINITY; }
template <> __device__ float MinOp<float>::init() { return INFINITY; }
template <> __device__ double MinOp<double>::init() { return INFINITY; }

template <typename T, typename Op>
__device__ void reduce_rows(long long outer, long long r, const T* __restrict__ x,
                            T* __restrict__ out, T scale) {
  __shared__ T buf[256];
  for (long long row = blockIdx.x; row < outer; row += gridDim.x) {
    T acc = Op::init();
    const T* xr = x + row * r;
    for (long long j = threadIdx.x; j < r; j += blockDim.x) acc = Op::apply(acc, xr[j]);
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) buf[threadIdx.x] = Op::apply(buf[threadIdx.x], buf[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = buf[0] * scale;
    __syncthreads();
  }
}

template <typename T, typename Op>
__device__ void reduce_strided(long long outer, long long r, long long inner,
                               const T* __restrict__ x, T* __restrict__ out, T scale) {
  long long n = outer * inner;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)blockDim.x * gridDim.x) {
    long long o = i / inner, k = i % inner;
    const T* xp = x + o * r * inner + k;
    T acc = Op::init();
    for (long long j = 0; j < r; ++j) acc = Op::apply(acc, xp[j * inner]);
    out[i] = acc * scale;
  }
}

// blockDim.x must be 256 for the *_rows kernels (the shared buffer's size)
#define FE_REDUCE(NAME, OP, T, SFX)                                                     \
  extern "C" __global__ void fe_reduce_##NAME##_rows_##SFX(                             \
      long long outer, long long r, const T* x, T* out, T scale) {                      \
    reduce_rows<T, OP<T> >(outer, r, x, out, scale);                                    \
  }                                                                                     \
  extern "C" __global__ void fe_reduce_##NAME##_strided_##SFX(                          \
      long long outer, long long r, long long inner, const T* x, T* out, T scale) {     \
    reduce_strided<T, OP<T> >(outer, r, inner, x, out, scale);                          \
  }

FE_REDUCE(sum, SumOp, float, f32)
FE_REDUCE(sum, SumOp, double, f64)
FE_REDUCE(max, MaxOp, float, f32)
FE_REDUCE(max, MaxOp, double, f64)
FE_REDUCE(min, MinOp, float, f32)
FE_REDUCE(min, MinOp, double, f64)
