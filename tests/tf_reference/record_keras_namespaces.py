"""Record Keras 3.15.1's top-level names, keras.config, keras.random and keras.tree.

Run from the repository root with the TensorFlow venv:
    /work/tfenv/bin/python tests/tf_reference/record_keras_namespaces.py
"""
import collections
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402


def err(fn):
    try:
        fn()
    except Exception as e:      # the class and message Keras gives
        return [type(e).__name__, str(e)]
    return None


def top_level():
    out = {"version": keras.version(), "__version__": keras.__version__}
    out["aliases"] = {
        "Layer": keras.Layer is keras.layers.Layer, "Loss": keras.Loss is keras.losses.Loss,
        "Metric": keras.Metric is keras.metrics.Metric,
        "Optimizer": keras.Optimizer is keras.optimizers.Optimizer,
        "Initializer": keras.Initializer is keras.initializers.Initializer,
        "Regularizer": keras.Regularizer is keras.regularizers.Regularizer}
    keras.backend.clear_session()
    with keras.name_scope("foo"):
        v = keras.Variable(np.ones(2), name="v")
        d = keras.layers.Dense(2)
        d.build((None, 3))
        with keras.name_scope("bar"):
            w = keras.Variable(1.0, name="w")
        with keras.name_scope("foo"):           # deduplicated
            u = keras.Variable(2.0, name="u")
    o = keras.Variable(keras.initializers.Ones(), shape=(2,), name="o")
    out["variables"] = {
        "v": [v.path, v.name, str(v.dtype), v.trainable, v.numpy().tolist()],
        "kernel": [d.kernel.path, d.kernel.name, isinstance(d.kernel, keras.Variable)],
        "w": [w.path, w.name, str(w.dtype)], "u": [u.path],
        "o": [o.path, str(o.dtype), o.numpy().tolist()],
        "int": str(keras.Variable(3, name="i").dtype),
        "nontrainable": keras.Variable(1.0, trainable=False, name="n").trainable,
        "assign": np.asarray(o.assign([3.0, 4.0])).tolist(),
        "value": [np.asarray(o.value).tolist(), np.asarray(o.value * 2).tolist(),
                  list(o.value.shape), str(o.value.dtype.name)],
    }
    out["variable_errors"] = {
        "no_shape": err(lambda: keras.Variable(keras.initializers.Ones()))[0],
        "slash": err(lambda: keras.Variable(1.0, name="a/b"))[0],
    }
    return out


def config():
    c = keras.config
    out = {"defaults": {"floatx": c.floatx(), "epsilon": c.epsilon(),
                        "image_data_format": c.image_data_format(), "backend": c.backend(),
                        "is_nnx_enabled": c.is_nnx_enabled()}}
    out["errors"] = {"floatx": err(lambda: c.set_floatx("float8")),
                     "image_data_format": err(lambda: c.set_image_data_format("nchw"))}
    c.set_image_data_format("Channels_First")
    out["image_data_format_set"] = c.image_data_format()
    c.set_image_data_format("channels_last")
    # (in a fresh process: Keras caches its default dtype policy at the first layer)
    code = ("import keras; keras.config.set_floatx('float64'); d = keras.layers.Dense(2); "
            "d.build((None, 3)); v = keras.Variable(keras.initializers.Ones(), shape=(1,)); "
            "print(d.dtype, d.kernel.dtype, v.dtype)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    out["floatx_float64"] = res.stdout.split()
    c.set_epsilon(0.1)
    out["mape_eps_0.1"] = float(keras.losses.mean_absolute_percentage_error(
        [[0.0]], [[1.0]])[0])
    c.set_epsilon(1e-7)
    return out


def rand():
    r = keras.random
    out = {}

    def val(t):
        return [str(t.dtype), np.asarray(t).tolist()]
    out["normal"] = val(r.normal((2, 3), mean=1.0, stddev=2.0, seed=1))
    out["normal_f64"] = val(r.normal((2,), dtype="float64", seed=5))
    out["uniform"] = val(r.uniform((4,), minval=-1.0, maxval=3.0, seed=2))
    out["truncated_normal"] = val(r.truncated_normal((5,), seed=3))
    out["randint"] = val(r.randint((6,), 0, 10, seed=4))
    out["randint_i16"] = val(r.randint((3,), -5, 5, dtype="int16", seed=4))
    out["categorical"] = val(r.categorical([[0.0, 1.0, 2.0], [2.0, 0.0, -1.0]], 5, seed=6))
    out["shuffle"] = val(r.shuffle(np.arange(6.0).reshape(3, 2), axis=0, seed=7))
    out["dropout"] = val(r.dropout(np.ones((2, 4), np.float32), 0.5, seed=8))
    out["dropout_noise_shape"] = val(r.dropout(np.ones((2, 4), np.float32), 0.5,
                                               noise_shape=(None, 4), seed=8))
    out["binomial"] = val(r.binomial((4,), 5.0, 0.5, seed=9))
    g = r.SeedGenerator(42)
    out["seedgen"] = [val(r.normal((2,), seed=g)), val(r.normal((2,), seed=g)),
                      g.state.path, np.asarray(g.state.value).tolist(), g.get_config()]
    ga = r.gamma((20000,), 2.0, seed=1).numpy()
    gs = r.gamma((20000,), 0.5, seed=1).numpy()
    be = r.beta((20000,), 2.0, 5.0, seed=3).numpy()
    out["gamma_stats"] = [str(ga.dtype), float(ga.mean()), float(ga.var()),
                          float(gs.mean()), float(gs.var())]
    out["beta_stats"] = [str(be.dtype), float(be.mean()), float(be.var())]
    out["gamma_shape"] = list(r.gamma((2, 3), [1.0, 2.0, 3.0], dtype="float64", seed=4).shape)
    out["gamma_negative"] = np.isnan(r.gamma((3,), -1.0, seed=1).numpy()).tolist()
    out["seed_error"] = err(lambda: r.normal((2,), seed="x"))[0]
    out["seedgen_error"] = err(lambda: r.SeedGenerator(1.5))
    return out


def enc(x):
    """JSON form keeping node types: lists, tuples, dicts (key order kept), OrderedDicts."""
    if isinstance(x, collections.OrderedDict):
        return {"od": [[k, enc(v)] for k, v in x.items()]}
    if isinstance(x, dict):
        return {"d": [[k, enc(v)] for k, v in x.items()]}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"nt": [enc(v) for v in x]}
    if isinstance(x, tuple):
        return {"t": [enc(v) for v in x]}
    if isinstance(x, list):
        return {"l": [enc(v) for v in x]}
    return x


