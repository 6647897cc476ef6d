"""Train a convnet on MNIST eagerly with fasteager, the README's main example.

    python examples/train_mnist.py                      # convnet, 6 epochs, >= 99% test accuracy
    python examples/train_mnist.py --model mlp          # MLP 784-128-10 (~97%, seconds per epoch)
    python examples/train_mnist.py --steps 30 --epochs 1     # a quick smoke run
    python examples/train_mnist.py --loop fit           # model.fit instead of the GradientTape loop

Default model: Conv2D(32, 3, relu) -> MaxPooling2D(2) -> Conv2D(64, 3, relu) -> MaxPooling2D(2)
-> Flatten -> Dropout(0.25) -> Dense(128, relu) -> Dense(10), Adam (1e-3, cosine-decayed to
1e-4 over the run), batch 128, 6 epochs over all 60,000 training images, trained by a
hand-written ``GradientTape`` loop.

Measured with the default flags on the 2-core development machine (seed 0, CPUs free):
test accuracy 0.9914 on the 10,000 MNIST test images, 3m22s wall in all (about 30 s an
epoch, 61 ms a step of 128 images), peak RSS 474 MB.

Data: real MNIST, found by the examples' one rule (``examples/_data.py``: ``$FASTEAGER_DATA/mnist``,
``~/.fasteager/datasets/mnist``, a checked download); offline and uncached, it says so in one
line and trains on the 8x8 digits that scikit-learn ships (``[examples]`` installs it),
upscaled to 28x28.
Progress is shown per epoch; TensorBoard logs go to ``--logdir`` (``tensorboard --logdir
runs/mnist``); a checkpoint (model + optimizer) is written to ``--ckpt-dir`` at the end of each
epoch; the test accuracy over the test images is printed at the end.
"""
import argparse
import os
import sys
import time

import numpy as np

import fasteager as fe
import fasteager.keras  # noqa: F401  (fe.keras)
from fasteager import summary

import _data  # the examples' data rule (examples/_data.py)

keras = fasteager.keras


def load_mnist():
    """(name, ((x_train, y_train), (x_test, y_test))): float32 images in [0, 1] shaped
    (n, 28, 28) and int64 labels, found by the examples' data rule (``examples/_data.py``:
    ``$FASTEAGER_DATA/mnist``, the cache, a download, else the offline digits)."""
    name, ((x_train, y_train), (x_test, y_test)) = _data.load_mnist()
    return name, ((x_train.astype(np.float32) / 255.0, y_train.astype(np.int64)),
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
    if kind == "guide":  # the eager guide's small convnet (fast, ~90% in 2 epochs)
        return keras.Sequential([
            keras.Input((28, 28, 1)),
            L.Conv2D(16, [3, 3], activation="relu"),
            L.Conv2D(16, [3, 3], activation="relu"),
            L.GlobalAveragePooling2D(),
            L.Dense(10),
        ], name="guide_convnet")
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(32, 3, activation="relu"),
        L.MaxPooling2D(2),
        L.Conv2D(64, 3, activation="relu"),
        L.MaxPooling2D(2),
        L.Flatten(),
        L.Dropout(0.25),
        L.Dense(128, activation="relu"),
        L.Dense(10),
    ], name="convnet")


def report(model, x_test, y_test, name, args, start):
    """Print the test loss and accuracy and where the logs went; returns the accuracy."""
    loss, acc = evaluate(model, x_test, y_test)
    print("Test loss: %.4f - test accuracy: %.4f (%d %s test images)"
          % (loss, acc, len(x_test), name))
    print("TensorBoard logs in %s (tensorboard --logdir %s); checkpoints in %s; %.0fs in all"
          % (args.logdir, args.logdir, args.ckpt_dir, time.time() - start))
    return acc


