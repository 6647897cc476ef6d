"""``fasteager.train`` sits below Keras and ``fe.distribute``: importing it (checkpoints,
readers, the global step) loads neither; the TF1 optimizers, built on the Keras optimizer
base, load Keras on first use and keep their public module, ``fasteager.train.legacy``.
Each check runs in a fresh interpreter (this test process has loaded everything)."""
import json
import pickle
import subprocess
import sys

import fasteager as fe
from tests.child_process import child_env


def _child(code):
    out = subprocess.run([sys.executable, "-c", code], env=child_env(), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_train_and_summary_loads_no_keras():
    got = _child("import json, sys\n"
                 "import fasteager.train, fasteager.summary, fasteager.data\n"
                 "fasteager.train.get_or_create_global_step()\n"
                 "print(json.dumps(['fasteager.keras' in sys.modules]))")
    assert got == [False]


def test_tf1_optimizers_load_keras_on_first_use():
    got = _child("import json, sys\n"
                 "import fasteager.train as t\n"
                 "before = 'fasteager.keras' in sys.modules\n"
                 "cls = t.GradientDescentOptimizer\n"
                 "print(json.dumps([before, 'fasteager.keras' in sys.modules,\n"
                 "                  cls.__module__, 'AdamOptimizer' in dir(t)]))")
    assert got == [False, True, "fasteager.train.legacy", True]


def test_tf1_optimizer_classes_keep_their_public_home():
    from fasteager.train.legacy import AdamOptimizer
    assert AdamOptimizer is fe.train.AdamOptimizer
    assert repr(fe.train.AdamOptimizer) == "<class 'fasteager.train.legacy.AdamOptimizer'>"
    assert pickle.loads(pickle.dumps(fe.train.MomentumOptimizer)) is fe.train.MomentumOptimizer
    assert issubclass(fe.train.AdamOptimizer, fe.train.Optimizer)
    assert issubclass(fe.train.Optimizer, fe.keras.optimizers.Optimizer)
    v = fe.Variable(1.0)
    fe.train.GradientDescentOptimizer(0.5).apply_gradients([(fe.constant(2.0), v)])
    assert float(v.numpy()) == 0.0


def test_unknown_train_attribute_is_an_attribute_error():
    try:
        fe.train.NoSuchOptimizer
    except AttributeError as e:
        assert "NoSuchOptimizer" in str(e)
    else:
        raise AssertionError("expected AttributeError")
