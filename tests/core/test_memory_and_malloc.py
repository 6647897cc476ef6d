"""The memory target (DESIGN.md): a training loop's peak RSS grows by < 5 MB after step
100; and the malloc settings fasteager applies at import (``_malloc``), with their
opt-outs."""
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

import fasteager as fe
from fasteager import _malloc


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB on Linux")
def test_training_loop_peak_memory_is_flat_after_warm_up():
    fe.random.set_seed(0)
    model = fe.keras.Sequential([fe.keras.layers.Dense(128, activation="relu"),
                                 fe.keras.layers.Dense(10)])
    opt = fe.keras.optimizers.Adam(1e-3)
    rng = np.random.default_rng(0)
    x = fe.constant(rng.random((32, 784), dtype=np.float32))
    y = fe.constant(rng.integers(0, 10, 32))
    for step in range(1, 2001):
        with fe.GradientTape() as tape:
            loss = fe.reduce_mean(fe.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if step == 100:
            after_warm_up = peak_rss_mb()
    assert peak_rss_mb() - after_warm_up < 5.0


def _tuned_in_subprocess(**env):
    code = "import fasteager._malloc as m, fasteager; print(m.tuned)"
    full = dict(os.environ, **env)
    for name in ("FASTEAGER_MALLOC_TUNING",) + _malloc._USER_SETTINGS:
        if name not in env:
            full.pop(name, None)
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_malloc_settings_and_opt_outs():
    import ctypes
    try:
        ctypes.CDLL(None).gnu_get_libc_version
    except AttributeError:
        pytest.skip("not glibc")
    assert _tuned_in_subprocess() == "True"
    assert _tuned_in_subprocess(FASTEAGER_MALLOC_TUNING="0") == "False"
    assert _tuned_in_subprocess(MALLOC_TRIM_THRESHOLD_="1000000") == "False"
    assert _tuned_in_subprocess(GLIBC_TUNABLES="glibc.malloc.trim_threshold=1000000") == "False"
