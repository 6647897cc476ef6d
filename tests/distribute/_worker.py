"""Launched by test_distribute.py under ``mpirun -n 2`` (or plainly): one scenario per
argument; prints ``OK <rank> ...`` lines the test checks."""
import os
import signal
import sys

import numpy as np

import fasteager as fe


def data(n=64, d=5, k=3, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, d)
    y = rng.randint(0, k, size=n)
    return x, y


def make_model(lazy=False):
    """Built at construction, or (``lazy``) at its first call, as Keras code usually is."""
    shape = {} if lazy else {"input_shape": (5,)}
    return fe.keras.Sequential([
        fe.keras.layers.Dense(8, activation="tanh", dtype="float64", **shape),
        fe.keras.layers.Dense(3, dtype="float64")])


def flat(model):
    return np.concatenate([np.asarray(v.numpy()).ravel() for v in model.trainable_variables])


def custom_loop(strategy, steps=20, batch=16, lazy=False, use_run=True):
    """``lazy``: the model builds at its first step and the optimizer is Adam (slots made
    at the first update); ``use_run=False``: the steps run outside ``strategy.run``."""
    x, y = data()
    ds = fe.data.Dataset.from_tensor_slices((x, y)).batch(batch).repeat()
    with strategy.scope():
        fe.random.set_seed(1000 + strategy.cluster_resolver.task_id)  # different per rank
        model = make_model(lazy)
        opt = fe.keras.optimizers.Adam(0.01) if lazy else fe.keras.optimizers.SGD(0.1)
    dist = strategy.experimental_distribute_dataset(ds)
    loss_fn = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(xb, yb):
        with fe.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    it = iter(dist)
    losses = []
    for _ in range(steps):
        xb, yb = next(it)
        loss = strategy.run(step, args=(xb, yb)) if use_run else step(xb, yb)
        losses.append(float(strategy.reduce(fe.distribute.ReduceOp.MEAN, loss)))
    return model, opt, losses


def report(out, mode, rank, n, value):
    """One result file per rank (mpirun may interleave the ranks' stdout)."""
    line = "OK %d %d %s" % (rank, n, value)
    with open(os.path.join(out, "ok-%s-%d-of-%d.txt" % (mode, rank, n)), "w") as f:
        f.write(line + "\n")
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def bn_model(synchronized, momentum=0.9):
    return fe.keras.Sequential([
        fe.keras.layers.Dense(6, input_shape=(5,), dtype="float64"),
        fe.keras.layers.BatchNormalization(momentum=momentum, synchronized=synchronized,
                                           dtype="float64"),
        fe.keras.layers.Activation("tanh", dtype="float64"),
        fe.keras.layers.Dense(3, dtype="float64")])


