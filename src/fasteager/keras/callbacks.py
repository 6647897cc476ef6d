"""Training callbacks (``fe.keras.callbacks``): hooks ``Model.fit`` calls as it runs.

>>> stop = fe.keras.callbacks.EarlyStopping(monitor="val_loss", patience=2)
>>> model.fit(x, y, validation_split=0.2, epochs=50, callbacks=[stop])
"""
import os
import warnings

import numpy as np

from ..distribute import strategy as _distribute
from .utils import Progbar, _write


class Callback:
    """Base class: override the ``on_*`` hooks you need; ``self.model`` is the model."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass

    # as Keras 3: the training-batch hooks call the Keras 1 names, so a callback that
    # overrides only on_batch_begin/on_batch_end sees each training batch once
    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass

    # Keras 1 names
    def on_batch_begin(self, batch, logs=None): pass
    def on_batch_end(self, batch, logs=None): pass


def _pythonify_logs(logs):
    """Logs as Keras 3's CallbackList hands them to each hook: a new dict (``{}`` for
    None) in key order, nested dicts flattened, values as Python floats where they convert
    (a batch of predictions stays as it is)."""
    out = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            out.update(_pythonify_logs(value))
            continue
        if not isinstance(value, (list, tuple)):      # float() refuses these in Keras too
            try:
                array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
                if array.size == 1:        # Keras's float(value) takes any one-element array
                    value = float(array.reshape(()))
            except (TypeError, ValueError):
                pass
        out[key] = value
    return out


# Keras 3 hands the batch hooks their logs by keyword, the others positionally
_BATCH_HOOKS = frozenset(["on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
                          "on_test_batch_end", "on_predict_batch_begin",
                          "on_predict_batch_end", "on_batch_begin", "on_batch_end"])


class CallbackList:
    """Calls each hook on every callback in order, as Keras 3's: every hook receives logs
    (``{}`` when there are none), and the ``on_batch_*`` names are reached only through
    ``Callback.on_train_batch_*``."""

    def __init__(self, callbacks=None, model=None, **params):
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            if not isinstance(cb, Callback):
                raise TypeError("callbacks: expected fe.keras.callbacks.Callback instances "
                                "(got %r)" % (cb,))
            if model is not None:
                cb.set_model(model)
            cb.set_params(params)

    def __getattr__(self, hook):
        if not hook.startswith("on_") or not callable(getattr(Callback, hook, None)):
            raise AttributeError(hook)
        if hook in _BATCH_HOOKS:
            def call(batch, logs=None):
                logs = _pythonify_logs(logs)
                for cb in self.callbacks:
                    getattr(cb, hook)(batch, logs=logs)
        elif hook in ("on_epoch_begin", "on_epoch_end"):
            def call(epoch, logs=None):
                logs = _pythonify_logs(logs)
                for cb in self.callbacks:
                    getattr(cb, hook)(epoch, logs)
        else:
            def call(logs=None):
                logs = _pythonify_logs(logs)
                for cb in self.callbacks:
                    getattr(cb, hook)(logs)
        return call


class History(Callback):
    """Records each epoch's logs: ``history.history['loss']`` is a list per epoch."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


class ProgbarLogger(Callback):
    """The progress bar of ``fit``, ``evaluate`` and ``predict`` (added by them when
    ``verbose`` is not 0), as Keras 3's: ``Epoch i/n`` before each epoch when there are
    several, a bar per epoch (``verbose=1``) or one line at its end (``verbose=2``), values
    shown as the logs give them (they are running averages already); the validation run
    inside ``fit`` prints nothing."""

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()

    def on_predict_begin(self, logs=None):
        self._reset()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        if self.verbose and self.epochs > 1:
            _write("Epoch %d/%d\n" % (epoch + 1, self.epochs))

    def on_train_batch_end(self, batch, logs=None):
        self._update(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._update(batch, None)       # the bar shows no predictions

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs=None):
        self._finalize(None)

    def _reset(self):
        self.seen = 0
        self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step",
                               stateless_metrics=set())

    def _update(self, batch, logs):
        if self.progbar is None:
            self._reset()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs):
        if self.progbar is None:
            self._reset()
        if self.target is None:
            # steps unknown until the first epoch ends: later epochs draw a full bar
            self.target = self.progbar.target = self.seen
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)


