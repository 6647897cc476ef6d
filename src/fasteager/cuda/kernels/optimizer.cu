// Fused optimizer updates, in place, one thread per element: the same formulas, operation
// by operation, as fasteager._kernels (Keras 3's update_step), with the scalar
// coefficients formed on the host in double precision and passed in the variable's dtype.
#define FE_GRID_LOOP(i, n) \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
       i += (long long)blockDim.x * gridDim.x)

#define FE_OPT(T, SFX)                                                                   \
  extern "C" __global__ void fe_sgd_##SFX(long long n, T* var, const T* g, T* vel, T lr,  \
                                          T mom, int use_mom, int nesterov) {             \
    FE_GRID_LOOP(i, n) {                                                                 \
      if (!use_mom) { var[i] = var[i] - g[i] * lr; continue; }                           \
      T v = vel[i] * mom - g[i] * lr;                                                    \
      vel[i] = v;                                                                        \
      var[i] = nesterov ? var[i] + (v * mom - g[i] * lr) : var[i] + v;                   \
    }                                                                                    \
  }                                                                                      \
  extern "C" __global__ void fe_adam_##SFX(long long n, T* var, T* m, T* v, const T* g,  \
                                           T* vhat, T alpha, T one_m_b1, T one_m_b2,     \
                                           T eps, T decay, int use_decay, int amsgrad) {  \
    FE_GRID_LOOP(i, n) {                                                                 \
      T p = var[i];                                                                      \
      if (use_decay) p = p - p * decay;                                                  \
      T gi = g[i];                                                                       \
      T mi = m[i] + (gi - m[i]) * one_m_b1;                                              \
      T vi = v[i] + (gi * gi - v[i]) * one_m_b2;                                         \
      m[i] = mi;                                                                         \
      v[i] = vi;                                                                         \
      if (amsgrad) { if (vhat[i] > vi) vi = vhat[i]; vhat[i] = vi; }                     \
      var[i] = p - (mi * alpha) / (sqrt(vi) + eps);                                      \
    }                                                                                    \
  }

FE_OPT(float, f32)
FE_OPT(double, f64)
