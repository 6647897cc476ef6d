"""Loading a SavedModel checks each graph before the first call (issue 31, items 3, 17
and 18): an op's name, number of inputs, outputs and attributes (names the op declares;
fasteager's dtypes; integers within int64; sizes bounded), the registers it reads, and
the names a file gives the loaded objects' attributes."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fasteager as tf
from tests.child_process import child_env
from tests.saved_model._files import read_description, write_copy

X_SEQ = np.linspace(-1, 1, 2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3)


class _Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(np.ones((3,), np.float32))
        self.rnn = tf.keras.layers.SimpleRNN(4)

    @tf.function(input_signature=[tf.TensorSpec([2, 5, 3], tf.float32)])
    def f(self, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(self.rnn(x * self.v))
        return y, tape.gradient(y, x), tf.cast(x, tf.int32)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    root = tmp_path_factory.mktemp("net")
    tf.saved_model.save(_Net(), str(root))
    return root


def _steps(desc):
    return desc["functions"]["f"]["traces"][0]["steps"]


def _step(desc, op):
    return next(s for s in _steps(desc) if s.get("op") == op)


def _rewritten(saved, tmp_path, change):
    desc = read_description(saved)
    change(desc)
    write_copy(saved, tmp_path, desc)
    return str(tmp_path)


def test_unchanged_file_loads_and_runs(saved):
    loaded = tf.saved_model.load(str(saved))
    y, dx, ints = loaded.f(X_SEQ)
    assert dx.shape == (2, 5, 3) and ints.dtype == tf.int32


# ---- item 3: a crafted backprop step --------------------------------------------------

_CRAFTED = textwrap.dedent("""
    import numpy as np, fasteager as tf
    loaded = tf.saved_model.load(%r)
    try:
        loaded.f(np.zeros((2, 5, 3), np.float32))
        print("no error")
    except tf.errors.InvalidArgumentError as e:
        print("InvalidArgumentError", e)