def _monitor_mode(monitor, mode, cls):
    if mode not in ("auto", "min", "max"):
        raise ValueError("%s: mode must be 'auto', 'min' or 'max' (got %r)" % (cls, mode))
    if mode == "auto":
        mode = "max" if ("acc" in monitor or monitor.startswith("fmeasure")
                         or "auc" in monitor or "precision" in monitor
                         or "recall" in monitor) else "min"
    return mode


class EarlyStopping(Callback):
    """Stop training when ``monitor`` has stopped improving for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor = monitor
        self.patience = int(patience)
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.mode = _monitor_mode(monitor, mode, "EarlyStopping")
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights = None
        self.best_epoch = 0

    def _improved(self, current, reference):
        if reference is None:
            return True
        if self.mode == "min":
            return current - (-self.min_delta) < reference
        return current - self.min_delta > reference

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn("EarlyStopping: the monitored metric %r is not available (available: "
                          "%s)" % (self.monitor, ", ".join(sorted(logs or {}))), stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._improved(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch: %d."
                          % (self.best_epoch + 1))
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose:
            print("Epoch %d: early stopping" % (self.stopped_epoch + 1))


def _optimizer_lr(optimizer):
    lr = getattr(optimizer, "learning_rate", None)
    if lr is None:
        lr = getattr(optimizer, "lr", None)
    if hasattr(lr, "numpy"):
        return float(lr.numpy())
    if callable(lr):
        it = getattr(optimizer, "iterations", 0)
        return float(np.asarray(lr(it.numpy() if hasattr(it, "numpy") else it)))
    return float(lr)


def _set_optimizer_lr(optimizer, value):
    lr = getattr(optimizer, "learning_rate", None)
    if hasattr(lr, "assign"):
        lr.assign(np.asarray(value, dtype=lr.dtype.as_numpy_dtype))
    else:
        optimizer.learning_rate = float(value)


class LearningRateScheduler(Callback):
    """Set ``optimizer.learning_rate = schedule(epoch, lr)`` at the start of each epoch."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        opt = self.model.optimizer
        lr = _optimizer_lr(opt)
        try:
            lr = self.schedule(epoch, lr)
        except TypeError:        # a schedule of the epoch only, as Keras allows
            lr = self.schedule(epoch)
        lr = float(np.asarray(lr.numpy() if hasattr(lr, "numpy") else lr))
        if not np.isfinite(lr):
            raise ValueError("LearningRateScheduler: the schedule returned %r" % lr)
        _set_optimizer_lr(opt, lr)
        if self.verbose:
            print("\nEpoch %d: LearningRateScheduler setting learning rate to %s."
                  % (epoch + 1, lr))

    def on_epoch_end(self, epoch, logs=None):
        # Keras 3's log key (History and TensorBoard see it as 'learning_rate')
        if logs is not None:
            logs["learning_rate"] = _optimizer_lr(self.model.optimizer)


