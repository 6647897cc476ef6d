"""Memory of a long record-and-differentiate loop: RSS must stay flat after warm-up.

    PYTHONPATH=src python benchmarks/memory_flat.py [steps]

A tape records matmul + tanh + sum on a (4, 8) x (8, 8) problem, the gradient is taken and
applied to the variable; RSS (from /proc/self/statm) is printed at 1,000, 10,000, 50,000
and the final step.
"""
import sys
import time

import numpy as np

import fasteager as fe


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def main(steps=100_000):
    w = fe.Variable(np.ones((8, 8), np.float32))
    x = fe.constant(np.ones((4, 8), np.float32))
    marks = {1000, 10_000, 50_000, steps}
    t0 = time.time()
    for i in range(1, steps + 1):
        with fe.GradientTape() as tape:
            y = fe.reduce_sum(fe.tanh(fe.matmul(x, w)))
        w.assign_sub(tape.gradient(y, w) * 0.001)
        if i in marks:
            print("step %7d  RSS %.1f MB  %.1f s" % (i, rss_mb(), time.time() - t0), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
