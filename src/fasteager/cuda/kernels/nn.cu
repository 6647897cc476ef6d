// Softmax and softmax cross-entropy, one block of 256 threads per row (row length k):
// max, then sum of exp(x - max) (the usual shift for stability), both reduced through
// shared memory. Outputs follow fasteager's CPU kernels: the loss per row and the
// gradient with respect to the logits, softmax(x) - labels.
#include <cfloat>

template <typename T, bool IS_MAX>
__device__ T block_reduce(T v, T* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      T o = buf[threadIdx.x + s];
      buf[threadIdx.x] = IS_MAX ? (o > buf[threadIdx.x] ? o : buf[threadIdx.x])
                                : buf[threadIdx.x] + o;
    }
    __syncthreads();
  }
  T r = buf[0];
  __syncthreads();
  return r;
}

template <typename T>
__device__ void row_stats(const T* x, int k, T* buf, T* mx, T* lse_shift) {
  T m = -INFINITY;
  for (int j = threadIdx.x; j < k; j += blockDim.x) m = x[j] > m ? x[j] : m;
  m = block_reduce<T, true>(m, buf);
  T s = 0;
  for (int j = threadIdx.x; j < k; j += blockDim.x) s += exp(x[j] - m);
  s = block_reduce<T, false>(s, buf);
  *mx = m;
  *lse_shift = log(s);   // log sum exp(x - m)
}

template <typename T>
__device__ void softmax_rows(long long rows, int k, const T* x, T* out) {
  __shared__ T buf[256];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * k;
    T m, l;
    row_stats(xr, k, buf, &m, &l);
    for (int j = threadIdx.x; j < k; j += blockDim.x) out[r * k + j] = exp(xr[j] - m - l);
  }
}

// dense labels [rows, k]: loss = -sum(y * log_softmax(x)), d = softmax(x) * sum(y) - y
template <typename T>
__device__ void xent_rows(long long rows, int k, const T* x, const T* y, T* loss, T* d) {
  __shared__ T buf[256];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * k;
    const T* yr = y + r * k;
    T m, l;
    row_stats(xr, k, buf, &m, &l);
    T acc = 0, ysum = 0;
    for (int j = threadIdx.x; j < k; j += blockDim.x) {
      if (yr[j] != T(0)) acc -= yr[j] * (xr[j] - m - l);  // 0 * -inf counts as 0
      ysum += yr[j];
    }
    acc = block_reduce<T, false>(acc, buf);
    ysum = block_reduce<T, false>(ysum, buf);
    if (threadIdx.x == 0) loss[r] = acc;
    for (int j = threadIdx.x; j < k; j += blockDim.x)
      d[r * k + j] = exp(xr[j] - m - l) * ysum - yr[j];
  }
}

// sparse labels [rows] (int64): loss = -log_softmax(x)[label], d = softmax(x) - onehot;
// an out-of-range label gives NaN, as TensorFlow's GPU kernel does
template <typename T>
__device__ void sparse_xent_rows(long long rows, int k, const T* x, const long long* lab,
                                 T* loss, T* d) {
  __shared__ T buf[256];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * k;
    long long c = lab[r];
    bool ok = c >= 0 && c < k;
    T m, l;
    row_stats(xr, k, buf, &m, &l);
    if (threadIdx.x == 0) loss[r] = ok ? -(xr[c] - m - l) : T(NAN);
    for (int j = threadIdx.x; j < k; j += blockDim.x)
      d[r * k + j] = ok ? exp(xr[j] - m - l) - (j == c ? T(1) : T(0)) : T(NAN);
  }
}

#define FE_NN(T, SFX)                                                                    \
  extern "C" __global__ void fe_softmax_##SFX(long long rows, int k, const T* x, T* out) { \
    softmax_rows<T>(rows, k, x, out);                                                    \
  }                                                                                      \
  extern "C" __global__ void fe_softmax_xent_##SFX(long long rows, int k, const T* x,    \
                                                   const T* y, T* loss, T* d) {          \
    xent_rows<T>(rows, k, x, y, loss, d);                                                \
  }                                                                                      \
  extern "C" __global__ void fe_sparse_softmax_xent_##SFX(                               \
      long long rows, int k, const T* x, const long long* lab, T* loss, T* d) {          \
    sparse_xent_rows<T>(rows, k, x, lab, loss, d);                                       \
  }

FE_NN(float, f32)
FE_NN(double, f64)
