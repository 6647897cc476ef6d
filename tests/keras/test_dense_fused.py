"""Keras Dense through the fused op (nn_ops.fused_matmul): same values and gradients as
the three separate ops, one tape record, the separate ops where the fusion does not
apply, and the same choice in every trace (a saved shape-generic function)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fasteager as fe
from fasteager.ops import nn_ops
from fasteager.keras.layers.core import cpu_fusable
from tests.child_process import child_env


def _dense(activation, units=5, use_bias=True, seed=0):
    fe.random.set_seed(seed)
    layer = fe.keras.layers.Dense(units, activation=activation, use_bias=use_bias)
    layer.build([None, 4])
    rng = np.random.default_rng(seed)
    layer.bias.assign(rng.standard_normal(units).astype(np.float32)) if use_bias else None
    return layer


def _separate(layer, x):
    y = fe.matmul(x, layer.kernel)
    if layer.use_bias:
        y = y + layer.bias
    return layer.activation(y)


@pytest.mark.parametrize("activation", [None, "linear", "relu"])
def test_values_and_gradients_match_the_separate_ops(activation):
    layer = _dense(activation)
    x = fe.constant(np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32))
    assert cpu_fusable(layer, x)
    assert_fused_matches_separate(layer, lambda v: _separate(layer, v), x, tol=1e-6)


def assert_fused_matches_separate(layer, separate, x, tol):
    """The layer (fused op) and ``separate`` (the separate ops) give the same output and
    the same gradients of sum(y * y) in x, the kernel and the bias."""
    results = []
    for run in (layer, separate):
        with fe.GradientTape() as tape:
            tape.watch(x)
            y = run(x)
            loss = fe.reduce_sum(y * y)
        results.append([y] + tape.gradient(loss, [x, layer.kernel, layer.bias]))
    for fused, apart in zip(*results):
        np.testing.assert_allclose(fused.numpy(), apart.numpy(), rtol=tol, atol=tol)


def test_one_tape_record_per_layer():
    layer = _dense("relu")
    x = fe.constant(np.ones((2, 4), np.float32))
    with fe.GradientTape() as tape:
        layer(x)
    assert tape._num_records == 1


def test_rank_3_input_is_flattened_and_restored():
    layer = _dense("relu")
    x = fe.constant(np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32))
    np.testing.assert_allclose(layer(x).numpy(), _separate(layer, x).numpy(), rtol=1e-6)
    assert layer(x).shape == (2, 3, 5)


@pytest.mark.parametrize("kwargs", [{"activation": "tanh"}, {"activation": "relu",
                                                              "use_bias": False}])
def test_other_activations_and_no_bias_use_the_separate_ops(kwargs):
    layer = _dense(**kwargs)
    x = fe.constant(np.ones((2, 4), np.float32))
    assert not cpu_fusable(layer, x)
    with fe.GradientTape() as tape:
        layer(x)
    assert tape._num_records > 1


def test_second_order_through_the_fused_gradient():
    # d/dW of (d loss / dx) . v, against the separate ops
    layer = _dense("linear")
    x = fe.constant(np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32))
    outs = []
    for run in (layer, lambda v: _separate(layer, v)):
        with fe.GradientTape() as outer:
            with fe.GradientTape() as inner:
                inner.watch(x)
                loss = fe.reduce_sum(fe.square(run(x)))
            gx = inner.gradient(loss, x)
            s = fe.reduce_sum(gx * gx)
        outs.append(outer.gradient(s, layer.kernel))
    np.testing.assert_allclose(outs[0].numpy(), outs[1].numpy(), rtol=1e-5, atol=1e-5)


def test_bad_shapes_name_the_op():
    x, w, b = (fe.constant(np.ones(s, np.float32)) for s in ((2, 4), (3, 5), (5,)))
    with pytest.raises(fe.errors.InvalidArgumentError, match="fused_matmul: shapes"):
        nn_ops.fused_matmul(x, w, b)
    with pytest.raises(fe.errors.InvalidArgumentError, match="activation"):
        nn_ops.fused_matmul(x, fe.constant(np.ones((4, 5), np.float32)), b, "gelu")


def test_saved_generic_function_in_a_fresh_process(tmp_path):
    # the first op of a process probes for a GPU: a Dense traced before that must still
    # choose the fused op, or the saved traces at two batch sizes differ
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import fasteager as tf

        class M(tf.Module):
            def __init__(self):
                super().__init__()
                self.d = tf.keras.layers.Dense(3, activation="relu")

            @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
            def __call__(self, x):
                return self.d(x)

        m = M()
        tf.saved_model.save(m, sys.argv[1])
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)
        loaded = tf.saved_model.load(sys.argv[1])
        print(float(tf.reduce_max(tf.abs(loaded(x) - m(x)))))
    """)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "m")],
                         capture_output=True, text=True, env=child_env(), timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout.strip().splitlines()[-1]) == 0.0
