"""fe.keras's top-level names, keras.config, keras.random and keras.tree against values
recorded from Keras 3.15.1 (tests/tf_reference/record_keras_namespaces.py)."""
import numpy as np
import pytest

import fasteager as fe
from fasteager import keras
from tests.tf_reference import load

REF = load("keras_namespaces")


# ---- top-level names --------------------------------------------------------------------
def test_top_level_aliases_are_the_submodules_classes():
    ref = REF["top_level"]
    assert keras.version() == ref["version"] and keras.__version__ == ref["__version__"]
    pairs = {"Layer": keras.layers.Layer, "Loss": keras.losses.Loss,
             "Metric": keras.metrics.Metric, "Optimizer": keras.optimizers.Optimizer,
             "Initializer": keras.initializers.Initializer,
             "Regularizer": keras.regularizers.Regularizer}
    for name, obj in pairs.items():
        assert (getattr(keras, name) is obj) == ref["aliases"][name], name
    assert keras.KerasTensor is keras.layers.KerasTensor


def test_variable_and_name_scope_as_keras():
    ref = REF["top_level"]["variables"]
    keras.backend.clear_session()
    with keras.name_scope("foo"):
        v = keras.Variable(np.ones(2), name="v")
        d = keras.layers.Dense(2)
        d.build((None, 3))
        with keras.name_scope("bar"):
            w = keras.Variable(1.0, name="w")
        with keras.name_scope("foo"):
            u = keras.Variable(2.0, name="u")
    o = keras.Variable(keras.initializers.Ones(), shape=(2,), name="o")
    assert [v.path, v.name, v.dtype.name, v.trainable, v.numpy().tolist()] == ref["v"]
    assert [d.kernel.path, d.kernel.name, isinstance(d.kernel, keras.Variable)] \
        == ref["kernel"]
    assert [w.path, w.name, w.dtype.name] == ref["w"]
    assert [u.path] == ref["u"]
    assert [o.path, o.dtype.name, o.numpy().tolist()] == ref["o"]
    assert keras.Variable(3, name="i").dtype.name == ref["int"]
    assert keras.Variable(1.0, trainable=False, name="n").trainable == ref["nontrainable"]
    assert np.asarray(o.assign([3.0, 4.0])).tolist() == ref["assign"]
    assert [np.asarray(o.value).tolist(), np.asarray(o.value * 2).tolist(),
            list(o.value.shape), o.value.dtype.name] == ref["value"]
    # outside any keras.name_scope the path is the name again
    assert keras.Variable(1.0, name="plain").path == "plain"


def test_variable_errors():
    ref = REF["top_level"]["variable_errors"]
    with pytest.raises(ValueError, match="shape") as e:
        keras.Variable(keras.initializers.Ones())
    assert type(e.value).__name__ == ref["no_shape"]
    with pytest.raises(ValueError):
        keras.Variable(1.0, name="a/b")
    assert ref["slash"] == "ValueError"
    with pytest.raises(ValueError, match="shape"):
        keras.Variable(np.ones(3), shape=(2,))


def test_name_scope_deduplicates_only_for_the_same_caller():
    owner = object()
    with keras.name_scope("blk", caller=owner):
        with keras.name_scope("blk", caller=owner):
            v = keras.Variable(1.0, name="x")
    assert v.path == "blk/x"


def test_device_places_ops():
    with keras.device("cpu:0"):
        x = fe.ones(2)
    assert "CPU:0" in x.device


# ---- keras.config -------------------------------------------------------------------------
def test_config_defaults_and_errors():
    ref = REF["config"]
    c = keras.config
    got = {"floatx": c.floatx(), "epsilon": c.epsilon(),
           "image_data_format": c.image_data_format(), "backend": c.backend(),
           "is_nnx_enabled": c.is_nnx_enabled()}
    assert got == ref["defaults"]
    with pytest.raises(ValueError) as e:
        c.set_floatx("float8")
    # (the accepted set prints in hash order: compare the start)
    assert str(e.value).split(" Expected")[0] == ref["errors"]["floatx"][1].split(" Expected")[0]
    with pytest.raises(ValueError) as e:
        c.set_image_data_format("nchw")
    assert str(e.value) == ref["errors"]["image_data_format"][1]
    assert c.floatx() == "float32" and c.image_data_format() == "channels_last"


def test_config_setters_reach_layers_losses_and_utilities():
    ref = REF["config"]
    c = keras.config
    assert c.floatx is keras.backend.floatx and c.set_epsilon is keras.backend.set_epsilon
    try:
        c.set_image_data_format("Channels_First")
        assert c.image_data_format() == ref["image_data_format_set"]
        from fasteager.keras import _image_utils
        assert _image_utils.standardize_data_format(None) == "channels_first"
    finally:
        c.set_image_data_format("channels_last")
    try:
        c.set_floatx("float64")
        d = keras.layers.Dense(2)
        d.build((None, 3))
        v = keras.Variable(keras.initializers.Ones(), shape=(1,))
        assert [d.dtype, d.kernel.dtype.name, v.dtype.name] == ref["floatx_float64"]
    finally:
        c.set_floatx("float32")
    try:
        c.set_epsilon(0.1)
        got = float(keras.losses.mean_absolute_percentage_error([[0.0]], [[1.0]])[0])
    finally:
        c.set_epsilon(1e-7)
    np.testing.assert_allclose(got, ref["mape_eps_0.1"], rtol=1e-6)


