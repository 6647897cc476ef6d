"""Memory of long training loops: RSS must stay flat after warm-up.

    PYTHONPATH=src python benchmarks/memory_flat.py [steps] [keras_steps]

1. A tape records matmul + tanh + sum on a (4, 8) x (8, 8) problem, the gradient is taken
   and applied to the variable; RSS (from /proc/self/statm) is printed at 1,000, 10,000,
   50,000 and the final step.
2. The guide's convnet (Conv2D-relu x2, global average pooling, Dense) trained with Adam
   on a fixed batch of 32, as the benchmark suite's convnet step: RSS at 100, 1,000 and
   the final step (the fused conv and dense ops, the array cache and the optimizer
   slots all run here).
"""
import sys
import time

import numpy as np

import fasteager as fe


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def tape_loop(steps):
    w = fe.Variable(np.ones((8, 8), np.float32))
    x = fe.constant(np.ones((4, 8), np.float32))
    marks = {1000, 10_000, 50_000, steps}
    t0 = time.time()
    for i in range(1, steps + 1):
        with fe.GradientTape() as tape:
            y = fe.reduce_sum(fe.tanh(fe.matmul(x, w)))
        w.assign_sub(tape.gradient(y, w) * 0.001)
        if i in marks:
            print("tape loop  step %7d  RSS %.1f MB  %.1f s" % (i, rss_mb(), time.time() - t0),
                  flush=True)


def keras_loop(steps):
    fe.random.set_seed(0)
    model = fe.keras.Sequential([fe.keras.layers.Conv2D(16, 3, activation="relu"),
                                 fe.keras.layers.Conv2D(16, 3, activation="relu"),
                                 fe.keras.layers.GlobalAveragePooling2D(),
                                 fe.keras.layers.Dense(10)])
    loss_fn = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = fe.keras.optimizers.Adam()
    rng = np.random.default_rng(0)
    x = fe.constant(rng.random((32, 28, 28, 1), dtype=np.float32))
    y = fe.constant(rng.integers(0, 10, 32))
    marks = {100, 1000, steps}
    t0 = time.time()
    for i in range(1, steps + 1):
        with fe.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if i in marks:
            print("convnet    step %7d  RSS %.1f MB  %.1f s" % (i, rss_mb(), time.time() - t0),
                  flush=True)


if __name__ == "__main__":
    tape_loop(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    keras_loop(int(sys.argv[2]) if len(sys.argv) > 2 else 5_000)
