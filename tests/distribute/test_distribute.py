"""fe.distribute.MultiWorkerMirroredStrategy: 2 MPI ranks on loopback (mpirun) and the
single-process fallback. The MPI tests launch tests/distribute/_worker.py."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import fasteager as fe
from tests.child_process import child_env
from tests.conftest import skip_without_example_data

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_worker.py")


def _have_mpi4py():
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


needs_mpi = pytest.mark.skipif(
    shutil.which("mpirun") is None or not _have_mpi4py(),
    reason="needs Open MPI's mpirun and mpi4py (apt-get install openmpi-bin libopenmpi-dev; "
           "pip install 'fasteager[mpi]')")


def _env():
    env = child_env()   # the ranks import the fasteager this process imported
    env.setdefault("OMP_NUM_THREADS", "1")
    for k in [k for k in env if k.startswith(("OMPI_COMM_WORLD", "PMI_", "PMIX_"))]:
        del env[k]
    return env


def _mpirun(mode, out, n=2, timeout=60, args=()):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(n),
           sys.executable, WORKER, mode, str(out)] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env(),
                          check=False)


def _plain(mode, out, timeout=60):
    return subprocess.run([sys.executable, WORKER, mode, str(out)], capture_output=True,
                          text=True, timeout=timeout, env=_env(), check=False)


def _ok_lines(out, mode):
    """The result lines the ranks wrote (files: mpirun may interleave their stdout)."""
    lines = []
    for name in sorted(os.listdir(out)):
        if name.startswith("ok-%s-" % mode):
            with open(os.path.join(out, name)) as f:
                lines.append(f.read().strip())
    return lines


@needs_mpi
def test_custom_loop_matches_single_process_on_full_batch(tmp_path):
    single = _plain("single", tmp_path)
    assert single.returncode == 0, single.stderr
    proc = _mpirun("loop", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(_ok_lines(tmp_path, "loop")) == 2
    w0 = np.load(tmp_path / "loop-0-of-2.npy")
    w1 = np.load(tmp_path / "loop-1-of-2.npy")
    ws = np.load(tmp_path / "loop-single.npy")
    assert w0.dtype == np.float64
    np.testing.assert_array_equal(w0, w1)            # identical on every rank
    np.testing.assert_allclose(w0, ws, atol=1e-5, rtol=0)   # 2 x B/2 == 1 x B, 20 steps
    # the reduced losses printed by each rank agree with the single process
    losses = {float(line.split()[3]) for line in _ok_lines(tmp_path, "loop")}
    assert len(losses) == 1
    assert abs(losses.pop() - float(_ok_lines(tmp_path, "single")[0].split()[3])) < 1e-6


@needs_mpi
def test_fit_and_evaluate_reduce_metrics_and_keep_ranks_identical(tmp_path):
    proc = _mpirun("fit", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(_ok_lines(tmp_path, "fit")) == 2


@needs_mpi
def test_only_chief_writes_checkpoints_and_summaries_and_all_restore(tmp_path):
    proc = _mpirun("ckpt", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(_ok_lines(tmp_path, "ckpt")) == 2
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["checkpoint", "ckpt-1.safetensors"]
    assert os.listdir(tmp_path / "logs-0")          # the chief's summary events
    assert not os.path.exists(tmp_path / "logs-1")  # the worker's writer is a no-op


@needs_mpi
def test_a_failing_worker_ends_the_job_with_its_error(tmp_path):
    proc = _mpirun("raise", tmp_path, timeout=60)   # a hang would raise TimeoutExpired
    assert proc.returncode != 0
    assert "worker 1 failed on purpose" in proc.stderr
    assert "UNREACHABLE" not in proc.stdout


def test_without_mpirun_it_is_a_single_replica(tmp_path):
    proc = _plain("single", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _ok_lines(tmp_path, "single")


def test_single_replica_api_in_process():
    strategy = fe.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.cluster_resolver.task_id == 0
    assert strategy.cluster_resolver.task_type == "worker"
    assert strategy.extended.should_checkpoint
    assert fe.distribute.current_strategy() is None
    with strategy.scope():
        assert fe.distribute.current_strategy() is strategy
        v = fe.Variable([1.0, 2.0])
        model = fe.keras.Sequential([fe.keras.layers.Dense(2, input_shape=(3,))])
        model.compile("sgd", "mse")
    assert fe.distribute.current_strategy() is None
    x = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    model.fit(x, x[:, :2], batch_size=4, epochs=1, verbose=0)
    assert strategy.run(lambda a, b: a + b, args=(1, 2)) == 3
    t = fe.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(strategy.reduce(fe.distribute.ReduceOp.SUM, t).numpy(),
                               t.numpy())
    np.testing.assert_allclose(
        strategy.reduce(fe.distribute.ReduceOp.MEAN, t, axis=0).numpy(), [2.0, 3.0])
    np.testing.assert_allclose(strategy.gather(t, axis=0).numpy(), t.numpy())
    ds = fe.data.Dataset.from_tensor_slices(np.arange(6.0)).batch(2)
    assert strategy.experimental_distribute_dataset(ds) is ds
    assert v.numpy().tolist() == [1.0, 2.0]
    assert fe.distribute.should_write()


# -- objects made in strategy.scope() belong to the strategy (lazy builds) -----------------
@needs_mpi
def test_lazy_model_in_fit_ends_identical_on_every_rank(tmp_path):
    # the example: Dense layers without input shapes, built at fit's first step,
    # with each rank's random seed different (so unsynchronised weights would differ)
    proc = _mpirun("lazy_fit", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(_ok_lines(tmp_path, "lazy_fit")) == 2
    np.testing.assert_array_equal(np.load(tmp_path / "lazy_fit-0-of-2.npy"),
                                  np.load(tmp_path / "lazy_fit-1-of-2.npy"))


@needs_mpi
@pytest.mark.parametrize("mode", ["loop_lazy", "loop_lazy_norun"])
def test_lazy_custom_loop_with_adam_matches_single_process(tmp_path, mode):
    # built at the first step (inside strategy.run, or in a plain loop), Adam's slots
    # made at the first update: identical on every rank and equal to one process
    # training on the full batch
    single = _plain("single_lazy", tmp_path)
    assert single.returncode == 0, single.stderr
    proc = _mpirun(mode, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    w0 = np.load(tmp_path / ("%s-0-of-2.npy" % mode))
    np.testing.assert_array_equal(w0, np.load(tmp_path / ("%s-1-of-2.npy" % mode)))
    np.testing.assert_allclose(w0, np.load(tmp_path / "single_lazy-0-of-1.npy"),
                               atol=1e-9, rtol=0)


def test_objects_remember_the_strategy_of_their_construction():
    strategy = fe.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        layer = fe.keras.layers.Dense(2)
        opt = fe.keras.optimizers.SGD(0.1)
        metric = fe.keras.metrics.Mean()
    outside = fe.keras.layers.Dense(2)
    assert layer._distribute_strategy is strategy
    assert opt._distribute_strategy is strategy
    assert metric._distribute_strategy is strategy
    assert outside._distribute_strategy is None
    # a single replica owns nothing that needs synchronising
    assert fe.distribute.strategy.owner_of(layer) is None


def test_scope_is_per_thread():
    import threading
    strategy = fe.distribute.MultiWorkerMirroredStrategy()
    seen = []
    with strategy.scope():
        t = threading.Thread(target=lambda: seen.append(fe.distribute.current_strategy()))
        t.start()
        t.join()
        assert fe.distribute.current_strategy() is strategy
    assert seen == [None]


def test_communication_options_are_checked():
    opts = fe.distribute.experimental.CommunicationOptions(timeout_seconds=5)
    assert opts.timeout_seconds == 5
    fe.distribute.MultiWorkerMirroredStrategy(communication_options=opts)
    with pytest.raises(ValueError, match="timeout_seconds must be positive"):
        fe.distribute.experimental.CommunicationOptions(timeout_seconds=0)
    with pytest.raises(TypeError, match="timeout_seconds must be a number"):
        fe.distribute.experimental.CommunicationOptions(timeout_seconds="5")
    with pytest.raises(TypeError, match="communication_options must be"):
        fe.distribute.MultiWorkerMirroredStrategy(communication_options={"timeout": 5})


# -- BatchNormalization: ON_READ / MEAN moving statistics, synchronized=True ---------------
@needs_mpi
def test_batchnorm_moving_statistics_read_as_the_mean_over_workers(tmp_path):
    # the worker checks its moving statistics against the mean of the copies each worker
    # would hold alone (computed with numpy from its own batches) and that both ranks agree
    proc = _mpirun("bn", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(_ok_lines(tmp_path, "bn")) == 2
    np.testing.assert_array_equal(np.load(tmp_path / "bn-0-of-2.npy"),
                                  np.load(tmp_path / "bn-1-of-2.npy"))


@needs_mpi
def test_synchronized_batchnorm_uses_global_batch_statistics_with_their_gradient(tmp_path):
    # 2 ranks on half batches with synchronized=True train exactly as one process on
    # the full batches (weights and moving statistics); the worker also checks the
    # gradient through the all-reduce against central differences across ranks
    single = _plain("single_bn", tmp_path)
    assert single.returncode == 0, single.stderr
    proc = _mpirun("bn_sync", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    errors = [float(line.split()[3]) for line in _ok_lines(tmp_path, "bn_sync")]
    assert len(errors) == 2 and max(errors) < 1e-6
    w0 = np.load(tmp_path / "bn_sync-0-of-2.npy")
    np.testing.assert_array_equal(w0, np.load(tmp_path / "bn_sync-1-of-2.npy"))
    np.testing.assert_allclose(w0, np.load(tmp_path / "single_bn-0-of-1.npy"),
                               atol=1e-10, rtol=0)


@needs_mpi
def test_fit_and_evaluate_with_batchnorm_report_exact_metrics(tmp_path):
    proc = _mpirun("bn_fit", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    single = _plain("bn_eval", tmp_path)
    assert single.returncode == 0, single.stderr
    with np.load(tmp_path / "bn_fit-0-of-2.npz") as f:
        distributed = np.array([f["loss"], f["accuracy"]])
    # the 2-rank evaluate equals one process evaluating the same weights on all data
    np.testing.assert_allclose(distributed, np.load(tmp_path / "bn_eval.npy"),
                               rtol=1e-6, atol=0)


def test_batchnorm_synchronized_argument():
    layer = fe.keras.layers.BatchNormalization(synchronized=True)
    assert layer.get_config()["synchronized"] is True
    assert fe.keras.layers.BatchNormalization.from_config(
        layer.get_config()).synchronized is True
    with pytest.raises(TypeError, match="synchronized must be a bool"):
        fe.keras.layers.BatchNormalization(synchronized="yes")
    # without a multi-worker strategy it is the ordinary layer
    x = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    plain = fe.keras.layers.BatchNormalization()
    np.testing.assert_allclose(layer(x, training=True).numpy(),
                               plain(x, training=True).numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(layer.moving_mean.numpy(), plain.moving_mean.numpy())


def test_batchnorm_train_step_is_traced_not_eager():
    # the moving averages are updated with tensor arithmetic: fe.function replays the
    # train step (no "runs eagerly" warning) and the statistics still move each step
    import warnings
    model = fe.keras.Sequential([fe.keras.layers.Dense(4, input_shape=(3,)),
                                 fe.keras.layers.BatchNormalization(),
                                 fe.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x = np.random.RandomState(1).randn(32, 3).astype(np.float32)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="fe.function")
        model.fit(x, x[:, :1], batch_size=8, epochs=1, verbose=0)
    after_one = model.layers[1].moving_mean.numpy().copy()
    model.fit(x, x[:, :1], batch_size=8, epochs=1, verbose=0)
    assert not np.allclose(after_one, model.layers[1].moving_mean.numpy())


# -- fault handling: a killed worker ends the job; BackupAndRestore resumes it -------------
@needs_mpi
def test_killed_worker_ends_the_job_and_rerun_resumes_to_the_same_weights(tmp_path):
    # uninterrupted reference (dropout, shuffling, BatchNormalization, Adam)
    ref = _mpirun("resume", tmp_path, args=("ref", "none", "epoch"))
    assert ref.returncode == 0, ref.stdout + ref.stderr
    # rank 1 SIGKILLs itself in the middle of epoch 2 while rank 0 waits in a collective:
    # the job must end (a hang would raise TimeoutExpired) with a failure status
    cmd = ("resume", tmp_path, 2, 60, ("b", "1:2:1", "epoch"))
    first = _mpirun(*cmd)
    assert first.returncode != 0
    assert os.path.exists(tmp_path / "killed-b")
    assert not _ok_lines(tmp_path, "resume-b")
    with open(tmp_path / "backup-b" / "training_metadata.json") as f:
        assert json.load(f)["epoch"] == 2      # the chief's backup after epoch index 1
    # the same command again resumes from that backup and ends where the reference did
    second = _mpirun(*cmd)
    assert second.returncode == 0, second.stdout + second.stderr
    assert len(_ok_lines(tmp_path, "resume-b")) == 2
    expected = np.load(tmp_path / "resume-ref-0-of-2.npy")
    for rank in range(2):
        np.testing.assert_array_equal(np.load(tmp_path / ("resume-b-%d-of-2.npy" % rank)),
                                      expected)
    assert not os.path.exists(tmp_path / "backup-b")   # delete_checkpoint=True


@needs_mpi
def test_killed_chief_with_batch_backups_resumes_and_finishes(tmp_path):
    # save_freq=3 (batches): the chief itself dies mid-epoch; the rerun restores the last
    # batch backup and restarts that epoch (Keras 3 semantics), both ranks ending equal
    cmd = ("resume", tmp_path, 2, 60, ("c", "0:2:3", "3"))
    first = _mpirun(*cmd)
    assert first.returncode != 0
    with open(tmp_path / "backup-c" / "training_metadata.json") as f:
        metadata = json.load(f)
    # 8 batches an epoch, a backup every 3: after batches 2, 5 | 0, 3, 6 | 1 (epoch 2)
    assert (metadata["epoch"], metadata["batch"]) == (2, 1)
    second = _mpirun(*cmd)
    assert second.returncode == 0, second.stdout + second.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "resume-c-0-of-2.npy"),
                                  np.load(tmp_path / "resume-c-1-of-2.npy"))


@needs_mpi
def test_collective_timeout_aborts_a_job_whose_peer_hangs(tmp_path):
    # rank 1 stops (SIGSTOP) without dying, which mpirun cannot notice; with
    # CommunicationOptions(timeout_seconds=3) rank 0 aborts the job instead of waiting
    proc = _mpirun("hang", tmp_path, timeout=60, args=("3",))
    assert proc.returncode != 0
    assert "did not complete within 3 s" in proc.stderr
    assert "UNREACHABLE" not in proc.stdout


@needs_mpi
@pytest.mark.data
def test_distributed_mnist_example_runs_with_a_backup(tmp_path):
    skip_without_example_data()
    example = os.path.join(HERE, "..", "..", "examples", "distributed_mnist.py")
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", sys.executable,
           example, "--epochs", "2", "--steps", "5", "--backup-dir", str(tmp_path / "bk"),
           "--timeout", "120", "--ckpt-dir", str(tmp_path / "ckpt"),
           "--logdir", str(tmp_path / "logs")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=_env(),
                          cwd=tmp_path, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "restored on every worker" in proc.stdout
    assert "test accuracy" in proc.stdout
    assert not os.path.exists(tmp_path / "bk")     # removed once training completed


@needs_mpi
def test_metrics_made_in_scope_report_every_worker_outside_strategy_run(tmp_path):
    proc = _mpirun("metrics_loop", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    values = {line.split()[3] for line in _ok_lines(tmp_path, "metrics_loop")}
    assert len(values) == 1 and len(_ok_lines(tmp_path, "metrics_loop")) == 2
