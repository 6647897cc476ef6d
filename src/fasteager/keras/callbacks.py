"""Training callbacks (``fe.keras.callbacks``): hooks ``Model.fit`` calls as it runs.

>>> stop = fe.keras.callbacks.EarlyStopping(monitor="val_loss", patience=2)
>>> model.fit(x, y, validation_split=0.2, epochs=50, callbacks=[stop])
"""
import os
import warnings

import numpy as np

from .. import summary
from .._src.io.atomic import atomic_write
from .._src.state import replicas
from ..distribute import strategy as _distribute
from ..errors import OpError
from ..ops import random_ops
from ..train.checkpoint import Checkpoint
from .optimizers import schedules as _schedules
from .optimizers.base import _var_key
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
        if not replicas.should_write():   # only the chief writes (multi-worker)
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
        deps = {"model": self.model}
        if getattr(self.model, "optimizer", None) is not None:
            deps["optimizer"] = self.model.optimizer
        return Checkpoint(**deps)

    @staticmethod
    def _rng_state():
        return {"global": random_ops._global_rng.bit_generator.state,
                "streams": [[list(key), rng.bit_generator.state]
                            for key, rng in random_ops._op_streams.items()]}

    @staticmethod
    def _set_rng_state(state):
        import numpy as np
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
        if self.delete_checkpoint and replicas.should_write() and \
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
        strategy = _distribute.strategy_for(self.model)
        rng = self._rng_state()
        # every worker's generator state (a collective: all workers reach this point)
        states = strategy._comm.allgather(rng) if strategy is not None else [rng]
        self._saves += 1
        if not replicas.should_write():
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
            w = self._writers[which] = summary.create_file_writer(
                os.path.join(self.log_dir, which))
        return w

    def on_train_begin(self, logs=None):
        self._step = 0

    def on_train_batch_end(self, batch, logs=None):
        self._step += 1
        if isinstance(self.update_freq, int) and self._step % self.update_freq == 0:
            with self._writer("train").as_default():
                for k, v in (logs or {}).items():
                    summary.scalar("batch_" + k, float(v), step=self._step)

    def on_epoch_end(self, epoch, logs=None):
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