def test_enable_unsafe_deserialization_lifts_the_lambda_refusal():
    from fasteager.keras import _serialization
    assert _serialization.in_safe_mode()
    try:
        keras.config.enable_unsafe_deserialization()
        assert not _serialization.in_safe_mode()
    finally:
        _serialization._UNSAFE[0] = False


# ---- keras.random -------------------------------------------------------------------------
# fasteager's stateless ops give TensorFlow's values, so seeded draws equal Keras 3's.
def _val(t):
    return [str(t.dtype), np.asarray(t).tolist()]


def _close(got, want):
    assert got[0] == want[0]
    np.testing.assert_allclose(np.asarray(got[1], np.float64), np.asarray(want[1], np.float64),
                               rtol=1e-6, atol=1e-7)


def test_random_seeded_values_equal_keras():
    ref = REF["random"]
    r = keras.random
    _close(_val(r.normal((2, 3), mean=1.0, stddev=2.0, seed=1)), ref["normal"])
    _close(_val(r.normal((2,), dtype="float64", seed=5)), ref["normal_f64"])
    _close(_val(r.uniform((4,), minval=-1.0, maxval=3.0, seed=2)), ref["uniform"])
    _close(_val(r.truncated_normal((5,), seed=3)), ref["truncated_normal"])
    assert _val(r.randint((6,), 0, 10, seed=4)) == ref["randint"]
    assert _val(r.randint((3,), -5, 5, dtype="int16", seed=4)) == ref["randint_i16"]
    assert _val(r.categorical([[0.0, 1.0, 2.0], [2.0, 0.0, -1.0]], 5, seed=6)) \
        == ref["categorical"]
    _close(_val(r.shuffle(np.arange(6.0).reshape(3, 2), axis=0, seed=7)), ref["shuffle"])
    _close(_val(r.dropout(np.ones((2, 4), np.float32), 0.5, seed=8)), ref["dropout"])
    _close(_val(r.dropout(np.ones((2, 4), np.float32), 0.5, noise_shape=(None, 4), seed=8)),
           ref["dropout_noise_shape"])
    _close(_val(r.binomial((4,), 5.0, 0.5, seed=9)), ref["binomial"])
    # an int seed repeats
    np.testing.assert_array_equal(r.normal((3,), seed=11).numpy(), r.normal((3,), seed=11).numpy())


def test_seed_generator_advances_as_keras():
    ref = REF["random"]["seedgen"]
    keras.backend.clear_session()
    g = keras.random.SeedGenerator(42)
    _close(_val(keras.random.normal((2,), seed=g)), ref[0])
    _close(_val(keras.random.normal((2,), seed=g)), ref[1])
    assert g.state.path == ref[2] and g.state.numpy().tolist() == ref[3]
    assert g.get_config() == ref[4]
    g2 = keras.random.SeedGenerator.from_config(g.get_config())
    np.testing.assert_array_equal(keras.random.normal((2,), seed=g2).numpy(), ref[0][1])


def test_random_unseeded_and_errors():
    ref = REF["random"]
    a = keras.random.normal((1000,))
    b = keras.random.normal((1000,))
    assert a.dtype == fe.float32 and tuple(a.shape) == (1000,)
    assert not np.array_equal(a.numpy(), b.numpy())
    assert abs(float(np.mean(a.numpy()))) < 0.2 and abs(float(np.std(a.numpy())) - 1) < 0.1
    with pytest.raises(ValueError):
        keras.random.normal((2,), seed="x")
    assert ref["seed_error"] == "ValueError"
    with pytest.raises(ValueError) as e:
        keras.random.SeedGenerator(1.5)
    assert str(e.value) == ref["seedgen_error"][1]
    np.testing.assert_array_equal(keras.random.dropout(np.ones(3, np.float32), 0.0).numpy(),
                                  np.ones(3))
    np.testing.assert_array_equal(keras.random.dropout(np.ones(3, np.float32), 1.0).numpy(),
                                  np.zeros(3))


# ---- keras.tree ---------------------------------------------------------------------------
def _enc(x):
    """The recorder's JSON form (node types and key order kept)."""
    import collections
    if isinstance(x, collections.OrderedDict):
        return {"od": [[k, _enc(v)] for k, v in x.items()]}
    if isinstance(x, dict):
        return {"d": [[k, _enc(v)] for k, v in x.items()]}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"nt": [_enc(v) for v in x]}
    if isinstance(x, tuple):
        return {"t": [_enc(v) for v in x]}
    if isinstance(x, list):
        return {"l": [_enc(v) for v in x]}
    return x