def tree_cases():
    """The structures (built the same way by the test) and Keras 3's results."""
    t = keras.tree
    Point = collections.namedtuple("Point", ["x", "y"])
    s = {"b": [1, None, (2, 3)], "a": 4, "c": Point(5, "s")}
    od = collections.OrderedDict([("b", 1), ("a", [2, None])])
    out = {
        "flatten": enc(t.flatten(s)), "flatten_od": enc(t.flatten(od)),
        "flatten_none": enc(t.flatten(None)), "flatten_leaf": enc(t.flatten("ab")),
        "flatten_with_path": [[list(p), v] for p, v in t.flatten_with_path(s)],
        "pack": enc(t.pack_sequence_as(s, list(range(7)))),
        "pack_od": enc(t.pack_sequence_as(od, ["x", "y", "z"])),
        "map": enc(t.map_structure(lambda a, b: [a, b], [1, (2,)], [3, (4,)])),
        "map_none_leaf": enc(t.map_structure(lambda a: a is None, [1, None])),
        "map_none_not_leaf": enc(t.map_structure(lambda a: a * 2, [1, None],
                                                 none_is_leaf=False)),
        "up_to": enc(t.map_structure_up_to([0, 0], lambda x: ["got", x], [[1, 2], (3,)])),
        "is_nested": [t.is_nested(v) for v in (None, [], (), {}, "ab", 1, Point(1, 2))],
        "lists_to_tuples": enc(t.lists_to_tuples([1, [2, {"a": [3]}]])),
        "traverse_td": enc(t.traverse(
            lambda x: "one" if isinstance(x, list) and len(x) == 1 else None, [1, [2], [3, 4]])),
        "traverse_bu": enc(t.traverse(
            lambda x: sum(x) if isinstance(x, list) else None, [1, [2, 3]], top_down=False)),
        "traverse_none": enc(t.traverse(
            lambda x: t.MAP_TO_NONE if x == 2 else None, [1, [2, 3]])),
        "shape": enc(t.map_shape_structure(lambda x: ["S", list(x)] if isinstance(x, tuple)
                                           else x, [(1, None), {"a": (3,)}])),
        "same_paths_ok": err(lambda: t.assert_same_paths({"a": 1}, {"a": [2]})),
    }
    out["errors"] = {
        "len": err(lambda: t.assert_same_structure([1, 2], [1]))[0],
        "type": err(lambda: t.assert_same_structure([1], (1,)))[0],
        "leaf_node": err(lambda: t.assert_same_structure([1], [[1]]))[0],
        "keys": err(lambda: t.assert_same_structure({"a": 1}, {"b": 1}))[0],
        "map": err(lambda: t.map_structure(lambda a, b: a, [1], [1, 2]))[0],
        "pack": err(lambda: t.pack_sequence_as([1, 2], [1]))[0],
        "pack_many": err(lambda: t.pack_sequence_as([1, 2], [1, 2, 3]))[0],
        "paths": err(lambda: t.assert_same_paths({"a": 1}, {"b": 1}))[0],
        "ok": err(lambda: t.assert_same_structure([1, (None, {"a": 2})], [5, (6, {"a": 7})])),
    }
    return out


save("keras_namespaces", {"top_level": top_level(), "config": config(), "random": rand(),
                          "tree": tree_cases()})
