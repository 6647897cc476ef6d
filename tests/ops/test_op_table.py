"""The shared op-table test: every op, forward vs NumPy and gradients vs finite differences."""
import numpy as np
import pytest

import fasteager as fe
from fasteager.ops.registry import NO_GRADIENT, OPS
from tests.gradcheck import check_grads
from tests.ops.op_specs import SPECS


def test_every_op_has_a_spec():
    missing = sorted(set(OPS) - set(SPECS))
    assert not missing, "ops without an entry in tests/ops/op_specs.py: %s" % missing
    unknown = sorted(set(SPECS) - set(OPS))
    assert not unknown, "specs for ops that do not exist: %s" % unknown


def test_no_gradient_list_matches_specs():
    for name, spec in SPECS.items():
        if not spec.grad:
            assert name in NO_GRADIENT or OPS[name].differentiable, name
    for name in NO_GRADIENT:
        assert not SPECS[name].grad, "%s has no gradient but its spec checks one" % name
        assert NO_GRADIENT[name], "%s needs a reason for having no gradient" % name


def _inputs(spec, shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        a = rng.standard_normal(s)
        if spec.domain is not None:
            a = spec.domain(a)
        out.append(np.asarray(a, dtype=dtype))
    return out


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


CASES = [(name, i) for name in sorted(SPECS) for i in range(len(SPECS[name].cases))]


@pytest.mark.parametrize("name,case", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_matches_numpy(name, case, dtype):
    spec = SPECS[name]
    if dtype not in spec.dtypes:
        pytest.skip("dtype not supported by this op")
    arrays = _inputs(spec, spec.cases[case], dtype)
    got = _as_list(spec.fn(*[fe.constant(a) for a in arrays]))
    want = _as_list(spec.ref(*arrays))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, fe.Tensor)
        w = np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        if w.dtype.kind == "f" and g.dtype.is_floating:
            # float32 stays float32 end to end
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
        rtol = spec.rtol or (1e-5 if dtype == np.float32 else 1e-10)
        np.testing.assert_allclose(np.asarray(g), w, rtol=rtol, atol=rtol)


GRAD_CASES = [(n, i) for n, i in CASES if SPECS[n].grad]


@pytest.mark.parametrize("name,case", GRAD_CASES)
def test_gradients_match_finite_differences(name, case):
    spec = SPECS[name]
    arrays = _inputs(spec, spec.cases[case], np.float64, seed=1)
    if any(a.size == 0 for a in arrays):
        # empty tensors: the gradient exists and has the input's shape
        ts = [fe.constant(a) for a in arrays]
        with fe.GradientTape() as tape:
            tape.watch(ts)
            ys = _as_list(spec.fn(*ts))
            y = fe.add_n([fe.reduce_sum(v) for v in ys])
        for t, g in zip(ts, tape.gradient(y, ts, unconnected_gradients="zero")):
            assert g.shape == t.shape
        return
    check_grads(spec.fn, arrays, order=spec.order)
