#!/usr/bin/env bash
# One GPU check for fasteager's CUDA backend (under 5 minutes on the H200 machine).
#
# NOT YET RUN: written on a machine without a GPU. Steps:
#   On a machine WITH a package registry, before going to the GPU machine:
#     mkdir -p wheels && pip download --no-binary pycuda pycuda -d wheels \
#         && pip download pytools platformdirs mako markupsafe siphash24 typing_extensions \
#            --only-binary :all: --python-version 3.12 -d wheels
#     (keep wheels/ untracked beside the working tree, or pass it in `carry` if ignored)
#   On the GPU machine (Python 3.12, CUDA toolkit + driver, NO registry), this script:
#     1. configures PyCUDA's CUDA_ROOT (pycuda ignores $CUDA_ROOT and takes the first nvcc
#        on PATH; ~/.aksetup-defaults.py fixes it) and builds it offline from wheels/;
#     2. installs fasteager with the [cuda] extra (no index, no build isolation);
#     3. runs the gpu-marked tests;
#     4. runs the GPU benchmarks and prints one table.
set -euo pipefail
cd "$(dirname "$0")/.."
WHEELS=${WHEELS:-wheels}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA_ROOT=${CUDA_ROOT:-$(dirname "$(dirname "$(readlink -f "$NVCC")")")}
echo "== CUDA_ROOT=$CUDA_ROOT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

if ! python -c "import pycuda.driver" 2>/dev/null; then
  cat > ~/.aksetup-defaults.py <<PY
CUDA_ROOT = "$CUDA_ROOT"
CUDA_ENABLE_CURAND = False
PY
  time pip install --no-index --no-build-isolation --find-links "$WHEELS" pycuda 2>&1 | tail -3
fi
pip install --no-index --no-build-isolation --no-deps -e ".[cuda]" 2>&1 | tail -1 \
  || python setup.py build_ext --inplace 2>&1 | tail -1
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}

echo "== gpu tests"
set +e
timeout 150 python -m pytest -q -m gpu tests/gpu -p no:cacheprovider -x 2>&1 | tail -25
TESTS_RC=${PIPESTATUS[0]}
set -e

echo "== benchmarks"
timeout 120 python - "$TESTS_RC" <<'PY'
import sys, time, warnings
import numpy as np
import fasteager as fe
from fasteager.cuda import cublas, context

warnings.simplefilter("ignore")
rows = [("gpu tests (pytest -m gpu)", "pass" if sys.argv[1] == "0" else "FAIL rc=" + sys.argv[1], "")]

def sync():
    context.driver().Context.synchronize()

def timed(fn, reps):
    fn(); sync()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    return (time.perf_counter() - t)

# the guide's benchmark: 200 products of 1000x1000 float32 matrices
x = fe.constant(np.random.rand(1000, 1000).astype(np.float32)).gpu()
with fe.device("/gpu:0"):
    s = timed(lambda: fe.matmul(x, x), 200)
rows.append(("guide matmul 1000x1000 x200 (GPU)", "%.4f s" % s, "target <= 0.03 s"))
xc = fe.constant(np.random.rand(1000, 1000).astype(np.float32))
with fe.device("/cpu:0"):
    t = time.perf_counter()
    for _ in range(20):
        fe.matmul(xc, xc)
    rows.append(("guide matmul 1000x1000 x200 (CPU)", "%.3f s" % ((time.perf_counter() - t) * 10), "extrapolated from 20"))

# large fp32 GEMM: tiled kernel vs cuBLAS vs CuPy vs PyTorch
n = 8192
flop = 2.0 * n ** 3
a = fe.constant(np.random.rand(n, n).astype(np.float32)).gpu()
def tflops(fn, reps=5):
    return flop * reps / timed(fn, reps) / 1e12
with fe.device("/gpu:0"):
    has_cublas = cublas.available()
    if has_cublas:
        ref = tflops(lambda: fe.matmul(a, a))
        rows.append(("GEMM %d fp32 cuBLAS via fasteager" % n, "%.1f TFLOP/s" % ref, ""))
    cublas._lib, cublas._tried = None, True
    own = tflops(lambda: fe.matmul(a, a))
    rows.append(("GEMM %d fp32 tiled kernel" % n, "%.1f TFLOP/s" % own,
                 ("%.0f%% of cuBLAS (target >= 50%%)" % (100 * own / ref)) if has_cublas else "no cuBLAS"))
