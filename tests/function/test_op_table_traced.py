"""Every op of the table gives the same result traced (first call and replays) as eagerly,
on every case of its spec, and the same gradients (None where the eager one is None)."""
import numpy as np
import pytest

import fasteager as fe
from tests.ops.op_specs import SPECS
from tests.ops.test_op_table import CASES, GRAD_CASES, _as_list, _inputs


@pytest.mark.parametrize("name,case", CASES)
def test_traced_equals_eager(name, case):
    spec = SPECS[name]
    dtype = spec.dtypes[0]
    shapes = spec.cases[case]
    f = fe.function(spec.fn)
    for seed in (0, 1, 2):   # trace, then replays on new values of the same signature
        arrays = _inputs(spec, shapes, dtype, seed=seed)
        want = _as_list(spec.fn(*[fe.constant(a) for a in arrays]))
        got = _as_list(f(*[fe.constant(a) for a in arrays]))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name,case", GRAD_CASES)
def test_traced_gradient_equals_eager(name, case):
    spec = SPECS[name]
    dtype = spec.dtypes[-1]
    arrays = _inputs(spec, spec.cases[case], dtype)
    f = fe.function(spec.fn)

    def grads(fn):
        xs = [fe.constant(a) for a in arrays]
        with fe.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            y = fn(*xs)
            y = fe.add_n([fe.reduce_sum(t * t) for t in _as_list(y) if t.dtype.is_floating])
        return tape.gradient(y, xs)
    want = grads(spec.fn)
    for _ in range(2):   # first call traced inline, second replays (one node on the tape)
        got = grads(f)
        for i, (g, w) in enumerate(zip(got, want)):
            if w is None:
                assert g is None, "input %d: traced gradient where the eager one is None" % i
                continue
            assert g is not None, "input %d: no traced gradient" % i
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
