"""The forward-mode benchmark workload (fasteager/bench/jvp_workloads.py) computes the
right JVP: checked against the program's JVP written out by hand in NumPy."""
import numpy as np

from fasteager.bench import jvp_workloads as jw


def test_jvp_workload_fasteager_entry_is_correct():
    params, x, v = jw._data(quick=True)
    out, tangent = jw.jvp_mlp.entries["fasteager"](True)()
    h, dh = x, v
    for w, b in params:
        h = np.tanh(h @ w + b)
        dh = (1 - h * h) * (dh @ w)
    np.testing.assert_allclose(out.numpy(), np.sum(h * h, axis=1), rtol=1e-12)
    np.testing.assert_allclose(tangent.numpy(), np.sum(2 * h * dh, axis=1), rtol=1e-10)
    assert set(jw.jvp_mlp.entries) == {"fasteager", "jax", "autograd"}