def _err(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


def test_tree_as_keras():
    import collections
    ref = REF["tree"]
    t = keras.tree
    Point = collections.namedtuple("Point", ["x", "y"])
    s = {"b": [1, None, (2, 3)], "a": 4, "c": Point(5, "s")}
    od = collections.OrderedDict([("b", 1), ("a", [2, None])])
    got = {
        "flatten": _enc(t.flatten(s)), "flatten_od": _enc(t.flatten(od)),
        "flatten_none": _enc(t.flatten(None)), "flatten_leaf": _enc(t.flatten("ab")),
        "flatten_with_path": [[list(p), v] for p, v in t.flatten_with_path(s)],
        "pack": _enc(t.pack_sequence_as(s, list(range(7)))),
        "pack_od": _enc(t.pack_sequence_as(od, ["x", "y", "z"])),
        "map": _enc(t.map_structure(lambda a, b: [a, b], [1, (2,)], [3, (4,)])),
        "map_none_leaf": _enc(t.map_structure(lambda a: a is None, [1, None])),
        "map_none_not_leaf": _enc(t.map_structure(lambda a: a * 2, [1, None],
                                                  none_is_leaf=False)),
        "up_to": _enc(t.map_structure_up_to([0, 0], lambda x: ["got", x], [[1, 2], (3,)])),
        "is_nested": [t.is_nested(v) for v in (None, [], (), {}, "ab", 1, Point(1, 2))],
        "lists_to_tuples": _enc(t.lists_to_tuples([1, [2, {"a": [3]}]])),
        "traverse_td": _enc(t.traverse(
            lambda x: "one" if isinstance(x, list) and len(x) == 1 else None, [1, [2], [3, 4]])),
        "traverse_bu": _enc(t.traverse(
            lambda x: sum(x) if isinstance(x, list) else None, [1, [2, 3]], top_down=False)),
        "traverse_none": _enc(t.traverse(
            lambda x: t.MAP_TO_NONE if x == 2 else None, [1, [2, 3]])),
        "shape": _enc(t.map_shape_structure(lambda x: ["S", list(x)] if isinstance(x, tuple)
                                            else x, [(1, None), {"a": (3,)}])),
        "same_paths_ok": _err(lambda: t.assert_same_paths({"a": 1}, {"a": [2]})),
    }
    for key, value in got.items():
        assert value == ref[key], key


def test_tree_mismatches_are_value_errors():
    ref = REF["tree"]["errors"]
    t = keras.tree
    got = {
        "len": _err(lambda: t.assert_same_structure([1, 2], [1])),
        "type": _err(lambda: t.assert_same_structure([1], (1,))),
        "leaf_node": _err(lambda: t.assert_same_structure([1], [[1]])),
        "keys": _err(lambda: t.assert_same_structure({"a": 1}, {"b": 1})),
        "map": _err(lambda: t.map_structure(lambda a, b: a, [1], [1, 2])),
        "pack": _err(lambda: t.pack_sequence_as([1, 2], [1])),
        "pack_many": _err(lambda: t.pack_sequence_as([1, 2], [1, 2, 3])),
        "paths": _err(lambda: t.assert_same_paths({"a": 1}, {"b": 1})),
        "ok": _err(lambda: t.assert_same_structure([1, (None, {"a": 2})], [5, (6, {"a": 7})])),
    }
    for key, value in got.items():
        assert (value[0] if value else value) == ref[key], key


def test_gamma_and_beta_distributions_match_keras():
    # (TensorFlow's gamma sampler differs: compare dtype, shape and moments, 20000 draws)
    ref = REF["random"]
    r = keras.random
    ga = r.gamma((20000,), 2.0, seed=1).numpy()
    gs = r.gamma((20000,), 0.5, seed=1).numpy()
    be = r.beta((20000,), 2.0, 5.0, seed=3).numpy()
    assert str(ga.dtype) == ref["gamma_stats"][0] and str(be.dtype) == ref["beta_stats"][0]
    np.testing.assert_allclose([ga.mean(), ga.var(), gs.mean(), gs.var()],
                               ref["gamma_stats"][1:], rtol=0.08)
    np.testing.assert_allclose([be.mean(), be.var()], ref["beta_stats"][1:], rtol=0.08)
    assert list(r.gamma((2, 3), [1.0, 2.0, 3.0], dtype="float64", seed=4).shape) \
        == ref["gamma_shape"]
    assert np.isnan(r.gamma((3,), -1.0, seed=1).numpy()).tolist() == ref["gamma_negative"]
    np.testing.assert_array_equal(r.gamma((5,), 3.0, seed=4).numpy(),
                                  r.gamma((5,), 3.0, seed=4).numpy())
    g = r.SeedGenerator(3)
    assert not np.array_equal(r.beta((5,), 1.0, 1.0, seed=g).numpy(),
                              r.beta((5,), 1.0, 1.0, seed=g).numpy())