try:
    import cupy as cp
    ca = cp.random.rand(n, n, dtype=cp.float32)
    cp.matmul(ca, ca); cp.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(5):
        cp.matmul(ca, ca)
    cp.cuda.Device().synchronize()
    rows.append(("GEMM %d fp32 CuPy" % n, "%.1f TFLOP/s" % (flop * 5 / (time.perf_counter() - t) / 1e12), ""))
except Exception as e:
    rows.append(("GEMM CuPy", "n/a", type(e).__name__))
try:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    ta = torch.rand(n, n, device="cuda")
    torch.mm(ta, ta); torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(5):
        torch.mm(ta, ta)
    torch.cuda.synchronize()
    rows.append(("GEMM %d fp32 PyTorch (no TF32)" % n, "%.1f TFLOP/s" % (flop * 5 / (time.perf_counter() - t) / 1e12), ""))
except Exception as e:
    rows.append(("GEMM PyTorch", "n/a", type(e).__name__))

# the guide's MNIST convnet training step, batch 32: GPU vs CPU
def convnet_step_time(dev):
    model = fe.keras.Sequential([
        fe.keras.layers.Conv2D(32, 5, padding="same", activation="relu"),
        fe.keras.layers.MaxPooling2D(2), fe.keras.layers.Conv2D(64, 5, padding="same", activation="relu"),
        fe.keras.layers.MaxPooling2D(2), fe.keras.layers.Flatten(),
        fe.keras.layers.Dense(1024, activation="relu"), fe.keras.layers.Dense(10)])
    opt = fe.keras.optimizers.SGD(0.01)
    xb = fe.constant(np.random.rand(32, 28, 28, 1).astype(np.float32))
    yb = fe.constant(np.random.randint(0, 10, 32).astype(np.int64))
    def step():
        with fe.device(dev):
            with fe.GradientTape() as tape:
                loss = fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=yb, logits=model(xb)))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
    for _ in range(3):
        step().numpy()
    t = time.perf_counter()
    for _ in range(20):
        step().numpy()
    return (time.perf_counter() - t) / 20
try:
    g, c = convnet_step_time("/gpu:0"), convnet_step_time("/cpu:0")
    rows.append(("convnet step b32 GPU / CPU", "%.1f / %.1f ms" % (g * 1e3, c * 1e3),
                 "target GPU faster (conv/pool fall back: see docs/gpu.md)"))
except Exception as e:
    rows.append(("convnet step", "ERROR", "%s: %s" % (type(e).__name__, str(e)[:60])))

# fe.function on the GPU: 20 elementwise ops on 1e7 floats, eager (20 kernels) vs traced
# (one generated fused kernel, cuda/fusion.py)
def chain(x):
    y = x
    for _ in range(5):
        y = fe.tanh(y * 0.5 + 0.25) - y * 0.125
    return y
try:
    xg = fe.constant(np.linspace(-1, 1, 10_000_000, dtype=np.float32)).gpu()
    traced = fe.function(chain)
    with fe.device("/gpu:0"):
        eager_s = timed(lambda: chain(xg), 20) / 20
        fused_s = timed(lambda: traced(xg), 20) / 20
        kinds = [type(k).__name__ for k in traced.get_concrete_function(xg).fused_steps]
        err = float(np.max(np.abs(np.asarray(traced(xg).numpy()) - np.asarray(chain(xg).numpy()))))
    rows.append(("fused chain 20 ops x 1e7 GPU eager / fe.function",
                 "%.2f / %.2f ms" % (eager_s * 1e3, fused_s * 1e3),
                 "%s, max |diff| %.1e" % (",".join(kinds), err)))
except Exception as e:
    rows.append(("fused chain on GPU", "ERROR", "%s: %s" % (type(e).__name__, str(e)[:60])))

w = max(len(r[0]) for r in rows)
print("\n%-*s  %-18s  %s" % (w, "check", "result", "note"))
for r in rows:
    print("%-*s  %-18s  %s" % (w, r[0], r[1], r[2]))
PY