def evaluate(model, x, y, batch_size=500):
    """(mean loss, accuracy) over x, y."""
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")
    correct, total_loss = 0, 0.0
    for i in range(0, len(x), batch_size):
        labels = y[i:i + batch_size]
        logits = model(fe.constant(x[i:i + batch_size]), training=False)
        total_loss += float(loss_object(fe.constant(labels), logits))
        correct += int(np.sum(np.argmax(logits.numpy(), axis=-1) == labels))
    return total_loss / len(x), correct / len(x)


def train_with_tape(model, optimizer, x, y, args, writer, manager):
    """GradientTape loop, apply_gradients, summaries every 50 steps, a checkpoint per epoch."""
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_loss = keras.metrics.Mean("loss")
    train_acc = keras.metrics.SparseCategoricalAccuracy("accuracy")
    n = len(x)
    steps = steps_per_epoch(n, args)
    step = 0
    interactive = sys.stdout.isatty()
    for epoch in range(args.epochs):
        print("Epoch %d/%d" % (epoch + 1, args.epochs))
        t0 = time.time()
        # the values given are running means already (stateful); in a log, one line an epoch
        bar = keras.utils.Progbar(steps, verbose=1 if interactive else 2,
                                  stateful_metrics=["loss", "accuracy"])
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
            if not interactive and (i + 1) % 100 == 0:  # the bar only shows at the end in a log
                print("  step %d/%d - %.0fs - loss: %.4f - accuracy: %.4f"
                      % (i + 1, steps, time.time() - t0, float(train_loss.result()),
                         float(train_acc.result())), flush=True)
        bar.update(steps, finalize=True)
        with writer.as_default():
            summary.scalar("epoch_loss", train_loss.result(), step=epoch)
            summary.scalar("epoch_accuracy", train_acc.result(), step=epoch)
        writer.flush()
        path = manager.save()
        print("epoch %d: %.1fs, checkpoint %s" % (epoch + 1, time.time() - t0, path))


def steps_per_epoch(n, args):
    full = n // args.batch_size
    return full if args.steps is None else max(1, min(args.steps, full))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=["convnet", "mlp", "guide"], default="convnet")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--steps", type=int, default=None,
                   help="limit the steps per epoch (a quick run)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--loop", choices=["tape", "fit"], default="tape",
                   help="a hand-written GradientTape loop (default) or model.fit")
    p.add_argument("--logdir", default="runs/mnist")
    p.add_argument("--ckpt-dir", default=None,
                   help="checkpoint directory (default: LOGDIR/ckpt, i.e. runs/mnist/ckpt)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.ckpt_dir is None:
        args.ckpt_dir = os.path.join(args.logdir, "ckpt")

    fe.random.set_seed(args.seed)
    np.random.seed(args.seed)
    start = time.time()
    name, ((x_train, y_train), (x_test, y_test)) = load_mnist()
    if args.model != "mlp":
        x_train, x_test = x_train[..., None], x_test[..., None]
    print("%s: %d training and %d test images" % (name, len(x_train), len(x_test)))

    model = build_model(args.model)
    model.summary()
    total_steps = steps_per_epoch(len(x_train), args) * args.epochs
    lr = keras.optimizers.schedules.CosineDecay(args.lr, total_steps, alpha=0.1)
    optimizer = keras.optimizers.Adam(lr)
    ckpt = fe.train.Checkpoint(model=model, optimizer=optimizer)
    manager = fe.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    if args.loop == "tape":
        writer = summary.create_file_writer(os.path.join(args.logdir, "train"))
        train_with_tape(model, optimizer, x_train, y_train, args, writer, manager)
        writer.close()
    else:
        model.compile(optimizer=optimizer,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        tb = keras.callbacks.TensorBoard(args.logdir)
        for epoch in range(args.epochs):
            model.fit(x_train, y_train, batch_size=args.batch_size, epochs=epoch + 1,
                      initial_epoch=epoch, steps_per_epoch=args.steps, callbacks=[tb],
                      verbose=1)
            print("epoch %d: checkpoint %s" % (epoch + 1, manager.save()))

    return report(model, x_test, y_test, name, args, start)


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
