"""Mutation fuzzing of saved SavedModels: the JSON description (every field: graphs,
steps, attributes, size polynomials, custom gradients, signatures, symbols, variable
lists) and the constants file. Loading a mutated SavedModel, then calling and
differentiating what it holds, either works or raises one of fasteager's typed errors
(or the TypeError/ValueError a call with the wrong arguments gets), never another
exception."""
import os
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fasteager as tf
from tests.saved_model._files import mutate, read_description, write_copy

X_SEQ = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 3, 2)
X_VEC = np.array([0.5, -1.0, 2.0], np.float32)


@tf.custom_gradient
def _clip(x):
    def grad(dy):
        return tf.clip_by_value(dy, -0.1, 0.1)
    return tf.identity(x), grad


class _Module(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([1.0, 2.0, 3.0])

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(self, x):
        return {"y": tf.reduce_sum(_clip(x * self.v[0]) ** 2), "n": tf.shape(x) + 1}

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def nudge(self, d):
        self.v.assign_add(d)
        return self.v * 2.0


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    root = tmp_path_factory.mktemp("saved")
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
    model(X_SEQ)
    tf.saved_model.save(model, str(root / "keras"))
    module = _Module()
    tf.saved_model.save(module, str(root / "module"), signatures=module.f)
    return root


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.just(2 ** 40), st.floats(-4, 4),
    st.sampled_from(["", "add", "reshape", "root/v", "output_0", "x", "__sym__"]),
    st.just([]), st.just({}), st.just([[1, [0]]]), st.just({"__sym__": [[1, [7]]]}),
    st.just({"__tuple__": 5}), st.just({"__array__": [[1], 2], "dtype": "<f4"}),
    st.just({"__spec__": [[-1], "float32", None]}), st.just({"leaf": 99}),
    st.just({"reg": 10 ** 6}), st.lists(st.integers(-2, 6), max_size=3))

_OK_MESSAGES = ("fe.function", "signature", "saved_model")


def _exercise(directory, which):
    loaded = tf.saved_model.load(directory)
    # a mutation may drop a function or signature: what is left is called
    signature = loaded.signatures.get("serving_default")
    if which == "keras":
        x = tf.constant(X_SEQ)
        if "__call__" in loaded.__dict__:
            loaded(x)
            with tf.GradientTape() as tape:
                y = loaded(x)
            if isinstance(y, tf.Tensor):
                tape.gradient(tf.reduce_sum(y), loaded.trainable_variables)
        if signature is not None:
            signature(inputs=x)
    else:
        x = tf.constant(X_VEC)
        if "f" in loaded.__dict__:
            with tf.GradientTape() as tape:
                tape.watch(x)
                out = loaded.f(x)
                y = out.get("y") if isinstance(out, dict) else None
            if isinstance(y, tf.Tensor) and isinstance(loaded.__dict__.get("v"), tf.Variable):
                tape.gradient(y, [x, loaded.v])
        if signature is not None:
            signature(x=x)
        if "nudge" in loaded.__dict__:
            loaded.nudge(tf.constant(X_VEC))


def _check(directory, which):
    try:
        _exercise(directory, which)
    except tf.errors.OpError:
        pass
    except (TypeError, ValueError) as e:
        if not str(e).startswith(_OK_MESSAGES):
            raise


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), which=st.sampled_from(["keras", "module"]))
def test_mutated_description(saved, tmp_path_factory, data, which):
    src = saved / which
    desc = read_description(src)
    path = data.draw(st.sampled_from([p for p in _paths(desc) if p]))
    mutate(desc, path, data.draw(_VALUES), data.draw(st.booleans()))
    dst = tmp_path_factory.mktemp("mutated")
    write_copy(src, dst, desc)
    _check(str(dst), which)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), which=st.sampled_from(["keras", "module"]))
def test_mutated_constants_file(saved, tmp_path_factory, data, which):
    src = saved / which
    raw = bytearray((src / "constants.safetensors").read_bytes())
    if data.draw(st.booleans()):
        raw = raw[:data.draw(st.integers(0, len(raw) - 1))]
    else:
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    dst = tmp_path_factory.mktemp("mutated_constants")
    for name in os.listdir(src):
        shutil.copy(src / name, dst / name)
    (dst / "constants.safetensors").write_bytes(bytes(raw))
    _check(str(dst), which)


def test_unmutated_files_work(saved):
    _exercise(str(saved / "keras"), "keras")
    _exercise(str(saved / "module"), "module")
