"""keras.callbacks.BackupAndRestore in one process (the MPI resume tests are in
test_distribute.py)."""
import json
import os

import numpy as np
import pytest

import fasteager as fe


class Interrupt(Exception):
    pass


class InterruptAt(fe.keras.callbacks.Callback):
    """Raise at (epoch, batch): a run that stops in the middle of an epoch."""

    def __init__(self, epoch, batch):
        super().__init__()
        self.at, self.epoch = (epoch, batch), None

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if (self.epoch, batch) == self.at:
            raise Interrupt()


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 4).astype(np.float32)
    return x, (x[:, :1] * 2 - x[:, 1:2]).astype(np.float32)


def _model():
    # dropout and fit's shuffling draw random numbers; Adam has slots; BN moving stats
    fe.random.set_seed(3)
    model = fe.keras.Sequential([fe.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                 fe.keras.layers.Dropout(0.3),
                                 fe.keras.layers.BatchNormalization(),
                                 fe.keras.layers.Dense(1)])
    model.compile(fe.keras.optimizers.Adam(0.01), "mse")
    return model


def _fit(model, callbacks, epochs=4):
    x, y = _data()
    return model.fit(x, y, batch_size=8, epochs=epochs, verbose=0, callbacks=callbacks)


@pytest.fixture
def reference():
    model = _model()
    _fit(model, [])
    return model.get_weights()


def _assert_same(weights, expected):
    assert len(weights) == len(expected)
    for a, b in zip(weights, expected):
        np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore:fe.function")
def test_resume_after_an_interruption_gives_the_uninterrupted_weights(tmp_path, reference):
    backup = str(tmp_path / "backup")
    with pytest.raises(Interrupt):
        _fit(_model(), [fe.keras.callbacks.BackupAndRestore(backup), InterruptAt(2, 3)])
    with open(os.path.join(backup, "training_metadata.json")) as f:
        metadata = json.load(f)
    assert metadata["epoch"] == 2
    assert sorted(os.listdir(backup)) == ["backup-2.safetensors", "training_metadata.json"]
    model = _model()            # a fresh process would build the same model again
    history = _fit(model, [fe.keras.callbacks.BackupAndRestore(backup)])
    assert len(history.history["loss"]) == 2          # epochs 2 and 3 only
    _assert_same(model.get_weights(), reference)
    assert not os.path.exists(backup)                 # delete_checkpoint=True
    # the optimizer state came back too: its step count is the full run's
    assert int(model.optimizer.iterations.numpy()) == 4 * 8


@pytest.mark.filterwarnings("ignore:fe.function")
def test_without_a_backup_training_starts_at_epoch_zero_and_keeps_it_on_request(tmp_path,
                                                                                reference):
    backup = str(tmp_path / "backup")
    model = _model()
    history = _fit(model, [fe.keras.callbacks.BackupAndRestore(backup,
                                                               delete_checkpoint=False)])
    assert len(history.history["loss"]) == 4
    _assert_same(model.get_weights(), reference)
    with open(os.path.join(backup, "training_metadata.json")) as f:
        assert json.load(f)["epoch"] == 4
    # a finished backup makes a rerun train no further epochs
    again = _model()
    history = _fit(again, [fe.keras.callbacks.BackupAndRestore(backup)])
    assert history.history.get("loss", []) == []
    _assert_same(again.get_weights(), reference)


@pytest.mark.filterwarnings("ignore:fe.function")
def test_integer_save_freq_backs_up_every_n_batches(tmp_path):
    backup = str(tmp_path / "backup")
    with pytest.raises(Interrupt):
        _fit(_model(), [fe.keras.callbacks.BackupAndRestore(backup, save_freq=3),
                        InterruptAt(1, 6)])
    with open(os.path.join(backup, "training_metadata.json")) as f:
        metadata = json.load(f)
    # 8 batches an epoch: saves after batches 2, 5 (epoch 0), 0, 3, 6 (epoch 1)
    assert (metadata["epoch"], metadata["batch"]) == (1, 6)
    model = _model()
    history = _fit(model, [fe.keras.callbacks.BackupAndRestore(backup, save_freq=3)])
    assert len(history.history["loss"]) == 3          # epoch 1 again, then 2 and 3


@pytest.mark.filterwarnings("ignore:fe.function")
def test_double_checkpoint_falls_back_to_the_previous_backup(tmp_path):
    backup = str(tmp_path / "backup")
    with pytest.raises(Interrupt):
        _fit(_model(), [fe.keras.callbacks.BackupAndRestore(backup, double_checkpoint=True),
                        InterruptAt(2, 0)])
    assert sorted(os.listdir(backup)) == ["backup-1.safetensors", "backup-2.safetensors",
                                          "training_metadata.json",
                                          "training_metadata.json.bkp"]
    with open(os.path.join(backup, "backup-2.safetensors"), "wb") as f:
        f.write(b"not a checkpoint")              # the latest backup is unreadable
    model = _model()
    history = _fit(model, [fe.keras.callbacks.BackupAndRestore(backup, double_checkpoint=True)])
    assert len(history.history["loss"]) == 3          # resumed after epoch index 0


def test_arguments_are_checked_and_the_model_must_be_built(tmp_path):
    with pytest.raises(ValueError, match="empty `backup_dir`"):
        fe.keras.callbacks.BackupAndRestore("")
    for bad in ("batch", 0, True, 2.5):
        with pytest.raises(ValueError, match="save_freq"):
            fe.keras.callbacks.BackupAndRestore(str(tmp_path), save_freq=bad)
    lazy = fe.keras.Sequential([fe.keras.layers.Dense(1)])
    lazy.compile("sgd", "mse")
    x, y = _data()
    with pytest.raises(ValueError, match="must be built before fit"):
        lazy.fit(x, y, epochs=1, verbose=0,
                 callbacks=[fe.keras.callbacks.BackupAndRestore(str(tmp_path / "b"))])
