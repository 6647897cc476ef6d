"""Train a classifier on MNIST eagerly with fasteager, the README's main example.

    python examples/train_mnist.py                      # MLP 784-128-10, 2 epochs
    python examples/train_mnist.py --model convnet      # the eager guide's convnet
    python examples/train_mnist.py --loop tape --steps 100   # hand-written GradientTape loop

Data: ``fe.keras.datasets.mnist.load_data()`` (real MNIST from ``$FASTEAGER_DATA/mnist``;
this repository's tests and examples point it at ``../shared/data``). Progress is shown
per epoch; TensorBoard logs go to ``--logdir`` (``tensorboard --logdir runs/mnist``);
the test accuracy over the 10,000 test images is printed at the end.
"""
import argparse
import os
import pathlib
import sys
import time

import numpy as np

import fasteager as fe
import fasteager.keras  # noqa: F401  (fe.keras)
from fasteager import summary

keras = fasteager.keras


def load_mnist():
    """(x_train, y_train), (x_test, y_test) as float32 in [0, 1] and int64 labels."""
    if "FASTEAGER_DATA" not in os.environ:
        shared = pathlib.Path(__file__).resolve().parents[2] / "shared" / "data"
        if shared.is_dir():
            os.environ["FASTEAGER_DATA"] = str(shared)
    from fasteager.keras.datasets import mnist
    (x_train, y_train), (x_test, y_test) = mnist.load_data()
    return ((x_train.astype(np.float32) / 255.0, y_train.astype(np.int64)),
            (x_test.astype(np.float32) / 255.0, y_test.astype(np.int64)))


def build_model(kind):
    L = keras.layers
    if kind == "mlp":
        return keras.Sequential([
            keras.Input((28, 28)),
            L.Flatten(),
            L.Dense(128, activation="relu"),
            L.Dense(10),
        ], name="mlp")
    # the eager guide's model
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(16, [3, 3], activation="relu"),
        L.Conv2D(16, [3, 3], activation="relu"),
        L.GlobalAveragePooling2D(),
        L.Dense(10),
    ], name="convnet")


def train_with_tape(model, x, y, args, writer):
    """The guide's custom loop: GradientTape, apply_gradients, summaries every 50 steps."""
    optimizer = keras.optimizers.Adam(args.lr)
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_loss = keras.metrics.Mean("loss")
    train_acc = keras.metrics.SparseCategoricalAccuracy("accuracy")
    n = len(x)
    steps = n // args.batch_size if args.steps is None else min(args.steps, n // args.batch_size)
    step = 0
    for epoch in range(args.epochs):
        print("Epoch %d/%d" % (epoch + 1, args.epochs))
        bar = keras.utils.Progbar(steps)
        order = np.asarray(fe.random.shuffle(np.arange(n)).numpy())
        train_loss.reset_state()
        train_acc.reset_state()
        for i in range(steps):
            idx = order[i * args.batch_size:(i + 1) * args.batch_size]
            images, labels = fe.constant(x[idx]), fe.constant(y[idx])
            with fe.GradientTape() as tape:
                logits = model(images, training=True)
                loss_value = loss_object(labels, logits)
            grads = tape.gradient(loss_value, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            train_loss(loss_value)
            train_acc(labels, logits)
            step += 1
            if step % 50 == 0:
                with writer.as_default():
                    summary.scalar("batch_loss", train_loss.result(), step=step)
            bar.update(i + 1, [("loss", float(train_loss.result())),
                               ("accuracy", float(train_acc.result()))], finalize=False)
        bar.update(steps, finalize=True)
        with writer.as_default():
            summary.scalar("epoch_loss", train_loss.result(), step=epoch)
            summary.scalar("epoch_accuracy", train_acc.result(), step=epoch)
        writer.flush()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=["mlp", "convnet"], default="mlp")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--steps", type=int, default=None,
                   help="limit the steps per epoch (a quick run)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--loop", choices=["fit", "tape"], default="fit",
                   help="model.fit (default) or a hand-written GradientTape loop")
    p.add_argument("--logdir", default="runs/mnist")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    fe.random.set_seed(args.seed)
    start = time.time()
    (x_train, y_train), (x_test, y_test) = load_mnist()
    if args.model == "convnet":
        x_train, x_test = x_train[..., None], x_test[..., None]
    print("MNIST: %d training and %d test images" % (len(x_train), len(x_test)))

    model = build_model(args.model)
    model.summary()

    if args.loop == "tape":
        writer = summary.create_file_writer(os.path.join(args.logdir, "train"))
        train_with_tape(model, x_train, y_train, args, writer)
        writer.close()
        model.compile(optimizer="adam",
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    else:
        model.compile(optimizer=keras.optimizers.Adam(args.lr),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        n_val = 5000
        model.fit(x_train[:-n_val], y_train[:-n_val], batch_size=args.batch_size,
                  epochs=args.epochs, steps_per_epoch=args.steps,
                  validation_data=(x_train[-n_val:], y_train[-n_val:]),
                  callbacks=[keras.callbacks.TensorBoard(args.logdir)], verbose=1)

    loss, acc = model.evaluate(x_test, y_test, batch_size=500, verbose=0)
    print("Test loss: %.4f - test accuracy: %.4f (%d images)" % (loss, acc, len(x_test)))
    print("TensorBoard logs in %s (tensorboard --logdir %s); %.0fs in all"
          % (args.logdir, args.logdir, time.time() - start))
    return acc


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
