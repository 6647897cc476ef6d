// Batched GEMM, row-major: C[b] = A[b] (M x K) @ B[b] (K x N), with batch strides (0 for a
// broadcast operand). Tiled through shared memory: a 128 x 128 tile of C per block of 256
// threads, K in steps of 8, each thread accumulating an 8 x 8 sub-tile in registers (the
// register-blocking scheme of Volkov & Demmel, "Benchmarking GPUs to tune dense linear
// algebra", SC08). Threads own rows ty + 16 i and columns tx + 16 j, so that a warp's
// shared-memory reads are broadcasts or consecutive and its stores to C coalesce.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

template <typename T>
__device__ void gemm_tile(int M, int N, int K, const T* __restrict__ A,
                          const T* __restrict__ B, T* __restrict__ C) {
  __shared__ T As[BK][BM];
  __shared__ T Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = T(0);

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int l = 0; l < (BM * BK) / 256; ++l) {
      int idx = tid + 256 * l;
      int m = idx / BK, k = idx % BK;
      int gr = row0 + m, gk = k0 + k;
      As[k][m] = (gr < M && gk < K) ? A[(long long)gr * K + gk] : T(0);
    }
#pragma unroll
    for (int l = 0; l < (BK * BN) / 256; ++l) {
      int idx = tid + 256 * l;
      int k = idx / BN, n = idx % BN;
      int gk = k0 + k, gc = col0 + n;
      Bs[k][n] = (gk < K && gc < N) ? B[(long long)gk * N + gc] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      T a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    int r = row0 + ty + 16 * i;
    if (r >= M) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      int c = col0 + tx + 16 * j;
      if (c < N) C[(long long)r * N + c] = acc[i][j];
    }
  }
}

// grid (ceil(N / 128), ceil(M / 128), batch), block 256
#define FE_GEMM(T, SFX)                                                                  \
  extern "C" __global__ void __launch_bounds__(256)                                     \
  fe_matmul_##SFX(int M, int N, int K, const T* A, const T* B, T* C,                    \
                  long long sa, long long sb, long long sc) {                            \
    long long z = blockIdx.z;                                                            \
    gemm_tile<T>(M, N, K, A + z * sa, B + z * sb, C + z * sc);                           \
  }

FE_GEMM(float, f32)
FE_GEMM(double, f64)
