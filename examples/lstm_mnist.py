"""Classify MNIST digits with an LSTM reading each image row by row (28 steps of 28 pixels).

    python examples/lstm_mnist.py                     # LSTM(128) -> Dense(10), 5 epochs
    python examples/lstm_mnist.py --quick             # a smoke run: a few steps, one epoch
    python examples/lstm_mnist.py --epochs 2 --units 64

Model: LSTM(128) over the 28 rows (the fused Cython time loop of fe.keras.layers.LSTM) ->
Dense(10) on the last state, Adam (2e-3, cosine-decayed to 2e-4 over the run), batch 128,
trained by the same hand-written ``GradientTape`` loop as ``train_mnist.py`` (progress bar
per epoch, TensorBoard logs in ``--logdir``, a checkpoint per epoch, test accuracy at the
end).

Measured with the default flags on the shared 2-core development machine, other jobs
running, OPENBLAS_NUM_THREADS=1 (see docs/recurrent.md for why): test accuracy 0.9853 on
the 10,000 MNIST test images, 4m41s wall in all (35 to 70 s an epoch), peak RSS 466 MB.

Data: real MNIST by the examples' one rule (``examples/_data.py``), else the offline 8x8
digits upscaled to 28x28, as ``train_mnist.py`` does.
"""
import argparse
import os
import sys
import time

import numpy as np
from train_mnist import load_mnist, report, steps_per_epoch, train_with_tape  # its loop

import fasteager as fe
import fasteager.keras
from fasteager import summary

keras = fasteager.keras


def build_model(units):
    L = keras.layers
    return keras.Sequential([
        keras.Input((28, 28)),
        L.LSTM(units),
        L.Dense(10),
    ], name="lstm_rows")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--units", type=int, default=128)
    p.add_argument("--steps", type=int, default=None,
                   help="limit the steps per epoch (a quick run)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 20 steps of one epoch, 2,000 test images")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--logdir", default="runs/lstm_mnist")
    p.add_argument("--ckpt-dir", default=None,
                   help="checkpoint directory (default: LOGDIR/ckpt)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.quick:
        args.epochs, args.steps = 1, 20 if args.steps is None else args.steps
    if args.ckpt_dir is None:
        args.ckpt_dir = os.path.join(args.logdir, "ckpt")

    fe.random.set_seed(args.seed)
    np.random.seed(args.seed)
    start = time.time()
    name, ((x_train, y_train), (x_test, y_test)) = load_mnist()
    if args.quick:
        x_test, y_test = x_test[:2000], y_test[:2000]
    print("%s: %d training and %d test images, %d rows of %d pixels each"
          % (name, len(x_train), len(x_test), x_train.shape[1], x_train.shape[2]))

    model = build_model(args.units)
    model.summary()
    total_steps = steps_per_epoch(len(x_train), args) * args.epochs
    lr = keras.optimizers.schedules.CosineDecay(args.lr, total_steps, alpha=0.1)
    optimizer = keras.optimizers.Adam(lr)
    ckpt = fe.train.Checkpoint(model=model, optimizer=optimizer)
    manager = fe.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    writer = summary.create_file_writer(os.path.join(args.logdir, "train"))
    train_with_tape(model, optimizer, x_train, y_train, args, writer, manager)
    writer.close()

    return report(model, x_test, y_test, name, args, start)


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