""")


def _crafted(desc):
    # the step: simple_rnn_backprop on six copies of the input register
    steps = _steps(desc)
    first = next(i for i, s in enumerate(steps) if s.get("op") == "simple_rnn_backprop")
    inp = desc["functions"]["f"]["traces"][0]["inputs"][0]
    steps[first] = {"op": "simple_rnn_backprop", "ins": [inp] * 6, "multi": True,
                    "out": steps[first]["out"], "attrs": {"__dict__": []}}


def test_crafted_backprop_step_is_an_error_not_a_crash(saved, tmp_path):
    directory = _rewritten(saved, tmp_path, _crafted)
    proc = subprocess.run([sys.executable, "-c", _CRAFTED % directory], capture_output=True,
                          text=True, timeout=120, env=child_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("InvalidArgumentError simple_rnn_backprop: "), proc.stdout


@pytest.mark.parametrize("change, error, words", [
    (lambda d: _step(d, "simple_rnn").update(op="no_such_op"), tf.errors.NotFoundError,
     "no_such_op"),
    (lambda d: _step(d, "simple_rnn")["ins"].pop(), tf.errors.DataLossError,
     "given 5 inputs"),
    (lambda d: _step(d, "simple_rnn_backprop").update(multi=False), tf.errors.DataLossError,
     "multi"),
    (lambda d: _step(d, "simple_rnn").update(ins=[999] * 6), tf.errors.DataLossError,
     "register 999"),
    (lambda d: _step(d, "simple_rnn")["attrs"]["__dict__"].append(["bogus", 1]),
     tf.errors.DataLossError, "no attribute 'bogus'"),
    (lambda d: _step(d, "simple_rnn")["attrs"]["__dict__"].append(["activation", 2 ** 70]),
     tf.errors.DataLossError, "int64"),
    (lambda d: _step(d, "reshape").update(
        attrs={"__dict__": [["shape", {"__tuple__": [2 ** 20, 2 ** 20]}]]}),
     tf.errors.DataLossError, "elements"),
    (lambda d: _step(d, "reshape").update(
        attrs={"__dict__": [["shape", {"__tuple__": [-5, 2]}]]}),
     tf.errors.DataLossError, "out of range"),
    (lambda d: _step(d, "simple_rnn").update(attrs={"__dict__": [["activation", {
        "__spec__": [[1], "float32", None]}]]}), tf.errors.DataLossError, "TensorSpec"),
])
def test_bad_steps_are_refused_at_load(saved, tmp_path, change, error, words):
    directory = _rewritten(saved, tmp_path, change)
    with pytest.raises(error, match=words):
        tf.saved_model.load(directory)


# ---- item 18: dtype attributes ---------------------------------------------------------

@pytest.mark.parametrize("dtype", ["<U5", "V8", "M8[s]", "S3", "|O", "<m8[D]"])
@pytest.mark.parametrize("form", ["npdtype", "string"])
def test_cast_to_a_dtype_fasteager_lacks_is_refused_at_load(saved, tmp_path, dtype, form):
    value = {"__npdtype__": dtype} if form == "npdtype" else dtype
    directory = _rewritten(saved, tmp_path, lambda d: _step(d, "cast").update(
        attrs={"__dict__": [["dtype", value]]}))
    with pytest.raises(tf.errors.DataLossError, match="op cast .*attribute dtype"):
        tf.saved_model.load(directory)


def test_cast_to_another_fasteager_dtype_loads(saved, tmp_path):
    directory = _rewritten(saved, tmp_path, lambda d: _step(d, "cast").update(
        attrs={"__dict__": [["dtype", {"__npdtype__": "<f8"}]]}))
    out = tf.saved_model.load(directory).f(X_SEQ)[2]
    assert out.dtype == tf.float64 and "float64" in repr(out)


# ---- item 17: names of the loaded objects' attributes ----------------------------------

_CLASS_NAMES = ["__class__", "__dict__", "variables", "trainable_variables", "name_scope",
                "__weakref__", "_flatten", "_saved_variable_lists", "signatures", "_name",
                "submodules", "__init__", "__getattr__"]


@pytest.mark.parametrize("name", _CLASS_NAMES)
def test_a_function_named_like_a_class_attribute_is_refused(saved, tmp_path, name):
    def change(d):
        d["functions"][name] = d["functions"].pop("f")
    with pytest.raises(tf.errors.DataLossError, match="uses itself"):
        tf.saved_model.load(_rewritten(saved, tmp_path, change))


@pytest.mark.parametrize("name", _CLASS_NAMES)
def test_an_object_path_through_a_class_attribute_is_refused(saved, tmp_path, name):
    def change(d):
        d["functions"][name + "/f"] = d["functions"].pop("f")
    with pytest.raises(tf.errors.DataLossError, match="uses itself"):
        tf.saved_model.load(_rewritten(saved, tmp_path, change))


@pytest.mark.parametrize("name", ["__class__", "variables", "name_scope", "_flatten"])
def test_a_variable_path_through_a_class_attribute_is_refused(saved, tmp_path, name):
    with pytest.raises(tf.errors.DataLossError, match="uses itself|no value"):
        tf.saved_model.load(_rewritten(saved, tmp_path, lambda d: d["variables"].append(
            "root/%s/v" % name)))


def test_a_function_named_like_a_variable_is_refused(saved, tmp_path):
    def change(d):
        d["functions"]["v"] = d["functions"].pop("f")
    with pytest.raises(tf.errors.DataLossError, match="'v' is saved twice"):
        tf.saved_model.load(_rewritten(saved, tmp_path, change))


def test_a_variable_listed_twice_is_refused(saved, tmp_path):
    with pytest.raises(tf.errors.DataLossError, match="saved twice"):
        tf.saved_model.load(_rewritten(saved, tmp_path, lambda d: d["variables"].append(
            "root/v")))


def test_a_key_given_twice_in_the_json_is_refused(saved, tmp_path):
    desc = read_description(saved)
    text = json.dumps(desc)
    f = json.dumps(desc["functions"]["f"])
    text = text.replace('"functions": {', '"functions": {"f": %s, ' % f, 1)
    write_copy(saved, tmp_path, desc)
    (tmp_path / "fasteager_saved_model.json").write_text(text)
    with pytest.raises(tf.errors.DataLossError, match="twice"):
        tf.saved_model.load(str(tmp_path))


def test_variables_of_the_loaded_object_still_work(saved):
    loaded = tf.saved_model.load(str(saved))
    assert {v.name for v in loaded.variables} >= {"v:0"} or len(loaded.variables) == 4
    assert callable(loaded.f)


def test_a_keras_models_call_function_still_loads(tmp_path):
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
    model(X_SEQ)
    tf.saved_model.save(model, str(tmp_path))
    loaded = tf.saved_model.load(str(tmp_path))
    np.testing.assert_allclose(loaded(X_SEQ).numpy(), model(X_SEQ).numpy(), rtol=1e-6)
    assert len(loaded.trainable_variables) == 2


def test_a_shape_generic_graphs_sizes_are_checked_at_each_call(tmp_path):
    # a reshape target that is a size polynomial: fine at the placeholder sizes checked at
    # load, beyond the bound at the call's batch size
    model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
    model(X_SEQ)
    tf.saved_model.save(model, str(tmp_path / "m"))
    desc = read_description(tmp_path / "m")
    graph = desc["functions"]["__call__"]["generic"]["graph"]
    step = next(s for s in graph["steps"] if s.get("op") == "reshape")
    step["attrs"] = {"__dict__": [["shape", {"__tuple__": [
        {"__sym__": [[2 ** 30, [0]]]}, 1]}]]}
    write_copy(tmp_path / "m", tmp_path, desc)
    loaded = tf.saved_model.load(str(tmp_path))
    with pytest.raises(tf.errors.DataLossError, match="op reshape .*attribute shape"):
        loaded(np.zeros((3, 5, 3), np.float32))
