"""fe.distribute.MirroredStrategy on logical CPUs: replicas in threads, replica contexts,
PerReplica values, reductions, distributed datasets, and training equal to one replica on
the global batch. Expected printed forms were taken from TensorFlow 2.21."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import fasteager as fe
from tests.child_process import child_env


def _two():
    return fe.distribute.MirroredStrategy(devices=["cpu:0", "/cpu:1"])


def test_logical_device_configuration_in_a_fresh_process():
    # the configuration is fixed once the devices are initialized: a child process
    # starts with nothing initialized
    code = textwrap.dedent("""
        import fasteager as tf
        cpu = tf.config.list_physical_devices("CPU")
        assert tf.config.get_logical_device_configuration(cpu[0]) is None
        tf.config.experimental.set_virtual_device_configuration(
            cpu[0], [tf.config.experimental.VirtualDeviceConfiguration()] * 3)
        print(tf.config.get_logical_device_configuration(cpu[0])[0])
        print(tf.config.list_logical_devices("CPU"))
        tf.config.set_logical_device_configuration(
            cpu[0], [tf.config.LogicalDeviceConfiguration()] * 3)   # the same: allowed
        try:
            tf.config.set_logical_device_configuration(
                cpu[0], [tf.config.LogicalDeviceConfiguration()] * 2)
        except RuntimeError as e:
            print("RuntimeError", e)
    """)
    out = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == ("LogicalDeviceConfiguration(memory_limit=None, experimental_priority="
                        "None, experimental_device_ordinal=None)")
    assert lines[1] == ("[LogicalDevice(name='/device:CPU:0', device_type='CPU'), "
                        "LogicalDevice(name='/device:CPU:1', device_type='CPU'), "
                        "LogicalDevice(name='/device:CPU:2', device_type='CPU')]")
    assert lines[2] == "RuntimeError Virtual devices cannot be modified after being initialized"


def test_logical_device_configuration_bad_input():
    cpu = fe.config.list_physical_devices("CPU")[0]
    with pytest.raises(TypeError, match="LogicalDeviceConfiguration"):
        fe.config.set_logical_device_configuration(cpu, [object()])
    with pytest.raises(ValueError, match="list_physical_devices"):
        fe.config.set_logical_device_configuration("/cpu:0", [])


def test_devices_and_replica_count():
    s = fe.distribute.MirroredStrategy(
        devices=["cpu:0", "/cpu:1", "/job:localhost/replica:0/task:0/device:CPU:2"])
    assert s.num_replicas_in_sync == 3
    assert s.extended.worker_devices == tuple(
        "/job:localhost/replica:0/task:0/device:CPU:%d" % i for i in range(3))
    assert fe.distribute.MirroredStrategy().num_replicas_in_sync == 1
    with pytest.raises(ValueError, match="duplicates"):
        fe.distribute.MirroredStrategy(devices=["cpu:0", "/device:CPU:0"])
    with pytest.raises(TypeError, match="devices"):
        fe.distribute.MirroredStrategy(devices="cpu:0")


def test_run_one_thread_per_replica_with_its_context():
    s = _two()
    seen = {}

    def fn(x):
        ctx = fe.distribute.get_replica_context()
        rid = int(ctx.replica_id_in_sync_group.numpy())
        seen[rid] = (threading.current_thread(), ctx.num_replicas_in_sync,
                     fe.distribute.get_strategy() is s, fe.distribute.in_cross_replica_context())
        return x * 2.0 + fe.cast(ctx.replica_id_in_sync_group, fe.float32)

    r = s.run(fn, args=(fe.constant(1.0),))
    assert isinstance(r, fe.distribute.PerReplica)
    assert [float(v.numpy()) for v in s.experimental_local_results(r)] == [2.0, 3.0]
    assert len({seen[0][0], seen[1][0], threading.current_thread()}) == 3   # own threads
    assert seen[0][1:] == seen[1][1:] == (2, True, False)
    assert str(r) == ("PerReplica:{\n  0: %s,\n  1: %s\n}" % (r.values[0], r.values[1]))
    assert repr(r).startswith("PerReplica:{\n  0: %r," % (r.values[0],))


def test_contexts_outside_and_inside_scope():
    s = _two()
    assert fe.distribute.get_replica_context().num_replicas_in_sync == 1
    assert not fe.distribute.in_cross_replica_context()
    with s.scope():
        assert fe.distribute.get_replica_context() is None
        assert fe.distribute.in_cross_replica_context()
        assert fe.distribute.get_strategy() is s


def test_same_object_is_returned_plain():
    s = _two()
    c = fe.constant(3.0)
    assert s.run(lambda: c) is c
    assert s.run(lambda: None) is None


def test_each_replica_has_its_own_tape():
    s = _two()
    v = fe.Variable(2.0)

    def fn():
        k = fe.cast(fe.distribute.get_replica_context().replica_id_in_sync_group,
                    fe.float32) + 1.0
        with fe.GradientTape() as tape:
            y = k * v * v
        return tape.gradient(y, v)

    grads = s.run(fn)
    assert [float(g.numpy()) for g in grads.values] == [4.0, 8.0]


def test_all_reduce_and_merge_call():
    s = fe.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])

    def reduce_fn():
        ctx = fe.distribute.get_replica_context()
        x = fe.constant(1.0) + fe.cast(ctx.replica_id_in_sync_group, fe.float32)
        return ctx.all_reduce("SUM", x), ctx.all_reduce(fe.distribute.ReduceOp.MEAN, x)

    total, mean = s.run(reduce_fn)
    assert [float(t.numpy()) for t in total.values] == [6.0, 6.0, 6.0]
    assert [float(t.numpy()) for t in mean.values] == [2.0, 2.0, 2.0]

    calls = []

    def merge_fn(strategy, x):
        calls.append(type(x).__name__)
        assert fe.distribute.get_replica_context() is None   # cross-replica context
        return strategy.reduce("SUM", x, axis=None)

    def fn():
        ctx = fe.distribute.get_replica_context()
        return ctx.merge_call(merge_fn, args=(fe.constant(1.0),))

    out = s.run(fn)
    assert calls == ["PerReplica"]
    assert float(out.numpy()) == 3.0


def test_reduce_gather_local_results():
    s = fe.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])
    r = s.run(lambda: fe.constant([1.0, 2.0]) * fe.cast(
        fe.distribute.get_replica_context().replica_id_in_sync_group + 1, fe.float32))
    np.testing.assert_array_equal(s.gather(r, axis=0).numpy(), [1, 2, 2, 4, 3, 6])
    np.testing.assert_array_equal(s.reduce("SUM", r, axis=None).numpy(), [6, 12])
    assert float(s.reduce("SUM", r, axis=0).numpy()) == 18.0
    assert float(s.reduce("MEAN", r, axis=0).numpy()) == 3.0
    assert float(s.reduce(fe.distribute.ReduceOp.MEAN, r, axis=None).numpy()[1]) == 4.0
    with pytest.raises(ValueError, match="reduce_op"):
        s.reduce("MAX", r, axis=None)


def test_distribute_dataset_splits_each_global_batch():
    s = fe.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])
    dist = s.experimental_distribute_dataset(fe.data.Dataset.range(10).batch(4))
    got = [[list(v.numpy()) for v in b.values] for b in dist]
    # TensorFlow's split: ceil(batch / replicas) examples each, in order
    assert got == [[[0, 1], [2, 3], []], [[4, 5], [6, 7], []], [[8], [9], []]]
    seen = []
    for batch in s.experimental_distribute_dataset(
            fe.data.Dataset.from_tensor_slices((np.arange(4.0), np.arange(4))).batch(4)):
        x, y = batch
        seen.append(s.run(lambda a, b: fe.reduce_sum(a) + fe.cast(fe.reduce_sum(b), fe.float64),
                          args=(x, y)))
    assert [float(v.numpy()) for v in seen[0].values] == [0 + 1 + 0 + 1, 2 + 3 + 2 + 3, 0]


def test_distribute_datasets_from_function():
    s = _two()

    def dataset_fn(ctx):
        assert ctx.num_replicas_in_sync == 2
        assert ctx.get_per_replica_batch_size(8) == 4
        return fe.data.Dataset.range(12).batch(ctx.get_per_replica_batch_size(8))

    got = [[list(v.numpy()) for v in b.values]
           for b in s.distribute_datasets_from_function(dataset_fn)]
    assert got == [[[0, 1, 2, 3], [4, 5, 6, 7]], [[8, 9, 10, 11], []]]


def test_error_in_one_replica_is_raised_without_hanging():
    s = _two()

    def fn():
        ctx = fe.distribute.get_replica_context()
        if int(ctx.replica_id_in_sync_group.numpy()) == 1:
            raise KeyError("replica one failed")
        return ctx.all_reduce("SUM", fe.constant(1.0))   # replica 0 waits for replica 1

    with pytest.raises(KeyError, match="replica one failed"):
        s.run(fn)
    with pytest.raises(RuntimeError, match="inside a replica function"):
        s.run(lambda: s.run(lambda: None))


def test_compute_average_loss():
    loss = fe.nn.compute_average_loss(fe.constant([1.0, 2.0, 3.0]), global_batch_size=6)
    assert float(loss.numpy()) == 1.0
    w = fe.nn.compute_average_loss(fe.constant([1.0, 2.0]), sample_weight=fe.constant([2.0, 0.0]))
    assert float(w.numpy()) == 1.0
    s = _two()
    out = s.run(lambda: fe.nn.compute_average_loss(fe.constant([4.0, 4.0])))
    assert float(out.values[0].numpy()) == 2.0     # default: local batch x replicas


def _model(seed):
    rng = np.random.default_rng(seed)
    model = fe.keras.Sequential([fe.keras.Input(shape=(3,)),
                                 fe.keras.layers.Dense(4, activation="tanh"),
                                 fe.keras.layers.Dense(1)])
    model.set_weights([rng.normal(size=w.shape).astype(np.float32)
                       for w in model.get_weights()])
    return model


def _data():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    y = rng.normal(size=(16, 1)).astype(np.float32)
    return x, y


@pytest.mark.parametrize("make_optimizer", [lambda: fe.keras.optimizers.SGD(0.1),
                                            lambda: fe.keras.optimizers.Adam(0.01)])
def test_custom_loop_equals_one_replica_on_the_global_batch(make_optimizer):
    x, y = _data()
    global_batch = 8
    dataset = fe.data.Dataset.from_tensor_slices((x, y)).batch(global_batch)

    def per_example(model, xb, yb):
        return fe.reduce_sum(fe.square(model(xb) - yb), axis=1)

    single = _model(0)
    opt = make_optimizer()
    for xb, yb in dataset:
        with fe.GradientTape() as tape:
            loss = fe.reduce_mean(per_example(single, xb, yb))
        opt.apply_gradients(zip(tape.gradient(loss, single.trainable_variables),
                                single.trainable_variables))

    s = _two()
    with s.scope():
        model = _model(0)
        dopt = make_optimizer()

    def train_step(inputs):
        xb, yb = inputs
        with fe.GradientTape() as tape:
            loss = fe.nn.compute_average_loss(per_example(model, xb, yb),
                                              global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        dopt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = []
    for batch in s.experimental_distribute_dataset(dataset):
        per_replica = s.run(train_step, args=(batch,))
        losses.append(float(s.reduce("SUM", per_replica, axis=None).numpy()))
    assert int(dopt.iterations.numpy()) == 2          # one update per step, not per replica
    for a, b in zip(model.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert all(np.isfinite(losses))


def test_fit_under_scope_trains_as_without_strategy():
    x, y = _data()
    plain = _model(1)
    plain.compile(fe.keras.optimizers.SGD(0.05), "mse")
    h1 = plain.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    s = _two()
    with s.scope():
        model = _model(1)
        model.compile(fe.keras.optimizers.SGD(0.05), "mse")
    h2 = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(h2.history["loss"], h1.history["loss"], rtol=1e-5)
    assert h2.history["loss"][1] < h2.history["loss"][0]
    for a, b in zip(model.get_weights(), plain.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_layers_built_on_the_first_run_are_built_once():
    s = fe.distribute.MirroredStrategy(devices=["cpu:%d" % i for i in range(4)])
    with s.scope():
        model = fe.keras.Sequential([fe.keras.layers.Dense(16), fe.keras.layers.Dense(1)])
        opt = fe.keras.optimizers.Adam(0.1)

    def step(x):
        with fe.GradientTape() as tape:
            loss = fe.nn.compute_average_loss(fe.reduce_sum(model(x) ** 2, axis=1),
                                              global_batch_size=8)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
        return loss

    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
    for batch in s.experimental_distribute_dataset(fe.data.Dataset.from_tensor_slices(x).batch(8)):
        out = s.run(step, args=(batch,))
    assert len(model.variables) == 4
    assert int(opt.iterations.numpy()) == 1
    assert len(out.values) == 4


def test_all_reduce_is_differentiable():
    s = fe.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1", "cpu:2"])

    def fn():
        ctx = fe.distribute.get_replica_context()
        c = fe.cast(ctx.replica_id_in_sync_group, fe.float32) + 1.0
        x = fe.Variable(c * 0.5)
        with fe.GradientTape() as tape:
            total = ctx.all_reduce("SUM", x * x)
            mean_pair = ctx.all_reduce("MEAN", (x, 2.0 * x))
            loss = c * total + c * (mean_pair[0] + mean_pair[1])
        return tape.gradient(loss, x)

    # d/dx_r of the replicas' summed losses: 2 x_r (1 + 2 + 3) + mean(c) * 3
    grads = [float(g.numpy()) for g in s.run(fn).values]
    np.testing.assert_allclose(grads, [2 * 0.5 * 6 + 6, 2 * 1.0 * 6 + 6, 2 * 1.5 * 6 + 6])


def test_run_inside_a_function_runs_every_step():
    s = _two()
    with s.scope():
        model = _model(2)
        opt = fe.keras.optimizers.SGD(0.1)

    def step(xb):
        with fe.GradientTape() as tape:
            loss = fe.nn.compute_average_loss(fe.reduce_sum(model(xb) ** 2, axis=1),
                                              global_batch_size=4)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
        return loss

    @fe.function
    def distributed_step(batch):
        return s.reduce("SUM", s.run(step, args=(batch,)), axis=None)

    x, _ = _data()
    dataset = fe.data.Dataset.from_tensor_slices(x[:4]).batch(4).repeat(3)
    with pytest.warns(UserWarning, match="MirroredStrategy.run"):
        losses = [float(distributed_step(b).numpy())
                  for b in s.experimental_distribute_dataset(dataset)]
    assert int(opt.iterations.numpy()) == 3
    assert losses[0] > losses[1] > losses[2]


def test_cross_device_ops_choices_give_the_same_sums():
    for ops in (None, fe.distribute.HierarchicalCopyAllReduce(),
                fe.distribute.ReductionToOneDevice(), fe.distribute.NcclAllReduce()):
        s = fe.distribute.MirroredStrategy(["cpu:0", "cpu:1"], cross_device_ops=ops)
        out = s.run(lambda: fe.distribute.get_replica_context().all_reduce(
            "SUM", fe.constant([1.0, 2.0])))
        np.testing.assert_array_equal(out.values[1].numpy(), [2.0, 4.0])
    with pytest.raises(TypeError, match="cross_device_ops"):
        fe.distribute.MirroredStrategy(["cpu:0"], cross_device_ops="nccl")


def test_distribute_dataset_needs_batches():
    s = _two()
    with pytest.raises(ValueError, match="batch"):
        next(iter(s.experimental_distribute_dataset(fe.data.Dataset.range(3))))


def test_scale_regularization_loss():
    assert float(fe.nn.scale_regularization_loss(fe.constant(2.0)).numpy()) == 2.0
    s = fe.distribute.MirroredStrategy(["cpu:0", "cpu:1", "cpu:2", "cpu:3"])
    out = s.run(lambda: fe.nn.scale_regularization_loss(fe.constant(2.0)))
    assert [float(v.numpy()) for v in out.values] == [0.5] * 4


def test_tutorial_loop_metrics_and_checkpoint_without_strategy(tmp_path):
    # the pattern of TensorFlow's "Custom training with tf.distribute.Strategy" tutorial
    x, y = _data()
    labels = (y[:, 0] > 0).astype(np.int64)
    s = _two()
    with s.scope():
        model = _model(3)
        optimizer = fe.keras.optimizers.Adam(0.01)
        accuracy = fe.keras.metrics.SparseCategoricalAccuracy()
        loss_object = fe.keras.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                                    reduction="none")
        checkpoint = fe.train.Checkpoint(optimizer=optimizer, model=model)

    def train_step(inputs):
        xb, yb = inputs
        with fe.GradientTape() as tape:
            logits = fe.concat([model(xb), -model(xb)], axis=1)
            loss = fe.nn.compute_average_loss(loss_object(yb, logits))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                      model.trainable_variables))
        accuracy.update_state(yb, logits)
        return loss

    dataset = fe.data.Dataset.from_tensor_slices((x, labels)).batch(8)
    for batch in s.experimental_distribute_dataset(dataset):
        s.run(train_step, args=(batch,))
    assert float(accuracy.count.numpy()) == 16.0   # every replica's examples were counted
    path = checkpoint.save(os.path.join(str(tmp_path), "ckpt"))
    restored = _model(4)
    fe.train.Checkpoint(model=restored).restore(path).expect_partial()
    for a, b in zip(restored.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