class ModelCheckpoint(Callback):
    """Save the model (or only its weights) after each epoch, or every ``save_freq``
    batches (or only the best, by ``monitor``).

    As Keras 3's: the whole model by default, to a ``.keras`` (or legacy ``.h5``) path;
    with ``save_weights_only=True`` the weights, to a ``.weights.h5`` path (fasteager's
    own ``.npz`` and ``.safetensors`` weights files are accepted too). ``filepath`` may
    contain ``{epoch:02d}``, ``{batch:02d}`` and log keys: ``'ckpt-{epoch:02d}.keras'``;
    missing folders are made. An integer ``save_freq`` counts batches across epochs and
    saves with that batch's logs, naming the epoch in progress.
    """

    _WEIGHTS_SUFFIXES = (".weights.h5", ".npz", ".safetensors")

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__()
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError("Unrecognized save_freq: %s. Expected save_freq are 'epoch' or "
                             "integer values" % (save_freq,))
        filepath = os.fspath(filepath)
        if save_weights_only:
            if not filepath.endswith(self._WEIGHTS_SUFFIXES):
                raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, "
                                 "the filepath provided must end in `.weights.h5` (Keras "
                                 "weights format). Received: filepath=%s" % filepath)
        elif not filepath.endswith((".keras", ".h5")):
            hint = (" (a weights file such as .npz or .safetensors needs "
                    "save_weights_only=True)" if filepath.endswith(self._WEIGHTS_SUFFIXES)
                    else "")
            raise ValueError("The filepath provided must end in `.keras` (Keras model "
                             "format). Received: filepath=%s%s" % (filepath, hint))
        self.filepath = filepath
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.mode = _monitor_mode(monitor, mode, "ModelCheckpoint")
        self.best = initial_value_threshold
        self._current_epoch = 0
        self._last_batch_seen = -1
        self._batches_since_saving = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        # batch numbers restart each epoch: a number not above the last one is a new epoch
        seen = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._last_batch_seen = batch
        self._batches_since_saving += seen
        if self._batches_since_saving >= self.save_freq:
            self._batches_since_saving = 0
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _save(self, epoch, batch, logs):
        if not _distribute.should_write():   # only the chief writes (multi-worker)
            return
        logs = logs or {}
        keys = dict(logs, epoch=epoch + 1)
        if batch is not None:
            keys["batch"] = batch + 1
        path = self.filepath.format(**keys)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn("ModelCheckpoint: can save best model only with %r available"
                              % self.monitor, stacklevel=3)
                return
            better = self.best is None or (current < self.best if self.mode == "min"
                                           else current > self.best)
            if not better:
                return
            self.best = current
        if self.verbose:
            print("\nEpoch %d: saving model to %s" % (epoch + 1, path))
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
        if self.verbose:
            print("\nEpoch %d: finished saving model to %s" % (epoch + 1, path))


