"""Data-parallel MNIST on MPI with ``fe.distribute.MultiWorkerMirroredStrategy``.

    python examples/distributed_mnist.py                          # one process: plain eager
    mpirun -n 2 python examples/distributed_mnist.py              # 2 workers on this machine
    mpirun -np 4 --hostfile hosts python examples/distributed_mnist.py   # 4 workers, many hosts
    mpirun -n 2 python examples/distributed_mnist.py --loop custom --model convnet
    mpirun -n 2 python examples/distributed_mnist.py --bench 30   # time 30 steps, then stop
    mpirun -n 2 python examples/distributed_mnist.py --backup-dir runs/backup  # resumable

(As root add ``--allow-run-as-root``; with more ranks than cores ``--oversubscribe``.)

Every worker runs this same script. The model is created inside ``strategy.scope()``
without input shapes: it builds at its first step, under the strategy, so its weights
start as rank 0's on every worker; ``--batch`` is the global batch, split evenly over
the workers; gradients are averaged over the workers at every step, so N workers take the
same steps as one worker on the whole batch. Only the chief (rank 0) writes the checkpoint
(``--ckpt-dir``) and the TensorBoard logs (``--logdir``); every worker then restores the
checkpoint and evaluates, and the reduced test accuracy is printed once. With
``--backup-dir`` ``fit`` backs up every epoch (``BackupAndRestore``): if a worker dies
the job ends, and running the same command again resumes from the chief's last backup.
``--timeout`` makes a collective that waits longer than that abort the job (a hung peer).

Data: MNIST by the examples' data rule (``examples/_data.py``: ``$FASTEAGER_DATA/mnist``, the
cache, a download, else the offline digits); every host must find the same data.
"""
import argparse
import time

import numpy as np

import fasteager as fe

from _data import load_mnist  # the examples' data rule

keras = fe.keras


