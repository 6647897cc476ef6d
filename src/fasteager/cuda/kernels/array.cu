// Data movement: N-d transpose, the strided block copy behind concat/split/slicing, and
// gather of rows. Element types are handled by size (1, 2, 4 or 8 bytes): moving values
// never looks at them.
#define FE_GRID_LOOP(i, n) \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
       i += (long long)blockDim.x * gridDim.x)

// out[i] = x[sum_d coord_d(i) * meta[ndim + d]]: meta holds the output shape[ndim] and the
// input's element strides permuted into output order [ndim]
template <typename T>
__device__ void transpose_nd(long long n, int ndim, const long long* meta, const T* x, T* out) {
  FE_GRID_LOOP(i, n) {
    long long rest = i, src = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      long long c = rest % meta[d];
      rest /= meta[d];
      src += c * meta[ndim + d];
    }
    out[i] = x[src];
  }
}

// rows x cols block: out[r * out_stride + c] = x[r * in_stride + c] (all in elements)
template <typename T>
__device__ void copy_block(long long rows, long long cols, const T* x, long long in_stride,
                           T* out, long long out_stride) {
  FE_GRID_LOOP(i, rows * cols) {
    long long r = i / cols, c = i % cols;
    out[r * out_stride + c] = x[r * in_stride + c];
  }
}

// out[o, j, k] = x[o, idx[j], k] for x [outer, axis_len, inner]; an index out of range
// writes 0 and sets *bad (TensorFlow's GPU gather also zero-fills)
template <typename T>
__device__ void gather(long long outer, long long nidx, long long inner, long long axis_len,
                       const T* x, const long long* idx, T* out, int* bad) {
  FE_GRID_LOOP(i, outer * nidx * inner) {
    long long k = i % inner, j = (i / inner) % nidx, o = i / (inner * nidx);
    long long s = idx[j];
    if (s < 0) s += axis_len;
    if (s < 0 || s >= axis_len) { out[i] = T(0); *bad = 1; continue; }
    out[i] = x[(o * axis_len + s) * inner + k];
  }
}

#define FE_MOVE(T, SFX)                                                                  \
  extern "C" __global__ void fe_transpose_##SFX(long long n, int ndim,                   \
                                                const long long* meta, const T* x, T* out) { \
    transpose_nd<T>(n, ndim, meta, x, out);                                              \
  }                                                                                      \
  extern "C" __global__ void fe_copy_block_##SFX(long long rows, long long cols,         \
                                                 const T* x, long long in_stride, T* out, \
                                                 long long out_stride) {                 \
    copy_block<T>(rows, cols, x, in_stride, out, out_stride);                            \
  }                                                                                      \
  extern "C" __global__ void fe_gather_##SFX(long long outer, long long nidx,            \
                                             long long inner, long long axis_len,        \
                                             const T* x, const long long* idx, T* out,   \
                                             int* bad) {                                 \
    gather<T>(outer, nidx, inner, axis_len, x, idx, out, bad);                           \
  }

FE_MOVE(unsigned char, b1)
FE_MOVE(unsigned short, b2)
FE_MOVE(unsigned int, b4)
FE_MOVE(unsigned long long, b8)
