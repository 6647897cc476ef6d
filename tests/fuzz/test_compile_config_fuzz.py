"""Structure-aware mutation fuzzing of the compile state a saved model carries.

Valid files are written once (a ``.keras`` zip whose config.json holds Keras 3's
``compile_config``, and a ``.h5`` whose ``training_config`` attribute holds Keras's legacy
form), then the compile config is mutated: values replaced at random depths (wrong types,
negative or huge numbers, names of other known classes, names of modules and functions
that must never be imported or called, deep nesting), keys dropped or added, class names
swapped. ``load_model`` must raise a typed error or return a compiled model that
evaluates; cases run in a child with a timeout and a memory limit (``run_in_child``).
"""
import copy
import json
import os
import tempfile
import zipfile

import numpy as np
import pytest

from tests.fuzz import _support as S

X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
Y = np.ones((8, 2), np.float32)
NAMES = ["Adam", "SGD", "RMSprop", "Dense", "Sequential", "MeanSquaredError", "mse", "mae",
         "MeanAbsoluteError", "ExponentialDecay", "accuracy", "Popen", "system", "eval",
         "os.system", "__lambda__", "", "builtins.exec", "Mean", "Precision"]
_BASE = {}


def _base(kind):
    """(path of a valid saved model, its description JSON or training_config) per kind."""
    if kind not in _BASE:
        import fasteager as fe
        directory = tempfile.mkdtemp(prefix="fe_cc_fuzz_")
        m = fe.keras.Sequential([fe.keras.Input((3,)), fe.keras.layers.Dense(2)])
        sched = fe.keras.optimizers.schedules.ExponentialDecay(0.1, 3, 0.5)
        m.compile(optimizer=fe.keras.optimizers.SGD(sched, momentum=0.9),
                  loss=fe.keras.losses.MeanSquaredError(),
                  metrics=["mae", fe.keras.metrics.MeanAbsoluteError()],
                  weighted_metrics=["mse"])
        m.fit(X, Y, verbose=0)
        path = os.path.join(directory, "m" + kind)
        m.save(path)
        _BASE[kind] = path
    return _BASE[kind]


def _random_value(rng, depth=0):
    pick = rng.integers(0, 11)
    if pick == 0:
        return None
    if pick == 1:
        return bool(rng.integers(0, 2))
    if pick == 2:
        return int(rng.choice([-1, 0, 1, 2, 3, 2 ** 31, -(2 ** 63), 10 ** 30]))
    if pick == 3:
        return float(rng.choice([-1.0, 0.0, 1e-30, 1e308, 0.5]))
    if pick == 4:
        return str(rng.choice(NAMES))
    if pick == 5 and depth < 3:
        return [_random_value(rng, depth + 1) for _ in range(rng.integers(0, 4))]
    if pick == 6 and depth < 3:
        return {"class_name": str(rng.choice(NAMES)), "module": str(rng.choice(
            ["os", "subprocess", "fasteager.keras.optimizers.standard", "keras.losses"])),
            "config": _random_value(rng, depth + 1)}
    if pick == 7:
        v = []
        for _ in range(int(rng.integers(50, 400))):
            v = [v]
        return v
    if pick == 8 and depth < 3:
        return {str(rng.choice(NAMES)): _random_value(rng, depth + 1)}
    return "x" * int(rng.integers(0, 40))


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


def _mutate(config, rng):
    config = copy.deepcopy(config)
    for _ in range(int(rng.integers(1, 4))):
        paths = list(_paths(config))
        path = paths[int(rng.integers(0, len(paths)))]
        op = rng.integers(0, 4)
        if not path:
            if op == 0:
                return _random_value(rng)
            continue
        parent = config
        for p in path[:-1]:
            parent = parent[p]
        last = path[-1]
        if op == 0 and isinstance(parent, dict):
            del parent[last]
        elif op == 1 and isinstance(parent, dict):
            parent[str(rng.choice(NAMES))] = _random_value(rng)
        elif op == 2 and last == "class_name":
            parent[last] = str(rng.choice(NAMES))
        else:
            parent[last] = _random_value(rng)
    return config


def _check_loaded(path):
    import fasteager as fe
    from fasteager.keras._serialization import _RefusedError
    try:
        model = fe.keras.models.load_model(path)
    except _RefusedError:       # the allow-list's refusal (a TypeError subclass): expected
        return
    except (RecursionError, MemoryError) as e:
        raise AssertionError("load_model: %s (expected a typed error)" % type(e).__name__)
    if model.optimizer is not None:
        model.evaluate(X, Y, verbose=0)


def _keras_case(rng):
    base = _base(".keras")
    with zipfile.ZipFile(base) as z:
        desc = json.loads(z.read("config.json"))
        weights = z.read("model.weights.safetensors")
    desc["compile_config"] = _mutate(desc["compile_config"], rng)
    text = json.dumps(desc)

    def thunk():
        fd, path = tempfile.mkstemp(suffix=".keras")
        os.close(fd)
        try:
            with zipfile.ZipFile(path, "w") as z:
                z.writestr("config.json", text)
                z.writestr("model.weights.safetensors", weights)
            _check_loaded(path)
        finally:
            os.remove(path)
    return "compile_config %.300s" % json.dumps(desc["compile_config"]), thunk


def _h5_case(rng):
    import h5py
    base = _base(".h5")
    with h5py.File(base, "r") as f:
        training = json.loads(f.attrs["training_config"])
    text = json.dumps(_mutate(training, rng))

    def thunk():
        fd, path = tempfile.mkstemp(suffix=".h5")
        os.close(fd)
        try:
            with open(base, "rb") as src, open(path, "wb") as dst:
                dst.write(src.read())
            with h5py.File(path, "r+") as f:
                f.attrs["training_config"] = text
            _check_loaded(path)
        finally:
            os.remove(path)
    return "training_config %.300s" % text, thunk


CHILD_TARGETS = {"keras": _keras_case, "h5": _h5_case}


@pytest.mark.parametrize("target", sorted(CHILD_TARGETS))
def test_mutated_compile_config_loads_or_raises_typed(target):
    if target == "h5":
        pytest.importorskip("h5py")
    n = S.examples(80)
    assert S.run_in_child(__name__, target, 20261207, n, timeout=max(120, n // 5),
                          memory_mb=2048) == n