def bn_loop(strategy, synchronized, steps=12, batch=16):
    """A custom loop over a BatchNormalization model; also keeps, per worker, the
    moving mean/variance that worker alone would have (the ON_READ copies), from the
    Dense output's statistics on its own batch (numpy, independent of the layer)."""
    x, y = data(n=96)
    x = x.astype(np.float32)   # what the (float32) Sequential casts its inputs to
    n, r = strategy.num_replicas_in_sync, strategy.cluster_resolver.task_id
    with strategy.scope():
        fe.random.set_seed(2000 + r)
        model = bn_model(synchronized)
        opt = fe.keras.optimizers.SGD(0.1)
    loss_fn = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    bn = model.layers[1]
    shadow_mean, shadow_var = np.zeros(6), np.ones(6)
    for i in range(steps):
        lo = (i * batch) % len(x)
        xb, yb = x[lo:lo + batch], y[lo:lo + batch]
        xb, yb = xb[r * batch // n:(r + 1) * batch // n], yb[r * batch // n:(r + 1) * batch // n]
        h = np.asarray(model.layers[0](xb).numpy())
        shadow_mean = 0.9 * shadow_mean + 0.1 * h.mean(axis=0)
        shadow_var = 0.9 * shadow_var + 0.1 * h.var(axis=0)

        def step(xb, yb):
            with fe.GradientTape() as tape:
                loss = loss_fn(yb, model(xb, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
        strategy.run(step, args=(xb, yb))
    return model, bn, shadow_mean, shadow_var


def sync_bn_gradient_check(strategy):
    """The gradient of the workers' summed loss with respect to this worker's input,
    through BatchNormalization(synchronized=True), against central differences in which
    every worker evaluates the loss while one worker perturbs one input entry."""
    n, r = strategy.num_replicas_in_sync, strategy.cluster_resolver.task_id
    rng = np.random.RandomState(10 + r)       # different inputs and loss weights per rank
    x = rng.randn(3, 2) * 2.0 + 1.0
    w = rng.randn(3, 2)
    with strategy.scope():
        layer = fe.keras.layers.BatchNormalization(synchronized=True, dtype="float64",
                                                   gamma_initializer="ones")
        layer.build((None, 2))
    layer.gamma.assign([1.5, -0.7])
    layer.beta.assign([0.2, 0.1])

    def local_loss(xt):   # nonlinear in the output, so the variance's gradient matters
        out = layer(xt, training=True)
        return fe.reduce_sum(fe.square(out) * w + out * w)

    xt = fe.constant(x)
    with fe.GradientTape() as tape:
        tape.watch(xt)
        loss = local_loss(xt)
    analytic = np.asarray(tape.gradient(loss, xt).numpy())
    eps = 1e-6
    numeric = np.zeros_like(x)
    for owner in range(n):
        for i in range(x.size):
            total = []
            for sign in (1.0, -1.0):
                xp = x.copy()
                if r == owner:
                    xp.flat[i] += sign * eps
                total.append(float(strategy.reduce(fe.distribute.ReduceOp.SUM,
                                                   local_loss(fe.constant(xp)))))
            if r == owner:
                numeric.flat[i] = (total[0] - total[1]) / (2 * eps)
    err = np.abs(analytic - numeric).max()
    assert err < 1e-6, (analytic, numeric)
    return err


class KillAt(fe.keras.callbacks.Callback):
    """SIGKILL this worker at (epoch, batch) of fit, once: the marker file records it, so
    rerunning the same command trains through."""

    def __init__(self, epoch, batch, marker):
        super().__init__()
        self.at, self.marker, self.epoch = (epoch, batch), marker, None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == self.at and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)


def resumable_fit(strategy, out, tag, kill, save_freq):
    """fit with BackupAndRestore; ``kill`` is "none" or "rank:epoch:batch"."""
    rank = strategy.cluster_resolver.task_id
    x, y = data(n=128)
    x = x.astype(np.float32)
    fe.random.set_seed(50 + rank)      # dropout masks and shuffles differ per rank
    with strategy.scope():
        model = fe.keras.Sequential([
            fe.keras.layers.Dense(8, activation="relu", input_shape=(5,)),
            fe.keras.layers.Dropout(0.2),
            fe.keras.layers.BatchNormalization(),
            fe.keras.layers.Dense(3)])
        model.compile(fe.keras.optimizers.Adam(0.01),
                      fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    callbacks = [fe.keras.callbacks.BackupAndRestore(
        os.path.join(out, "backup-" + tag),
        save_freq="epoch" if save_freq == "epoch" else int(save_freq))]
    if kill != "none":
        kill_rank, epoch, batch = (int(v) for v in kill.split(":"))
        if rank == kill_rank:
            callbacks.append(KillAt(epoch, batch, os.path.join(out, "killed-" + tag)))
    model.fit(x, y, batch_size=16, epochs=4, verbose=0, shuffle=True, callbacks=callbacks)
    return np.concatenate([np.ravel(a) for a in model.get_weights()])


def same_on_every_rank(strategy, values, what="variables"):
    """Gather ``values`` (a flat array) from every rank and require them bit-identical."""
    every = np.asarray(strategy.gather(np.asarray(values)[None], axis=0).numpy())
    for r in range(1, len(every)):
        assert np.array_equal(every[0], every[r]), "%s differ across ranks (max %g)" % (
            what, np.abs(every[0] - every[r]).max())


def main(mode, out):
    strategy = fe.distribute.MultiWorkerMirroredStrategy()
    rank, n = strategy.cluster_resolver.task_id, strategy.num_replicas_in_sync
    if mode in ("loop", "loop_lazy", "loop_lazy_norun", "single_lazy"):
        lazy = mode != "loop"
        model, opt, losses = custom_loop(strategy, lazy=lazy,
                                         use_run=mode != "loop_lazy_norun")
        w = flat(model)
        np.save(os.path.join(out, "%s-%d-of-%d.npy" % (mode, rank, n)), w)
        same_on_every_rank(strategy, w)
        if lazy:   # the optimizer's slots (made at the first update) agree too
            slots = [np.ravel(v.numpy()).astype(np.float64) for v in opt.variables]
            assert len(slots) > 2 * len(model.trainable_variables), len(slots)  # m, v each
            same_on_every_rank(strategy, np.concatenate(slots), "optimizer slots")
        report(out, mode, rank, n, losses[-1])
    elif mode in ("bn", "bn_sync", "single_bn"):
        # "single_bn": one process, full batches, ordinary BatchNormalization: the
        # reference for "bn_sync" (global-batch statistics on 2 ranks of half batches)
        model, bn, shadow_mean, shadow_var = bn_loop(strategy, synchronized=mode == "bn_sync")
        stats = np.concatenate([bn.moving_mean.numpy(), bn.moving_variance.numpy()])
        same_on_every_rank(strategy, flat(model))
        same_on_every_rank(strategy, stats, "moving statistics")
        # ON_READ / MEAN: what every worker reads is the mean of the workers' own copies
        shadows = np.asarray(strategy.gather(
            np.concatenate([shadow_mean, shadow_var])[None], axis=0).numpy())
        if mode == "bn":
            np.testing.assert_allclose(stats, shadows.mean(axis=0), rtol=0, atol=1e-12)
        saved = np.concatenate([np.ravel(a) for a in model.get_weights()])
        np.save(os.path.join(out, "%s-%d-of-%d.npy" % (mode, rank, n)), saved)
        if mode == "bn_sync":
            err = sync_bn_gradient_check(strategy)
            report(out, mode, rank, n, err)
        else:
            report(out, mode, rank, n, float(np.abs(stats).sum()))
    elif mode == "bn_fit":
        # fit and evaluate a BatchNormalization model with metrics on 2 ranks; the test
        # checks the reduced numbers against one process evaluating the saved weights
        x, y = data(n=96)
        x = x.astype(np.float32)
        with strategy.scope():
            fe.random.set_seed(3000 + rank)
            model = bn_model(synchronized=False)
            model.compile(fe.keras.optimizers.SGD(0.1),
                          fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                          metrics=["accuracy"])
        bn = [layer for layer in model.layers
              if isinstance(layer, fe.keras.layers.BatchNormalization)][0]
        seen = []
        record = fe.keras.callbacks.LambdaCallback(
            on_train_batch_end=lambda batch, logs: seen.append(bn.moving_mean.numpy().copy()))
        model.fit(x, y, batch_size=16, epochs=2, verbose=0, callbacks=[record])
        # the replayed train step moves the averaged statistics at every step, not only at
        # the traced first one
        assert all(not np.array_equal(a, b) for a, b in zip(seen, seen[1:])), \
            "moving statistics stood still"
        ev = model.evaluate(x, y, batch_size=32, verbose=0, return_dict=True)
        saved = model.get_weights()
        same_on_every_rank(strategy, np.concatenate([np.ravel(a) for a in saved]))
        same_on_every_rank(strategy, np.array([ev["loss"], ev["accuracy"]]), "evaluate")
        np.savez(os.path.join(out, "bn_fit-%d-of-%d.npz" % (rank, n)), *saved,
                 loss=ev["loss"], accuracy=ev["accuracy"])
        report(out, mode, rank, n, ev["accuracy"])
    elif mode == "bn_eval":
        # one process: the weights rank 0 ended with, evaluated on the full data
        x, y = data(n=96)
        model = bn_model(synchronized=False)
        model.compile("sgd", fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        with np.load(os.path.join(out, "bn_fit-0-of-2.npz")) as f:
            model.set_weights([f["arr_%d" % i] for i in range(len(model.get_weights()))])
        ev = model.evaluate(x.astype(np.float32), y, batch_size=32, verbose=0,
                            return_dict=True)
        np.save(os.path.join(out, "bn_eval.npy"), np.array([ev["loss"], ev["accuracy"]]))
        report(out, mode, rank, n, ev["accuracy"])
    elif mode == "resume":
        tag = sys.argv[3]
        w = resumable_fit(strategy, out, tag, kill=sys.argv[4], save_freq=sys.argv[5])
        same_on_every_rank(strategy, w)
        np.save(os.path.join(out, "resume-%s-%d-of-%d.npy" % (tag, rank, n)), w)
        report(out, mode + "-" + tag, rank, n, float(np.abs(w).sum()))
    elif mode == "hang":
        # a peer that stops answering without dying (mpirun cannot notice): with a
        # collective timeout the waiting rank aborts the job
        strategy = fe.distribute.MultiWorkerMirroredStrategy(
            communication_options=fe.distribute.experimental.CommunicationOptions(
                timeout_seconds=float(sys.argv[3])))
        with strategy.scope():
            model = make_model()
        if rank == n - 1:
            os.kill(os.getpid(), signal.SIGSTOP)
        strategy.reduce(fe.distribute.ReduceOp.SUM, flat(model))
        print("UNREACHABLE", rank)
    elif mode == "metrics_loop":
        # metrics made in the scope, updated in strategy.run on each worker's rows:
        # result() outside any scope covers every worker, inside strategy.run this one
        model, _, _ = custom_loop(strategy, steps=5)
        x, y = data()
        with strategy.scope():
            accuracy = fe.keras.metrics.SparseCategoricalAccuracy()
            mean_logit = fe.keras.metrics.Mean()
        rows = []
        for lo in range(0, len(x), 16):
            part = np.arange(lo, lo + 16)[rank * 16 // n:(rank + 1) * 16 // n]
            rows.append(part)

            def update(xb, yb):
                logits = model(xb)
                accuracy.update_state(yb, logits)
                mean_logit.update_state(fe.reduce_max(logits, axis=1))
            strategy.run(update, args=(x[part], y[part]))
        mine = np.concatenate(rows)
        logits = np.asarray(model(x).numpy())
        right = (logits.argmax(axis=1) == y).astype(np.float64)
        everyone = np.arange((len(x) // 16) * 16)
        assert abs(float(accuracy.result()) - right[everyone].mean()) < 1e-6
        assert abs(float(mean_logit.result()) - logits.max(axis=1)[everyone].mean()) < 1e-5
        local = float(strategy.run(accuracy.result))
        assert abs(local - right[mine].mean()) < 1e-6, (local, right[mine].mean())
        report(out, mode, rank, n, float(accuracy.result()))
    elif mode == "lazy_fit":
        # the example: built at the first step of fit, ranks seeded differently
        rng = np.random.RandomState(0)
        x = rng.randn(512, 20).astype(np.float32)
        y = (x[:, :1] * 0.5 - x[:, 1:2]).astype(np.float32)
        fe.random.set_seed(77 + rank)
        with strategy.scope():
            model = fe.keras.Sequential([fe.keras.layers.Dense(16, activation="relu"),
                                         fe.keras.layers.Dense(1)])
            model.compile(optimizer=fe.keras.optimizers.SGD(0.05), loss="mse")
        assert not model.built
        hist = model.fit(x, y, batch_size=64, epochs=3, verbose=0)
        assert fe.distribute.current_strategy() is None
        w = flat(model)
        np.save(os.path.join(out, "lazy_fit-%d-of-%d.npy" % (rank, n)), w)
        same_on_every_rank(strategy, w)
        losses = hist.history["loss"]
        same_on_every_rank(strategy, np.array(losses), "reduced losses")
        assert losses[-1] < losses[0], losses
        report(out, mode, rank, n, losses[-1])
    elif mode == "fit":
        x, y = data(n=96)
        with strategy.scope():
            model = make_model()
            model.compile(fe.keras.optimizers.SGD(0.1),
                          fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                          metrics=["accuracy"])
        hist = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=True,
                         validation_data=(x, y))
        ev = model.evaluate(x, y, batch_size=32, verbose=0, return_dict=True)
        w = flat(model)
        allw = np.asarray(strategy.gather(w[None], axis=0).numpy())
        assert np.array_equal(allw[0], allw[-1]), "variables differ across ranks"
        # the reduced metrics are the same on every worker
        logs = np.array([ev["loss"], ev["accuracy"], hist.history["loss"][-1]])
        all_logs = np.asarray(strategy.gather(logs[None], axis=0).numpy())
        assert np.allclose(all_logs[0], all_logs[-1]), all_logs
        report(out, mode, rank, n, ev)
    elif mode == "ckpt":
        with strategy.scope():
            model = make_model()
            model.build((None, 5))
            opt = fe.keras.optimizers.SGD(0.1)
        ckpt = fe.train.Checkpoint(model=model, optimizer=opt)
        manager = fe.train.CheckpointManager(ckpt, os.path.join(out, "ckpt"), max_to_keep=2)
        writer = fe.summary.create_file_writer(os.path.join(out, "logs-%d" % rank))
        with writer.as_default():
            fe.summary.scalar("x", 1.0, step=0)
        writer.flush()
        saved = flat(model)
        path = manager.save()
        strategy.barrier()
        for v in model.trainable_variables:
            v.assign(np.zeros(v.shape.as_list()))
        ckpt.restore(fe.train.latest_checkpoint(os.path.join(out, "ckpt")))
        assert np.array_equal(flat(model), saved), "restore failed on rank %d" % rank
        report(out, mode, rank, n, path)
    elif mode == "raise":
        with strategy.scope():
            model = make_model()
            model.build((None, 5))
        if rank == n - 1:
            raise RuntimeError("worker %d failed on purpose" % rank)
        strategy.barrier()   # the others wait here: the job must still end
        print("UNREACHABLE", rank)
    elif mode == "single":
        assert n == 1 and rank == 0 and fe.distribute.current_strategy() is None
        model, _, losses = custom_loop(strategy)
        np.save(os.path.join(out, "loop-single.npy"), flat(model))
        assert fe.distribute.should_write()
        report(out, mode, rank, n, losses[-1])
    else:
        raise SystemExit("unknown mode %r" % mode)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
