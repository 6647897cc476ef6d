"""The package module: ``import fasteager`` loads the core, the ops and the engine; Keras,
saved_model, distribute, CUDA and the benchmark suite load on first use, through the
root's module ``__getattr__`` (each check runs in a fresh interpreter, since this test
process has loaded everything already)."""
import json
import subprocess
import sys
import warnings

import pytest

import fasteager as fe
from tests.child_process import child_env

HEAVY = ["fasteager.keras", "fasteager.saved_model", "fasteager.distribute",
         "fasteager.cuda", "fasteager.bench"]


def _child(code):
    out = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_subsystem():
    loaded = _child("import json, sys, fasteager\n"
                    "print(json.dumps([m for m in %r if m in sys.modules]))" % (HEAVY,))
    assert loaded == []


def test_lazy_names_load_on_first_use_and_are_the_keras_modules():
    got = _child(
        "import json, sys, fasteager as fe\n"
        "k = fe.keras\n"
        "print(json.dumps([fe.keras.__name__, fe.layers is fe.keras.layers,\n"
        "  fe.losses is fe.keras.losses, fe.metrics is fe.keras.metrics,\n"
        "  fe.optimizers is fe.keras.optimizers,\n"
        "  fe.initializers is fe.keras.initializers,\n"
        "  fe.saved_model.__name__, fe.distribute.__name__,\n"
        "  'fasteager.keras' in sys.modules]))")
    assert got == ["fasteager.keras", True, True, True, True, True, "fasteager.saved_model",
                   "fasteager.distribute", True]


def test_dir_lists_the_lazy_names():
    names = dir(fe)
    for name in ("keras", "layers", "losses", "metrics", "optimizers", "initializers",
                 "saved_model", "distribute", "cuda", "bench", "function", "Variable"):
        assert name in names


def test_layers_is_the_2017_alias_of_keras_layers():
    assert fe.layers.Dense is fe.keras.layers.Dense


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        fe.no_such_name   # noqa: B018
    assert not hasattr(fe, "no_such_name")


def test_deprecated_paths_warn_and_return_the_new_module():
    import importlib
    for old, new in fe._DEPRECATED.items():
        if old in vars(fe):
            # the name is also a live public attribute (fe.function is the decorator)
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = getattr(fe, old)
        assert module is importlib.import_module(new)
        assert any(issubclass(w.category, DeprecationWarning) and old in str(w.message)
                   for w in caught), old
