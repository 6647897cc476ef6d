// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC11; the constants of the Random123 library).
// Element i of a call uses counter (offset + i / 4, 0, 0, 0) and key (seed_lo, seed_hi),
// so a result depends only on (seed, offset, i): no state lives on the device, and the
// host advances `offset` by ceil(n / 4) after each call.
#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

struct u4 { unsigned int x, y, z, w; };

__device__ __forceinline__ u4 philox_round(u4 c, unsigned int k0, unsigned int k1) {
  unsigned int hi0 = __umulhi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x;
  unsigned int hi1 = __umulhi(PHILOX_M1, c.z), lo1 = PHILOX_M1 * c.z;
  u4 r = {hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
  return r;
}

__device__ u4 philox4x32_10(u4 c, unsigned int k0, unsigned int k1) {
#pragma unroll
  for (int i = 0; i < 10; ++i) {
    c = philox_round(c, k0, k1);
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  return c;
}

__device__ __forceinline__ unsigned int philox_word(u4 r, int j) {
  return j == 0 ? r.x : (j == 1 ? r.y : (j == 2 ? r.z : r.w));
}

// uniform in [0, 1): the top 24 (float) or 32 (double, two words: 53) bits
__device__ __forceinline__ float u01_f32(unsigned int w) { return (w >> 8) * (1.0f / 16777216.0f); }
__device__ __forceinline__ double u01_f64(unsigned int a, unsigned int b) {
  unsigned long long v = ((unsigned long long)(a >> 5) << 26) | (b >> 6);
  return v * (1.0 / 9007199254740992.0);
}

#define FE_GRID_LOOP(i, n) \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
       i += (long long)blockDim.x * gridDim.x)

// out = lo + (hi - lo) * u
extern "C" __global__ void fe_random_uniform_f32(long long n, float* out, unsigned int s0,
                                                 unsigned int s1, unsigned long long offset,
                                                 float lo, float hi) {
  FE_GRID_LOOP(i, n) {
    unsigned long long c = offset + (unsigned long long)(i / 4);
    u4 ctr = {(unsigned int)c, (unsigned int)(c >> 32), 0u, 0u};
    u4 r = philox4x32_10(ctr, s0, s1);
    out[i] = lo + (hi - lo) * u01_f32(philox_word(r, (int)(i % 4)));
  }
}

extern "C" __global__ void fe_random_uniform_f64(long long n, double* out, unsigned int s0,
                                                 unsigned int s1, unsigned long long offset,
                                                 double lo, double hi) {
  FE_GRID_LOOP(i, n) {
    unsigned long long c = offset + (unsigned long long)(i / 2);
    u4 ctr = {(unsigned int)c, (unsigned int)(c >> 32), 0u, 0u};
    u4 r = philox4x32_10(ctr, s0, s1);
    out[i] = lo + (hi - lo) * ((i % 2) ? u01_f64(r.z, r.w) : u01_f64(r.x, r.y));
  }
}

// normal: Box-Muller on words (0, 1) -> element 2i, (2, 3) -> element 2i + 1
extern "C" __global__ void fe_random_normal_f32(long long n, float* out, unsigned int s0,
                                                unsigned int s1, unsigned long long offset,
                                                float mean, float stddev) {
  FE_GRID_LOOP(i, n) {
    unsigned long long c = offset + (unsigned long long)(i / 2);
    u4 ctr = {(unsigned int)c, (unsigned int)(c >> 32), 0u, 0u};
    u4 r = philox4x32_10(ctr, s0, s1);
    float u1 = 1.0f - u01_f32(r.x);          // (0, 1]: log is finite
    float u2 = u01_f32(r.y);
    float rad = sqrtf(-2.0f * logf(u1));
    float z = (i % 2) ? rad * sinpif(2.0f * u2) : rad * cospif(2.0f * u2);
    out[i] = mean + stddev * z;
  }
}

extern "C" __global__ void fe_random_normal_f64(long long n, double* out, unsigned int s0,
                                                unsigned int s1, unsigned long long offset,
                                                double mean, double stddev) {
  FE_GRID_LOOP(i, n) {
    unsigned long long c = offset + (unsigned long long)i;
    u4 ctr = {(unsigned int)c, (unsigned int)(c >> 32), 0u, 0u};
    u4 r = philox4x32_10(ctr, s0, s1);
    double u1 = 1.0 - u01_f64(r.x, r.y);
    double u2 = u01_f64(r.z, r.w);
    out[i] = mean + stddev * sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
  }
}