class LambdaCallback(Callback):
    """A callback made of functions given by hook name, as Keras 3's: ``on_epoch_begin``,
    ``on_epoch_end``, ``on_train_begin``, ``on_train_end``, ``on_train_batch_begin``,
    ``on_train_batch_end`` and, by keyword, any other hook of ``Callback``. Epoch hooks are
    called with ``(epoch, logs)``, batch hooks with ``(batch, logs)``, the others with
    ``(logs)``."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, fn in hooks.items():
            if not name.startswith("on_") or not callable(getattr(Callback, name, None)):
                raise TypeError("LambdaCallback: unknown hook %r (expected one of Callback's "
                                "on_* methods)" % name)
            if fn is not None:
                setattr(self, name, fn)


class BackupAndRestore(Callback):
    """Back up the training state to ``backup_dir`` and resume an interrupted ``fit``.

    As Keras 3's callback: at the end of each epoch (``save_freq="epoch"``) or every
    ``save_freq`` batches the model's weights, the optimizer's state and the epoch are
    written to ``backup_dir``; a later ``fit`` with the same callback restores them at
    its start and continues from the first epoch not finished (with an integer
    ``save_freq``, from the start of the epoch that was running, as Keras does). With
    ``delete_checkpoint=True`` the backup is removed when training completes.

    The random generator's state (fit's shuffling, dropout) is backed up too, one per
    worker, so a resumed run reproduces the uninterrupted one. Under a multi-worker
    strategy only the chief writes; at restart the chief reads the backup and every
    worker takes its values (``backup_dir`` need only be on the chief's disk).

    >>> backup = fe.keras.callbacks.BackupAndRestore(backup_dir="/tmp/backup")
    >>> model.fit(x, y, epochs=10, callbacks=[backup])   # rerun the same after a crash
    """

    _METADATA = "training_metadata.json"

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False,
                 delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("BackupAndRestore: empty `backup_dir` argument passed "
                             "(expected a directory path, got %r)" % (backup_dir,))
        if save_freq != "epoch" and (isinstance(save_freq, bool) or
                                     not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError("BackupAndRestore: invalid value for argument `save_freq` "
                             "(expected 'epoch' or a positive integer, got %r)"
                             % (save_freq,))
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._current_epoch = 0
        self._last_batch_seen = 0
        self._batches_since_saving = 0
        self._saves = 0

    # -- what is saved ----------------------------------------------------------------------
    def _checkpoint(self):
        from ..train import Checkpoint
        deps = {"model": self.model}
        if getattr(self.model, "optimizer", None) is not None:
            deps["optimizer"] = self.model.optimizer
        return Checkpoint(**deps)

    @staticmethod
    def _rng_state():
        from ..ops import random_ops
        return {"global": random_ops._global_rng.bit_generator.state,
                "streams": [[list(key), rng.bit_generator.state]
                            for key, rng in random_ops._op_streams.items()]}

    @staticmethod
    def _set_rng_state(state):
        import numpy as np
        from ..ops import random_ops
        random_ops._global_rng.bit_generator.state = state["global"]
        random_ops._op_streams.clear()
        for key, value in state["streams"]:
            rng = np.random.default_rng()
            rng.bit_generator.state = value
            random_ops._op_streams[tuple(key)] = rng

    # -- hooks ------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        if not self.model.built:
            raise ValueError("BackupAndRestore: the model must be built before fit() "
                             "(model %r is unbuilt; build it beforehand by calling it on a "
                             "batch of data or with model.build(input_shape))"
                             % self.model.name)
        strategy = _distribute.strategy_for(self.model)
        comm = strategy._comm if strategy is not None else None
        chief = comm is None or comm.rank == 0
        metadata = self._restore() if chief else None
        if comm is not None:
            metadata = comm.bcast_obj(metadata)
        if metadata is None:
            return
        if strategy is not None:   # the workers take the chief's restored values
            self._build_optimizer()
            variables = list(self.model.variables)
            optimizer = getattr(self.model, "optimizer", None)
            if optimizer is not None:
                variables += [v for v in optimizer.variables
                              if all(v is not w for w in variables)]
            strategy._broadcast(variables)
        states = metadata.get("rng")
        if states:
            self._set_rng_state(states[(comm.rank if comm is not None else 0) % len(states)])
        self._saves = metadata.get("saves", 0)
        self.model._initial_epoch = metadata["epoch"]

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._last_batch_seen = 0
        if self.save_freq == "epoch":
            self._save()

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        # counted as Keras does: a batch index not above the last one starts an epoch
        added = batch + 1 if batch <= self._last_batch_seen else batch - self._last_batch_seen
        self._batches_since_saving += added
        self._last_batch_seen = batch
        if self._batches_since_saving >= self.save_freq:
            self._batches_since_saving = 0
            self._save()

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and _distribute.should_write() and \
                os.path.isdir(self.backup_dir):
            import shutil
            shutil.rmtree(self.backup_dir)

    # -- files ------------------------------------------------------------------------------
    def _build_optimizer(self):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            optimizer.build(self.model.trainable_variables)   # slots exist before restore

    def _read_metadata(self, name):
        import json
        path = os.path.join(self.backup_dir, name)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return json.load(f)

    def _restore(self):
        """Restore the latest backup (with ``double_checkpoint``, the previous one when the
        latest cannot be read); returns its metadata, or None when there is no backup."""
        from ..errors import OpError
        metadata = self._read_metadata(self._METADATA)
        if metadata is None:
            return None
        self._build_optimizer()
        try:
            self._checkpoint().restore(os.path.join(self.backup_dir, metadata["checkpoint"]))
        except (OSError, ValueError, OpError):
            previous = self._read_metadata(self._METADATA + ".bkp") \
                if self.double_checkpoint else None
            if previous is None:
                raise
            self._checkpoint().restore(os.path.join(self.backup_dir, previous["checkpoint"]))
            metadata = previous
        return metadata

    def _save(self):
        """Write a new checkpoint, then the metadata naming it (the atomic commit point),
        then remove older checkpoints: a crash at any moment leaves a consistent backup."""
        import json
        from .._atomic import atomic_write
        strategy = _distribute.strategy_for(self.model)
        rng = self._rng_state()
        # every worker's generator state (a collective: all workers reach this point)
        states = strategy._comm.allgather(rng) if strategy is not None else [rng]
        self._saves += 1
        if not _distribute.should_write():
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        name = "backup-%d" % self._saves
        self._checkpoint().write(os.path.join(self.backup_dir, name))
        metadata = {"epoch": self._current_epoch, "batch": self._last_batch_seen,
                    "checkpoint": name, "saves": self._saves, "rng": states}
        latest = os.path.join(self.backup_dir, self._METADATA)
        if self.double_checkpoint and os.path.exists(latest):
            with open(latest, "rb") as f:
                atomic_write(latest + ".bkp", f.read())
        atomic_write(os.path.join(self.backup_dir, self._METADATA),
                     json.dumps(metadata).encode())
        keep = {name}
        if self.double_checkpoint and self._saves > 1:
            keep.add("backup-%d" % (self._saves - 1))
        for entry in os.listdir(self.backup_dir):
            if entry.startswith("backup-") and entry.split(".")[0] not in keep:
                os.remove(os.path.join(self.backup_dir, entry))


class TensorBoard(Callback):
    """Write ``epoch_<metric>`` scalars to ``log_dir/train`` and ``log_dir/validation``.

    Files are TensorBoard event files written by ``fasteager.summary``; validation
    metrics (``val_*`` logs) go to the validation writer without the prefix, as Keras does.
    With ``update_freq`` an integer n, ``batch_<metric>`` scalars are written every n steps.
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 update_freq="epoch", profile_batch=0, embeddings_freq=0, **kwargs):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        if update_freq != "epoch" and not isinstance(update_freq, int):
            raise ValueError("TensorBoard: update_freq must be 'epoch' or an int (got %r)"
                             % (update_freq,))
        self.update_freq = update_freq
        self._writers = {}
        self._step = 0

    def _writer(self, which):
        w = self._writers.get(which)
        if w is None:
            from .. import summary
            w = self._writers[which] = summary.create_file_writer(
                os.path.join(self.log_dir, which))
        return w

    def on_train_begin(self, logs=None):
        self._step = 0

    def on_train_batch_end(self, batch, logs=None):
        self._step += 1
        if isinstance(self.update_freq, int) and self._step % self.update_freq == 0:
            from .. import summary
            with self._writer("train").as_default():
                for k, v in (logs or {}).items():
                    summary.scalar("batch_" + k, float(v), step=self._step)

    def on_epoch_end(self, epoch, logs=None):
        from .. import summary
        train, val = {}, {}
        for k, v in (logs or {}).items():
            if k.startswith("val_"):
                val[k[4:]] = v
            else:
                train[k] = v
        if "lr" in train:
            train["learning_rate"] = train.pop("lr")
        for which, values in (("train", train), ("validation", val)):
            if not values:
                continue
            with self._writer(which).as_default():
                for k, v in values.items():
                    summary.scalar("epoch_" + k, float(v), step=epoch)
                if which == "train" and self.histogram_freq and epoch % self.histogram_freq == 0:
                    for w in self.model.weights:
                        # Keras 3's tag: the weight's path (names alone repeat: 'kernel')
                        tag = getattr(w, "path", w.name).replace(":", "_") + "/histogram"
                        summary.histogram(tag, w.numpy(), step=epoch)
            self._writers[which].flush()

    def on_train_end(self, logs=None):
        for w in self._writers.values():
            w.close()
        self._writers = {}
