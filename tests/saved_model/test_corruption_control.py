"""Mutation fuzzing of the control steps of a saved function (fe.cond, fe.while_loop, one
nested in the other): every field of a control step and of its sub-graphs is replaced or
dropped, one per example. Loading, calling (both branches) and differentiating what is
left either works or raises one of fasteager's typed errors, never another exception; a
malformed control step is refused when the file loads. Every loop of the saved function
has maximum_iterations, so a mutated condition cannot make a call run forever (a loop
runs as long as its graph says)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fasteager as tf
from tests.saved_model import test_corruption as base
from tests.saved_model._files import mutate, read_description, write_copy

X = np.array([0.5, -1.0, 2.0], np.float32)


class _Looping(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([1.0, 2.0, 3.0])
        self.steps = tf.Variable(0)

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def f(self, x):
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * self.v, lambda: tf.tanh(x) - 1.0)

        def body(i, s):
            s = tf.cond(i > 1, lambda: s * 0.5 + y, lambda: s + self.v)
            return i + 1, s
        i, s = tf.while_loop(lambda i, s: i < 3, body, (0, y), maximum_iterations=8)
        self.steps.assign_add(i)
        return tf.reduce_sum(s * s)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    root = tmp_path_factory.mktemp("saved_control")
    tf.saved_model.save(_Looping(), str(root / "looping"))
    return root / "looping"


def _control_paths(desc):
    """Paths into the description that go through a control step."""
    out = []
    for path in base._paths(desc):
        node = desc
        inside = False
        for p in path:
            if isinstance(node, dict) and "control" in node:
                inside = True
            node = node[p]
        if inside or isinstance(node, dict) and "control" in node:
            out.append(path)
    return out


def _loop_step(desc):
    return next(s for s in desc["functions"]["f"]["traces"][0]["steps"]
                if s.get("control") == "while_loop")


def _exercise(directory):
    loaded = tf.saved_model.load(directory)
    if "f" not in loaded.__dict__:
        return
    for x in (X, -X):
        x = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = loaded.f(x)
        if isinstance(y, tf.Tensor) and isinstance(loaded.__dict__.get("v"), tf.Variable):
            tape.gradient(y, [x, loaded.v])


def _check(directory):
    try:
        _exercise(directory)
    except tf.errors.OpError:
        pass
    except (TypeError, ValueError) as e:
        if not str(e).startswith(base._OK_MESSAGES):
            raise


def test_unmutated_file_works_and_has_control_steps(saved):
    assert len(_control_paths(read_description(saved))) > 100
    loaded = tf.saved_model.load(str(saved))
    original = _Looping()
    for x in (X, -X):
        np.testing.assert_allclose(loaded.f(tf.constant(x)).numpy(),
                                   original.f(tf.constant(x)).numpy(), rtol=1e-6)


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_control_steps(saved, tmp_path_factory, data):
    desc = read_description(saved)
    path = data.draw(st.sampled_from(_control_paths(desc)))
    mutate(desc, path, data.draw(base._VALUES), data.draw(st.booleans()))
    dst = tmp_path_factory.mktemp("mutated_control")
    write_copy(saved, dst, desc)
    _check(str(dst))


@pytest.mark.parametrize("field, value, match", [
    ("control", "switch", "unknown control step"),
    ("graphs", [], "does not have two graphs"),
    ("loop_vars", 0, "bad loop_vars"),
    ("loop_vars", 3, "do not match its graphs"),
    ("maximum_iterations", -1, "maximum_iterations"),
    ("ins", [0], "do not match its graphs"),
])
def test_malformed_control_steps_are_refused_at_load(saved, tmp_path, field, value, match):
    desc = read_description(saved)
    _loop_step(desc)[field] = value
    write_copy(saved, tmp_path, desc)
    with pytest.raises(tf.errors.DataLossError, match=match):
        tf.saved_model.load(str(tmp_path))


def test_a_loop_runs_as_long_as_its_graph_says(saved, tmp_path):
    """A mutated maximum_iterations bounds the loop where the file says."""
    desc = read_description(saved)
    _loop_step(desc)["maximum_iterations"] = 1
    write_copy(saved, tmp_path, desc)
    loaded = tf.saved_model.load(str(tmp_path))
    loaded.f(tf.constant(X))
    assert int(loaded.steps.numpy()) == 1