def build(kind):
    L = keras.layers
    if kind == "mlp":
        layers = [L.Flatten(), L.Dense(128, activation="relu"), L.Dense(10)]
    else:
        layers = [L.Conv2D(32, 3, activation="relu"),
                  L.MaxPooling2D(2), L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(2),
                  L.Flatten(), L.Dropout(0.25), L.Dense(128, activation="relu"), L.Dense(10)]
    return keras.Sequential(layers)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", choices=["mlp", "convnet"], default="mlp")
    p.add_argument("--loop", choices=["fit", "custom"], default="fit")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch", type=int, default=128, help="global batch size")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--steps", type=int, default=None, help="steps per epoch (default: all)")
    p.add_argument("--bench", type=int, default=0,
                   help="time this many custom-loop steps (all-reduce share included), exit")
    p.add_argument("--ckpt-dir", default="runs/distributed_mnist/ckpt")
    p.add_argument("--logdir", default="runs/distributed_mnist/logs")
    p.add_argument("--backup-dir", default=None,
                   help="fit: back up every epoch here and resume from it when rerun")
    p.add_argument("--timeout", type=float, default=None,
                   help="abort the job when a collective waits this many seconds")
    args = p.parse_args(argv)

    options = fe.distribute.experimental.CommunicationOptions(timeout_seconds=args.timeout)
    strategy = fe.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    rank, n = strategy.cluster_resolver.task_id, strategy.num_replicas_in_sync
    say = print if rank == 0 else (lambda *a, **k: None)
    say("%d worker(s); global batch %d, %d per worker" % (n, args.batch, args.batch // n))

    _, ((x_train, y_train), (x_test, y_test)) = load_mnist()
    x_train = (x_train[..., None] / 255.0).astype(np.float32)
    x_test = (x_test[..., None] / 255.0).astype(np.float32)
    y_train, y_test = y_train.astype(np.int64), y_test.astype(np.int64)

    fe.random.set_seed(rank)   # different per worker: the scope makes the weights agree
    with strategy.scope():
        model = build(args.model)
        optimizer = keras.optimizers.Adam(args.lr)
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        model.compile(optimizer, loss_fn, metrics=["accuracy"])
        if args.backup_dir:   # BackupAndRestore needs the weights before fit (as Keras)
            model.build((None, 28, 28, 1))

    # the same shuffled order on every worker; each takes its slice of every global batch
    train = fe.data.Dataset.from_tensor_slices((x_train, y_train)) \
        .shuffle(10000, seed=0).batch(args.batch, drop_remainder=True)
    dist_train = strategy.experimental_distribute_dataset(train)

    if args.bench or args.loop == "custom":
        def step(xb, yb):
            with fe.GradientTape() as tape:
                loss = loss_fn(yb, model(xb, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        if args.bench:
            reduce_time = [0.0]
            inner = strategy._all_reduce_gradients

            def timed(*a):
                t0 = time.perf_counter()
                out = inner(*a)
                reduce_time[0] += time.perf_counter() - t0
                return out
            strategy._all_reduce_gradients = timed
            it = iter(dist_train)
            for _ in range(3):                       # warm-up
                strategy.run(step, args=next(it))
            strategy.barrier()
            reduce_time[0] = 0.0
            t0 = time.perf_counter()
            for _ in range(args.bench):
                strategy.run(step, args=next(it))
            strategy.barrier()
            wall = time.perf_counter() - t0
            ar = strategy.reduce("MEAN", reduce_time[0] / args.bench)
            n_params = sum(int(np.prod(v.shape.as_list())) for v in model.trainable_variables)
            # the fused all-reduce alone (pack, Allreduce, unpack), workers already in step
            fake = [np.ones(v.shape.as_list(), np.float32) for v in model.trainable_variables]
            strategy.barrier()
            t1 = time.perf_counter()
            for _ in range(50):
                inner(fake, model.trainable_variables)
            pure = strategy.reduce("MEAN", (time.perf_counter() - t1) / 50)
            say("bench %s: %d workers, %d params, %.1f ms/step, %.0f samples/s; all-reduce "
                "in the step %.2f ms (%.1f%%, waiting for the slower worker included), fused "
                "all-reduce alone %.3f ms" % (
                    args.model, n, n_params, 1e3 * wall / args.bench,
                    args.batch * args.bench / wall, 1e3 * float(ar),
                    100 * float(ar) * args.bench / wall, 1e3 * float(pure)))
            return
        writer = fe.summary.create_file_writer(args.logdir)   # a no-op on non-chief workers
        for epoch in range(args.epochs):
            t0 = time.time()
            losses = []
            for i, (xb, yb) in enumerate(dist_train):
                if args.steps and i >= args.steps:
                    break
                losses.append(strategy.reduce("MEAN", strategy.run(step, args=(xb, yb))))
            loss = float(np.mean([float(v) for v in losses]))
            with writer.as_default():
                fe.summary.scalar("loss", loss, step=epoch)
            say("epoch %d: loss %.4f (%.1f s)" % (epoch + 1, loss, time.time() - t0))
    else:
        callbacks = [keras.callbacks.TensorBoard(args.logdir)]   # writes on the chief only
        if args.backup_dir:
            callbacks.append(keras.callbacks.BackupAndRestore(args.backup_dir))
        model.fit(dist_train, epochs=args.epochs, steps_per_epoch=args.steps,
                  verbose=2 if rank == 0 else 0, callbacks=callbacks)

    ckpt = fe.train.Checkpoint(model=model, optimizer=optimizer)
    manager = fe.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=2)
    path = manager.save()          # written by the chief; the call is a no-op elsewhere
    strategy.barrier()             # every worker waits until the file is there
    ckpt.restore(fe.train.latest_checkpoint(args.ckpt_dir))
    say("checkpoint %s restored on every worker" % path)
    result = model.evaluate(x_test, y_test, batch_size=1000, verbose=0, return_dict=True)
    say("test loss %.4f, test accuracy %.4f (over all workers)"
        % (result["loss"], result["accuracy"]))


if __name__ == "__main__":
    main()