class CSVLogger(Callback):
    """Write each epoch's logs as a row of ``filename`` (Keras 3's format: an ``epoch``
    column, then the log keys sorted, with ``val_*`` columns added when the first epoch
    had none; ``append=True`` continues an existing file without a second header)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename, "r") as f:
                    self.append_header = not f.readline()
            mode = "a"
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode)
        self.writer = None
        self.keys = None

    @staticmethod
    def _cell(value):
        # a 1-D array or list is written as one quoted "[a, b]" cell, as Keras does
        if isinstance(value, str):
            return value
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return value
        try:
            iter(value)
        except TypeError:
            return value
        return '"[%s]"' % ", ".join(map(str, value))

    def on_epoch_end(self, epoch, logs=None):
        import csv
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            # the first epoch had no validation: keep columns for it anyway (Keras 3)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys.extend("val_" + k for k in list(self.keys))
        if self.writer is None:
            dialect = type("_CSVLoggerDialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((k, self._cell(logs.get(k, "NA"))) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


def _plain_optimizer(model):
    opt = model.optimizer
    return getattr(opt, "inner_optimizer", opt)     # a LossScaleOptimizer's own


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by ``factor`` (not below ``min_lr``) once ``monitor``
    has not improved by ``min_delta`` for ``patience`` epochs, then wait ``cooldown``
    epochs; each epoch's logs get the current ``learning_rate``, as in Keras 3."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn("ReduceLROnPlateau mode '%s' is unknown, fallback to auto mode."
                          % (mode,), stacklevel=2)
            mode = "auto"
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0. "
                             "Received factor=%s" % (factor,))
        self.monitor = monitor
        self.mode = mode
        self.min_delta = abs(min_delta)
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = None
        self._minimize = None

    def _set_direction(self):
        # Keras 3's MonitorCallback: 'auto' minimizes a loss and follows the metric's
        # direction otherwise (accuracy, AUC, precision, recall go up)
        if self.mode != "auto":
            self._minimize = self.mode == "min"
        else:
            name = self.monitor[4:] if self.monitor.startswith("val_") else self.monitor
            self._minimize = _monitor_mode(name, "auto", "ReduceLROnPlateau") == "min"
        if self._minimize:
            self.min_delta = -self.min_delta

    def _improved(self, current):
        if self.best is None:
            return True
        if self._minimize:
            return current - self.min_delta < self.best
        return current - self.min_delta > self.best

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def _reduce(self, optimizer, epoch):
        old_lr = _optimizer_lr(optimizer)
        if not old_lr > np.float32(self.min_lr):
            return False
        current = getattr(optimizer, "_learning_rate", getattr(optimizer, "learning_rate",
                                                                None))
        if isinstance(current, _schedules.LearningRateSchedule) or (
                callable(current) and not hasattr(current, "assign")):
            # Keras's learning_rate setter refuses a schedule
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its "
                "`learning_rate` constructor argument, hence its learning rate is not "
                "settable. If you need the learning rate to be settable, you should "
                "instantiate the optimizer with a float `learning_rate` argument.")
        new_lr = max(old_lr * self.factor, self.min_lr)
        _set_optimizer_lr(optimizer, new_lr)
        if self.verbose > 0:
            print("\nEpoch %d: ReduceLROnPlateau reducing learning rate to %s."
                  % (epoch + 1, new_lr))
        return True

    def on_epoch_end(self, epoch, logs=None):
        if self._minimize is None:
            self._set_direction()
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = _optimizer_lr(optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn("Learning rate reduction is conditioned on metric `%s` which is "
                          "not available. Available metrics are: %s."
                          % (self.monitor, ",".join(logs)), stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce(optimizer, epoch):
                self.cooldown_counter = self.cooldown
                self.wait = 0


class TerminateOnNaN(Callback):
    """Stop training at the first training batch whose loss is NaN or infinite
    (``raise_error=True``: raise ``RuntimeError`` there instead, as Keras 3)."""

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None or not (np.isnan(loss) or np.isinf(loss)):
            return
        if self.raise_error:
            raise RuntimeError("NaN or Inf loss encountered at batch %s. Loss value: %s. "
                               "Terminating training immediately." % (batch, loss))
        print("Batch %s: Invalid loss, terminating training" % (batch,))
        self.model.stop_training = True


class SwapEMAWeights(Callback):
    """With an optimizer made with ``use_ema=True``: evaluate and predict run on the
    moving averages of the weights (``swap_on_epoch=True``: so do the epoch-end
    callbacks, and the model keeps the averages when training ends)."""

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _optimizer(self):
        opt = _plain_optimizer(self.model)
        if not getattr(opt, "use_ema", False):
            raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on "
                             "the optimizer. Received: use_ema=%s"
                             % (getattr(opt, "use_ema", None),))
        return opt

    def _pairs(self, opt):
        return [(v._mutable_array(), opt._slots[_var_key(v)]["average"]._mutable_array())
                for v in opt._tracked_variables]

    def _swap_variables(self):
        # TensorFlow's Keras swaps by additions (w+=a; a=w-a; w-=a), which rounds:
        # the same float steps here keep the values equal to Keras's
        for w, a in self._pairs(self._optimizer()):
            w += a
            a[...] = w - a
            w -= a

    def _finalize_ema_values(self):
        for w, a in self._pairs(self._optimizer()):
            a[...] = w

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True
            # fit ends by giving the weights their averages: after the last epoch the
            # averages must be the (swapped-in) averages, not the raw weights
            if epoch == self.params["epochs"] - 1:
                self._finalize_ema_values()

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_predict_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_predict_end(self, logs=None):
        # Keras 3.15.1 tests the flag the wrong way round here, so after predict the
        # averages stay in the model; kept, so the values stay Keras's
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False


class RemoteMonitor(Callback):
    """POST each epoch's logs to ``root + path``: form field ``field`` holding the JSON of
    ``{"epoch": epoch, **logs}``, or the JSON body with ``send_as_json=True``. Needs the
    ``requests`` package, as Keras 3; an unreachable server gives a warning."""

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/",
                 field="data", headers=None, send_as_json=False):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch, logs=None):
        import json
        try:
            import requests
        except ImportError:
            raise ImportError("RemoteMonitor requires the `requests` library.") from None
        send = {"epoch": epoch}
        for k, v in (logs or {}).items():
            # NumPy scalars and arrays are not JSON: their Python value is sent
            send[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
        try:
            if self.send_as_json:
                requests.post(self.root + self.path, json=send, headers=self.headers)
            else:
                requests.post(self.root + self.path, {self.field: json.dumps(send)},
                              headers=self.headers)
        except requests.exceptions.RequestException:
            warnings.warn("Could not reach RemoteMonitor root server at %s" % self.root,
                          stacklevel=2)
